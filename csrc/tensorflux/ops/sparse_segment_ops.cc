// SparseSegmentSum, SparseSegmentMean and SparseSegmentSqrtN (signatures identical to
// TensorFlow's): the segment reductions of data[indices], with one sorted segment id per index.
#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/array_util.h"

namespace tx {
namespace {

// data [n, ...], indices [k], segment_ids [k] -> [num_segments, ...] (ids[-1] + 1 when constant).
Status SparseSegmentShape(InferenceContext* c) {
  PartialShape data, indices, ids;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, "Input 'data'", &data));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "Input 'indices'", &indices));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, "Input 'segment_ids'", &ids));
  if (indices.dim(0) >= 0 && ids.dim(0) >= 0 && indices.dim(0) != ids.dim(0))
    return InvalidArgument("segment_ids and indices should have same size: ", ids.dim(0), " vs. ", indices.dim(0));
  int64_t segments = -1;
  if (const Tensor* t = c->input_tensor(2)) {
    std::vector<int64_t> values;
    TX_RETURN_IF_ERROR(array_util::ReadInts(*t, "segment_ids", &values));
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] < 0) return InvalidArgument("segment ids must be >= 0, got ", values[i]);
      if (i > 0 && values[i] < values[i - 1])
        return InvalidArgument("segment ids are not increasing: ", values[i], " follows ", values[i - 1]);
    }
    segments = values.empty() ? 0 : values.back() + 1;
  }
  if (!data.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> dims = data.dims();
  dims[0] = segments;
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

OpDefBuilder SparseSegment(const char* name, const char* types, const char* summary) {
  return OpDefBuilder(name)
      .Input("data: T")
      .Input("indices: Tidx")
      .Input("segment_ids: Tsegmentids")
      .Output("output: T")
      .Attr(std::string("T: {") + types + "}")
      .Attr("Tidx: {int32, int64} = DT_INT32")
      .Attr("Tsegmentids: {int32, int64} = DT_INT32")
      .Attr("sparse_gradient: bool = false")
      .SetShapeFn(SparseSegmentShape)
      .Summary(summary);
}

}  // namespace

TX_REGISTER_OP_FROM(SparseSegment("SparseSegmentSum",
                                  "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
                                  "uint64",
                                  "Sums the rows data[indices[k]] with segment id s into output row s (empty: 0)."));
TX_REGISTER_OP_FROM(SparseSegment("SparseSegmentMean", "bfloat16, half, float, double",
                                  "Averages the rows data[indices[k]] with segment id s (empty: 0)."));
TX_REGISTER_OP_FROM(SparseSegment("SparseSegmentSqrtN", "bfloat16, half, float, double",
                                  "Sums the rows data[indices[k]] with segment id s over sqrt(count) (empty: 0)."));

}  // namespace tx

// Sorted segment reductions (signatures identical to TensorFlow's): SegmentSum, SegmentMean,
// SegmentMax, SegmentMin, SegmentProd. segment_ids is 1-D, non-negative and non-decreasing, one
// id per row of data; output row s reduces the rows with id s (ids[-1] + 1 rows in all).
#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/array_util.h"

namespace tx {
namespace {

// data [n, ...], segment_ids [n] -> [num_segments, ...]; num_segments is ids[-1] + 1 when the ids
// are a constant, else unknown.
Status SegmentShape(InferenceContext* c) {
  PartialShape data, ids;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, "Input 'data'", &data));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "Input 'segment_ids'", &ids));
  if (data.known_rank() && data.dim(0) >= 0 && ids.dim(0) >= 0 && data.dim(0) != ids.dim(0))
    return InvalidArgument("segment_ids should be the same size as dimension 0 of data: ", ids.dim(0), " vs. ",
                           data.dim(0));
  int64_t segments = -1;
  if (const Tensor* t = c->input_tensor(1)) {
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

OpDefBuilder Segment(const char* name, const char* types, const char* summary) {
  return OpDefBuilder(name)
      .Input("data: T")
      .Input("segment_ids: Tindices")
      .Output("output: T")
      .Attr(std::string("T: ") + types)
      .Attr("Tindices: {int32, int64}")
      .SetShapeFn(SegmentShape)
      .Summary(summary);
}

}  // namespace

TX_REGISTER_OP_FROM(Segment("SegmentSum", "numbertype", "Sums the rows of data in each segment (empty: 0)."));
TX_REGISTER_OP_FROM(Segment("SegmentMean", "numbertype", "Averages the rows of data in each segment (empty: 0)."));
TX_REGISTER_OP_FROM(Segment("SegmentMax", "realnumbertype", "The maximum of each segment's rows (empty: 0)."));
TX_REGISTER_OP_FROM(Segment("SegmentMin", "realnumbertype", "The minimum of each segment's rows (empty: 0)."));
TX_REGISTER_OP_FROM(Segment("SegmentProd", "numbertype", "Multiplies the rows of data in each segment (empty: 1)."));

}  // namespace tx

// UnsortedSegmentMax, UnsortedSegmentMin and UnsortedSegmentProd (signatures identical to
// TensorFlow's; UnsortedSegmentSum is in grad_support_ops.cc and shares grad_util's shape logic).
#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/array_util.h"
#include "tensorflux/ops/grad_util.h"

namespace tx {
namespace {

// data [ids.shape..., rest...], segment_ids, scalar num_segments -> [num_segments, rest...].
Status UnsortedSegmentReduceShape(InferenceContext* c) {
  const PartialShape& ns_shape = c->input(2);
  if (ns_shape.known_rank() && ns_shape.rank() != 0)
    return InvalidArgument("num_segments should be a scalar, not shape ", ns_shape.ToString());
  int64_t num_segments = -1;
  if (const Tensor* ns = c->input_tensor(2)) {
    TX_RETURN_IF_ERROR(array_util::ReadScalarInt(*ns, "num_segments", &num_segments));
    if (num_segments < 0) return InvalidArgument("Input num_segments == ", num_segments, " must not be negative.");
  }
  const PartialShape& data = c->input(0);
  const PartialShape& ids = c->input(1);
  if (!data.known_rank() || !ids.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> dims;
  TX_RETURN_IF_ERROR(grad_util::SegmentReductionDims(data, ids, num_segments, &dims));
  std::vector<int64_t> v;
  bool known;
  TX_RETURN_IF_ERROR(grad_util::ConstInts(c, 1, "segment_ids", &v, &known));
  if (known && num_segments >= 0)
    TX_RETURN_IF_ERROR(grad_util::CheckSegmentIds(v.data(), ids.dims(), static_cast<int64_t>(v.size()), num_segments));
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

OpDefBuilder UnsortedSegment(const char* name, const char* types, const char* summary) {
  return OpDefBuilder(name)
      .Input("data: T")
      .Input("segment_ids: Tindices")
      .Input("num_segments: Tnumsegments")
      .Output("output: T")
      .Attr(std::string("T: ") + types)
      .Attr("Tindices: {int32, int64}")
      .Attr("Tnumsegments: {int32, int64} = DT_INT32")
      .SetShapeFn(UnsortedSegmentReduceShape)
      .Summary(summary);
}

}  // namespace

TX_REGISTER_OP_FROM(UnsortedSegment("UnsortedSegmentMax", "realnumbertype",
                                    "The maximum of the slices of data sharing a segment id (empty: lowest value)."));
TX_REGISTER_OP_FROM(UnsortedSegment("UnsortedSegmentMin", "realnumbertype",
                                    "The minimum of the slices of data sharing a segment id (empty: highest value)."));
TX_REGISTER_OP_FROM(UnsortedSegment("UnsortedSegmentProd", "numbertype",
                                    "The product of the slices of data sharing a segment id (empty: 1)."));

}  // namespace tx

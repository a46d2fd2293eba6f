// Ops that gradients of array ops are built from: BroadcastGradientArgs, InvertPermutation,
// ConcatOffset, UnsortedSegmentSum (signatures identical to TensorFlow's; shape logic shared with
// the kernels in grad_util).
#include <cstdint>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/array_util.h"
#include "tensorflux/ops/grad_util.h"

namespace tx {
namespace {

// Two vectors of reduction axes; their lengths are known when both shapes are constants.
Status BroadcastGradientArgsShape(InferenceContext* c) {
  PartialShape unused;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "Input 's0'", &unused));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "Input 's1'", &unused));
  std::vector<int64_t> s0, s1, r0, r1;
  bool k0, k1;
  TX_RETURN_IF_ERROR(grad_util::ConstInts(c, 0, "s0", &s0, &k0));
  TX_RETURN_IF_ERROR(grad_util::ConstInts(c, 1, "s1", &s1, &k1));
  if (!k0 || !k1) {
    c->set_output(0, PartialShape({-1}));
    c->set_output(1, PartialShape({-1}));
    return Status::OK();
  }
  TX_RETURN_IF_ERROR(grad_util::BroadcastGradientAxes(s0, s1, &r0, &r1));
  c->set_output(0, PartialShape({static_cast<int64_t>(r0.size())}));
  c->set_output(1, PartialShape({static_cast<int64_t>(r1.size())}));
  return Status::OK();
}

// The input's (vector) shape; a constant input is checked to be a permutation.
Status InvertPermutationShape(InferenceContext* c) {
  PartialShape x;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "Input 'x'", &x));
  std::vector<int64_t> v;
  bool known;
  TX_RETURN_IF_ERROR(grad_util::ConstInts(c, 0, "x", &v, &known));
  if (known) {
    std::vector<int64_t> inverse(v.size());
    TX_RETURN_IF_ERROR(grad_util::InvertPermutation(v.data(), static_cast<int64_t>(v.size()), inverse.data()));
  }
  c->set_output(0, x);
  return Status::OK();
}

// Each offset has its shape input's (vector) shape; constant inputs are checked.
Status ConcatOffsetShape(InferenceContext* c) {
  PartialShape unused;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, "Input 'concat_dim'", &unused));
  const int n = c->num_inputs() - 1;
  std::vector<std::vector<int64_t>> shapes(n), offsets;
  bool all_known = c->input_tensor(0) != nullptr;
  for (int i = 0; i < n; ++i) {
    PartialShape s;
    TX_RETURN_IF_ERROR(c->WithRank(c->input(i + 1), 1, "Input 'shape'", &s));
    if (s.dim(0) >= 0 && c->input(1).known_rank() && c->input(1).dim(0) >= 0 && s.dim(0) != c->input(1).dim(0))
      return InvalidArgument("input ", i, " should contain ", c->input(1).dim(0), " elements, but got ", s.dim(0));
    bool known;
    TX_RETURN_IF_ERROR(grad_util::ConstInts(c, i + 1, "shape", &shapes[i], &known));
    all_known = all_known && known;
    c->set_output(i, s);
  }
  if (all_known) {
    int64_t dim;
    TX_RETURN_IF_ERROR(array_util::ReadScalarInt(*c->input_tensor(0), "concat_dim", &dim));
    TX_RETURN_IF_ERROR(grad_util::ConcatOffsets(dim, shapes, &offsets));
  }
  return Status::OK();
}

// [num_segments] + data.shape[rank(segment_ids):]; constant ids are checked against num_segments.
Status UnsortedSegmentShape(InferenceContext* c) {
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

}  // namespace

TX_REGISTER_OP("BroadcastGradientArgs")
    .Input("s0: T")
    .Input("s1: T")
    .Output("r0: T")
    .Output("r1: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(BroadcastGradientArgsShape)
    .Summary("The axes to sum each side's gradient over after a NumPy broadcast of shapes s0 and s1.");

TX_REGISTER_OP("InvertPermutation")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(InvertPermutationShape)
    .Summary("The inverse permutation: y[x[i]] = i.");

TX_REGISTER_OP("ConcatOffset")
    .Input("concat_dim: int32")
    .Input("shape: N * shape_type")
    .Output("offset: N * shape_type")
    .Attr("N: int >= 2")
    .Attr("shape_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ConcatOffsetShape)
    .Summary("Where each input of a concatenation along concat_dim starts in the result.");

TX_REGISTER_OP("UnsortedSegmentSum")
    .Input("data: T")
    .Input("segment_ids: Tindices")
    .Input("num_segments: Tnumsegments")
    .Output("output: T")
    .Attr("T: numbertype")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("Tnumsegments: {int32, int64} = DT_INT32")
    .SetShapeFn(UnsortedSegmentShape)
    .Summary("Sums the slices of data sharing a segment id (negative ids are dropped, empty segments are 0).");

}  // namespace tx

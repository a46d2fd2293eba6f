// Gradient ops of array ops that move data back into the input's shape: StridedSliceGrad,
// MirrorPadGrad, TensorScatterAdd (signatures identical to TensorFlow's; shape logic shared with
// the kernels through array_util and grad_util).
#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/array_util.h"
#include "tensorflux/ops/grad_util.h"

namespace tx {
namespace {

// The shape given by the `shape` input; with every input constant, dy must have the slice's shape.
Status StridedSliceGradShape(InferenceContext* c) {
  static const char* const kNames[] = {"shape", "begin", "end", "strides"};
  for (int i = 0; i < 4; ++i)
    if (c->input(i).known_rank() && c->input(i).rank() != 1)
      return InvalidArgument(kNames[i], " must be 1-D, got shape ", c->input(i).ToString());
  std::vector<int64_t> v[4];
  bool known = true;
  for (int i = 0; i < 4; ++i) {
    bool k;
    TX_RETURN_IF_ERROR(grad_util::ConstInts(c, i, kNames[i], &v[i], &k));
    known = known && k;
  }
  for (size_t i = 0; i < v[0].size(); ++i)
    if (v[0][i] < 0) return InvalidArgument("Dimension ", v[0][i], " must be >= 0");
  for (size_t i = 0; i < v[3].size(); ++i)
    if (v[3][i] == 0) return InvalidArgument("strides[", i, "] must be non-zero");
  PartialShape out;
  TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &out));
  if (known) {
    int64_t masks[5];
    static const char* const kMasks[] = {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                         "shrink_axis_mask"};
    for (int m = 0; m < 5; ++m) TX_RETURN_IF_ERROR(c->GetAttr(kMasks[m], &masks[m]));
    array_util::StridedSliceInfo info;
    TX_RETURN_IF_ERROR(array_util::ResolveStridedSlice(out, v[1], v[2], v[3], masks[0], masks[1], masks[2], masks[3],
                                                       masks[4], &info));
    if (!PartialShape(info.final_dims).IsCompatibleWith(c->input(4)))
      return InvalidArgument("shape of dy was ", c->input(4).ToString(), " instead of ",
                             PartialShape(info.final_dims).ToString());
  }
  c->set_output(0, out);
  return Status::OK();
}

// The input's dims less the (constant) paddings.
Status MirrorPadGradShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  const PartialShape& ps = c->input(1);
  if (ps.known_rank() && (ps.rank() != 2 || (ps.dim(1) >= 0 && ps.dim(1) != 2)))
    return InvalidArgument("paddings must be a matrix with 2 columns, got shape ", ps.ToString());
  if (in.known_rank() && ps.known_rank() && ps.dim(0) >= 0 && ps.dim(0) != in.rank())
    return InvalidArgument("The first dimension of paddings must be the rank of inputs: paddings has shape ",
                           ps.ToString(), ", the input has shape ", in.ToString());
  std::string mode;
  TX_RETURN_IF_ERROR(c->GetAttr("mode", &mode));
  std::vector<int64_t> p;
  bool known;
  TX_RETURN_IF_ERROR(grad_util::ConstInts(c, 1, "paddings", &p, &known));
  int rank = in.rank();
  if (rank < 0 && ps.known_rank() && ps.dim(0) >= 0) rank = static_cast<int>(ps.dim(0));
  if (rank < 0 && known) rank = static_cast<int>(p.size() / 2);
  if (rank < 0 || !known) {
    c->set_output(0, rank < 0 ? PartialShape::Unknown() : PartialShape::UnknownDims(rank));
    return Status::OK();
  }
  std::vector<int64_t> dims;
  TX_RETURN_IF_ERROR(grad_util::ResolveMirrorPadGrad(in.known_rank() ? in : PartialShape::UnknownDims(rank), p,
                                                     mode == "REFLECT" ? 1 : 2, &dims));
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

// The tensor's shape; indices and updates must fit it.
Status TensorScatterShape(InferenceContext* c) {
  std::string policy;
  TX_RETURN_IF_ERROR(c->GetAttr("bad_indices_policy", &policy));
  if (policy != "" && policy != "DEFAULT" && policy != "ERROR" && policy != "IGNORE")
    return InvalidArgument("bad_indices_policy must be one of '', 'DEFAULT', 'ERROR', 'IGNORE', got '", policy, "'");
  TX_RETURN_IF_ERROR(grad_util::CheckTensorScatter(c->input(0), c->input(1), c->input(2)));
  c->set_output(0, c->input(0));
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("StridedSliceGrad")
    .Input("shape: Index")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Input("dy: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")
    .SetShapeFn(StridedSliceGradShape)
    .Summary("Gradient of StridedSlice: dy placed where the slice read from a zero tensor of `shape`.");

TX_REGISTER_OP("MirrorPadGrad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .SetShapeFn(MirrorPadGradShape)
    .Summary("Gradient of MirrorPad: folds the padded borders back onto the elements they mirror, summing.");

TX_REGISTER_OP("TensorScatterAdd")
    .Input("tensor: T")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(TensorScatterShape)
    .Summary("A copy of tensor with the update slices added at the index tuples (duplicates add up).");

}  // namespace tx

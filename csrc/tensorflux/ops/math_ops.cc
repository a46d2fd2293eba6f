// Math ops that are not plain elementwise maps: MatMul, Sum, Mean, Cast, AddN, ClipByValue
// (signatures identical to TensorFlow's). Elementwise ops are in elementwise_ops.cc and
// logic_ops.cc.
#include <cstdint>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

Status MatMulShape(InferenceContext* c) {
  PartialShape a, b;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, "Input 'a'", &a));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, "Input 'b'", &b));
  bool ta = false, tb = false;
  TX_RETURN_IF_ERROR(c->GetAttr("transpose_a", &ta));
  TX_RETURN_IF_ERROR(c->GetAttr("transpose_b", &tb));
  const int64_t m = a.dim(ta ? 1 : 0), ka = a.dim(ta ? 0 : 1);
  const int64_t kb = b.dim(tb ? 1 : 0), n = b.dim(tb ? 0 : 1);
  if (ka >= 0 && kb >= 0 && ka != kb)
    return InvalidArgument("Dimensions must be equal, but are ", ka, " and ", kb, " for MatMul with input shapes ",
                           c->input(0).ToString(), ", ", c->input(1).ToString());
  c->set_output(0, PartialShape({m, n}));
  return Status::OK();
}

// Every input must have one shape (unknown dims merge); the output has it.
Status AddNShape(InferenceContext* c) {
  PartialShape out = c->input(0);
  for (int i = 1; i < c->num_inputs(); ++i) {
    if (!out.IsCompatibleWith(c->input(i)))
      return InvalidArgument("Inputs to AddN must all have the same shape, but input 0 has shape ",
                             c->input(0).ToString(), " and input ", i, " has shape ", c->input(i).ToString());
    TX_RETURN_IF_ERROR(out.Merge(c->input(i), &out));
  }
  c->set_output(0, out);
  return Status::OK();
}

// The output has t's shape; each clip value must broadcast to it without enlarging it
// (Note [Clip broadcasting] in kernels/cpu/clip.cc).
Status ClipByValueShape(InferenceContext* c) {
  const PartialShape& t = c->input(0);
  for (int i = 1; i <= 2; ++i) {
    PartialShape b;
    Status s = BroadcastShapes(t, c->input(i), &b);
    if (!s.ok() || !b.IsCompatibleWith(t))
      return InvalidArgument(i == 1 ? "clip_value_min" : "clip_value_max", " of shape ", c->input(i).ToString(),
                             " does not broadcast to the shape of t, ", t.ToString());
  }
  c->set_output(0, t);
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, complex64, complex128}")
    .Attr("grad_a: bool = false")
    .Attr("grad_b: bool = false")
    .SetShapeFn(MatMulShape)
    .Summary("Multiplies two matrices, optionally transposing either one first.");

TX_REGISTER_OP("Sum")
    .Input("input: T")
    .Input("reduction_indices: Tidx")
    .Output("output: T")
    .Attr("keep_dims: bool = false")
    .Attr("T: numbertype")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_fns::ReductionShape)
    .Summary("Adds up the elements of a tensor along the given axes.");

TX_REGISTER_OP("Mean")
    .Input("input: T")
    .Input("reduction_indices: Tidx")
    .Output("output: T")
    .Attr("keep_dims: bool = false")
    .Attr("T: numbertype")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_fns::ReductionShape)
    .Summary("Averages the elements of a tensor along the given axes (integer types divide with truncation).");

TX_REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: type")
    .Attr("DstT: type")
    .Attr("Truncate: bool = false")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Converts each element to another type (floats to integers truncate toward zero).");

TX_REGISTER_OP("AddN")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, qint16, "
        "quint16, uint16, complex128, half, uint32, uint64, variant}")
    .SetIsCommutative()
    .SetIsAggregate()
    .SetShapeFn(AddNShape)
    .Summary("Adds all input tensors elementwise; they must all have the same shape.");

TX_REGISTER_OP("ClipByValue")
    .Input("t: T")
    .Input("clip_value_min: T")
    .Input("clip_value_max: T")
    .Output("output: T")
    .Attr("T: numbertype")
    .SetShapeFn(ClipByValueShape)
    .Summary("Returns max(min(t, clip_value_max), clip_value_min) elementwise; the clip values broadcast to t.");

}  // namespace tx

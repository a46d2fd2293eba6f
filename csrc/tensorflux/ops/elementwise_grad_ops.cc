// Elementwise gradient ops of the activations and unary maps (signatures identical to
// TensorFlow's): ReluGrad, Relu6Grad, EluGrad, SeluGrad, LeakyReluGrad, SoftplusGrad, SoftsignGrad
// take (gradients, features|outputs); SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad
// take (y, dy). Both inputs must have one shape (no broadcasting, as in TensorFlow).
#include <string>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Output 0 is the merge of inputs 0 and 1, which must have compatible shapes.
Status SameShapeInputs(InferenceContext* c) {
  PartialShape out;
  if (!c->input(0).Merge(c->input(1), &out).ok()) {
    const auto& args = c->op_def().input_arg;
    return InvalidArgument("Inputs '", args[0].name, "' and '", args[1].name, "' must have the same shape, but ",
                           args[0].name, " has shape ", c->input(0).ToString(), " and ", args[1].name, " has shape ",
                           c->input(1).ToString());
  }
  c->set_output(0, out);
  return Status::OK();
}

// in0, in1: T -> out: T, all of one shape; `types` is the body of T's allowed-type list.
OpDefBuilder SameShapeGrad(const char* name, const char* in0, const char* in1, const char* out, const char* types,
                           const char* summary) {
  return OpDefBuilder(name)
      .Input(std::string(in0) + ": T")
      .Input(std::string(in1) + ": T")
      .Output(std::string(out) + ": T")
      .Attr(std::string("T: {") + types + "}")
      .SetShapeFn(SameShapeInputs)
      .Summary(summary);
}

// (gradients, <second>) -> backprops, the activation gradients' signature.
OpDefBuilder ActivationGrad(const char* name, const char* second, const char* types, const char* summary) {
  return SameShapeGrad(name, "gradients", second, "backprops", types, summary);
}

// (y, dy) -> z, the signature of the unary maps' gradients computed from their output y.
OpDefBuilder OutputGrad(const char* name, const char* summary) {
  return SameShapeGrad(name, "y", "dy", "z", "bfloat16, half, float, double, complex64, complex128", summary);
}

// TensorFlow's allowed-type lists (in its order).
constexpr char kReluTypes[] = "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64";
constexpr char kFloats[] = "half, bfloat16, float, double";

}  // namespace

TX_REGISTER_OP_FROM(ActivationGrad("ReluGrad", "features", kReluTypes, "Relu's gradient: gradients * (features > 0)."));
TX_REGISTER_OP_FROM(ActivationGrad("Relu6Grad", "features", kReluTypes,
                                   "Relu6's gradient: gradients * (0 < features < 6)."));
TX_REGISTER_OP_FROM(ActivationGrad("EluGrad", "outputs", kFloats,
                                   "Elu's gradient from its outputs: gradients * (outputs + 1) where outputs < 0, "
                                   "gradients elsewhere."));
TX_REGISTER_OP_FROM(ActivationGrad("SeluGrad", "outputs", kFloats,
                                   "Selu's gradient from its outputs: gradients * (outputs + scale * alpha) where "
                                   "outputs < 0, gradients * scale elsewhere."));
TX_REGISTER_OP("LeakyReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn(SameShapeInputs)
    .Summary("LeakyRelu's gradient: gradients where features > 0, alpha * gradients elsewhere.");
TX_REGISTER_OP_FROM(ActivationGrad("SoftplusGrad", "features", kFloats,
                                   "Softplus's gradient: gradients / (exp(-features) + 1)."));
TX_REGISTER_OP_FROM(ActivationGrad("SoftsignGrad", "features", kFloats,
                                   "Softsign's gradient: gradients / (1 + abs(features)) ** 2."));

TX_REGISTER_OP_FROM(OutputGrad("SigmoidGrad", "Sigmoid's gradient from its output y: dy * y * (1 - y)."));
TX_REGISTER_OP_FROM(OutputGrad("TanhGrad", "Tanh's gradient from its output y: dy * (1 - y * y)."));
TX_REGISTER_OP_FROM(OutputGrad("SqrtGrad", "Sqrt's gradient from its output y: 0.5 * dy / y (0 where dy is 0)."));
TX_REGISTER_OP_FROM(OutputGrad("RsqrtGrad",
                               "Rsqrt's gradient from its output y: -0.5 * dy * y ** 3 (0 where dy is 0)."));
TX_REGISTER_OP_FROM(OutputGrad("ReciprocalGrad",
                               "Reciprocal's gradient from its output y: -dy * y * y (0 where dy is 0)."));

}  // namespace tx

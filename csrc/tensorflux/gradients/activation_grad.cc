// Gradients of the activations (through their fused gradient ops: ReluGrad, EluGrad, ...) and
// of those gradient ops themselves, for second derivatives.
#include "tensorflux/gradients/carry_attrs.h"
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

// Activations whose gradient op reads the input features: ReluGrad(dz, x), ...
template <const char* kGradOp>
Status FeaturesGrad(GradContext& g) {
  g.set_grad(0, g.ops().Op1(kGradOp, {g.grad(0), g.input(0)}, CarryAttrs(g, kGradOp)));
  return Status::OK();
}
// Activations whose gradient op reads the outputs: EluGrad(dz, y), SeluGrad(dz, y).
template <const char* kGradOp>
Status OutputsGrad(GradContext& g) {
  g.set_grad(0, g.ops().Op1(kGradOp, {g.grad(0), g.output(0)}, CarryAttrs(g, kGradOp)));
  return Status::OK();
}
constexpr char kReluGrad[] = "ReluGrad";
constexpr char kRelu6Grad[] = "Relu6Grad";
constexpr char kLeakyReluGrad[] = "LeakyReluGrad";
constexpr char kSoftplusGrad[] = "SoftplusGrad";
constexpr char kSoftsignGrad[] = "SoftsignGrad";
constexpr char kEluGrad[] = "EluGrad";
constexpr char kSeluGrad[] = "SeluGrad";

// Second order of out = G(dz, v): G is linear in dz, so d/d(dz) is G(grad, v); `dv` is the
// gradient with respect to v (zeros for piecewise-linear activations).
template <const char* kGradOp>
Status GradOpGrad(GradContext& g, GValue dv) {
  GradScope& o = g.ops();
  if (g.needs_grad(0)) g.set_grad(0, o.Op1(kGradOp, {g.grad(0), g.input(1)}, CarryAttrs(g, kGradOp)));
  if (g.needs_grad(1)) g.set_grad(1, dv);
  return Status::OK();
}
template <const char* kGradOp>
Status PiecewiseLinearGradGrad(GradContext& g) {
  return GradOpGrad<kGradOp>(g, g.needs_grad(1) ? g.ops().ZerosLike(g.input(1)) : GValue());
}
// EluGrad/SeluGrad(dz, y): for y < 0 the output is dz * (y + c), so d/dy = grad * dz there.
template <const char* kGradOp>
Status ExpLinearGradGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dv;
  if (g.needs_grad(1)) {
    GValue y = g.input(1);
    GValue neg = o.Op1("Less", {y, o.Scalar(0.0, o.dtype(y))});
    dv = o.Select(neg, o.Mul(g.grad(0), g.input(0)), o.ZerosLike(y));
  }
  return GradOpGrad<kGradOp>(g, dv);
}
// SoftplusGrad(dz, x) = dz * sigmoid(x): d/dx = grad * dz * s (1 - s).
Status SoftplusGradGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dv;
  if (g.needs_grad(1)) {
    GValue s = o.Op1("Sigmoid", {g.input(1)});
    dv = o.Op1("SigmoidGrad", {s, o.Mul(g.grad(0), g.input(0))});
  }
  return GradOpGrad<kSoftplusGrad>(g, dv);
}
// SoftsignGrad(dz, x) = dz / (1 + |x|)^2: d/dx = grad * dz * -2 sign(x) / (1 + |x|)^3.
Status SoftsignGradGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dv;
  if (g.needs_grad(1)) {
    GValue x = g.input(1);
    const DataType t = o.dtype(x);
    GValue d = o.Add(o.Scalar(1.0, t), o.Op1("Abs", {x}));
    GValue num = o.Mul(o.Scalar(-2.0, t), o.Mul(o.Op1("Sign", {x}), o.Mul(g.grad(0), g.input(0))));
    dv = o.Div(num, o.Mul(d, o.Square(d)));
  }
  return GradOpGrad<kSoftsignGrad>(g, dv);
}

}  // namespace

TX_REGISTER_GRADIENT("Relu", FeaturesGrad<kReluGrad>);
TX_REGISTER_GRADIENT("Relu6", FeaturesGrad<kRelu6Grad>);
TX_REGISTER_GRADIENT("LeakyRelu", FeaturesGrad<kLeakyReluGrad>);
TX_REGISTER_GRADIENT("Softplus", FeaturesGrad<kSoftplusGrad>);
TX_REGISTER_GRADIENT("Softsign", FeaturesGrad<kSoftsignGrad>);
TX_REGISTER_GRADIENT("Elu", OutputsGrad<kEluGrad>);
TX_REGISTER_GRADIENT("Selu", OutputsGrad<kSeluGrad>);

TX_REGISTER_GRADIENT("ReluGrad", PiecewiseLinearGradGrad<kReluGrad>);
TX_REGISTER_GRADIENT("Relu6Grad", PiecewiseLinearGradGrad<kRelu6Grad>);
TX_REGISTER_GRADIENT("LeakyReluGrad", PiecewiseLinearGradGrad<kLeakyReluGrad>);
TX_REGISTER_GRADIENT("EluGrad", ExpLinearGradGrad<kEluGrad>);
TX_REGISTER_GRADIENT("SeluGrad", ExpLinearGradGrad<kSeluGrad>);
TX_REGISTER_GRADIENT("SoftplusGrad", SoftplusGradGrad);
TX_REGISTER_GRADIENT("SoftsignGrad", SoftsignGradGrad);

}  // namespace tx

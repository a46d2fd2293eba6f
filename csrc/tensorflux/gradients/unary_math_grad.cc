// Gradients of unary elementwise math, and of the fused gradient ops some of them use
// (SqrtGrad, RsqrtGrad, ReciprocalGrad, TanhGrad, SigmoidGrad) so second derivatives exist.
#include <cmath>

#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

// Sets the gradient of input 0 to dz * f'(x) given as `factor` (conjugated for complex x, as in
// TensorFlow).
Status Times(GradContext& g, GValue factor) {
  g.set_grad(0, g.ops().Mul(g.grad(0), g.ops().Conj(factor)));
  return Status::OK();
}

Status AbsGrad(GradContext& g) { return Times(g, g.ops().Op1("Sign", {g.input(0)})); }
Status SignGrad(GradContext& g) {
  g.set_grad(0, g.ops().ZerosLike(g.input(0)));
  return Status::OK();
}
Status SquareGrad(GradContext& g) {
  GradScope& o = g.ops();
  return Times(g, o.Mul(g.input(0), o.Scalar(2.0, o.dtype(g.input(0)))));
}
Status ExpGrad(GradContext& g) { return Times(g, g.output(0)); }
Status Expm1Grad(GradContext& g) { return Times(g, g.ops().Op1("Exp", {g.input(0)})); }
Status LogGrad(GradContext& g) { return Times(g, g.ops().Reciprocal(g.input(0))); }
Status Log1pGrad(GradContext& g) {
  GradScope& o = g.ops();
  return Times(g, o.Reciprocal(o.Add(o.Scalar(1.0, o.dtype(g.input(0))), g.input(0))));
}
Status SinGrad(GradContext& g) { return Times(g, g.ops().Op1("Cos", {g.input(0)})); }
Status CosGrad(GradContext& g) { return Times(g, g.ops().Neg(g.ops().Op1("Sin", {g.input(0)}))); }
// d tan(x) = 1 + tan(x)^2.
Status TanGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue y = g.output(0);
  return Times(g, o.Add(o.Scalar(1.0, o.dtype(y)), o.Square(y)));
}
// d erf(x) = 2/sqrt(pi) exp(-x^2).
Status ErfGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0);
  return Times(g, o.Mul(o.Scalar(2.0 / std::sqrt(M_PI), o.dtype(x)), o.Op1("Exp", {o.Neg(o.Square(x))})));
}
// d erfc(x) = -2/sqrt(pi) exp(-x^2).
Status ErfcGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0);
  return Times(g, o.Mul(o.Scalar(-2.0 / std::sqrt(M_PI), o.dtype(x)), o.Op1("Exp", {o.Neg(o.Square(x))})));
}
// d erfinv(x) = sqrt(pi)/2 exp(erfinv(x)^2).
Status ErfinvGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue y = g.output(0);
  return Times(g, o.Mul(o.Scalar(std::sqrt(M_PI) / 2.0, o.dtype(y)), o.Op1("Exp", {o.Square(y)})));
}

// Ops whose derivative is a fused op of (y, dz): Sqrt -> SqrtGrad(y, dz), etc.
template <const char* kGradOp>
Status FusedOutputGrad(GradContext& g) {
  g.set_grad(0, g.ops().Op1(kGradOp, {g.output(0), g.grad(0)}));
  return Status::OK();
}
constexpr char kSqrtGrad[] = "SqrtGrad";
constexpr char kRsqrtGrad[] = "RsqrtGrad";
constexpr char kReciprocalGrad[] = "ReciprocalGrad";
constexpr char kTanhGrad[] = "TanhGrad";
constexpr char kSigmoidGrad[] = "SigmoidGrad";

// Second order. For out = F(y, dy) the gradient with respect to dy is F(y, grad) (F is linear in
// dy); the one with respect to y is grad * dy * dF/dy, given per op below.
template <const char* kGradOp>
Status FusedGradGrad(GradContext& g, GValue dfdy_times_dy) {
  GradScope& o = g.ops();
  GValue grad = g.grad(0);
  if (g.needs_grad(1)) g.set_grad(1, o.Op1(kGradOp, {g.input(0), grad}));
  if (g.needs_grad(0)) g.set_grad(0, o.Mul(grad, dfdy_times_dy));
  return Status::OK();
}
// SqrtGrad: out = dy * 0.5 / y  ->  d/dy = -out / y.
Status SqrtGradGrad(GradContext& g) {
  GradScope& o = g.ops();
  return FusedGradGrad<kSqrtGrad>(g, o.Neg(o.Div(g.output(0), g.input(0))));
}
// RsqrtGrad: out = -0.5 dy y^3  ->  d/dy = -1.5 dy y^2.
Status RsqrtGradGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue y = g.input(0);
  return FusedGradGrad<kRsqrtGrad>(g, o.Mul(o.Scalar(-1.5, o.dtype(y)), o.Mul(g.input(1), o.Square(y))));
}
// ReciprocalGrad: out = -dy y^2  ->  d/dy = -2 dy y.
Status ReciprocalGradGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue y = g.input(0);
  return FusedGradGrad<kReciprocalGrad>(g, o.Mul(o.Scalar(-2.0, o.dtype(y)), o.Mul(g.input(1), y)));
}
// TanhGrad: out = dy (1 - y^2)  ->  d/dy = -2 dy y.
Status TanhGradGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue y = g.input(0);
  return FusedGradGrad<kTanhGrad>(g, o.Mul(o.Scalar(-2.0, o.dtype(y)), o.Mul(g.input(1), y)));
}
// SigmoidGrad: out = dy y (1 - y)  ->  d/dy = dy (1 - 2y).
Status SigmoidGradGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue y = g.input(0);
  const DataType t = o.dtype(y);
  return FusedGradGrad<kSigmoidGrad>(g, o.Mul(g.input(1), o.Sub(o.Scalar(1.0, t), o.Mul(o.Scalar(2.0, t), y))));
}

}  // namespace

TX_REGISTER_GRADIENT("Abs", AbsGrad);
TX_REGISTER_GRADIENT("Sign", SignGrad);
TX_REGISTER_GRADIENT("Square", SquareGrad);
TX_REGISTER_GRADIENT("Exp", ExpGrad);
TX_REGISTER_GRADIENT("Expm1", Expm1Grad);
TX_REGISTER_GRADIENT("Log", LogGrad);
TX_REGISTER_GRADIENT("Log1p", Log1pGrad);
TX_REGISTER_GRADIENT("Sin", SinGrad);
TX_REGISTER_GRADIENT("Cos", CosGrad);
TX_REGISTER_GRADIENT("Tan", TanGrad);
TX_REGISTER_GRADIENT("Erf", ErfGrad);
TX_REGISTER_GRADIENT("Erfc", ErfcGrad);
TX_REGISTER_GRADIENT("Erfinv", ErfinvGrad);
TX_REGISTER_GRADIENT("Sqrt", FusedOutputGrad<kSqrtGrad>);
TX_REGISTER_GRADIENT("Rsqrt", FusedOutputGrad<kRsqrtGrad>);
TX_REGISTER_GRADIENT("Reciprocal", FusedOutputGrad<kReciprocalGrad>);
TX_REGISTER_GRADIENT("Tanh", FusedOutputGrad<kTanhGrad>);
TX_REGISTER_GRADIENT("Sigmoid", FusedOutputGrad<kSigmoidGrad>);
TX_REGISTER_GRADIENT("SqrtGrad", SqrtGradGrad);
TX_REGISTER_GRADIENT("RsqrtGrad", RsqrtGradGrad);
TX_REGISTER_GRADIENT("ReciprocalGrad", ReciprocalGradGrad);
TX_REGISTER_GRADIENT("TanhGrad", TanhGradGrad);
TX_REGISTER_GRADIENT("SigmoidGrad", SigmoidGradGrad);

}  // namespace tx

// Gradients of the elementwise math in ops/math_ext_ops.cc, with TensorFlow's formulas (and its
// choices of which inputs get no gradient: Zeta's x, Polygamma's order a); Unique and
// UniqueWithCounts (ops/unique_ops.cc), Bincount and DenseBincount (ops/bincount_ops.cc) are
// declared not differentiable, as in TensorFlow.
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

// Sets the gradient of input 0 to dz * f'(x) given as `factor` (conjugated for complex x, as in
// TensorFlow).
Status Times(GradContext& g, GValue factor) {
  g.set_grad(0, g.ops().Mul(g.grad(0), g.ops().Conj(factor)));
  return Status::OK();
}

// Sets both gradients of a broadcasting binary op from unreduced gx, gy (either may be empty).
Status SetBinaryGrads(GradContext& g, GValue gx, GValue gy) {
  GValue dx, dy;
  g.ops().ReduceBroadcastGrads(g.input(0), g.input(1), g.needs_grad(0) ? gx : GValue(), g.needs_grad(1) ? gy : GValue(),
                               &dx, &dy);
  if (gx.valid()) g.set_grad(0, dx);
  if (gy.valid()) g.set_grad(1, dy);
  return Status::OK();
}

GValue One(GradScope& o, GValue like) { return o.Scalar(1.0, o.dtype(like)); }
// 1 - x^2.
GValue OneMinusSquare(GradScope& o, GValue x) { return o.Sub(One(o, x), o.Square(x)); }

Status AsinGrad(GradContext& g) {
  GradScope& o = g.ops();
  return Times(g, o.Op1("Rsqrt", {OneMinusSquare(o, g.input(0))}));
}
Status AcosGrad(GradContext& g) {
  GradScope& o = g.ops();
  return Times(g, o.Neg(o.Op1("Rsqrt", {OneMinusSquare(o, g.input(0))})));
}
Status AtanGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0);
  return Times(g, o.Reciprocal(o.Add(One(o, x), o.Square(x))));
}
Status SinhGrad(GradContext& g) { return Times(g, g.ops().Op1("Cosh", {g.input(0)})); }
Status CoshGrad(GradContext& g) { return Times(g, g.ops().Op1("Sinh", {g.input(0)})); }
// d asinh(x) = 1 / cosh(asinh(x)); d acosh(x) = 1 / sinh(acosh(x)).
Status AsinhGrad(GradContext& g) { return Times(g, g.ops().Reciprocal(g.ops().Op1("Cosh", {g.output(0)}))); }
Status AcoshGrad(GradContext& g) { return Times(g, g.ops().Reciprocal(g.ops().Op1("Sinh", {g.output(0)}))); }
Status AtanhGrad(GradContext& g) {
  GradScope& o = g.ops();
  return Times(g, o.Reciprocal(OneMinusSquare(o, g.input(0))));
}
Status LgammaGrad(GradContext& g) { return Times(g, g.ops().Op1("Digamma", {g.input(0)})); }
Status DigammaGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0);
  return Times(g, o.Op1("Polygamma", {One(o, x), x}));
}

// d i0e(x) = i1e(x) - sign(x) i0e(x).
Status BesselI0eGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0);
  return Times(g, o.Sub(o.Op1("BesselI1e", {x}), o.Mul(o.Op1("Sign", {x}), g.output(0))));
}
// d i1e(x) = i0e(x) - i1e(x) (sign(x) + 1/x), whose limit at x = 0 is 1/2.
Status BesselI1eGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), y = g.output(0);
  const DataType t = o.dtype(x);
  GValue zero = o.Op1("Equal", {x, o.Scalar(0.0, t)});
  GValue safe_x = o.Select(zero, o.OnesLike(x), x);
  GValue d = o.Sub(o.Op1("BesselI0e", {x}), o.Mul(y, o.Add(o.Op1("Sign", {x}), o.Reciprocal(safe_x))));
  return Times(g, o.Select(zero, o.Add(o.ZerosLike(x), o.Scalar(0.5, t)), d));
}

// z = atan2(y, x): dy = dz x / (x^2 + y^2), dx = -dz y / (x^2 + y^2).
Status Atan2Grad(GradContext& g) {
  GradScope& o = g.ops();
  GValue y = g.input(0), x = g.input(1), dz = g.grad(0);
  GValue scale = o.Div(dz, o.Add(o.Square(x), o.Square(y)));
  return SetBinaryGrads(g, g.needs_grad(0) ? o.Mul(x, scale) : GValue(),
                        g.needs_grad(1) ? o.Neg(o.Mul(y, scale)) : GValue());
}

// 1 where x != 0, else 0, in x's dtype.
GValue NonZero(GradScope& o, GValue x) { return o.Cast(o.Op1("NotEqual", {x, o.Scalar(0.0, o.dtype(x))}), o.dtype(x)); }

// z = xlogy(x, y): dx = dz xlogy(x != 0, y), dy = dz xdivy(x, y).
Status XlogyGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), y = g.input(1), dz = g.grad(0);
  return SetBinaryGrads(g, g.needs_grad(0) ? o.Mul(dz, o.Op1("Xlogy", {NonZero(o, x), y})) : GValue(),
                        g.needs_grad(1) ? o.Mul(dz, o.Op1("Xdivy", {x, y})) : GValue());
}
// z = xlog1py(x, y): dx = dz xlog1py(x != 0, y), dy = dz xdivy(x, y + 1).
Status Xlog1pyGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), y = g.input(1), dz = g.grad(0);
  return SetBinaryGrads(g, g.needs_grad(0) ? o.Mul(dz, o.Op1("Xlog1py", {NonZero(o, x), y})) : GValue(),
                        g.needs_grad(1) ? o.Mul(dz, o.Op1("Xdivy", {x, o.Add(y, One(o, y))})) : GValue());
}
// z = xdivy(x, y): dx = dz xdivy(x != 0, y), dy = dz xdivy(-x, y^2).
Status XdivyGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), y = g.input(1), dz = g.grad(0);
  return SetBinaryGrads(g, g.needs_grad(0) ? o.Mul(dz, o.Op1("Xdivy", {NonZero(o, x), y})) : GValue(),
                        g.needs_grad(1) ? o.Mul(dz, o.Op1("Xdivy", {o.Neg(x), o.Square(y)})) : GValue());
}
// z = div_no_nan(x, y): dx = div_no_nan(dz, y), dy = dz div_no_nan(div_no_nan(-x, y), y); complex
// x and y are conjugated (as TensorFlow does here, and not in Xlogy, Xdivy or MulNoNan).
Status DivNoNanGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = o.Conj(g.input(0)), y = o.Conj(g.input(1)), dz = g.grad(0);
  return SetBinaryGrads(
      g, g.needs_grad(0) ? o.Op1("DivNoNan", {dz, y}) : GValue(),
      g.needs_grad(1) ? o.Mul(dz, o.Op1("DivNoNan", {o.Op1("DivNoNan", {o.Neg(x), y}), y})) : GValue());
}
// z = mul_no_nan(x, y): dx = mul_no_nan(dz, y), dy = mul_no_nan(x, dz).
Status MulNoNanGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), y = g.input(1), dz = g.grad(0);
  return SetBinaryGrads(g, g.needs_grad(0) ? o.Op1("MulNoNan", {dz, y}) : GValue(),
                        g.needs_grad(1) ? o.Op1("MulNoNan", {x, dz}) : GValue());
}
// z = zeta(x, q): dq = -dz x zeta(x + 1, q); x gets no gradient (as in TensorFlow).
Status ZetaGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), q = g.input(1);
  if (!g.needs_grad(1)) return Status::OK();
  GValue dq = o.Neg(o.Mul(g.grad(0), o.Mul(x, o.Op1("Zeta", {o.Add(x, One(o, x)), q}))));
  return SetBinaryGrads(g, GValue(), dq);
}
// z = polygamma(a, x): dx = dz polygamma(a + 1, x); a gets no gradient (as in TensorFlow).
Status PolygammaGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue a = g.input(0), x = g.input(1);
  if (!g.needs_grad(1)) return Status::OK();
  return SetBinaryGrads(g, GValue(), o.Mul(g.grad(0), o.Op1("Polygamma", {o.Add(a, One(o, a)), x})));
}

// z = nextafter(x1, x2): dx1 = dz, dx2 = 0 (TensorFlow's convention: z is x1 nudged).
Status NextAfterGrad(GradContext& g) {
  GradScope& o = g.ops();
  return SetBinaryGrads(g, g.grad(0), g.needs_grad(1) ? o.ZerosLike(g.grad(0)) : GValue());
}

}  // namespace

TX_REGISTER_GRADIENT("Asin", AsinGrad);
TX_REGISTER_GRADIENT("Acos", AcosGrad);
TX_REGISTER_GRADIENT("Atan", AtanGrad);
TX_REGISTER_GRADIENT("Sinh", SinhGrad);
TX_REGISTER_GRADIENT("Cosh", CoshGrad);
TX_REGISTER_GRADIENT("Asinh", AsinhGrad);
TX_REGISTER_GRADIENT("Acosh", AcoshGrad);
TX_REGISTER_GRADIENT("Atanh", AtanhGrad);
TX_REGISTER_GRADIENT("Lgamma", LgammaGrad);
TX_REGISTER_GRADIENT("Digamma", DigammaGrad);
TX_REGISTER_GRADIENT("BesselI0e", BesselI0eGrad);
TX_REGISTER_GRADIENT("BesselI1e", BesselI1eGrad);
TX_REGISTER_GRADIENT("Atan2", Atan2Grad);
TX_REGISTER_GRADIENT("Xlogy", XlogyGrad);
TX_REGISTER_GRADIENT("Xlog1py", Xlog1pyGrad);
TX_REGISTER_GRADIENT("Xdivy", XdivyGrad);
TX_REGISTER_GRADIENT("DivNoNan", DivNoNanGrad);
TX_REGISTER_GRADIENT("MulNoNan", MulNoNanGrad);
TX_REGISTER_GRADIENT("Zeta", ZetaGrad);
TX_REGISTER_GRADIENT("Polygamma", PolygammaGrad);
TX_REGISTER_NO_GRADIENT("IsInf");
TX_REGISTER_NO_GRADIENT("Rint");
TX_REGISTER_GRADIENT("NextAfter", NextAfterGrad);
TX_REGISTER_NO_GRADIENT("Unique");
TX_REGISTER_NO_GRADIENT("UniqueWithCounts");
TX_REGISTER_NO_GRADIENT("Bincount");
TX_REGISTER_NO_GRADIENT("DenseBincount");

}  // namespace tx

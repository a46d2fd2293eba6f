// Gradients of elementwise arithmetic (binary ops reduce over broadcast dimensions).
#include "tensorflux/core/complex.h"
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

// Sets both gradients of a broadcasting binary op from unreduced gx, gy.
void SetBinaryGrads(GradContext& g, GValue gx, GValue gy) {
  GValue dx, dy;
  g.ops().ReduceBroadcastGrads(g.input(0), g.input(1), g.needs_grad(0) ? gx : GValue(), g.needs_grad(1) ? gy : GValue(),
                               &dx, &dy);
  g.set_grad(0, dx);
  g.set_grad(1, dy);
}

// z = x + y
Status AddGrad(GradContext& g) {
  SetBinaryGrads(g, g.grad(0), g.grad(0));
  return Status::OK();
}

// z = x - y
Status SubGrad(GradContext& g) {
  SetBinaryGrads(g, g.grad(0), g.needs_grad(1) ? g.ops().Neg(g.grad(0)) : GValue());
  return Status::OK();
}

// z = x * y (complex: dx = dz conj(y), dy = conj(x) dz, TensorFlow's convention).
Status MulGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = o.Conj(g.input(0)), y = o.Conj(g.input(1)), dz = g.grad(0);
  SetBinaryGrads(g, g.needs_grad(0) ? o.Mul(dz, y) : GValue(), g.needs_grad(1) ? o.Mul(x, dz) : GValue());
  return Status::OK();
}

// z = x / y: dx = dz / y, dy = -dz * x / y^2 (complex: x and y conjugated).
Status DivGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = o.Conj(g.input(0)), y = o.Conj(g.input(1)), dz = g.grad(0);
  SetBinaryGrads(g, g.needs_grad(0) ? o.Div(dz, y) : GValue(),
                 g.needs_grad(1) ? o.Mul(dz, o.Div(o.Div(o.Neg(x), y), y)) : GValue());
  return Status::OK();
}

// Identity-like ops pass the gradient through unchanged.
Status PassThroughGrad(GradContext& g) {
  g.set_grad(0, g.grad(0));
  return Status::OK();
}

Status NegGrad(GradContext& g) {
  g.set_grad(0, g.ops().Neg(g.grad(0)));
  return Status::OK();
}

// z = sum(inputs): every input gets dz.
Status AddNGrad(GradContext& g) {
  GValue dz = g.grad(0);
  for (int i = 0; i < g.num_inputs(); ++i) g.set_grad(i, dz);
  return Status::OK();
}

// z = x^y: dx = dz y x^(y-1); dy = dz z log(x) where x > 0 (complex: x != 0), else 0; complex
// x, y and z are conjugated (TensorFlow's convention).
Status PowGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = o.Conj(g.input(0)), y = o.Conj(g.input(1)), z = o.Conj(g.output(0)), dz = g.grad(0);
  const DataType t = o.dtype(x);
  GValue gx, gy;
  if (g.needs_grad(0)) gx = o.Mul(dz, o.Mul(y, o.Op1("Pow", {x, o.Sub(y, o.Scalar(1.0, t))})));
  if (g.needs_grad(1)) {
    GValue positive = o.Op1(IsComplexType(t) ? "NotEqual" : "Greater", {x, o.Scalar(0.0, t)});
    GValue safe_x = o.Select(positive, x, o.OnesLike(x));
    GValue log_x = o.Select(positive, o.Op1("Log", {safe_x}), o.ZerosLike(x));
    gy = o.Mul(dz, o.Mul(z, log_x));
  }
  SetBinaryGrads(g, gx, gy);
  return Status::OK();
}

// Maximum/Minimum: the gradient goes to x where x wins (ties go to x, as in TensorFlow).
template <bool kMax>
Status ExtremumGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), y = g.input(1), dz = g.grad(0);
  GValue x_wins = o.Op1(kMax ? "GreaterEqual" : "LessEqual", {x, y});
  GValue zeros = o.ZerosLike(dz);
  SetBinaryGrads(g, g.needs_grad(0) ? o.Select(x_wins, dz, zeros) : GValue(),
                 g.needs_grad(1) ? o.Select(x_wins, zeros, dz) : GValue());
  return Status::OK();
}

// z = (x - y)^2: dx = 2 (x - y) dz, dy = -dx.
Status SquaredDifferenceGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), y = g.input(1);
  GValue gx = o.Mul(g.grad(0), o.Mul(o.Scalar(2.0, o.dtype(x)), o.Sub(x, y)));
  SetBinaryGrads(g, gx, g.needs_grad(1) ? o.Neg(gx) : GValue());
  return Status::OK();
}

// z = x - floor(x / y) y: dx = dz, dy = -dz floor(x / y).
Status FloorModGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), y = g.input(1), dz = g.grad(0);
  SetBinaryGrads(g, dz, g.needs_grad(1) ? o.Neg(o.Mul(dz, o.Op1("FloorDiv", {x, y}))) : GValue());
  return Status::OK();
}

// SelectV2(c, t, e): dz goes to t where c holds and to e elsewhere; each summed to its shape.
Status SelectGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue c = g.input(0), dz = g.grad(0);
  GValue zeros = o.ZerosLike(dz);
  if (g.needs_grad(1)) g.set_grad(1, o.SumToShapeOf(o.Select(c, dz, zeros), g.input(1)));
  if (g.needs_grad(2)) g.set_grad(2, o.SumToShapeOf(o.Select(c, zeros, dz), g.input(2)));
  return Status::OK();
}

// ClipByValue(t, lo, hi): dz goes to t inside [lo, hi], to lo below it and to hi above it.
Status ClipByValueGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue t = g.input(0), lo = g.input(1), hi = g.input(2), dz = g.grad(0);
  GValue zeros = o.ZerosLike(dz);
  GValue below = o.Op1("Less", {t, lo}), above = o.Op1("Greater", {t, hi});
  GValue outside = o.Op1("LogicalOr", {below, above});
  if (g.needs_grad(0)) g.set_grad(0, o.SumToShapeOf(o.Select(outside, zeros, dz), t));
  if (g.needs_grad(1)) g.set_grad(1, o.SumToShapeOf(o.Select(below, dz, zeros), lo));
  if (g.needs_grad(2)) g.set_grad(2, o.SumToShapeOf(o.Select(above, dz, zeros), hi));
  return Status::OK();
}

// Cast between floating types passes the gradient back in the source type; other casts stop it.
Status CastGrad(GradContext& g) {
  const DataType src = g.attr_type("SrcT"), dst = g.attr_type("DstT");
  if (IsDifferentiableType(src) && IsDifferentiableType(dst)) g.set_grad(0, g.ops().Cast(g.grad(0), src));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("Add", AddGrad);
TX_REGISTER_GRADIENT("AddV2", AddGrad);
TX_REGISTER_GRADIENT("Sub", SubGrad);
TX_REGISTER_GRADIENT("Mul", MulGrad);
TX_REGISTER_GRADIENT("RealDiv", DivGrad);
TX_REGISTER_GRADIENT("Div", DivGrad);
TX_REGISTER_GRADIENT("Neg", NegGrad);
TX_REGISTER_GRADIENT("AddN", AddNGrad);
TX_REGISTER_GRADIENT("Pow", PowGrad);
TX_REGISTER_GRADIENT("Maximum", ExtremumGrad<true>);
TX_REGISTER_GRADIENT("Minimum", ExtremumGrad<false>);
TX_REGISTER_GRADIENT("SquaredDifference", SquaredDifferenceGrad);
TX_REGISTER_GRADIENT("FloorMod", FloorModGrad);
TX_REGISTER_GRADIENT("SelectV2", SelectGrad);
TX_REGISTER_GRADIENT("ClipByValue", ClipByValueGrad);
TX_REGISTER_GRADIENT("Cast", CastGrad);
TX_REGISTER_GRADIENT("Identity", PassThroughGrad);
TX_REGISTER_GRADIENT("Snapshot", PassThroughGrad);

}  // namespace tx

// Gradients of elementwise arithmetic (binary ops reduce over broadcast dimensions).
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

// z = x + y
Status AddGrad(GradContext& g) {
  GValue dx, dy;
  GValue dz = g.grad(0);
  g.ops().ReduceBroadcastGrads(g.input(0), g.input(1), g.needs_grad(0) ? dz : GValue(),
                               g.needs_grad(1) ? dz : GValue(), &dx, &dy);
  g.set_grad(0, dx);
  g.set_grad(1, dy);
  return Status::OK();
}

// z = x - y
Status SubGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dx, dy, dz = g.grad(0);
  o.ReduceBroadcastGrads(g.input(0), g.input(1), g.needs_grad(0) ? dz : GValue(),
                         g.needs_grad(1) ? o.Neg(dz) : GValue(), &dx, &dy);
  g.set_grad(0, dx);
  g.set_grad(1, dy);
  return Status::OK();
}

// z = x * y
Status MulGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), y = g.input(1), dz = g.grad(0), dx, dy;
  o.ReduceBroadcastGrads(x, y, g.needs_grad(0) ? o.Mul(dz, y) : GValue(), g.needs_grad(1) ? o.Mul(x, dz) : GValue(),
                         &dx, &dy);
  g.set_grad(0, dx);
  g.set_grad(1, dy);
  return Status::OK();
}

// z = x / y: dx = dz / y, dy = -dz * x / y^2.
Status DivGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), y = g.input(1), dz = g.grad(0), dx, dy;
  GValue gx = g.needs_grad(0) ? o.Div(dz, y) : GValue();
  GValue gy = g.needs_grad(1) ? o.Mul(dz, o.Div(o.Div(o.Neg(x), y), y)) : GValue();
  o.ReduceBroadcastGrads(x, y, gx, gy, &dx, &dy);
  g.set_grad(0, dx);
  g.set_grad(1, dy);
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

}  // namespace

TX_REGISTER_GRADIENT("Add", AddGrad);
TX_REGISTER_GRADIENT("AddV2", AddGrad);
TX_REGISTER_GRADIENT("Sub", SubGrad);
TX_REGISTER_GRADIENT("Mul", MulGrad);
TX_REGISTER_GRADIENT("RealDiv", DivGrad);
TX_REGISTER_GRADIENT("Div", DivGrad);
TX_REGISTER_GRADIENT("Neg", NegGrad);
TX_REGISTER_GRADIENT("AddN", AddNGrad);
TX_REGISTER_GRADIENT("Identity", PassThroughGrad);
TX_REGISTER_GRADIENT("Snapshot", PassThroughGrad);

}  // namespace tx

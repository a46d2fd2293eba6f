// Gradients of TensorScatterUpdate, TensorScatterSub, TensorScatterMin and TensorScatterMax
// (TensorFlow's formulas); indices get none.
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

GValue GatherAtIndices(GradContext& g, GValue x) { return g.ops().Op1("GatherNd", {x, g.input(1)}); }

// Overwritten slices of tensor get 0; each update gets its target's gradient.
Status TensorScatterUpdateGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dz = g.grad(0);
  if (g.needs_grad(0)) g.set_grad(0, o.Op1("TensorScatterUpdate", {dz, g.input(1), o.ZerosLike(g.input(2))}));
  if (g.needs_grad(2)) g.set_grad(2, GatherAtIndices(g, dz));
  return Status::OK();
}

Status TensorScatterSubGrad(GradContext& g) {
  g.set_grad(0, g.grad(0));
  if (g.needs_grad(2)) g.set_grad(2, g.ops().Neg(GatherAtIndices(g, g.grad(0))));
  return Status::OK();
}

// The gradient of each output element is shared equally by the inputs equal to it (the old
// element and the updates that reached it).
Status TensorScatterMinOrMaxGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), y = g.input(2), z = g.output(0), dz = g.grad(0);
  const DataType t = o.dtype(dz);
  GValue x_hit = o.Cast(o.Op1("Equal", {x, z}), t);
  GValue y_hit = o.Cast(o.Op1("Equal", {y, GatherAtIndices(g, z)}), t);
  GValue hits = o.Add(x_hit, o.Op1("ScatterNd", {g.input(1), y_hit, o.ShapeOf(x, o.dtype(g.input(1)))}));
  GValue shared = o.Div(dz, hits);
  if (g.needs_grad(0)) g.set_grad(0, o.Mul(shared, x_hit));
  if (g.needs_grad(2)) g.set_grad(2, o.Mul(GatherAtIndices(g, shared), y_hit));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("TensorScatterUpdate", TensorScatterUpdateGrad);
TX_REGISTER_GRADIENT("TensorScatterSub", TensorScatterSubGrad);
TX_REGISTER_GRADIENT("TensorScatterMin", TensorScatterMinOrMaxGrad);
TX_REGISTER_GRADIENT("TensorScatterMax", TensorScatterMinOrMaxGrad);

}  // namespace tx

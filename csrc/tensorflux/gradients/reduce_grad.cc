// Gradients of reductions: the output gradient is broadcast back over the reduced axes.
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

// dz of a reduction of x over `axes`, broadcast back to x's shape.
GValue BroadcastToInput(GradScope& o, GValue x, GValue axes, GValue dz) {
  GValue shaped = dz;
  const PartialShape sx = o.shape(x), sz = o.shape(dz);
  if (!(sz.fully_defined() && sx.fully_defined() && sz.num_elements() == sx.num_elements() && sz.rank() == sx.rank()))
    shaped = o.Reshape(dz, o.ReducedShape(x, axes));
  if (sx.fully_defined() && o.shape(shaped) == sx) return shaped;
  return o.Op1("BroadcastTo", {shaped, o.ShapeOf(x)});
}

Status SumGrad(GradContext& g) {
  g.set_grad(0, BroadcastToInput(g.ops(), g.input(0), g.input(1), g.grad(0)));
  return Status::OK();
}

// Mean = Sum / n with n = size(x) / size(z).
Status MeanGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), dz = g.grad(0);
  GValue sum_grad = BroadcastToInput(o, x, g.input(1), dz);
  const PartialShape sx = o.shape(x), sz = o.shape(g.output(0));
  GValue n;
  if (sx.fully_defined() && sz.fully_defined()) {
    const int64_t out = sz.num_elements();
    n = o.Scalar(static_cast<double>(sx.num_elements()) / static_cast<double>(out > 0 ? out : 1), o.dtype(x));
  } else {
    GValue out = o.Op1("Maximum", {o.SizeOf(g.output(0)), o.Int(1)});
    n = o.Cast(o.Op1("FloorDiv", {o.SizeOf(x), out}), o.dtype(x));
  }
  g.set_grad(0, o.Div(sum_grad, n));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("Sum", SumGrad);
TX_REGISTER_GRADIENT("Mean", MeanGrad);

}  // namespace tx

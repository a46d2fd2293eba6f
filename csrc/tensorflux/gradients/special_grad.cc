// Gradients of the incomplete gamma and beta functions and of the Gamma samplers (TensorFlow's
// formulas): Igamma and Igammac in a (IgammaGradA) and x, Betainc in x only (a and b get none,
// as in TensorFlow), and RandomGamma / StatelessRandomGammaV2/V3 in alpha by implicit
// reparameterization (RandomGammaGrad). The other samplers, Bucketize and the derivative ops
// themselves are not differentiable.
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

// dP/dx = exp(-x + (a - 1) log x - lgamma(a)), the Gamma(a) density.
GValue IgammaPartialX(GradScope& o, GValue a, GValue x) {
  const DataType t = o.dtype(a);
  GValue log_density = o.Sub(o.Sub(o.Op1("Xlogy", {o.Sub(a, o.Scalar(1.0, t)), x}), x), o.Op1("Lgamma", {a}));
  return o.Op1("Exp", {log_density});
}

// Igamma (sign +1) and Igammac (sign -1): both inputs broadcast.
Status IncompleteGammaGrad(GradContext& g, bool upper) {
  GradScope& o = g.ops();
  GValue a = g.input(0), x = g.input(1), dz = g.grad(0);
  GValue ga, gx;
  if (g.needs_grad(0)) {
    ga = o.Mul(dz, o.Op1("IgammaGradA", {a, x}));
    if (upper) ga = o.Neg(ga);
  }
  if (g.needs_grad(1)) {
    gx = o.Mul(dz, IgammaPartialX(o, a, x));
    if (upper) gx = o.Neg(gx);
  }
  GValue da, dx;
  o.ReduceBroadcastGrads(a, x, ga, gx, &da, &dx);
  if (ga.valid()) g.set_grad(0, da);
  if (gx.valid()) g.set_grad(1, dx);
  return Status::OK();
}
Status IgammaGrad(GradContext& g) { return IncompleteGammaGrad(g, false); }
Status IgammacGrad(GradContext& g) { return IncompleteGammaGrad(g, true); }

// dI_x(a, b)/dx = x^(a-1) (1-x)^(b-1) / B(a, b); summed to x's shape where a or b is larger.
Status BetaincGrad(GradContext& g) {
  if (!g.needs_grad(2)) return Status::OK();
  GradScope& o = g.ops();
  GValue a = g.input(0), b = g.input(1), x = g.input(2);
  const DataType t = o.dtype(x);
  GValue one = o.Scalar(1.0, t);
  GValue log_beta = o.Sub(o.Add(o.Op1("Lgamma", {a}), o.Op1("Lgamma", {b})), o.Op1("Lgamma", {o.Add(a, b)}));
  GValue log_px =
      o.Sub(o.Add(o.Op1("Xlog1py", {o.Sub(b, one), o.Neg(x)}), o.Op1("Xlogy", {o.Sub(a, one), x})), log_beta);
  g.set_grad(2, o.SumToShapeOf(o.Mul(g.grad(0), o.Op1("Exp", {log_px})), x));
  return Status::OK();
}

// A Gamma sampler whose output ends with alpha's shape (input `alpha_input`): d sample / d alpha
// by RandomGammaGrad, summed over the sample dimensions.
Status GammaSampleGrad(GradContext& g, int alpha_input) {
  if (!g.needs_grad(alpha_input)) return Status::OK();
  GradScope& o = g.ops();
  GValue alpha = g.input(alpha_input);
  GValue partial = o.Op1("RandomGammaGrad", {alpha, g.output(0)});
  g.set_grad(alpha_input, o.SumToShapeOf(o.Mul(g.grad(0), partial), alpha));
  return Status::OK();
}
Status RandomGammaGradFn(GradContext& g) { return GammaSampleGrad(g, 1); }
Status StatelessRandomGammaV2Grad(GradContext& g) { return GammaSampleGrad(g, 2); }
Status StatelessRandomGammaV3Grad(GradContext& g) { return GammaSampleGrad(g, 4); }

}  // namespace

TX_REGISTER_GRADIENT("Igamma", IgammaGrad);
TX_REGISTER_GRADIENT("Igammac", IgammacGrad);
TX_REGISTER_GRADIENT("Betainc", BetaincGrad);
TX_REGISTER_GRADIENT("RandomGamma", RandomGammaGradFn);
TX_REGISTER_GRADIENT("StatelessRandomGammaV2", StatelessRandomGammaV2Grad);
TX_REGISTER_GRADIENT("StatelessRandomGammaV3", StatelessRandomGammaV3Grad);
TX_REGISTER_NO_GRADIENT("IgammaGradA");
TX_REGISTER_NO_GRADIENT("RandomGammaGrad");
TX_REGISTER_NO_GRADIENT("RandomPoisson");
TX_REGISTER_NO_GRADIENT("RandomPoissonV2");
TX_REGISTER_NO_GRADIENT("StatelessRandomPoisson");
TX_REGISTER_NO_GRADIENT("StatelessRandomBinomial");
TX_REGISTER_NO_GRADIENT("Bucketize");

}  // namespace tx

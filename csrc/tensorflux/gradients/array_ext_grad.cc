// Gradients of Roll (rolling the gradient back) and the not-differentiable LinSpace, LowerBound
// and UpperBound (as in TensorFlow).
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

Status RollGrad(GradContext& g) {
  g.set_grad(0, g.ops().Op1("Roll", {g.grad(0), g.ops().Neg(g.input(1)), g.input(2)}));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("Roll", RollGrad);
TX_REGISTER_NO_GRADIENT("LinSpace");
TX_REGISTER_NO_GRADIENT("LowerBound");
TX_REGISTER_NO_GRADIENT("UpperBound");

}  // namespace tx

// Lowered (TensorFlow 1) control-flow ops have no gradient of their own: GraphDef import rebuilds
// them into While/If/Case, whose gradients the engine has (Note [Functionalize control flow]).
// A graph that still holds one cannot run, so asking for its gradient fails, naming the op.
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

Status LoweredControlFlowGrad(GradContext& g) {
  return Unimplemented(
      "no gradient for lowered control flow: import the graph with tx.import_graph_def, which "
      "rebuilds Switch/Merge/Enter/Exit/NextIteration/LoopCond into While/If/Case (their gradients "
      "are the engine's)");
}

}  // namespace

TX_REGISTER_GRADIENT("Switch", LoweredControlFlowGrad);
TX_REGISTER_GRADIENT("_SwitchN", LoweredControlFlowGrad);
TX_REGISTER_GRADIENT("Merge", LoweredControlFlowGrad);
TX_REGISTER_GRADIENT("Enter", LoweredControlFlowGrad);
TX_REGISTER_GRADIENT("Exit", LoweredControlFlowGrad);
TX_REGISTER_GRADIENT("NextIteration", LoweredControlFlowGrad);
TX_REGISTER_NO_GRADIENT("LoopCond");

}  // namespace tx

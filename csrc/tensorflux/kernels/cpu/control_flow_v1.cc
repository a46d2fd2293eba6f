// Kernels of the lowered (TensorFlow 1) control-flow ops. The engine runs control flow as the
// functional While/If/Case ops only: GraphDef import rebuilds Switch/Merge/Enter/Exit/
// NextIteration/LoopCond graphs into them (Note [Functionalize control flow]). A graph that holds
// these ops anyway (built node by node, or inside a library function) fails when its plan is
// made, naming the node, instead of running with dead-tensor semantics the executor does not have.
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace {

class LoweredControlFlowOp : public OpKernel {
 public:
  explicit LoweredControlFlowOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(Unimplemented(
        "[", c->name(), "] ", c->op_type(),
        " is lowered (TensorFlow 1) control flow, which runs only once GraphDef "
        "import has rebuilt it into While/If/Case: import the graph with tx.import_graph_def (TX_GraphImportGraphDef), "
        "or build conditionals and loops with tx.cond / tx.while_loop (If/While)"));
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(Unimplemented("[", name(), "] lowered control flow cannot run"));
  }
};

}  // namespace

TX_REGISTER_KERNEL(KernelDefBuilder("Switch"), LoweredControlFlowOp);
TX_REGISTER_KERNEL(KernelDefBuilder("_SwitchN"), LoweredControlFlowOp);
TX_REGISTER_KERNEL(KernelDefBuilder("Merge"), LoweredControlFlowOp);
TX_REGISTER_KERNEL(KernelDefBuilder("Enter"), LoweredControlFlowOp);
TX_REGISTER_KERNEL(KernelDefBuilder("Exit"), LoweredControlFlowOp);
TX_REGISTER_KERNEL(KernelDefBuilder("NextIteration"), LoweredControlFlowOp);
TX_REGISTER_KERNEL(KernelDefBuilder("LoopCond"), LoweredControlFlowOp);

}  // namespace tx

// The CPU kernel of PartitionedCall and StatefulPartitionedCall: runs the called function's
// instantiated body as a nested ExecutionPlan (Note [Call kernel]).
#include "tensorflux/framework/function_instantiate.h"
#include "tensorflux/runtime/executor.h"
#include "tensorflux/runtime/op_kernel.h"

// Note [Call kernel]
// At construction the kernel takes the body its node's shape function instantiated (cached in
// the graph's library per function, attrs and input shapes) and builds one ExecutionPlan for it:
// feeds are the _Arg outputs, fetches the rets, targets the control_rets plus every stateful
// body node except _Arg (as TensorFlow's function runtime keeps side effects that no output
// depends on). The plan is built by the same ExecutionPlan::Build sessions use, so function
// bodies are pruned and CSE-optimized like session graphs (Note [Plan CSE]).
// Compute runs that plan with the caller's intra-op pool and resource manager (variables passed
// by handle are the caller's). It uses the caller's inter-op pool only when it is not itself
// running on one of that pool's workers: a worker that blocked waiting for work queued behind it
// could deadlock the pool, so calls made from workers run their body on the calling thread.

namespace tx {
namespace cpu {
namespace {

class CallOp : public OpKernel {
 public:
  explicit CallOp(OpKernelConstruction* c) : OpKernel(c) {
    Status s = GetCallBody(c->node(), &body_);
    if (s.ok()) s = BuildPlan();
    c->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<Tensor> args(static_cast<size_t>(ctx->num_inputs()));
    for (int i = 0; i < ctx->num_inputs(); ++i) args[i] = ctx->input(i);
    ThreadPool* inter_op = ctx->inter_op_pool();
    if (inter_op != nullptr && inter_op->IsWorkerThread()) inter_op = nullptr;
    std::vector<Tensor> results;
    Status s = plan_->Run(args, inter_op, ctx->intra_op_pool(), &results, ctx->resource_manager());
    if (!s.ok()) {
      ctx->SetStatus(Status(s.code(), "[" + name() + "] in function '" + body_->function + "': " + s.message()));
      return;
    }
    for (size_t k = 0; k < results.size(); ++k) ctx->set_output(static_cast<int>(k), std::move(results[k]));
  }

 private:
  Status BuildPlan() {
    std::vector<Endpoint> feeds;
    for (Node* a : body_->args) feeds.push_back({a, 0});
    std::vector<Node*> targets = body_->control_rets;
    for (Node* n : body_->graph->Nodes())
      if (n->op_def().is_stateful && n->op_type() != "_Arg") targets.push_back(n);
    Status s = ExecutionPlan::Build(*body_->graph, feeds, body_->rets, targets, ExecutionPlan::Options(), &plan_);
    return s.ok() ? s : s.WithPrefix("function '" + body_->function + "': ");
  }

  std::shared_ptr<const FunctionBody> body_;
  std::unique_ptr<ExecutionPlan> plan_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("PartitionedCall"), CallOp);
TX_REGISTER_KERNEL(KernelDefBuilder("StatefulPartitionedCall"), CallOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

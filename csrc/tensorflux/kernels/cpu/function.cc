// The CPU kernel of PartitionedCall and StatefulPartitionedCall: runs the called function's
// instantiated body as a nested ExecutionPlan (Note [Call kernel]).
#include "tensorflux/kernels/cpu/function_runner.h"

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
    std::shared_ptr<const FunctionBody> body;
    Status s = GetCallBody(c->node(), &body);
    if (s.ok()) s = runner_.Init(std::move(body));
    c->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<Tensor> results;
    Status s = runner_.Run(ctx, ReleaseInputsFrom(ctx, 0), &results);
    if (!s.ok()) return ctx->SetStatus(s);
    for (size_t k = 0; k < results.size(); ++k) ctx->set_output(static_cast<int>(k), std::move(results[k]));
  }

 private:
  FunctionRunner runner_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("PartitionedCall"), CallOp);
TX_REGISTER_KERNEL(KernelDefBuilder("StatefulPartitionedCall"), CallOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

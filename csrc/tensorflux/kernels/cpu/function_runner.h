// A function body planned once and run inside another kernel's Compute (the call kernel and the
// functional control-flow kernels share it; Note [Call kernel] in function.cc).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensorflux/framework/function_instantiate.h"
#include "tensorflux/runtime/executor.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// One instantiated body and the ExecutionPlan built for it; immutable after Init, so concurrent
// runs of the owning kernel share it.
class FunctionRunner {
 public:
  // Plans `body`: feeds its _Arg outputs, fetches its rets, and targets its control_rets plus
  // every stateful node except _Arg. Errors are prefixed "function 'name': ".
  Status Init(std::shared_ptr<const FunctionBody> body) {
    body_ = std::move(body);
    std::vector<Endpoint> feeds;
    for (Node* a : body_->args) feeds.push_back({a, 0});
    std::vector<Node*> targets = body_->control_rets;
    for (Node* n : body_->graph->Nodes())
      if (n->op_def().is_stateful && n->op_type() != "_Arg") targets.push_back(n);
    Status s = ExecutionPlan::Build(*body_->graph, feeds, body_->rets, targets, ExecutionPlan::Options(), &plan_);
    return s.ok() ? s : s.WithPrefix("function '" + body_->function + "': ");
  }

  // Runs the body on `args` with ctx's intra-op pool and resource manager, and its inter-op pool
  // when `use_inter_op` and the caller does not already run on one of that pool's workers
  // (loops pass false: Note [Loop bodies run inline] in control_flow.cc), and ctx's cancellation
  // token (the body stops at its next kernel once the run is cancelled); when the calling kernel
  // belongs to a traced run, the body's kernels are traced into it (Note [Step stats]). Errors read
  // "[node] in function 'name': ...", naming ctx's node. The run takes `args`: a caller that
  // moves them in lets the body's kernels reuse their buffers (Note [Loop variables move into
  // the body] in control_flow.cc).
  Status Run(OpKernelContext* ctx, std::vector<Tensor> args, std::vector<Tensor>* results,
             bool use_inter_op = true) const {
    ThreadPool* inter_op = use_inter_op ? ctx->inter_op_pool() : nullptr;
    if (inter_op != nullptr && inter_op->IsWorkerThread()) inter_op = nullptr;
    results->clear();
    Status s = plan_->Run(std::move(args), inter_op, ctx->intra_op_pool(), results, ctx->resource_manager(),
                          ctx->cancellation(), CurrentStepStats());
    if (s.ok()) return s;
    if (ctx->cancelled()) return s;  // the token's status, unprefixed (Note [Cancellation])
    return Status(s.code(), "[" + ctx->name() + "] in function '" + body_->function + "': " + s.message());
  }

  const FunctionBody& body() const { return *body_; }

 private:
  std::shared_ptr<const FunctionBody> body_;
  std::unique_ptr<ExecutionPlan> plan_;
};

// The kernel's inputs [begin, num_inputs) as a vector (the arguments of a function run).
inline std::vector<Tensor> InputsFrom(OpKernelContext* ctx, int begin) {
  std::vector<Tensor> args;
  for (int i = begin; i < ctx->num_inputs(); ++i) args.push_back(ctx->input(i));
  return args;
}

// Like InputsFrom, but moves the inputs out of the context, for a kernel that reads them no more.
inline std::vector<Tensor> ReleaseInputsFrom(OpKernelContext* ctx, int begin) {
  std::vector<Tensor> args;
  for (int i = begin; i < ctx->num_inputs(); ++i) args.push_back(ctx->release_input(i));
  return args;
}

}  // namespace cpu
}  // namespace tx

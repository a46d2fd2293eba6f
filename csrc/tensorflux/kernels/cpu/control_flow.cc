// CPU kernels of If, Case and While (and their stateless forms): each runs library functions
// planned once at construction (FunctionRunner), for the bodies the node's shape function
// instantiated (ops/control_flow_util.h).
#include "tensorflux/kernels/cpu/function_runner.h"
#include "tensorflux/ops/control_flow_util.h"

namespace tx {
namespace cpu {
namespace {

// TensorFlow's truth value of a predicate: a scalar is true when non-zero (bool and numeric
// types TensorFlow accepts), any other tensor when it is non-empty.
Status ToBool(const Tensor& t, bool* out) {
  if (t.shape().rank() != 0) {
    *out = t.shape().num_elements() > 0;
    return Status::OK();
  }
  switch (t.dtype()) {
    case DT_BOOL: *out = *t.data<bool>(); break;
    case DT_FLOAT: *out = *t.data<float>() != 0; break;
    case DT_DOUBLE: *out = *t.data<double>() != 0; break;
    case DT_INT32: *out = *t.data<int32_t>() != 0; break;
    case DT_INT64: *out = *t.data<int64_t>() != 0; break;
    case DT_INT16: *out = *t.data<int16_t>() != 0; break;
    case DT_INT8: *out = *t.data<int8_t>() != 0; break;
    case DT_UINT8: *out = *t.data<uint8_t>() != 0; break;
    default:
      return InvalidArgument("a scalar ", DataTypeString(t.dtype()),
                             " cannot be converted to a boolean (expected bool, a number type, or a non-scalar)");
  }
  return Status::OK();
}

Status InitRunners(const std::vector<FunctionBodyPtr>& bodies, std::vector<FunctionRunner>* runners) {
  runners->resize(bodies.size());
  for (size_t k = 0; k < bodies.size(); ++k) TX_RETURN_IF_ERROR((*runners)[k].Init(bodies[k]));
  return Status::OK();
}

void SetOutputs(OpKernelContext* ctx, std::vector<Tensor>* values) {
  for (size_t k = 0; k < values->size(); ++k) ctx->set_output(static_cast<int>(k), std::move((*values)[k]));
}

// If/StatelessIf (branches: then, else) and Case/StatelessCase (branches in order).
class BranchOp : public OpKernel {
 public:
  explicit BranchOp(OpKernelConstruction* c) : OpKernel(c), is_case_(c->node().attr("branches") != nullptr) {
    std::vector<FunctionBodyPtr> bodies;
    Status s = GetBranchBodies(&c->node().graph()->library(), c->node().attrs(), NodeArgShapes(c->node(), 1), &bodies);
    if (s.ok()) s = InitRunners(bodies, &branches_);
    c->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& sel = ctx->input(0);
    size_t branch = 0;
    if (is_case_) {
      if (sel.shape().rank() != 0)
        return ctx->SetStatus(
            InvalidArgument("[", name(), "] branch_index must be a scalar, got shape ", sel.shape().ToString()));
      const int32_t index = *sel.data<int32_t>();
      branch = index < 0 || static_cast<size_t>(index) >= branches_.size() ? branches_.size() - 1
                                                                           : static_cast<size_t>(index);
    } else {
      bool cond = false;
      Status s = ToBool(sel, &cond);
      if (!s.ok()) return ctx->SetStatus(s.WithPrefix("[" + name() + "] cond: "));
      branch = cond ? 0 : 1;
    }
    std::vector<Tensor> results;
    Status s = branches_[branch].Run(ctx, ReleaseInputsFrom(ctx, 1), &results);
    if (!s.ok()) return ctx->SetStatus(s);
    SetOutputs(ctx, &results);
  }

 private:
  const bool is_case_;
  std::vector<FunctionRunner> branches_;
};

// While/StatelessWhile: alternates cond and body on the loop variables until cond is false,
// without leaving Compute; both plans are built once (Note [While shapes]). parallel_iterations
// only matters to TensorFlow's dataflow loops: iterations here run one after another.
//
// Note [Loop bodies run inline]
// Each iteration's cond and body run on the loop kernel's own thread, never handing nodes to the
// inter-op pool: a loop body is usually small (an RNN cell, a counter), so a hand-off per
// iteration costs more than the parallelism gains, and on a loaded machine each hand-off waits
// for a core (measured: the 50-step RNN's forward + backward took 2-16 ms with hand-offs,
// varying with load). Big kernels inside the body still split their work over the intra-op pool.
//
// Note [Loop variables move into the body]
// The loop hands its variables to the body run (std::move), so the body's _Arg slots hold the
// only references to them and a kernel consuming one may write its output into that buffer
// (forward_input_or_allocate_output). That makes an accumulator updated in place each iteration
// (TensorScatterUpdate into a preallocated [T, ...] tensor, as an RNN collects its outputs) cost
// O(size of one update) per iteration instead of a copy of the whole accumulator: O(T) for the
// loop rather than O(T^2). The cond gets a copy, released when it returns. Call, If and While
// kernels likewise move their own inputs into the function run (ReleaseInputsFrom), so a tensor
// whose last reader is the call is forwarded through it.
class WhileOp : public OpKernel {
 public:
  explicit WhileOp(OpKernelConstruction* c) : OpKernel(c) {
    WhileBodies bodies;
    Status s = GetWhileBodies(&c->node().graph()->library(), c->node().attrs(), NodeArgShapes(c->node(), 0), &bodies);
    if (s.ok()) s = cond_.Init(bodies.cond);
    if (s.ok()) s = body_.Init(bodies.body);
    c->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<Tensor> vars = ReleaseInputsFrom(ctx, 0), pred, next;
    for (;;) {
      // Every iteration checks for cancellation, so even a loop of no kernels stops (Note [Cancellation]).
      if (ctx->cancelled()) return ctx->SetStatus(ctx->cancellation()->status());
      Status s = cond_.Run(ctx, vars, &pred, /*use_inter_op=*/false);
      bool go = false;
      if (s.ok())
        s = ToBool(pred[0], &go).WithPrefix("[" + name() + "] cond function '" + cond_.body().function + "': ");
      if (!s.ok()) return ctx->SetStatus(s);
      if (!go) break;
      s = body_.Run(ctx, std::move(vars), &next, /*use_inter_op=*/false);
      if (!s.ok()) return ctx->SetStatus(s);
      vars.swap(next);
    }
    SetOutputs(ctx, &vars);
  }

 private:
  FunctionRunner cond_, body_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("If"), BranchOp);
TX_REGISTER_KERNEL(KernelDefBuilder("StatelessIf"), BranchOp);
TX_REGISTER_KERNEL(KernelDefBuilder("Case"), BranchOp);
TX_REGISTER_KERNEL(KernelDefBuilder("StatelessCase"), BranchOp);
TX_REGISTER_KERNEL(KernelDefBuilder("While"), WhileOp);
TX_REGISTER_KERNEL(KernelDefBuilder("StatelessWhile"), WhileOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

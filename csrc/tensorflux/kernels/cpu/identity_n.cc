// CPU kernels that pass tensors through: IdentityN, StopGradient, PreventGradient, and
// Snapshot (which copies).
#include <cstring>

#include "tensorflux/core/object_types.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Output i shares input i's buffer, for every i.
class PassThroughOp : public OpKernel {
 public:
  explicit PassThroughOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    if (ctx->num_inputs() != ctx->num_outputs()) {
      ctx->SetStatus(
          InvalidArgument("expected as many inputs as outputs, got ", ctx->num_inputs(), " and ", ctx->num_outputs()));
      return;
    }
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, ctx->output_type(i)));
      ctx->set_output(i, ctx->input(i));
    }
  }
};

// Snapshot: a copy of input 0 (the input's buffer is reused when this node holds it alone).
class SnapshotOp : public OpKernel {
 public:
  explicit SnapshotOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, ctx->output_type(0)));
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->forward_input_or_allocate_output(0, 0, x.shape(), &out));
    if (out->raw_data() != x.raw_data()) CopyElements(x.dtype(), x.raw_data(), out->raw_data(), x.num_elements());
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("IdentityN"), PassThroughOp);
TX_REGISTER_KERNEL(KernelDefBuilder("StopGradient"), PassThroughOp);
TX_REGISTER_KERNEL(KernelDefBuilder("PreventGradient"), PassThroughOp);
TX_REGISTER_KERNEL(KernelDefBuilder("Snapshot"), SnapshotOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

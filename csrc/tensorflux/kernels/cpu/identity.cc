// CPU kernels that move no data: Identity, NoOp, and Placeholder (which only runs when not fed).
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Output 0 shares input 0's buffer.
class IdentityOp : public OpKernel {
 public:
  explicit IdentityOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, ctx->output_type(0)));
    ctx->set_output(0, ctx->input(0));
  }
};

// Does nothing.
class NoOpKernel : public OpKernel {
 public:
  explicit NoOpKernel(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext*) override {}
};

// Runs only when the placeholder was not fed, and always fails saying what to feed.
class PlaceholderOp : public OpKernel {
 public:
  explicit PlaceholderOp(OpKernelConstruction* c) : OpKernel(c) {
    DataType dtype = DT_INVALID;
    PartialShape shape;
    c->SetStatus(c->GetAttr("dtype", &dtype));
    c->SetStatus(c->GetAttr("shape", &shape));
    message_ = "You must feed a value for placeholder tensor '" + c->name() + "' with dtype " + DataTypeString(dtype);
    if (shape.known_rank() && shape.rank() > 0) message_ += " and shape " + shape.ToString();
  }
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(InvalidArgument(message_)); }

 private:
  std::string message_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("Identity"), IdentityOp);
TX_REGISTER_KERNEL(KernelDefBuilder("NoOp"), NoOpKernel);
TX_REGISTER_KERNEL(KernelDefBuilder("Placeholder"), PlaceholderOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

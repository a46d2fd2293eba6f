// CPU kernels that describe a tensor's shape: Shape, Size, Rank.
#include <cstdint>
#include <limits>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Writes v to out[i] in the output's int32/int64 type; false when it does not fit int32.
bool PutIndex(Tensor* out, int64_t i, int64_t v) {
  if (out->dtype() == DT_INT64) {
    out->data<int64_t>()[i] = v;
    return true;
  }
  if (v > std::numeric_limits<int32_t>::max()) return false;
  out->data<int32_t>()[i] = static_cast<int32_t>(v);
  return true;
}

// Shape: the dims of input 0 as a vector.
class ShapeOp : public OpKernel {
 public:
  explicit ShapeOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({x.rank()}), &out));
    for (int i = 0; i < x.rank(); ++i) {
      if (!PutIndex(out, i, x.dim(i))) {
        ctx->SetStatus(InvalidArgument("Shape output type int32 cannot hold dimension ", i, " of shape ",
                                       x.shape().ToString(), "; use out_type=int64"));
        return;
      }
    }
  }
};

// Size: the element count of input 0.
class SizeOp : public OpKernel {
 public:
  explicit SizeOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(), &out));
    if (!PutIndex(out, 0, x.num_elements()))
      ctx->SetStatus(InvalidArgument("Size output type int32 cannot hold the element count of shape ",
                                     x.shape().ToString(), "; use out_type=int64"));
  }
};

// Rank: the number of dims of input 0.
class RankOp : public OpKernel {
 public:
  explicit RankOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->data<int32_t>()[0] = ctx->input(0).rank();
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("Shape"), ShapeOp);
TX_REGISTER_KERNEL(KernelDefBuilder("Size"), SizeOp);
TX_REGISTER_KERNEL(KernelDefBuilder("Rank"), RankOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

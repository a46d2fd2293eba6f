// CPU kernel for RandomUniformInt: integers uniform in [minval, maxval).
#include <memory>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/philox.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Element i takes half of block i/2: 64 random bits reduced modulo the range (bias below
// range / 2^64, negligible for every int32 and most int64 ranges).
template <typename T>
class RandomUniformIntOp : public OpKernel {
 public:
  explicit RandomUniformIntOp(OpKernelConstruction* c) : OpKernel(c) {
    int64_t seed = 0, seed2 = 0;
    c->SetStatus(c->GetAttr("seed", &seed));
    c->SetStatus(c->GetAttr("seed2", &seed2));
    state_ = std::make_unique<PhiloxState>(seed, seed2);
  }

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, RandomShapeFromTensor(ctx->input(0), &shape));
    for (int i = 1; i <= 2; ++i) {
      TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, DataTypeOf<T>::value));
      if (ctx->input(i).rank() != 0) {
        ctx->SetStatus(InvalidArgument(i == 1 ? "minval" : "maxval", " must be a scalar, got shape ",
                                       ctx->input(i).shape().ToString()));
        return;
      }
    }
    const T lo = ctx->input(1).data<T>()[0], hi = ctx->input(2).data<T>()[0];
    const int64_t n = shape.num_elements();
    if (n > 0 && lo >= hi) {
      ctx->SetStatus(InvalidArgument("Need minval < maxval: ", lo, " >= ", hi));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    if (n == 0) return;
    const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    const uint64_t blocks = static_cast<uint64_t>((n + 1) / 2);
    const PhiloxCounter base = state_->Reserve(blocks);
    const PhiloxKey key = state_->key();
    T* y = out->data<T>();
    ParallelItems(ctx->intra_op_pool(), static_cast<int64_t>(blocks), 40, [&](int64_t b, int64_t e) {
      for (int64_t g = b; g < e; ++g) {
        const PhiloxBlock w = Philox4x32(PhiloxAdd(base, static_cast<uint64_t>(g)), key);
        for (int64_t j = 0; j < 2 && 2 * g + j < n; ++j) {
          const uint64_t bits = (static_cast<uint64_t>(w[2 * j]) << 32) | w[2 * j + 1];
          y[2 * g + j] = static_cast<T>(static_cast<uint64_t>(lo) + bits % range);
        }
      }
    });
  }

 private:
  std::unique_ptr<PhiloxState> state_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("RandomUniformInt").TypeConstraint<int32_t>("Tout"), RandomUniformIntOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("RandomUniformInt").TypeConstraint<int64_t>("Tout"), RandomUniformIntOp<int64_t>);

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernel for Range: start, start + delta, ... up to but excluding limit (Note [Range size]
// in ops/shape_ops.cc).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Largest Range output accepted (elements); bigger requests fail instead of allocating.
constexpr double kMaxRangeSize = static_cast<double>(int64_t{1} << 40);

template <typename T>
class RangeOp : public OpKernel {
 public:
  explicit RangeOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < 3; ++i) {
      TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, DataTypeOf<T>::value));
      if (ctx->input(i).num_elements() != 1 || ctx->input(i).rank() > 1) {
        static const char* kNames[] = {"start", "limit", "delta"};
        ctx->SetStatus(InvalidArgument(kNames[i], " must be a scalar, not shape ", ctx->input(i).shape().ToString()));
        return;
      }
    }
    const T start = ctx->input(0).data<T>()[0], limit = ctx->input(1).data<T>()[0];
    const T delta = ctx->input(2).data<T>()[0];
    if (delta == T(0)) {
      ctx->SetStatus(InvalidArgument("Requires delta != 0: ", delta));
      return;
    }
    if (delta > T(0) && start > limit) {
      ctx->SetStatus(InvalidArgument("Requires start <= limit when delta > 0: ", start, "/", limit));
      return;
    }
    if (delta < T(0) && start < limit) {
      ctx->SetStatus(InvalidArgument("Requires start >= limit when delta < 0: ", start, "/", limit));
      return;
    }
    double size;
    if constexpr (std::is_integral_v<T>) {
      const double span = std::abs(static_cast<double>(limit) - static_cast<double>(start));
      size = std::ceil(span / std::abs(static_cast<double>(delta)));
    } else {
      size =
          std::ceil(std::abs((static_cast<double>(limit) - static_cast<double>(start)) / static_cast<double>(delta)));
    }
    if (!(size <= kMaxRangeSize)) {
      ctx->SetStatus(InvalidArgument("Range of ", size, " elements is too large (start ", start, ", limit ", limit,
                                     ", delta ", delta, ")"));
      return;
    }
    const int64_t n = static_cast<int64_t>(size);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({n}), &out));
    T* y = out->data<T>();
    ParallelRange(ctx->intra_op_pool(), n, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        if constexpr (std::is_integral_v<T>)  // unsigned: i * delta may leave T's range midway
          y[i] = static_cast<T>(static_cast<uint64_t>(start) + static_cast<uint64_t>(i) * static_cast<uint64_t>(delta));
        else
          y[i] = static_cast<T>(start + static_cast<T>(i) * delta);
      }
    });
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("Range").TypeConstraint<float>("Tidx"), RangeOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("Range").TypeConstraint<double>("Tidx"), RangeOp<double>);
TX_REGISTER_KERNEL(KernelDefBuilder("Range").TypeConstraint<int32_t>("Tidx"), RangeOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("Range").TypeConstraint<int64_t>("Tidx"), RangeOp<int64_t>);

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernels for Softmax and LogSoftmax over the last axis, numerically stable (max subtracted first).
#include <algorithm>
#include <cmath>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/vec_math.h"
#include "tensorflux/kernels/cpu/widened_kernel.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

constexpr int kLanes = 16;  // independent accumulators, so gcc can vectorize the sum

template <typename T>
T RowSum(const T* x, int64_t n) {
  T lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) lanes[l] += x[i + l];
  T s = 0;
  for (int l = 0; l < kLanes; ++l) s += lanes[l];
  for (; i < n; ++i) s += x[i];
  return s;
}

// y = exp(x - max(x)) / sum(exp(x - max(x))) for one row of n > 0 elements (y may alias x).
template <typename T>
void SoftmaxRow(const T* x, T* y, int64_t n) {
  VecExpArray(x, VecMax(x, n), y, n);
  const T inv = T(1) / RowSum(y, n);
  for (int64_t i = 0; i < n; ++i) y[i] *= inv;
}

// y = x - max(x) - log(sum(exp(x - max(x)))) for one row of n > 0 elements (y may alias x).
template <typename T>
void LogSoftmaxRow(const T* x, T* y, int64_t n) {
  const T m = VecMax(x, n);
  constexpr int64_t kChunk = 256;
  T buf[kChunk];
  T sum = 0;
  for (int64_t b = 0; b < n; b += kChunk) {  // exp goes to a local buffer: y may alias x
    const int64_t len = std::min(kChunk, n - b);
    VecExpArray(x + b, m, buf, len);
    sum += RowSum(buf, len);
  }
  const T shift = m + std::log(sum);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] - shift;
}

// Softmax (kLog false) or LogSoftmax (kLog true) of each row along the last axis; rank >= 1.
template <typename T, bool kLog = false>
class SoftmaxOp : public OpKernel {
 public:
  explicit SoftmaxOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& xt = ctx->input(0);
    if (xt.rank() < 1) {
      ctx->SetStatus(InvalidArgument("logits must have >= 1 dimension, got ", xt.shape().ToString()));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->forward_input_or_allocate_output(0, 0, xt.shape(), &out));
    const int64_t cols = xt.dim(xt.rank() - 1);
    if (cols == 0 || xt.num_elements() == 0) return;
    const int64_t rows = xt.num_elements() / cols;
    const T* x = xt.data<T>();
    T* y = out->data<T>();
    ParallelItems(ctx->intra_op_pool(), rows, cols * 8, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        if constexpr (kLog)
          LogSoftmaxRow(x + r * cols, y + r * cols, cols);
        else
          SoftmaxRow(x + r * cols, y + r * cols, cols);
      }
    });
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("Softmax").TypeConstraint<float>("T"), SoftmaxOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("Softmax").TypeConstraint<double>("T"), SoftmaxOp<double>);
TX_REGISTER_KERNEL(KernelDefBuilder("LogSoftmax").TypeConstraint<float>("T"), SoftmaxOp<float, true>);
TX_REGISTER_KERNEL(KernelDefBuilder("LogSoftmax").TypeConstraint<double>("T"), SoftmaxOp<double, true>);

// --- half and bfloat16: the float32 kernel on widened inputs, outputs rounded once
// (Note [Widened kernels]) ---
TX_REGISTER_WIDENED("Softmax", "T");
TX_REGISTER_WIDENED("LogSoftmax", "T");

}  // namespace
}  // namespace cpu
}  // namespace tx

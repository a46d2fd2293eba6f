// CPU kernels for L2Loss (sum of squares / 2) and InTopKV2 (is the target among the top k?).
#include <cmath>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/widened_kernel.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// output = sum(t ** 2) / 2, accumulated in double over 8 lanes.
template <typename T>
class L2LossOp : public OpKernel {
 public:
  explicit L2LossOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& t = ctx->input(0);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    const T* x = t.data<T>();
    const int64_t n = t.num_elements();
    double lanes[8] = {};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int l = 0; l < 8; ++l) lanes[l] += static_cast<double>(x[i + l]) * x[i + l];
    double s = 0;
    for (int l = 0; l < 8; ++l) s += lanes[l];
    for (; i < n; ++i) s += static_cast<double>(x[i]) * x[i];
    out->data<T>()[0] = static_cast<T>(s / 2);
  }
};

// precision[b] = targets[b] is a valid class whose finite prediction has fewer than k strictly
// larger predictions in row b.
template <typename I>
class InTopKOp : public OpKernel {
 public:
  explicit InTopKOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_FLOAT));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<I>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, DataTypeOf<I>::value));
    const Tensor& p = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& kt = ctx->input(2);
    if (p.rank() != 2) {
      ctx->SetStatus(InvalidArgument("predictions must be 2-dimensional, got shape ", p.shape().ToString()));
      return;
    }
    if (t.rank() != 1) {
      ctx->SetStatus(InvalidArgument("targets must be 1-dimensional, got shape ", t.shape().ToString()));
      return;
    }
    if (kt.num_elements() != 1) {
      ctx->SetStatus(InvalidArgument("k must be a scalar, got shape ", kt.shape().ToString()));
      return;
    }
    if (p.dim(0) != t.dim(0)) {
      ctx->SetStatus(
          InvalidArgument("First dimension of predictions ", p.dim(0), " must match length of targets ", t.dim(0)));
      return;
    }
    const int64_t rows = p.dim(0), cols = p.dim(1);
    const int64_t k = static_cast<int64_t>(kt.data<I>()[0]);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({rows}), &out));
    const float* pr = p.data<float>();
    const I* tg = t.data<I>();
    bool* o = out->data<bool>();
    ParallelItems(ctx->intra_op_pool(), rows, cols, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t c = static_cast<int64_t>(tg[r]);
        const float* row = pr + r * cols;
        if (c < 0 || c >= cols || !std::isfinite(row[c])) {
          o[r] = false;
          continue;
        }
        const float v = row[c];
        int64_t larger = 0;
        for (int64_t i = 0; i < cols; ++i) larger += row[i] > v;
        o[r] = larger < k;
      }
    });
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("L2Loss").TypeConstraint<float>("T"), L2LossOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("L2Loss").TypeConstraint<double>("T"), L2LossOp<double>);
TX_REGISTER_KERNEL(KernelDefBuilder("InTopKV2").TypeConstraint<int32_t>("T"), InTopKOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("InTopKV2").TypeConstraint<int64_t>("T"), InTopKOp<int64_t>);

// --- half and bfloat16: the float32 kernel on widened inputs, outputs rounded once
// (Note [Widened kernels]) ---
TX_REGISTER_WIDENED("L2Loss", "T");

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernels for SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits: one fused,
// numerically stable pass per row (log-sum-exp with the row max subtracted).
#include <algorithm>
#include <cmath>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/vec_math.h"
#include "tensorflux/kernels/cpu/widened_kernel.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Writes exp(f - max) into `e` (n > 0) and returns log(sum(exp(f - max))) + max.
template <typename T>
T LogSumExpRow(const T* f, T* e, int64_t n) {
  const T m = VecMax(f, n);
  VecExpArray(f, m, e, n);
  T s = 0;
  for (int64_t i = 0; i < n; ++i) s += e[i];
  return m + std::log(s);
}

// Dense labels, broadcast against features to [batch, classes] (either may have a 1 dimension).
template <typename T>
class XentOp : public OpKernel {
 public:
  explicit XentOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    const Tensor& ft = ctx->input(0);
    const Tensor& lt = ctx->input(1);
    if (ft.rank() != 2 || lt.rank() != 2) {
      ctx->SetStatus(InvalidArgument("logits and labels must be 2-D, got logits_size=", ft.shape().ToString(),
                                     " labels_size=", lt.shape().ToString()));
      return;
    }
    int64_t dims[2];
    for (int d = 0; d < 2; ++d) {
      const int64_t a = ft.dim(d), b = lt.dim(d);
      if (a != b && a != 1 && b != 1) {
        ctx->SetStatus(InvalidArgument("logits and labels must be broadcastable: logits_size=", ft.shape().ToString(),
                                       " labels_size=", lt.shape().ToString()));
        return;
      }
      dims[d] = a == 1 ? b : a;
    }
    const int64_t rows = dims[0], cols = dims[1];
    Tensor *loss = nullptr, *back = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({rows}), &loss));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, TensorShape({rows, cols}), &back));
    if (rows == 0) return;
    T* lo = loss->data<T>();
    if (cols == 0) {
      std::fill(lo, lo + rows, T(0));
      return;
    }
    const T* f = ft.data<T>();
    const T* l = lt.data<T>();
    const int64_t frs = ft.dim(0) == 1 ? 0 : ft.dim(1), fcs = ft.dim(1) == 1 ? 0 : 1;
    const int64_t lrs = lt.dim(0) == 1 ? 0 : lt.dim(1), lcs = lt.dim(1) == 1 ? 0 : 1;
    T* bp = back->data<T>();
    ParallelItems(ctx->intra_op_pool(), rows, cols * 12, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        T* g = bp + r * cols;
        const T* fr = f + r * frs;
        const T* lr = l + r * lrs;
        for (int64_t i = 0; i < cols; ++i) g[i] = fr[i * fcs];  // materialize the (broadcast) row
        const T lse = LogSumExpRow(g, g, cols);  // g = exp(f - max)
        const T sum = std::exp(lse - VecMax(fr, fcs ? cols : 1));  // sum(exp(f - max))
        T acc = 0;
        for (int64_t i = 0; i < cols; ++i) {
          const T li = lr[i * lcs];
          acc += li * (lse - fr[i * fcs]);
          g[i] = g[i] / sum - li;
        }
        lo[r] = acc;
      }
    });
  }
};

// Integer class labels in [0, classes); an out-of-range label is an InvalidArgument.
template <typename T, typename L>
class SparseXentOp : public OpKernel {
 public:
  explicit SparseXentOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<L>::value));
    const Tensor& ft = ctx->input(0);
    const Tensor& lt = ctx->input(1);
    if (ft.rank() != 2) {
      ctx->SetStatus(InvalidArgument("logits must be 2-D, but got shape ", ft.shape().ToString()));
      return;
    }
    if (lt.rank() != 1) {
      ctx->SetStatus(InvalidArgument("labels must be 1-D, but got shape ", lt.shape().ToString()));
      return;
    }
    if (ft.dim(0) != lt.dim(0)) {
      ctx->SetStatus(InvalidArgument("logits and labels must have the same first dimension, got logits shape ",
                                     ft.shape().ToString(), " and labels shape ", lt.shape().ToString()));
      return;
    }
    const int64_t rows = ft.dim(0), cols = ft.dim(1);
    if (rows > 0 && cols == 0) {
      ctx->SetStatus(InvalidArgument("Must have at least one class, but got logits shape ", ft.shape().ToString()));
      return;
    }
    const L* lab = lt.data<L>();
    for (int64_t r = 0; r < rows; ++r)
      if (lab[r] < 0 || lab[r] >= cols) {
        ctx->SetStatus(InvalidArgument("Received a label value of ", static_cast<int64_t>(lab[r]),
                                       " which is outside the valid range of [0, ", cols, ").  Label values: row ", r));
        return;
      }
    Tensor *loss = nullptr, *back = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({rows}), &loss));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, TensorShape({rows, cols}), &back));
    if (rows == 0) return;
    const T* f = ft.data<T>();
    T* lo = loss->data<T>();
    T* bp = back->data<T>();
    ParallelItems(ctx->intra_op_pool(), rows, cols * 10, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const T* fr = f + r * cols;
        T* g = bp + r * cols;
        const T lse = LogSumExpRow(fr, g, cols);
        const T inv = std::exp(VecMax(fr, cols) - lse);  // 1 / sum(exp(f - max))
        for (int64_t i = 0; i < cols; ++i) g[i] *= inv;
        const int64_t k = static_cast<int64_t>(lab[r]);
        g[k] -= T(1);
        lo[r] = lse - fr[k];
      }
    });
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("SoftmaxCrossEntropyWithLogits").TypeConstraint<float>("T"), XentOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("SoftmaxCrossEntropyWithLogits").TypeConstraint<double>("T"), XentOp<double>);
#define TX_SPARSE_XENT(T, L)                                                                                       \
  TX_REGISTER_KERNEL(                                                                                              \
      KernelDefBuilder("SparseSoftmaxCrossEntropyWithLogits").TypeConstraint<T>("T").TypeConstraint<L>("Tlabels"), \
      SparseXentOp<T, L>)
TX_SPARSE_XENT(float, int32_t);
TX_SPARSE_XENT(float, int64_t);
TX_SPARSE_XENT(double, int32_t);
TX_SPARSE_XENT(double, int64_t);
#undef TX_SPARSE_XENT

// --- half and bfloat16: the float32 kernel on widened inputs, outputs rounded once
// (Note [Widened kernels]) ---
TX_REGISTER_WIDENED("SoftmaxCrossEntropyWithLogits", "T");
TX_REGISTER_WIDENED("SparseSoftmaxCrossEntropyWithLogits", "T");

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernels for Cumsum and Cumprod: running sums or products along one axis, optionally
// exclusive and/or reversed; one scan loop serves both.
#include <algorithm>
#include <memory>
#include <type_traits>

#include "tensorflux/core/complex.h"
#include "tensorflux/kernels/cpu/binary_functors.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/widened_kernel.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Note [Scan layout]
// The input is viewed as [outer, mid, inner] around the scan axis. With inner == 1 each row is a
// sequential running sum (or product); otherwise a running row of `inner` values is combined with
// each of the mid rows in turn (a contiguous, vectorized loop). Outer slices split over the
// intra-op pool. Integers are combined unsigned, wrapping like TensorFlow.

// The scans' combining functions: an identity and Apply(a, b) on the unsigned-if-integral type.
struct ScanSum {
  template <typename U>
  static constexpr U Identity() {
    return U(0);
  }
  template <typename U>
  static U Apply(U a, U b) {
    return static_cast<U>(a + b);
  }
};
struct ScanProd {
  template <typename U>
  static constexpr U Identity() {
    return U(1);
  }
  template <typename U>
  static U Apply(U a, U b) {
    if constexpr (std::is_integral_v<U>)
      return static_cast<U>(WrapType<U>(a) * WrapType<U>(b));
    else
      return a * b;
  }
};

template <typename T, typename Op>
class ScanOp : public OpKernel {
  using U = UnsignedIfIntegralT<T>;

 public:
  explicit ScanOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("exclusive", &exclusive_));
    c->SetStatus(c->GetAttr("reverse", &reverse_));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& xt = ctx->input(0);
    const Tensor& at = ctx->input(1);
    if (at.rank() != 0 || (at.dtype() != DT_INT32 && at.dtype() != DT_INT64)) {
      ctx->SetStatus(InvalidArgument("ScanOp: axis must be an int32 or int64 scalar, got a ",
                                     DataTypeString(at.dtype()), " tensor of shape ", at.shape().ToString()));
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, at.dtype()));
    const int64_t a = at.dtype() == DT_INT32 ? at.data<int32_t>()[0] : at.data<int64_t>()[0];
    const int rank = xt.rank();
    if (a < -rank || a >= rank) {
      ctx->SetStatus(InvalidArgument("ScanOp: Expected scan axis in the range [", -rank, ", ", rank, "), but got ", a));
      return;
    }
    const int axis = static_cast<int>(a < 0 ? a + rank : a);
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < axis; ++i) outer *= xt.dim(i);
    for (int i = axis + 1; i < rank; ++i) inner *= xt.dim(i);
    const int64_t mid = xt.dim(axis);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, xt.shape(), &out));
    if (out->num_elements() == 0) return;
    const U* x = reinterpret_cast<const U*>(xt.data<T>());
    U* y = reinterpret_cast<U*>(out->data<T>());
    const bool excl = exclusive_, rev = reverse_;
    ParallelItems(ctx->intra_op_pool(), outer, mid * inner, [&](int64_t b, int64_t e) {
      std::unique_ptr<U[]> run(inner > 1 ? new U[static_cast<size_t>(inner)] : nullptr);
      for (int64_t o = b; o < e; ++o) {
        const U* xs = x + o * mid * inner;
        U* ys = y + o * mid * inner;
        if (inner == 1) {
          U s = Op::template Identity<U>();
          for (int64_t k = 0; k < mid; ++k) {
            const int64_t m = rev ? mid - 1 - k : k;
            if (excl) {
              ys[m] = s;
              s = Op::Apply(s, xs[m]);
            } else {
              s = Op::Apply(s, xs[m]);
              ys[m] = s;
            }
          }
          continue;
        }
        std::fill(run.get(), run.get() + inner, Op::template Identity<U>());
        for (int64_t k = 0; k < mid; ++k) {
          const int64_t m = rev ? mid - 1 - k : k;
          const U* xr = xs + m * inner;
          U* yr = ys + m * inner;
          U* r = run.get();
          if (excl) {
            for (int64_t j = 0; j < inner; ++j) {
              yr[j] = r[j];
              r[j] = Op::Apply(r[j], xr[j]);
            }
          } else {
            for (int64_t j = 0; j < inner; ++j) {
              r[j] = Op::Apply(r[j], xr[j]);
              yr[j] = r[j];
            }
          }
        }
      }
    });
  }

 private:
  bool exclusive_ = false, reverse_ = false;
};

#define TX_REGISTER_SCAN(T)                                                                  \
  TX_REGISTER_KERNEL(KernelDefBuilder("Cumsum").TypeConstraint<T>("T"), ScanOp<T, ScanSum>); \
  TX_REGISTER_KERNEL(KernelDefBuilder("Cumprod").TypeConstraint<T>("T"), ScanOp<T, ScanProd>)
TX_REGISTER_SCAN(float);
TX_REGISTER_SCAN(double);
TX_REGISTER_SCAN(int32_t);
TX_REGISTER_SCAN(int64_t);
TX_REGISTER_SCAN(uint8_t);
// Complex block.
TX_REGISTER_SCAN(complex64);
TX_REGISTER_SCAN(complex128);

// --- the other integer types ---
TX_REGISTER_SCAN(int8_t);
TX_REGISTER_SCAN(int16_t);
TX_REGISTER_SCAN(uint16_t);
TX_REGISTER_SCAN(uint32_t);
TX_REGISTER_SCAN(uint64_t);
#undef TX_REGISTER_SCAN

// --- half and bfloat16: the float32 kernel on widened inputs, outputs rounded once
// (Note [Widened kernels]) ---
TX_REGISTER_WIDENED("Cumsum", "T");
TX_REGISTER_WIDENED("Cumprod", "T");

}  // namespace
}  // namespace cpu
}  // namespace tx

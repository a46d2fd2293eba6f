// CPU kernels for ArgMax and ArgMin (Note [Arg reductions]).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "tensorflux/kernels/cpu/convert16.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/vec_fold.h"
#include "tensorflux/runtime/op_kernel.h"

// Note [Arg reductions]
// The input is viewed as [outer, mid, inner] around the reduced axis. The first index of the
// extreme value wins, and NaNs are skipped (an all-NaN slice gives 0), as in TensorFlow on CPU.
// inner == 1 (the last axis) takes two vectorized passes per row: the extreme value, then the
// first index holding it. Otherwise rows of `inner` candidates are updated element-wise. half and
// bfloat16 are widened to float first (exact, so the indices are those of the 16-bit values).

namespace tx {
namespace cpu {
namespace {

// The strict comparison for ArgMax (kMax) or ArgMin.
template <bool kMax, typename T>
inline bool Better(T x, T best) {
  if constexpr (kMax)
    return x > best;
  else
    return x < best;
}

// Index of the first extreme non-NaN element of x[0..n), or 0 when there is none.
template <bool kMax, typename T>
int64_t ArgContig(const T* x, int64_t n) {
  if constexpr (std::is_same_v<T, bool>) {  // false < true, like 0 < 1
    return ArgContig<kMax>(reinterpret_cast<const uint8_t*>(x), n);
  } else {
    if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
      if (sizeof(T) == 8 || n < (int64_t{1} << 31)) {
        const T lim = std::is_floating_point_v<T>
            ? (kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity())
            : (kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
        const int64_t r = VecArgExtreme<T>(x, n, lim, [](auto v, auto best) {
          if constexpr (kMax)
            return v > best;
          else
            return v < best;
        });
        if (r >= 0) return r;
        for (int64_t k = 0; k < n; ++k)  // nothing beat the limit value: find it, else 0
          if (x[k] == lim) return k;
        return 0;
      }
    }
    constexpr int kLanes = 16;
    const T init = std::is_floating_point_v<T>
        ? (kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity())
        : (kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
    bool saw_nan = false;
    const T best = VecExtreme<T>(
        x, n, init,
        [](auto a, auto v) {
          if constexpr (kMax)
            return v > a ? v : a;
          else
            return v < a ? v : a;
        },
        &saw_nan);
    int64_t k = 0;
    for (; k + kLanes <= n; k += kLanes) {  // find the block holding `best`, a vector test per block
      int hit = 0;
      for (int l = 0; l < kLanes; ++l) hit |= x[k + l] == best;
      if (hit) break;
    }
    for (; k < n; ++k)
      if (x[k] == best) return k;
    return 0;
  }
}

template <typename T, bool kMax, typename Out>
class ArgOp : public OpKernel {
  using C = ComputeType<T>;

 public:
  explicit ArgOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& xt = ctx->input(0);
    const Tensor& dt = ctx->input(1);
    if (dt.rank() != 0 || (dt.dtype() != DT_INT32 && dt.dtype() != DT_INT64 && dt.dtype() != DT_INT16)) {
      ctx->SetStatus(InvalidArgument("dimension must be an integer scalar, got a ", DataTypeString(dt.dtype()),
                                     " tensor of shape ", dt.shape().ToString()));
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, dt.dtype()));
    const int64_t d = dt.dtype() == DT_INT32 ? dt.data<int32_t>()[0]
        : dt.dtype() == DT_INT64             ? dt.data<int64_t>()[0]
                                             : dt.data<int16_t>()[0];
    const int rank = xt.rank();
    if (rank == 0 || d < -rank || d >= rank) {
      ctx->SetStatus(InvalidArgument("Expected dimension in the range [", -rank, ", ", rank, "), but got ", d));
      return;
    }
    const int axis = static_cast<int>(d < 0 ? d + rank : d);
    const int64_t mid = xt.dim(axis);
    int64_t outer = 1, inner = 1;
    TensorShape out_shape;
    for (int i = 0; i < rank; ++i) {
      if (i != axis) out_shape.add_dim(xt.dim(i));
      if (i < axis) outer *= xt.dim(i);
      if (i > axis) inner *= xt.dim(i);
    }
    if (mid > static_cast<int64_t>(std::numeric_limits<Out>::max())) {
      ctx->SetStatus(InvalidArgument("Reduction axis ", axis, " has ", mid, " elements, more than output_type ",
                                     DataTypeString(DataTypeOf<Out>::value), " can index"));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->num_elements() == 0) return;
    if (mid == 0) {
      ctx->SetStatus(InvalidArgument("Reduction axis ", axis, " is empty in shape ", xt.shape().ToString()));
      return;
    }
    Out* y = out->data<Out>();
    ThreadPool* pool = ctx->intra_op_pool();
    std::unique_ptr<float[]> wide;  // 16-bit input as float
    const C* x;
    if constexpr (kIsFloat16<T>) {
      wide = WidenArray(xt.data<T>(), xt.num_elements(), pool);
      x = wide.get();
    } else {
      x = xt.data<T>();
    }
    if (inner == 1) {
      ParallelItems(pool, outer, mid, [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) y[o] = static_cast<Out>(ArgContig<kMax>(x + o * mid, mid));
      });
      return;
    }
    ParallelItems(pool, outer, mid * inner, [&](int64_t b, int64_t e) {
      std::unique_ptr<C[]> best(new C[static_cast<size_t>(inner)]);
      std::unique_ptr<int64_t[]> idx(new int64_t[static_cast<size_t>(inner)]);
      for (int64_t o = b; o < e; ++o) {
        const C* base = x + o * mid * inner;
        for (int64_t j = 0; j < inner; ++j) {
          best[j] = base[j];
          idx[j] = 0;
        }
        for (int64_t m = 1; m < mid; ++m) {
          const C* row = base + m * inner;
          for (int64_t j = 0; j < inner; ++j) {
            const C v = row[j];
            // Take v when it is better, or when the best so far is NaN and v is not.
            if (Better<kMax>(v, best[j]) || (best[j] != best[j] && v == v)) {
              best[j] = v;
              idx[j] = m;
            }
          }
        }
        for (int64_t j = 0; j < inner; ++j) y[o * inner + j] = static_cast<Out>(idx[j]);
      }
    });
  }
};

#define TX_REGISTER_ARG(T)                                                                                     \
  TX_REGISTER_KERNEL(KernelDefBuilder("ArgMax").TypeConstraint<T>("T").TypeConstraint<int64_t>("output_type"), \
                     ArgOp<T, true, int64_t>);                                                                 \
  TX_REGISTER_KERNEL(KernelDefBuilder("ArgMax").TypeConstraint<T>("T").TypeConstraint<int32_t>("output_type"), \
                     ArgOp<T, true, int32_t>);                                                                 \
  TX_REGISTER_KERNEL(KernelDefBuilder("ArgMin").TypeConstraint<T>("T").TypeConstraint<int64_t>("output_type"), \
                     ArgOp<T, false, int64_t>);                                                                \
  TX_REGISTER_KERNEL(KernelDefBuilder("ArgMin").TypeConstraint<T>("T").TypeConstraint<int32_t>("output_type"), \
                     ArgOp<T, false, int32_t>)
// Int16 and uint16 indices: ArgMax only, as TensorFlow registers them.
#define TX_REGISTER_ARGMAX_NARROW(T)                                                                            \
  TX_REGISTER_KERNEL(KernelDefBuilder("ArgMax").TypeConstraint<T>("T").TypeConstraint<int16_t>("output_type"),  \
                     ArgOp<T, true, int16_t>);                                                                  \
  TX_REGISTER_KERNEL(KernelDefBuilder("ArgMax").TypeConstraint<T>("T").TypeConstraint<uint16_t>("output_type"), \
                     ArgOp<T, true, uint16_t>)
// Every input type, TensorFlow's list: the wide and 8-bit types, half and bfloat16, the other integers.
#define TX_FOR_ARG_INPUT_TYPES(M) \
  M(float);                       \
  M(double);                      \
  M(int32_t);                     \
  M(int64_t);                     \
  M(uint8_t);                     \
  M(bool);                        \
  M(Half);                        \
  M(BFloat16);                    \
  M(int8_t);                      \
  M(int16_t);                     \
  M(uint16_t);                    \
  M(uint32_t);                    \
  M(uint64_t)
TX_FOR_ARG_INPUT_TYPES(TX_REGISTER_ARG);
TX_FOR_ARG_INPUT_TYPES(TX_REGISTER_ARGMAX_NARROW);
#undef TX_FOR_ARG_INPUT_TYPES
#undef TX_REGISTER_ARGMAX_NARROW
#undef TX_REGISTER_ARG

}  // namespace
}  // namespace cpu
}  // namespace tx

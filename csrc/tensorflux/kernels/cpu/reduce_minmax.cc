// CPU kernels for Prod, Max, Min, All and Any over any set of axes (Note [Generic reduction]).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "tensorflux/core/complex.h"
#include "tensorflux/kernels/cpu/binary_functors.h"
#include "tensorflux/kernels/cpu/convert16.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/reduce_axes.h"
#include "tensorflux/kernels/cpu/vec_fold.h"
#include "tensorflux/runtime/op_kernel.h"

// Note [Generic reduction]
// Like Sum (Note [Reduction passes] in reduce.cc) the input collapses into alternating groups and
// each pass removes the innermost reduced group through an [outer, mid, inner] view: inner == 1
// folds contiguous rows in 16 independent lanes (vectorized); otherwise whole rows of `inner`
// elements are folded into an accumulator row. Work splits over outer rows, or over mid for a
// full reduction, with partial results folded at the end. The element type is reinterpreted as its
// accumulator (unsigned for integer products so they wrap; uint8 for bool) of the same size.
// Max/Min propagate NaN like TensorFlow; their contiguous folds use VecExtreme (vec_fold.h).
// half and bfloat16 are widened to float, folded with the float reducer and rounded once at the
// end (Note [16-bit floats]); Max and Min are exact either way.

namespace tx {
namespace cpu {
namespace {

constexpr int kLanes = 16;

// kNaNFlag reducers have a NaN-ignoring Fast() (a plain vector max/min); FoldContig tracks NaNs
// in separate lanes and returns NaN when it saw one, which keeps its loop vectorized.
template <typename T>
struct ProdR {
  static constexpr bool kNaNFlag = false;
  using Acc = UnsignedIfIntegralT<T>;
  static Acc Init() { return Acc(1); }
  static Acc Apply(Acc a, Acc x) { return static_cast<Acc>(a * x); }
};
template <typename T>
struct MaxR {
  static constexpr bool kNaNFlag = true;  // VecExtreme for every type (NaN only for floats)
  using Acc = T;
  template <typename V>
  static V Fast(V a, V x) {
    return x > a ? x : a;
  }
  static Acc Init() {
    return std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  }
  static Acc Apply(Acc a, Acc x) { return (x > a || x != x) ? x : a; }
};
template <typename T>
struct MinR {
  static constexpr bool kNaNFlag = true;  // VecExtreme for every type (NaN only for floats)
  using Acc = T;
  template <typename V>
  static V Fast(V a, V x) {
    return x < a ? x : a;
  }
  static Acc Init() {
    return std::is_floating_point_v<T> ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  }
  static Acc Apply(Acc a, Acc x) { return (x < a || x != x) ? x : a; }
};
struct AllR {
  static constexpr bool kNaNFlag = false;
  using Acc = uint8_t;
  static Acc Init() { return 1; }
  static Acc Apply(Acc a, Acc x) { return a & x; }
};
struct AnyR {
  static constexpr bool kNaNFlag = false;
  using Acc = uint8_t;
  static Acc Init() { return 0; }
  static Acc Apply(Acc a, Acc x) { return a | x; }
};

// Folds x[0..n) with R.
template <typename R, typename Acc = typename R::Acc>
Acc FoldContig(const Acc* x, int64_t n) {
  if constexpr (R::kNaNFlag) {
    bool saw_nan = false;
    const Acc r = VecExtreme<Acc>(x, n, R::Init(), [](auto a, auto v) { return R::Fast(a, v); }, &saw_nan);
    if constexpr (std::is_floating_point_v<Acc>)
      if (saw_nan) return std::numeric_limits<Acc>::quiet_NaN();
    return r;
  }
  Acc lanes[kLanes];
  for (int l = 0; l < kLanes; ++l) lanes[l] = R::Init();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) lanes[l] = R::Apply(lanes[l], x[i + l]);
  Acc s = R::Init();
  for (int l = 0; l < kLanes; ++l) s = R::Apply(s, lanes[l]);
  for (; i < n; ++i) s = R::Apply(s, x[i]);
  return s;
}

// out[j] = fold over m in [m0, m1) of x[m * inner + j], j in [0, inner).
template <typename R, typename Acc = typename R::Acc>
void FoldRows(const Acc* x, int64_t inner, int64_t m0, int64_t m1, Acc* out) {
  std::fill(out, out + inner, R::Init());
  for (int64_t m = m0; m < m1; ++m) {
    const Acc* row = x + m * inner;
    for (int64_t j = 0; j < inner; ++j) out[j] = R::Apply(out[j], row[j]);
  }
}

// out[o, j] = fold over m of x[o, m, j] for x of shape [outer, mid, inner].
template <typename R, typename Acc = typename R::Acc>
void Fold3D(const Acc* x, int64_t outer, int64_t mid, int64_t inner, Acc* out, ThreadPool* pool) {
  const int64_t threads = pool == nullptr ? 1 : pool->num_threads() + 1;
  if (outer >= threads || !WorthParallel(pool, outer * mid * inner, 1)) {
    ParallelItems(pool, outer, mid * inner, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        if (inner == 1)
          out[o] = FoldContig<R>(x + o * mid, mid);
        else
          FoldRows<R>(x + o * mid * inner, inner, 0, mid, out + o * inner);
      }
    });
    return;
  }
  // Few outer rows: split mid too, then fold the partial rows.
  const int64_t splits = std::min<int64_t>(threads * 2, mid);
  const int64_t mstep = (mid + splits - 1) / splits;
  const int64_t n = outer * inner;
  std::unique_ptr<Acc[]> partial(new Acc[static_cast<size_t>(splits * n)]);
  ParallelItems(pool, outer * splits, mstep * inner, [&](int64_t b, int64_t e) {
    for (int64_t it = b; it < e; ++it) {
      const int64_t s = it / outer, o = it % outer;
      const int64_t m0 = std::min(mid, s * mstep), m1 = std::min(mid, (s + 1) * mstep);
      Acc* dst = partial.get() + s * n + o * inner;
      if (inner == 1)
        dst[0] = FoldContig<R>(x + o * mid + m0, m1 - m0);
      else
        FoldRows<R>(x + o * mid * inner, inner, m0, m1, dst);
    }
  });
  for (int64_t i = 0; i < n; ++i) {
    Acc v = partial[i];
    for (int64_t s = 1; s < splits; ++s) v = R::Apply(v, partial[s * n + i]);
    out[i] = v;
  }
}

// Reduces input 0 (of element type T) over the axes in input 1 with reducer R.
template <typename T, typename R>
class FoldReduceOp : public OpKernel {
  using Acc = typename R::Acc;
  static_assert(sizeof(Acc) == sizeof(T) || kIsFloat16<T>, "accumulator must reinterpret the element type");

 public:
  explicit FoldReduceOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("keep_dims", &keep_dims_)); }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& xt = ctx->input(0);
    const Tensor& axes = ctx->input(1);
    ReductionPlan plan;
    TX_CTX_RETURN_IF_ERROR(ctx, ParseReduction(xt, axes, keep_dims_, &plan));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, axes.dtype()));
    if (!plan.any_reduced() && xt.num_elements() > 0) {  // nothing to fold: same data, new shape
      ctx->set_output(0, xt.Reshaped(plan.out_shape));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, plan.out_shape, &out));
    const int64_t n_out = out->num_elements();
    if (n_out == 0) return;
    ThreadPool* pool = ctx->intra_op_pool();
    std::unique_ptr<float[]> wide, wide_out;  // 16-bit input and output as float
    Acc* y;
    const Acc* src;
    if constexpr (kIsFloat16<T>) {
      wide = WidenArray(xt.data<T>(), xt.num_elements(), pool);
      wide_out.reset(new float[static_cast<size_t>(n_out)]);
      src = wide.get();
      y = wide_out.get();
    } else {
      src = reinterpret_cast<const Acc*>(xt.data<T>());
      y = reinterpret_cast<Acc*>(out->data<T>());
    }
    if (xt.num_elements() == 0) {
      std::fill(y, y + n_out, R::Init());
    } else {
      Fold(plan, src, y, pool);
    }
    if constexpr (kIsFloat16<T>) NarrowArray(y, out->data<T>(), n_out, pool);
  }

 private:
  // Folds src (the input) into y (the output) over the plan's reduced groups.
  static void Fold(ReductionPlan& plan, const Acc* src, Acc* y, ThreadPool* pool) {
    auto& groups = plan.groups;
    std::unique_ptr<Acc[]> tmp_a, tmp_b;
    while (plan.any_reduced()) {
      size_t g = groups.size();
      while (!groups[--g].second) {}
      int64_t outer = 1, inner = 1;
      for (size_t k = 0; k < g; ++k) outer *= groups[k].first;
      for (size_t k = g + 1; k < groups.size(); ++k) inner *= groups[k].first;
      const int64_t mid = groups[g].first;
      groups.erase(groups.begin() + g);
      if (g > 0 && g < groups.size() && groups[g - 1].second == groups[g].second) {
        groups[g - 1].first *= groups[g].first;
        groups.erase(groups.begin() + g);
      }
      Acc* dst;
      if (!plan.any_reduced()) {
        dst = y;
      } else {
        std::unique_ptr<Acc[]>& buf = (tmp_a && src == tmp_a.get()) ? tmp_b : tmp_a;
        buf.reset(new Acc[static_cast<size_t>(outer * inner)]);
        dst = buf.get();
      }
      Fold3D<R>(src, outer, mid, inner, dst, pool);
      src = dst;
    }
  }

  bool keep_dims_ = false;
};

#define TX_REGISTER_FOLD(OP, T, R) TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<T>("T"), FoldReduceOp<T, R>)
#define TX_REGISTER_NUMERIC_FOLDS(T)     \
  TX_REGISTER_FOLD("Prod", T, ProdR<T>); \
  TX_REGISTER_FOLD("Max", T, MaxR<T>);   \
  TX_REGISTER_FOLD("Min", T, MinR<T>)
TX_REGISTER_NUMERIC_FOLDS(float);
TX_REGISTER_NUMERIC_FOLDS(double);
TX_REGISTER_NUMERIC_FOLDS(int32_t);
TX_REGISTER_NUMERIC_FOLDS(int64_t);
TX_REGISTER_NUMERIC_FOLDS(uint8_t);
TX_REGISTER_NUMERIC_FOLDS(int8_t);
TX_REGISTER_NUMERIC_FOLDS(int16_t);
TX_REGISTER_NUMERIC_FOLDS(uint16_t);
TX_REGISTER_NUMERIC_FOLDS(uint32_t);
TX_REGISTER_NUMERIC_FOLDS(uint64_t);
// half and bfloat16 fold in float (Note [Generic reduction]).
#define TX_REGISTER_F16_FOLDS(T)             \
  TX_REGISTER_FOLD("Prod", T, ProdR<float>); \
  TX_REGISTER_FOLD("Max", T, MaxR<float>);   \
  TX_REGISTER_FOLD("Min", T, MinR<float>)
TX_REGISTER_F16_FOLDS(Half);
TX_REGISTER_F16_FOLDS(BFloat16);
#undef TX_REGISTER_F16_FOLDS
TX_REGISTER_KERNEL(KernelDefBuilder("All"), FoldReduceOp<bool, AllR>);
TX_REGISTER_KERNEL(KernelDefBuilder("Any"), FoldReduceOp<bool, AnyR>);

// Complex block: Prod, and Sum and Mean as folds (reduce.cc's Sum and Mean are for real types).
// Mean divides the sum by the reduced count; an empty reduction gives 0, as in TensorFlow.
template <typename C>
struct ComplexSumR {
  static constexpr bool kNaNFlag = false;
  using Acc = C;
  static Acc Init() { return Acc(0); }
  static Acc Apply(Acc a, Acc x) { return a + x; }
};
template <typename C>
class ComplexMeanOp : public FoldReduceOp<C, ComplexSumR<C>> {
 public:
  using FoldReduceOp<C, ComplexSumR<C>>::FoldReduceOp;
  void Compute(OpKernelContext* ctx) override {
    FoldReduceOp<C, ComplexSumR<C>>::Compute(ctx);
    if (!ctx->status().ok()) return;
    const Tensor& out = *ctx->mutable_output(0);
    const int64_t n_in = ctx->input(0).num_elements(), n_out = out.num_elements();
    if (n_in == 0 || n_out == 0 || n_in == n_out) return;  // n_in == n_out: the output is the input
    const auto count = static_cast<typename C::value_type>(n_in / n_out);
    C* y = out.data<C>();
    for (int64_t i = 0; i < n_out; ++i) y[i] /= count;
  }
};
#define TX_REGISTER_COMPLEX_FOLDS(C)          \
  TX_REGISTER_FOLD("Prod", C, ProdR<C>);      \
  TX_REGISTER_FOLD("Sum", C, ComplexSumR<C>); \
  TX_REGISTER_KERNEL(KernelDefBuilder("Mean").TypeConstraint<C>("T"), ComplexMeanOp<C>)
TX_REGISTER_COMPLEX_FOLDS(complex64);
TX_REGISTER_COMPLEX_FOLDS(complex128);
#undef TX_REGISTER_COMPLEX_FOLDS

}  // namespace
}  // namespace cpu
}  // namespace tx

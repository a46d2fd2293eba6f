// CPU kernels for Sum and Mean over any set of axes (Note [Reduction passes]).
#include <algorithm>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorflux/kernels/cpu/binary_functors.h"
#include "tensorflux/kernels/cpu/convert16.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

// Note [Reduction passes]
// Input dims of size 1 are dropped and neighbours that are all reduced or all kept are merged, so
// any reduction becomes a short alternating list of groups. Each pass removes the innermost reduced
// group by viewing the data as [outer, mid, inner] and summing over mid:
//   inner == 1  -> contiguous row sums (16 vector lanes, pairwise over 1024-element blocks);
//   inner < 64  -> rows are short: lanes span whole rows, folded per column at the end;
//   otherwise   -> column sums over 512-wide chunks, in 256-row partial blocks for accuracy.
// Work splits over (outer, column chunk) items, and also over mid when that leaves too few items
// (a full reduction), with per-split partial results added at the end. Sums accumulate in the
// input type (integers wrap, as in TensorFlow); Mean of integers accumulates in 64 bits and
// divides with truncation. half and bfloat16 inputs are widened to float first, accumulate in
// float (as TensorFlow does) and are rounded once at the end (Note [16-bit floats]).

namespace tx {
namespace cpu {
namespace {

constexpr int kLanes = 16;
constexpr int64_t kBlock = 1024;  // contiguous elements summed before pairwise combination
constexpr int64_t kColChunk = 512;  // columns per work item in column sums
constexpr int64_t kRowBlock = 256;  // rows per partial block in column sums

template <typename Acc, typename In>
inline Acc ToAcc(In x) {
  if constexpr (std::is_integral_v<In>)
    return static_cast<Acc>(static_cast<std::conditional_t<std::is_signed_v<In>, int64_t, uint64_t>>(x));
  else
    return static_cast<Acc>(x);
}

// Sum of x[0..n), pairwise over blocks.
template <typename Acc, typename In>
Acc SumContig(const In* x, int64_t n) {
  if (n > kBlock) {
    const int64_t half = std::max(kBlock, (n / 2 + kBlock - 1) / kBlock * kBlock);
    return static_cast<Acc>(SumContig<Acc>(x, half) + SumContig<Acc>(x + half, n - half));
  }
  Acc lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) lanes[l] += ToAcc<Acc>(x[i + l]);
  Acc s = 0;
  for (int l = 0; l < kLanes; ++l) s += lanes[l];
  for (; i < n; ++i) s += ToAcc<Acc>(x[i]);
  return s;
}

// out[j] = sum over rows m in [m0, m1) of x[m * inner + j], for inner < 64: lanes cover k whole
// rows at a time so the loop is long and contiguous.
template <typename Acc, typename In>
void SumNarrowColumns(const In* x, int64_t inner, int64_t m0, int64_t m1, Acc* out) {
  const int64_t k = (64 + inner - 1) / inner, width = k * inner;  // width < 128
  Acc acc[128] = {}, part[128];
  int64_t m = m0;
  while (m + k <= m1) {
    std::fill(part, part + width, Acc(0));
    const int64_t stop = std::min(m1 - k + 1, m + kRowBlock);
    for (; m < stop; m += k) {
      const In* row = x + m * inner;
      for (int64_t l = 0; l < width; ++l) part[l] += ToAcc<Acc>(row[l]);
    }
    for (int64_t l = 0; l < width; ++l) acc[l] += part[l];
  }
  for (int64_t j = 0; j < inner; ++j) {
    Acc s = 0;
    for (int64_t r = 0; r < k; ++r) s += acc[r * inner + j];
    for (int64_t mm = m; mm < m1; ++mm) s += ToAcc<Acc>(x[mm * inner + j]);
    out[j] = s;
  }
}

// out[j - j0] = sum over rows m in [m0, m1) of x[m * inner + j], for j in [j0, j1), j1 - j0 <= kColChunk.
template <typename Acc, typename In>
void SumColumns(const In* x, int64_t inner, int64_t m0, int64_t m1, int64_t j0, int64_t j1, Acc* out) {
  const int64_t w = j1 - j0;
  Acc acc[kColChunk] = {}, part[kColChunk];
  for (int64_t mb = m0; mb < m1; mb += kRowBlock) {
    std::fill(part, part + w, Acc(0));
    const int64_t me = std::min(m1, mb + kRowBlock);
    for (int64_t m = mb; m < me; ++m) {
      const In* row = x + m * inner + j0;
      for (int64_t j = 0; j < w; ++j) part[j] += ToAcc<Acc>(row[j]);
    }
    for (int64_t j = 0; j < w; ++j) acc[j] += part[j];
  }
  std::copy(acc, acc + w, out);
}

// out[o, j] = sum over m of x[o, m, j] for x of shape [outer, mid, inner], mid >= 1.
template <typename Acc, typename In>
void Reduce3D(const In* x, int64_t outer, int64_t mid, int64_t inner, Acc* out, ThreadPool* pool) {
  const int64_t jchunks = inner < 64 ? 1 : (inner + kColChunk - 1) / kColChunk;
  const int64_t items = outer * jchunks;
  const int64_t threads = pool == nullptr ? 1 : pool->num_threads() + 1;
  int64_t splits = 1;
  if (items < threads && WorthParallel(pool, mid * inner * outer, 1))
    splits = std::min(threads, std::max<int64_t>(1, mid * std::min(inner, kColChunk) / 8192));
  const int64_t mstep = (mid + splits - 1) / splits;
  splits = (mid + mstep - 1) / mstep;
  // Reduces rows [m0, m1) of item (o, jc) into dst (an [outer, inner] array).
  auto work = [&](int64_t o, int64_t jc, int64_t m0, int64_t m1, Acc* dst) {
    const In* base = x + o * mid * inner;
    if (inner == 1)
      dst[o] = SumContig<Acc>(base + m0, m1 - m0);
    else if (inner < 64)
      SumNarrowColumns<Acc>(base, inner, m0, m1, dst + o * inner);
    else {
      const int64_t j0 = jc * kColChunk, j1 = std::min(inner, j0 + kColChunk);
      SumColumns<Acc>(base, inner, m0, m1, j0, j1, dst + o * inner + j0);
    }
  };
  const int64_t item_cost = mstep * std::min(inner, kColChunk);
  if (splits == 1) {
    ParallelItems(pool, items, item_cost, [&](int64_t b, int64_t e) {
      for (int64_t it = b; it < e; ++it) work(it / jchunks, it % jchunks, 0, mid, out);
    });
    return;
  }
  const int64_t n = outer * inner;
  std::unique_ptr<Acc[]> partial(new Acc[static_cast<size_t>(splits * n)]);
  ParallelItems(pool, items * splits, item_cost, [&](int64_t b, int64_t e) {
    for (int64_t it = b; it < e; ++it) {
      const int64_t s = it / items, rest = it % items;
      work(rest / jchunks, rest % jchunks, s * mstep, std::min(mid, (s + 1) * mstep), partial.get() + s * n);
    }
  });
  for (int64_t i = 0; i < n; ++i) {
    Acc total = partial[i];
    for (int64_t s = 1; s < splits; ++s) total += partial[s * n + i];
    out[i] = total;
  }
}

// Accumulator per (element type, op): the element type itself for floats; for integers an
// unsigned type (wrap-around without undefined behaviour), 64 bits wide for Mean.
template <typename T, bool kMean>
using AccType =
    std::conditional_t<std::is_floating_point_v<T>, T, std::conditional_t<kMean, uint64_t, UnsignedIfIntegralT<T>>>;

// Sum (kMean false) or Mean (kMean true) of input 0 over the axes in input 1.
template <typename T, bool kMean>
class ReduceOp : public OpKernel {
  using C = ComputeType<T>;
  using Acc = AccType<C, kMean>;

 public:
  explicit ReduceOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("keep_dims", &keep_dims_)); }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& xt = ctx->input(0);
    const Tensor& axes = ctx->input(1);
    if (axes.dtype() != DT_INT32 && axes.dtype() != DT_INT64) {
      ctx->SetStatus(InvalidArgument("reduction_indices must be int32 or int64, got ", DataTypeString(axes.dtype())));
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, axes.dtype()));
    const int rank = xt.rank();
    std::vector<bool> reduced(rank, false);
    for (int64_t i = 0; i < axes.num_elements(); ++i) {
      const int64_t a = axes.dtype() == DT_INT32 ? axes.data<int32_t>()[i] : axes.data<int64_t>()[i];
      if (a < -rank || a >= rank) {
        ctx->SetStatus(InvalidArgument("Invalid reduction dimension ", a, " for input with ", rank, " dimension(s)"));
        return;
      }
      const int64_t d = a < 0 ? a + rank : a;
      if (reduced[d]) {
        ctx->SetStatus(InvalidArgument("Invalid reduction arguments: Axes contains duplicate dimension: ", d));
        return;
      }
      reduced[d] = true;
    }
    // Output shape, reduced element count, and the collapsed groups (size, reduced).
    TensorShape out_shape;
    int64_t count = 1;
    std::vector<std::pair<int64_t, bool>> groups;
    for (int d = 0; d < rank; ++d) {
      const int64_t size = xt.dim(d);
      if (reduced[d]) count *= size;
      if (!reduced[d])
        out_shape.add_dim(size);
      else if (keep_dims_)
        out_shape.add_dim(1);
      if (size == 1) continue;
      if (!groups.empty() && groups.back().second == reduced[d])
        groups.back().first *= size;
      else
        groups.emplace_back(size, reduced[d]);
    }
    const bool any_reduced = std::any_of(groups.begin(), groups.end(), [](const auto& g) { return g.second; });
    if (!any_reduced && xt.num_elements() > 0) {  // nothing to add up: same data, new shape
      ctx->set_output(0, xt.Reshaped(out_shape));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t n_out = out->num_elements();
    T* y = out->data<T>();
    if (n_out == 0) return;
    if (xt.num_elements() == 0) {  // empty reductions: sum 0, mean NaN (floats) or 0 (integers)
      const C fill = kMean && std::is_floating_point_v<C> ? std::numeric_limits<C>::quiet_NaN() : C(0);
      std::fill(y, y + n_out, Narrow<T>(fill));
      return;
    }
    ThreadPool* pool = ctx->intra_op_pool();
    std::unique_ptr<float[]> wide;  // 16-bit inputs as float
    const C* x = nullptr;
    if constexpr (kIsFloat16<T>) {
      wide = WidenArray(xt.data<T>(), xt.num_elements(), pool);
      x = wide.get();
    } else {
      x = xt.data<T>();
    }
    std::unique_ptr<Acc[]> tmp_a, tmp_b;
    const Acc* src_acc = nullptr;
    bool first = true;
    while (std::any_of(groups.begin(), groups.end(), [](const auto& g) { return g.second; })) {
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
      const bool last = std::none_of(groups.begin(), groups.end(), [](const auto& gr) { return gr.second; });
      Acc* dst;
      if (last && !kMean && !kIsFloat16<T>) {
        dst = reinterpret_cast<Acc*>(y);  // same size and representation family as T
      } else {
        std::unique_ptr<Acc[]>& buf = (src_acc == tmp_a.get() && tmp_a) ? tmp_b : tmp_a;
        buf.reset(new Acc[static_cast<size_t>(outer * inner)]);
        dst = buf.get();
      }
      if (first)
        Reduce3D<Acc>(x, outer, mid, inner, dst, pool);
      else
        Reduce3D<Acc>(src_acc, outer, mid, inner, dst, pool);
      first = false;
      src_acc = dst;
    }
    if constexpr (kIsFloat16<T>) {
      std::unique_ptr<float[]> mean;
      if constexpr (kMean) {
        mean.reset(new float[static_cast<size_t>(n_out)]);
        for (int64_t i = 0; i < n_out; ++i) mean[i] = src_acc[i] / static_cast<float>(count);
      }
      NarrowArray(kMean ? mean.get() : src_acc, y, n_out, pool);
    } else if constexpr (kMean) {
      const Acc* s = src_acc;
      ParallelRange(pool, n_out, 2, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          if constexpr (std::is_floating_point_v<T>)
            y[i] = s[i] / static_cast<T>(count);
          else if constexpr (std::is_signed_v<T>)
            y[i] = static_cast<T>(static_cast<int64_t>(s[i]) / count);
          else
            y[i] = static_cast<T>(s[i] / static_cast<uint64_t>(count));
        }
      });
    }
  }

 private:
  bool keep_dims_ = false;
};

#define TX_REGISTER_REDUCE(T)                                                             \
  TX_REGISTER_KERNEL(KernelDefBuilder("Sum").TypeConstraint<T>("T"), ReduceOp<T, false>); \
  TX_REGISTER_KERNEL(KernelDefBuilder("Mean").TypeConstraint<T>("T"), ReduceOp<T, true>)
TX_REGISTER_REDUCE(float);
TX_REGISTER_REDUCE(double);
TX_REGISTER_REDUCE(int32_t);
TX_REGISTER_REDUCE(int64_t);
TX_REGISTER_REDUCE(uint8_t);

// --- half and bfloat16 (float accumulation) and the other integer types ---
TX_REGISTER_REDUCE(Half);
TX_REGISTER_REDUCE(BFloat16);
TX_REGISTER_REDUCE(int8_t);
TX_REGISTER_REDUCE(int16_t);
TX_REGISTER_REDUCE(uint16_t);
TX_REGISTER_REDUCE(uint32_t);
TX_REGISTER_REDUCE(uint64_t);

}  // namespace
}  // namespace cpu
}  // namespace tx

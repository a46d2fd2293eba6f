// CPU kernel for TopKV2: the k largest entries of each row (last axis) and their indices.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Note [TopK order]
// Entries rank by value, larger first; equal values rank by index, lower first (TensorFlow's
// tie rule). NaN ranks above every number so the order is total (sorting with a comparator
// that is not a strict weak order is undefined behaviour). Output is always sorted, which also
// satisfies sorted=false (TensorFlow leaves that order unspecified).
template <typename T>
struct Entry {
  T v;
  int64_t i;
};

template <typename T>
inline bool Before(const Entry<T>& a, const Entry<T>& b) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool an = std::isnan(a.v), bn = std::isnan(b.v);
    if (an || bn) return an && bn ? a.i < b.i : an;
  }
  return a.v > b.v || (a.v == b.v && a.i < b.i);
}

// Writes the top k of row x[0, n) into vals/idx, best first; 1 <= k <= n.
template <typename T, typename O>
void TopKRow(const T* x, int64_t n, int64_t k, T* vals, O* idx, std::vector<Entry<T>>* scratch) {
  std::vector<Entry<T>>& h = *scratch;
  h.clear();
  auto cmp = [](const Entry<T>& a, const Entry<T>& b) { return Before(a, b); };
  if (k == 1) {
    Entry<T> best{x[0], 0};
    for (int64_t j = 1; j < n; ++j)
      if (Before(Entry<T>{x[j], j}, best)) best = Entry<T>{x[j], j};
    vals[0] = best.v;
    idx[0] = static_cast<O>(best.i);
    return;
  }
  if (k * 4 >= n) {
    // Large k: sort the first k of all entries.
    for (int64_t j = 0; j < n; ++j) h.push_back(Entry<T>{x[j], j});
    std::partial_sort(h.begin(), h.begin() + k, h.end(), cmp);
  } else {
    // Small k: a heap of the k best so far, worst on top; most entries lose one comparison.
    for (int64_t j = 0; j < k; ++j) h.push_back(Entry<T>{x[j], j});
    std::make_heap(h.begin(), h.end(), cmp);
    for (int64_t j = k; j < n; ++j) {
      const Entry<T> e{x[j], j};
      if (Before(e, h.front())) {
        std::pop_heap(h.begin(), h.end(), cmp);
        h.back() = e;
        std::push_heap(h.begin(), h.end(), cmp);
      }
    }
    std::sort_heap(h.begin(), h.end(), cmp);
  }
  for (int64_t j = 0; j < k; ++j) {
    vals[j] = h[j].v;
    idx[j] = static_cast<O>(h[j].i);
  }
}

template <typename T, typename O>
class TopKOp : public OpKernel {
 public:
  explicit TopKOp(OpKernelConstruction* c) : OpKernel(c), dtype_(c->input_type(0)) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, dtype_));
    const Tensor& in = ctx->input(0);
    const Tensor& kt = ctx->input(1);
    if (kt.rank() != 0 || !IsIndexType(kt.dtype()) || !kt.initialized()) {
      ctx->SetStatus(InvalidArgument("k must be an integer scalar, got shape ", kt.shape().ToString()));
      return;
    }
    const int64_t k = IndexAt(kt, 0);
    if (k < 0) {
      ctx->SetStatus(InvalidArgument("Need k >= 0, got ", k));
      return;
    }
    if (in.rank() < 1) {
      ctx->SetStatus(InvalidArgument("input must be at least 1 dimensional, got shape ", in.shape().ToString()));
      return;
    }
    const int64_t n = in.dim(in.rank() - 1);
    if (n < k) {
      ctx->SetStatus(InvalidArgument("input must have at least k columns. Had ", n, ", needed ", k));
      return;
    }
    if (n - 1 > static_cast<int64_t>(std::numeric_limits<O>::max())) {
      ctx->SetStatus(
          InvalidArgument("index_type ", DataTypeString(ctx->output_type(1)), " cannot hold indices up to ", n - 1));
      return;
    }
    TensorShape out_shape = in.shape();
    out_shape.set_dim(in.rank() - 1, k);
    Tensor *vals = nullptr, *idx = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, out_shape, &vals));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, out_shape, &idx));
    if (k == 0 || out_shape.num_elements() == 0) return;
    const int64_t rows = in.num_elements() / n;
    const T* x = in.data<T>();
    T* v = vals->data<T>();
    O* o = idx->data<O>();
    ParallelItems(ctx->intra_op_pool(), rows, n * 2 + k * 8, [&](int64_t b, int64_t e) {
      std::vector<Entry<T>> scratch;
      for (int64_t r = b; r < e; ++r) TopKRow(x + r * n, n, k, v + r * k, o + r * k, &scratch);
    });
  }

 private:
  const DataType dtype_;
};

template <typename T>
void RegisterFor(DataType dt) {
  auto reg = [dt](auto out_tag) {
    using O = decltype(out_tag);
    for (DataType tk : {DT_INT16, DT_INT32, DT_INT64})
      KernelRegistry::Global()->Register(
          KernelDefBuilder("TopKV2")
              .TypeConstraint("T", dt)
              .TypeConstraint("Tk", tk)
              .TypeConstraint<O>("index_type")
              .Build([](OpKernelConstruction* c) -> OpKernel* { return new TopKOp<T, O>(c); }));
  };
  reg(int16_t{});
  reg(int32_t{});
  reg(int64_t{});
}

const bool kRegistered = [] {
  RegisterFor<float>(DT_FLOAT);
  RegisterFor<double>(DT_DOUBLE);
  RegisterFor<int32_t>(DT_INT32);
  RegisterFor<uint8_t>(DT_UINT8);
  RegisterFor<int16_t>(DT_INT16);
  RegisterFor<int8_t>(DT_INT8);
  RegisterFor<int64_t>(DT_INT64);
  RegisterFor<uint16_t>(DT_UINT16);
  RegisterFor<uint32_t>(DT_UINT32);
  RegisterFor<uint64_t>(DT_UINT64);
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

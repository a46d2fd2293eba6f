// CPU kernel for MirrorPadGrad: folds the gradient of a MirrorPad output back onto the input's
// shape; every padded element is added to the element it mirrors.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tensorflux/kernels/cpu/array_grad_util.h"
#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/index_copy.h"
#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/ops/grad_util.h"

namespace tx {
namespace cpu {
namespace {

// Note [Mirror fold]
// The mirror map is a product of per-dimension maps, so the gradient folds one padded dimension
// at a time: viewing the tensor as [outer, n + lo + hi, inner], output row j of each outer slice
// is the input row lo + j plus the border rows that mirror onto j. Pieces of the work are (outer
// slice, column block) pairs, so every output element is written by one thread.
template <typename T>
void FoldDim(const T* src, T* dst, int64_t outer, int64_t n, int64_t lo, int64_t hi, int64_t inner, bool reflect,
             ThreadPool* pool) {
  const int64_t padded = n + lo + hi;
  const int64_t shift = reflect ? 0 : 1;  // SYMMETRIC repeats the edge element
  const int64_t col_parts = outer >= 4 * (pool->num_threads() + 1) ? 1 : std::max<int64_t>(1, inner / 256);
  const int64_t block = (inner + col_parts - 1) / col_parts;
  ParallelItems(pool, outer * col_parts, padded * block, [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t o = item / col_parts, c0 = (item % col_parts) * block;
      const int64_t width = std::min(inner, c0 + block) - c0;
      if (width <= 0) continue;
      const T* s = src + o * padded * inner + c0;
      T* d = dst + o * n * inner + c0;
      for (int64_t j = 0; j < n; ++j)
        std::memcpy(static_cast<void*>(d + j * inner), s + (lo + j) * inner, static_cast<size_t>(width) * sizeof(T));
      for (int64_t p = 0; p < lo; ++p) AccumulateRow(d + (lo - p - shift) * inner, s + p * inner, width);
      for (int64_t p = 0; p < hi; ++p)
        AccumulateRow(d + (n - 1 - p - 1 + shift) * inner, s + (lo + n + p) * inner, width);
    }
  });
}

template <typename T>
class MirrorPadGradOp : public OpKernel {
 public:
  explicit MirrorPadGradOp(OpKernelConstruction* c) : OpKernel(c), dtype_(c->input_type(0)) {
    std::string mode;
    c->SetStatus(c->GetAttr("mode", &mode));
    reflect_ = mode == "REFLECT";
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, dtype_));
    const Tensor& in = ctx->input(0);
    const int rank = in.rank();
    std::vector<int64_t> pads, dims;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadPaddings(ctx, 1, rank, &pads));
    TX_CTX_RETURN_IF_ERROR(ctx,
                           grad_util::ResolveMirrorPadGrad(PartialShape(in.shape()), pads, reflect_ ? 1 : 2, &dims));
    if (dims == in.shape().dims()) {
      ctx->set_output(0, in);
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateChecked(ctx, 0, dims, &out));
    // Fold the padded dims from the last one, ping-ponging through one scratch buffer.
    std::vector<int> folded;
    for (int d = rank - 1; d >= 0; --d)
      if (pads[2 * d] + pads[2 * d + 1] > 0) folded.push_back(d);
    std::vector<int64_t> cur = in.shape().dims();
    std::vector<T> scratch[2];
    const T* src = in.data<T>();
    for (size_t k = 0; k < folded.size(); ++k) {
      const int d = folded[k];
      std::vector<int64_t> next = cur;
      next[d] = dims[d];
      int64_t outer = 1, inner = 1, count = 1;
      for (int i = 0; i < d; ++i) outer *= cur[i];
      for (int i = d + 1; i < rank; ++i) inner *= cur[i];
      for (int64_t v : next) count *= v;
      T* dst = out->data<T>();
      if (k + 1 < folded.size()) {
        scratch[k % 2].resize(static_cast<size_t>(count));
        dst = scratch[k % 2].data();
      }
      FoldDim(src, dst, outer, dims[d], pads[2 * d], pads[2 * d + 1], inner, reflect_, ctx->intra_op_pool());
      src = dst;
      cur = std::move(next);
    }
  }

 private:
  const DataType dtype_;
  bool reflect_ = true;
};

const bool kRegistered = [] {
  ForEachSummableType([](auto tag, DataType dt) {
    using T = decltype(tag);
    KernelRegistry::Global()->Register(
        KernelDefBuilder("MirrorPadGrad").TypeConstraint("T", dt).Build([](OpKernelConstruction* c) -> OpKernel* {
          return new MirrorPadGradOp<T>(c);
        }));
  });
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

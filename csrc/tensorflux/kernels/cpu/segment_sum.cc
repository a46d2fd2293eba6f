// CPU kernel for UnsortedSegmentSum: output row s is the sum of the data rows whose segment id is
// s (negative ids are dropped, ids >= num_segments are errors, empty segments are zero).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tensorflux/kernels/cpu/index_copy.h"
#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/ops/array_util.h"
#include "tensorflux/ops/grad_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Note [Segment sum split]
// Small work runs inline: out[ids[k]] += row k, in row order. Large work first groups the rows by
// segment (a stable counting sort: `starts` holds each segment's first position in `rows`), then
// splits the output into segment ranges of about equal row counts (plus a unit per segment for
// the zero fill), and, when there are fewer segments than pieces wanted, the columns too. Each
// output element is written by one thread and sums its rows in row order, so results never race
// and equal the inline path's bit for bit.
template <typename T>
void SumBySegment(ThreadPool* pool, const T* data, const std::vector<int64_t>& starts, const std::vector<int64_t>& rows,
                  int64_t num_segments, int64_t inner, T* out) {
  const int64_t n = static_cast<int64_t>(rows.size());
  const int64_t weight = n + num_segments;
  const int64_t pieces = 4 * (static_cast<int64_t>(pool->num_threads()) + 1);
  const int64_t seg_parts = std::min(pieces, num_segments);
  const int64_t col_parts = std::max<int64_t>(1, std::min((pieces + seg_parts - 1) / seg_parts, inner / 64));
  // bounds[p]: the first segment of part p; parts hold about weight / seg_parts rows + segments.
  std::vector<int64_t> bounds(seg_parts + 1, num_segments);
  bounds[0] = 0;
  for (int64_t p = 1, s = 0; p < seg_parts; ++p) {
    const int64_t target = weight * p / seg_parts;
    while (s < num_segments && starts[s] + s < target) ++s;
    bounds[p] = s;
  }
  const int64_t col_block = (inner + col_parts - 1) / col_parts;
  pool->ParallelFor(seg_parts * col_parts, weight * inner / (seg_parts * col_parts) + 1, [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t part = item / col_parts, c0 = (item % col_parts) * col_block;
      const int64_t width = std::min(inner, c0 + col_block) - c0;
      if (width <= 0) continue;
      for (int64_t s = bounds[part]; s < bounds[part + 1]; ++s) {
        T* o = out + s * inner + c0;
        const int64_t r0 = starts[s], r1 = starts[s + 1];
        if (r0 == r1) {
          std::memset(static_cast<void*>(o), 0, static_cast<size_t>(width) * sizeof(T));
          continue;
        }
        std::memcpy(static_cast<void*>(o), data + rows[r0] * inner + c0, static_cast<size_t>(width) * sizeof(T));
        for (int64_t r = r0 + 1; r < r1; ++r) AccumulateRow(o, data + rows[r] * inner + c0, width);
      }
    }
  });
}

template <typename T, typename I>
class UnsortedSegmentSumOp : public OpKernel {
 public:
  explicit UnsortedSegmentSumOp(OpKernelConstruction* c) : OpKernel(c), dtype_(c->input_type(0)) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, dtype_));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<I>::value));
    const Tensor& data = ctx->input(0);
    const Tensor& ids = ctx->input(1);
    const Tensor& ns = ctx->input(2);
    if (ns.rank() != 0) {
      ctx->SetStatus(InvalidArgument("num_segments should be a scalar, not shape ", ns.shape().ToString()));
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, ns.dtype()));
    int64_t num_segments = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::ReadScalarInt(ns, "num_segments", &num_segments));
    if (num_segments < 0) {
      ctx->SetStatus(InvalidArgument("Input num_segments == ", num_segments, " must not be negative."));
      return;
    }
    std::vector<int64_t> dims;
    TX_CTX_RETURN_IF_ERROR(
        ctx,
        grad_util::SegmentReductionDims(PartialShape(data.shape()), PartialShape(ids.shape()), num_segments, &dims));
    const int64_t n = ids.num_elements();
    const I* id = ids.data<I>();
    TX_CTX_RETURN_IF_ERROR(ctx, grad_util::CheckSegmentIds(id, ids.shape().dims(), n, num_segments));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateChecked(ctx, 0, dims, &out));
    if (out->num_elements() == 0) return;
    const int64_t inner = out->num_elements() / num_segments;
    const T* x = data.data<T>();
    T* o = out->data<T>();
    ThreadPool* pool = ctx->intra_op_pool();
    if (!WorthParallel(pool, 2, (n + num_segments) * inner / 2)) {
      std::memset(static_cast<void*>(o), 0, out->byte_size());
      for (int64_t k = 0; k < n; ++k)
        if (id[k] >= 0) AccumulateRow(o + static_cast<int64_t>(id[k]) * inner, x + k * inner, inner);
      return;
    }
    std::vector<int64_t> starts(num_segments + 1, 0), rows(n);
    for (int64_t k = 0; k < n; ++k)
      if (id[k] >= 0) ++starts[id[k] + 1];
    for (int64_t s = 0; s < num_segments; ++s) starts[s + 1] += starts[s];
    std::vector<int64_t> next(starts.begin(), starts.end() - 1);
    for (int64_t k = 0; k < n; ++k)
      if (id[k] >= 0) rows[next[id[k]]++] = k;
    rows.resize(starts[num_segments]);
    SumBySegment(pool, x, starts, rows, num_segments, inner, o);
  }

 private:
  const DataType dtype_;
};

const bool kRegistered = [] {
  RegisterSummableKernels<UnsortedSegmentSumOp, int16_t, int32_t, int64_t>("UnsortedSegmentSum", "Tindices");
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

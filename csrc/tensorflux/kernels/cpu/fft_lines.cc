// Note [FFT lines]
// An axis of a tensor is a set of lines [outer, len, inner]. Contiguous lines (inner == 1) are
// transformed where they lie; strided ones are gathered kColumns at a time into a contiguous
// buffer (each gather reads kColumns neighbouring values per row, so memory is read in whole cache
// lines), transformed there and scattered back. Work items (a line, or a block of columns) split
// over the intra-op pool, each thread with its own buffers; a single line long enough to matter
// instead passes the pool to the plan, which splits each of its passes.
#include "tensorflux/kernels/cpu/fft_lines.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "tensorflux/kernels/cpu/fft_plan.h"
#include "tensorflux/kernels/cpu/kernel_util.h"

namespace tx {
namespace fft {
namespace {

constexpr int64_t kColumns = 8;

// Rough cycles per line of length n, for the pool's split decisions.
int64_t LineCost(int64_t n) {
  const double c = 4.0 * static_cast<double>(n) * std::max(1.0, std::log2(static_cast<double>(n)));
  return static_cast<int64_t>(std::min(c, 1e9));
}

// Calls body(first line's pointer offset, columns in block, item buffers) for each work item:
// (o, column block) pairs of `lines`, split over the pool. A single line gets the pool instead.
template <typename F>
void ForItems(const Lines& lines, ThreadPool* pool, const F& body) {
  const int64_t blocks = lines.inner == 1 ? 1 : (lines.inner + kColumns - 1) / kColumns;
  const int64_t items = lines.outer * blocks;
  const int64_t width = lines.inner == 1 ? 1 : std::min(kColumns, lines.inner);
  if (items == 1) {
    body(int64_t{0}, lines.inner == 1 ? int64_t{1} : lines.inner, pool);
    return;
  }
  cpu::ParallelItems(pool, items, LineCost(lines.len) * width, [&](int64_t b, int64_t e) {
    for (int64_t it = b; it < e; ++it) {
      const int64_t o = it / blocks, c0 = (it % blocks) * kColumns;
      const int64_t cols = lines.inner == 1 ? 1 : std::min(kColumns, lines.inner - c0);
      body(o * lines.len * lines.inner + c0, cols, static_cast<ThreadPool*>(nullptr));
    }
  });
}

// Gathers `cols` strided lines starting at src (line stride 1, element stride `stride`) into
// dst[c * len + t], or scatters them back (kGather false).
template <bool kGather, typename T>
void Move(T* strided, T* packed, int64_t cols, int64_t len, int64_t stride) {
  for (int64_t t = 0; t < len; ++t)
    for (int64_t c = 0; c < cols; ++c) {
      if constexpr (kGather) packed[c * len + t] = strided[t * stride + c];
      else strided[t * stride + c] = packed[c * len + t];
    }
}

}  // namespace

Lines LinesOf(const std::vector<int64_t>& dims, int axis) {
  Lines l;
  for (int i = 0; i < axis; ++i) l.outer *= dims[i];
  l.len = dims[axis];
  for (size_t i = axis + 1; i < dims.size(); ++i) l.inner *= dims[i];
  return l;
}

template <typename R>
void ComplexLines(std::complex<R>* data, const Lines& lines, bool forward, ThreadPool* pool) {
  using C = std::complex<R>;
  if (lines.count() == 0 || lines.len <= 1) return;
  const auto plan = GetComplexPlan<R>(lines.len);
  const int64_t n = lines.len;
  ForItems(lines, pool, [&](int64_t offset, int64_t cols, ThreadPool* inner_pool) {
    std::unique_ptr<C[]> scratch(new C[static_cast<size_t>(plan->scratch_size())]);
    if (lines.inner == 1) {
      plan->Execute(data + offset, scratch.get(), forward, inner_pool);
      return;
    }
    for (int64_t c0 = 0; c0 < cols; c0 += kColumns) {  // a whole-axis item walks its blocks
      const int64_t w = std::min(kColumns, cols - c0);
      std::unique_ptr<C[]> buf(new C[static_cast<size_t>(w * n)]);
      Move<true>(data + offset + c0, buf.get(), w, n, lines.inner);
      for (int64_t c = 0; c < w; ++c) plan->Execute(buf.get() + c * n, scratch.get(), forward, nullptr);
      Move<false>(data + offset + c0, buf.get(), w, n, lines.inner);
    }
  });
}

template <typename R>
void RealForwardLines(const R* in, std::complex<R>* out, const Lines& lines, ThreadPool* pool) {
  using C = std::complex<R>;
  if (lines.count() == 0 || lines.len == 0) return;
  const auto plan = GetRealPlan<R>(lines.len);
  const int64_t n = lines.len, h = n / 2 + 1;
  ForItems(lines, pool, [&](int64_t offset, int64_t cols, ThreadPool* inner_pool) {
    std::unique_ptr<C[]> scratch(new C[static_cast<size_t>(plan->scratch_size())]);
    const int64_t o = offset / (n * lines.inner), c_first = offset % (n * lines.inner);
    const R* src = in + offset;
    C* dst = out + o * h * lines.inner + c_first;
    if (lines.inner == 1) {
      plan->Forward(src, dst, scratch.get(), inner_pool);
      return;
    }
    for (int64_t c0 = 0; c0 < cols; c0 += kColumns) {
      const int64_t w = std::min(kColumns, cols - c0);
      std::unique_ptr<R[]> rbuf(new R[static_cast<size_t>(w * n)]);
      std::unique_ptr<C[]> cbuf(new C[static_cast<size_t>(w * h)]);
      Move<true>(const_cast<R*>(src) + c0, rbuf.get(), w, n, lines.inner);
      for (int64_t c = 0; c < w; ++c) plan->Forward(rbuf.get() + c * n, cbuf.get() + c * h, scratch.get(), nullptr);
      Move<false>(dst + c0, cbuf.get(), w, h, lines.inner);
    }
  });
}

template <typename R>
void RealBackwardLines(const std::complex<R>* in, R* out, const Lines& lines, ThreadPool* pool) {
  using C = std::complex<R>;
  if (lines.count() == 0 || lines.len == 0) return;
  const auto plan = GetRealPlan<R>(lines.len);
  const int64_t n = lines.len, h = n / 2 + 1;
  ForItems(lines, pool, [&](int64_t offset, int64_t cols, ThreadPool* inner_pool) {
    std::unique_ptr<C[]> scratch(new C[static_cast<size_t>(plan->scratch_size())]);
    const int64_t o = offset / (n * lines.inner), c_first = offset % (n * lines.inner);
    const C* src = in + o * h * lines.inner + c_first;
    R* dst = out + offset;
    if (lines.inner == 1) {
      plan->Backward(src, dst, scratch.get(), inner_pool);
      return;
    }
    for (int64_t c0 = 0; c0 < cols; c0 += kColumns) {
      const int64_t w = std::min(kColumns, cols - c0);
      std::unique_ptr<C[]> cbuf(new C[static_cast<size_t>(w * h)]);
      std::unique_ptr<R[]> rbuf(new R[static_cast<size_t>(w * n + 1)]);
      Move<true>(const_cast<C*>(src) + c0, cbuf.get(), w, h, lines.inner);
      for (int64_t c = 0; c < w; ++c) plan->Backward(cbuf.get() + c * h, rbuf.get() + c * n, scratch.get(), nullptr);
      Move<false>(dst + c0, rbuf.get(), w, n, lines.inner);
    }
  });
}

void CropOrPad(const void* src, const std::vector<int64_t>& from, void* dst, const std::vector<int64_t>& to,
               size_t elem_size, ThreadPool* pool) {
  const int rank = static_cast<int>(to.size());
  int64_t total = 1;
  for (int64_t d : to) total *= d;
  if (total == 0) return;
  // Rows: every index of the leading rank-1 dims of `to`; each copies min(from, to) of the last dim.
  const int64_t last_to = rank == 0 ? 1 : to.back(), last_from = rank == 0 ? 1 : from.back();
  const int64_t rows = total / last_to, keep = std::min(last_to, last_from);
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  cpu::ParallelItems(pool, rows, last_to * static_cast<int64_t>(elem_size) / 4 + 1, [&](int64_t b, int64_t e) {
    std::vector<int64_t> idx(static_cast<size_t>(std::max(rank - 1, 0)));
    for (int64_t r = b; r < e; ++r) {
      // The row's coordinates; inside `from` in every leading dim?
      int64_t rest = r, src_row = 0, stride = 1;
      bool inside = true;
      for (int i = rank - 2; i >= 0; --i) {
        const int64_t c = rest % to[i];
        rest /= to[i];
        inside = inside && c < from[i];
        src_row += c * stride;
        stride *= from[i];
      }
      char* out_row = d + static_cast<size_t>(r * last_to) * elem_size;
      size_t copied = 0;
      if (inside && keep > 0) {
        copied = static_cast<size_t>(keep) * elem_size;
        std::memcpy(out_row, s + static_cast<size_t>(src_row * last_from) * elem_size, copied);
      }
      std::memset(out_row + copied, 0, static_cast<size_t>(last_to) * elem_size - copied);
    }
  });
}

template <typename T, typename S>
void Scale(T* data, int64_t n, S scale, ThreadPool* pool) {
  cpu::ParallelRange(pool, n, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) data[i] *= scale;
  });
}

template void ComplexLines<float>(std::complex<float>*, const Lines&, bool, ThreadPool*);
template void ComplexLines<double>(std::complex<double>*, const Lines&, bool, ThreadPool*);
template void RealForwardLines<float>(const float*, std::complex<float>*, const Lines&, ThreadPool*);
template void RealForwardLines<double>(const double*, std::complex<double>*, const Lines&, ThreadPool*);
template void RealBackwardLines<float>(const std::complex<float>*, float*, const Lines&, ThreadPool*);
template void RealBackwardLines<double>(const std::complex<double>*, double*, const Lines&, ThreadPool*);
template void Scale<std::complex<float>, float>(std::complex<float>*, int64_t, float, ThreadPool*);
template void Scale<std::complex<double>, double>(std::complex<double>*, int64_t, double, ThreadPool*);
template void Scale<float, float>(float*, int64_t, float, ThreadPool*);
template void Scale<double, double>(double*, int64_t, double, ThreadPool*);

}  // namespace fft
}  // namespace tx

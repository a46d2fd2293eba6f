// Note [FFT lines]
// An axis of a tensor is a set of lines [outer, len, inner]: line l starts at element
// (l / inner) * len * inner + l % inner and steps by inner. Lines are transformed kLanes<R> at a
// time (8 float or 4 double lines): a group's lines are gathered into one buffer of CVec values
// (lane v holds line v), the plan runs once on the whole group with every butterfly a SIMD
// operation, and the results are scattered back. Consecutive lines are neighbouring rows or
// neighbouring columns, so gathers and scatters read and write whole cache lines. Groups split
// over the intra-op pool, each thread with its own buffers. A line too long for a group buffer
// is transformed alone, and when there are few of them the pool splits each transform's passes.
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

// Lines longer than this are transformed one at a time (a group buffer would pass 4 MiB).
constexpr int64_t kMaxGroupedLength = int64_t{1} << 16;

// Rough cycles per line of length n, for the pool's split decisions.
int64_t LineCost(int64_t n) {
  const double c = 4.0 * static_cast<double>(n) * std::max(1.0, std::log2(static_cast<double>(n)));
  return static_cast<int64_t>(std::min(c, 1e9));
}

// Element offset of line l in an array of lines of length `len`.
inline int64_t LineStart(const Lines& lines, int64_t len, int64_t l) {
  return (l / lines.inner) * len * lines.inner + l % lines.inner;
}

// A group's buffer: kLanes lines of `slots` complex values, zeroed when `zero` (a partial group).
template <typename R>
std::unique_ptr<CVec<R>[]> GroupBuffer(int64_t slots) {
  return std::unique_ptr<CVec<R>[]>(new CVec<R>[static_cast<size_t>(slots)]);
}

// Lane v of slot t as a real part / imaginary part reference.
template <typename R>
inline R& Re(CVec<R>* z, int64_t t, int v) {
  return reinterpret_cast<R*>(z + t)[v];
}
template <typename R>
inline R& Im(CVec<R>* z, int64_t t, int v) {
  return reinterpret_cast<R*>(z + t)[kLanes<R> + v];
}

// Calls group(first line, lines in group, buffers) for every group of kLanes<R> lines, split over
// the pool; `make` builds one thread's buffers.
template <typename R, typename Make, typename Group>
void ForGroups(const Lines& lines, int64_t len, ThreadPool* pool, const Make& make, const Group& group) {
  constexpr int L = kLanes<R>;
  const int64_t count = lines.count(), groups = (count + L - 1) / L;
  cpu::ParallelItems(pool, groups, LineCost(len) * L, [&](int64_t b, int64_t e) {
    auto buffers = make();
    for (int64_t g = b; g < e; ++g) group(g * L, static_cast<int>(std::min<int64_t>(L, count - g * L)), buffers);
  });
}

// One line of n elements at `stride`: the memory itself when contiguous, else a packed copy
// (gathered at construction when `load`) that Store() writes back.
template <typename T>
class PackedLine {
 public:
  PackedLine(T* line, int64_t n, int64_t stride, bool load) : line_(line), n_(n), stride_(stride) {
    if (stride == 1) return;
    copy_.reset(new T[static_cast<size_t>(n)]);
    if (load)
      for (int64_t t = 0; t < n; ++t) copy_[t] = line[t * stride];
  }
  T* data() { return stride_ == 1 ? line_ : copy_.get(); }
  void Store() {
    if (stride_ != 1)
      for (int64_t t = 0; t < n_; ++t) line_[t * stride_] = copy_[t];
  }

 private:
  T* line_;
  int64_t n_, stride_;
  std::unique_ptr<T[]> copy_;
};

// Calls one(line) for every line, each transformed alone: in turn with the pool splitting each
// transform when lines are few, else split over the pool by line.
template <typename One>
void ForSingleLines(const Lines& lines, int64_t len, ThreadPool* pool, const One& one) {
  const int threads = pool == nullptr ? 1 : pool->num_threads() + 1;
  if (lines.count() < 2 * threads) {
    for (int64_t l = 0; l < lines.count(); ++l) one(l, pool);
    return;
  }
  cpu::ParallelItems(pool, lines.count(), LineCost(len), [&](int64_t b, int64_t e) {
    for (int64_t l = b; l < e; ++l) one(l, static_cast<ThreadPool*>(nullptr));
  });
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
  const int64_t n = lines.len, stride = lines.inner;
  if (lines.count() == 1 || n > kMaxGroupedLength) {
    ForSingleLines(lines, n, pool, [&](int64_t l, ThreadPool* line_pool) {
      PackedLine<C> line(data + LineStart(lines, n, l), n, stride, true);
      std::unique_ptr<C[]> scratch(new C[static_cast<size_t>(plan->scratch_size())]);
      plan->Execute(line.data(), scratch.get(), forward, line_pool);
      line.Store();
    });
    return;
  }
  auto make = [&] { return std::make_pair(GroupBuffer<R>(n), GroupBuffer<R>(plan->scratch_size())); };
  ForGroups<R>(lines, n, pool, make, [&](int64_t first, int active, auto& bufs) {
    CVec<R>* z = bufs.first.get();
    if (active < kLanes<R>) std::memset(static_cast<void*>(z), 0, sizeof(CVec<R>) * static_cast<size_t>(n));
    C* line[kLanes<R>];
    for (int v = 0; v < active; ++v) line[v] = data + LineStart(lines, n, first + v);
    for (int64_t t = 0; t < n; ++t)
      for (int v = 0; v < active; ++v)
        Re(z, t, v) = line[v][t * stride].real(), Im(z, t, v) = line[v][t * stride].imag();
    plan->ExecuteLanes(z, bufs.second.get(), forward);
    for (int64_t t = 0; t < n; ++t)
      for (int v = 0; v < active; ++v) line[v][t * stride] = C(Re(z, t, v), Im(z, t, v));
  });
}

template <typename R>
void RealForwardLines(const R* in, std::complex<R>* out, const Lines& lines, ThreadPool* pool) {
  using C = std::complex<R>;
  if (lines.count() == 0 || lines.len == 0) return;
  const auto plan = GetRealPlan<R>(lines.len);
  const int64_t n = lines.len, h = n / 2 + 1, stride = lines.inner;
  if (lines.count() == 1 || n > kMaxGroupedLength) {
    ForSingleLines(lines, n, pool, [&](int64_t l, ThreadPool* line_pool) {
      PackedLine<R> src(const_cast<R*>(in) + LineStart(lines, n, l), n, stride, true);
      PackedLine<C> dst(out + LineStart(lines, h, l), h, stride, false);
      std::unique_ptr<C[]> scratch(new C[static_cast<size_t>(plan->scratch_size())]);
      plan->Forward(src.data(), dst.data(), scratch.get(), line_pool);
      dst.Store();
    });
    return;
  }
  auto make = [&] { return std::make_pair(GroupBuffer<R>(plan->lane_slots()), GroupBuffer<R>(plan->scratch_size())); };
  ForGroups<R>(lines, n, pool, make, [&](int64_t first, int active, auto& bufs) {
    CVec<R>* z = bufs.first.get();
    std::memset(static_cast<void*>(z), 0, sizeof(CVec<R>) * static_cast<size_t>(plan->lane_slots()));
    const R* src[kLanes<R>];
    C* dst[kLanes<R>];
    for (int v = 0; v < active; ++v) {
      src[v] = in + LineStart(lines, n, first + v);
      dst[v] = out + LineStart(lines, h, first + v);
    }
    for (int64_t j = 0; j < n; ++j)
      for (int v = 0; v < active; ++v) plan->RealAt(z, j, v) = src[v][j * stride];
    plan->ForwardLanes(z, bufs.second.get());
    for (int64_t k = 0; k < h; ++k)
      for (int v = 0; v < active; ++v) dst[v][k * stride] = C(Re(z, k, v), Im(z, k, v));
  });
}

template <typename R>
void RealBackwardLines(const std::complex<R>* in, R* out, const Lines& lines, ThreadPool* pool) {
  using C = std::complex<R>;
  if (lines.count() == 0 || lines.len == 0) return;
  const auto plan = GetRealPlan<R>(lines.len);
  const int64_t n = lines.len, h = n / 2 + 1, stride = lines.inner;
  if (lines.count() == 1 || n > kMaxGroupedLength) {
    ForSingleLines(lines, n, pool, [&](int64_t l, ThreadPool* line_pool) {
      PackedLine<C> src(const_cast<C*>(in) + LineStart(lines, h, l), h, stride, true);
      PackedLine<R> dst(out + LineStart(lines, n, l), n, stride, false);
      std::unique_ptr<C[]> scratch(new C[static_cast<size_t>(plan->scratch_size())]);
      plan->Backward(src.data(), dst.data(), scratch.get(), line_pool);
      dst.Store();
    });
    return;
  }
  auto make = [&] { return std::make_pair(GroupBuffer<R>(plan->lane_slots()), GroupBuffer<R>(plan->scratch_size())); };
  ForGroups<R>(lines, n, pool, make, [&](int64_t first, int active, auto& bufs) {
    CVec<R>* z = bufs.first.get();
    if (active < kLanes<R>)
      std::memset(static_cast<void*>(z), 0, sizeof(CVec<R>) * static_cast<size_t>(plan->lane_slots()));
    const C* src[kLanes<R>];
    R* dst[kLanes<R>];
    for (int v = 0; v < active; ++v) {
      src[v] = in + LineStart(lines, h, first + v);
      dst[v] = out + LineStart(lines, n, first + v);
    }
    for (int64_t k = 0; k < h; ++k)
      for (int v = 0; v < active; ++v) Re(z, k, v) = src[v][k * stride].real(), Im(z, k, v) = src[v][k * stride].imag();
    plan->BackwardLanes(z, bufs.second.get());
    for (int64_t j = 0; j < n; ++j)
      for (int v = 0; v < active; ++v) dst[v][j * stride] = plan->RealAt(z, j, v);
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
    for (int64_t r = b; r < e; ++r) {
      // The row's source row, when it lies inside `from` in every leading dim.
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

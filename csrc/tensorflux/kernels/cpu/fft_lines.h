// Applying FFT plans to every line of a tensor along one axis, batched and split over the
// intra-op pool, and the crop-or-pad copy the FFT ops use to meet their fft_length.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

namespace tx {

class ThreadPool;

namespace fft {

// The data viewed as [outer, len, inner] around one axis: lines of len elements at stride inner.
struct Lines {
  int64_t outer = 1, len = 1, inner = 1;
  int64_t count() const { return outer * inner; }
};

// Lines along `axis` of a tensor of shape `dims`.
Lines LinesOf(const std::vector<int64_t>& dims, int axis);

// Transforms every line of `data` in place (complex FFT of length lines.len, unscaled).
template <typename R>
void ComplexLines(std::complex<R>* data, const Lines& lines, bool forward, ThreadPool* pool);

// Real forward FFT of every line of `in` (lines.len reals each) into the lines of `out`, which
// have lines.len / 2 + 1 complex values at the same outer/inner layout.
template <typename R>
void RealForwardLines(const R* in, std::complex<R>* out, const Lines& lines, ThreadPool* pool);

// Real backward FFT (unscaled) of every line of `in` (lines.len / 2 + 1 complex values, laid out
// like `out` with that length) into the lines of `out` (lines.len reals each).
template <typename R>
void RealBackwardLines(const std::complex<R>* in, R* out, const Lines& lines, ThreadPool* pool);

// Copies a tensor of shape `from` into one of shape `to` (same rank): the overlapping corner
// [0, min(from_i, to_i)) per dim is copied and the rest of `dst` is zero.
void CropOrPad(const void* src, const std::vector<int64_t>& from, void* dst, const std::vector<int64_t>& to,
               size_t elem_size, ThreadPool* pool);

// data[i] *= scale for i < n.
template <typename T, typename S>
void Scale(T* data, int64_t n, S scale, ThreadPool* pool);

}  // namespace fft
}  // namespace tx

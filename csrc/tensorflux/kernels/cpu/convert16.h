// Array conversions between the 16-bit floats (half, bfloat16) and float32 for the CPU kernels,
// and the traits kernels use to compute 16-bit types in float32 (Note [16-bit floats]).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "tensorflux/core/dtype.h"
#include "tensorflux/core/thread_pool.h"
#include "tensorflux/kernels/cpu/convert_bf16.h"
#include "tensorflux/kernels/cpu/kernel_util.h"

namespace tx {
namespace cpu {

// True for Half and BFloat16.
template <typename T>
inline constexpr bool kIsFloat16 = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// The type a kernel computes T in: float for the 16-bit floats, T itself otherwise.
template <typename T>
using ComputeType = std::conditional_t<kIsFloat16<T>, float, T>;

// True for float, double, Half and BFloat16.
template <typename T>
inline constexpr bool kIsFloating = std::is_floating_point_v<T> || kIsFloat16<T>;

// x in T's compute type (exact).
template <typename T>
inline ComputeType<T> Widen(T x) {
  if constexpr (kIsFloat16<T>)
    return static_cast<float>(x);
  else
    return x;
}

// v rounded to T (to nearest even for the 16-bit floats).
template <typename T, typename C>
inline T Narrow(C v) {
  if constexpr (kIsFloat16<T>)
    return T(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

// y[i] = float(x[i]) for i < n.
inline void ToFloat(const Half* x, float* y, int64_t n) {
  int64_t i = 0;
#ifdef __F16C__
  for (; i + 8 <= n; i += 8)  // __m128i loads may alias any type
    _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i))));
#endif
  for (; i < n; ++i) y[i] = HalfBitsToFloat(x[i].bits);
}

inline void ToFloat(const BFloat16* x, float* y, int64_t n) { BFloat16ToFloat(x, y, n); }

// y[i] = x[i] rounded to half (to nearest even) for i < n.
inline void FromFloat(const float* x, Half* y, int64_t n) {
  int64_t i = 0;
#ifdef __F16C__
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
#endif
  for (; i < n; ++i) y[i].bits = FloatToHalfBits(x[i]);
}

// y[i] = x[i] rounded to bfloat16 (to nearest even; NaN as FloatToBFloat16Bits) for i < n
// (Note [bfloat16 conversion]).
inline void FromFloat(const float* x, BFloat16* y, int64_t n) { FloatToBFloat16(x, y, n); }

// y[i] = x[i] with the low 16 bits dropped (Cast's Truncate=true; NaN stays a quiet NaN).
inline void FromFloatTruncated(const float* x, BFloat16* y, int64_t n) { FloatToBFloat16(x, y, n, true); }

// Elements per stack block when a kernel converts a 16-bit array piecewise.
inline constexpr int64_t kConvertBlock = 512;

// For T a 16-bit float: widens x[0..n) block by block into a float buffer, calls fn(buf, m) to
// transform it in place, and rounds the block into y (which may alias x).
template <typename T, typename F>
inline void MapFloatBlocks(const T* x, T* y, int64_t n, const F& fn) {
  float buf[kConvertBlock];
  for (int64_t b = 0; b < n; b += kConvertBlock) {
    const int64_t m = n - b < kConvertBlock ? n - b : kConvertBlock;
    ToFloat(x + b, buf, m);
    fn(buf, m);
    FromFloat(buf, y + b, m);
  }
}

// The float values of a 16-bit array x[0..n) in a new buffer, converted on `pool`.
template <typename T>
std::unique_ptr<float[]> WidenArray(const T* x, int64_t n, ThreadPool* pool) {
  std::unique_ptr<float[]> out(new float[static_cast<size_t>(n > 0 ? n : 1)]);
  float* o = out.get();
  ParallelRange(pool, n, 1, [&](int64_t b, int64_t e) { ToFloat(x + b, o + b, e - b); });
  return out;
}

// y[0..n) = x[0..n) rounded to T (a 16-bit float), on `pool`.
template <typename T>
void NarrowArray(const float* x, T* y, int64_t n, ThreadPool* pool) {
  ParallelRange(pool, n, 1, [&](int64_t b, int64_t e) { FromFloat(x + b, y + b, e - b); });
}

}  // namespace cpu
}  // namespace tx

// Vectorized math for the elementwise kernels, written so gcc emits SIMD code without
// -ffast-math: exp() and max() for float and double, and float32 exp, expm1, log, log1p, tanh,
// sigmoid, erf, erfc, erfinv, sin, cos, tan, sqrt and rsqrt over arrays on AVX2 or AVX-512 vectors
// (Note [Vector float32]).
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tx {
namespace cpu {

// Note [Vector exp]
// exp(x) = 2^n * exp(r) with n = round(x / ln2) and |r| <= ln2/2, r computed in two parts
// (Cody-Waite) so it stays exact. n is rounded with the 1.5 * 2^mantissa "magic number" (no
// float-to-int conversion, so no undefined behaviour on NaN), exp(r) is a polynomial, and 2^n is
// applied as two factors 2^(n/2) * 2^(n - n/2) so results stay correct down to the subnormal range
// and overflow to +inf exactly where exp does. Inputs are clamped first (NaN passes through).
// Accuracy: within 2 ulp of std::exp over the whole range.
// The clamp runs as its own loop over a small buffer: fused into the polynomial loop, gcc splits
// the loop body on the clamp's constant arm and (under -ftrapping-math) then cannot vectorize it.

namespace vec_detail {

template <typename T>
struct ExpLimits;
template <>
struct ExpLimits<float> {
  static constexpr float kLo = -104.0f, kHi = 89.0f;
};
template <>
struct ExpLimits<double> {
  static constexpr double kLo = -746.0, kHi = 710.0;
};

// exp(x) for x already clamped to [kLo, kHi] (or NaN).
inline float ExpCore(float x) {
  const float kMagic = 12582912.0f;  // 1.5 * 2^23
  const float t = x * 1.44269504088896341f + kMagic;
  int32_t ti;
  std::memcpy(&ti, &t, sizeof(ti));
  const int32_t n = static_cast<int32_t>(static_cast<uint32_t>(ti) - 0x4B400000u);  // round(x / ln2)
  const float nf = t - kMagic;
  float r = x - nf * 0.693359375f;
  r = r - nf * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * r * r + r + 1.0f;
  const int32_t n1 = n >> 1, n2 = n - n1;
  // Unsigned shifts: a NaN input gives a meaningless n, which must not be undefined behaviour.
  const uint32_t b1 = static_cast<uint32_t>(n1 + 127) << 23, b2 = static_cast<uint32_t>(n2 + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, sizeof(s1));
  std::memcpy(&s2, &b2, sizeof(s2));
  return y * s1 * s2;
}

inline double ExpCore(double x) {
  const double kMagic = 6755399441055744.0;  // 1.5 * 2^52
  const double t = x * 1.4426950408889634074 + kMagic;
  int64_t ti, mi;
  std::memcpy(&ti, &t, sizeof(ti));
  std::memcpy(&mi, &kMagic, sizeof(mi));
  const int64_t n = static_cast<int64_t>(static_cast<uint64_t>(ti) - static_cast<uint64_t>(mi));
  const double nf = t - kMagic;
  double r = x - nf * 6.93147180369123816490e-01;
  r = r - nf * 1.90821492927058770002e-10;
  // Taylor series of exp(r) - 1 - r to degree 13 (|r| <= 0.347: truncation error < 2^-60).
  double p = 1.0 / 6227020800.0;
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  const double y = p * r * r + r + 1.0;
  const int64_t n1 = n >> 1, n2 = n - n1;
  const uint64_t b1 = static_cast<uint64_t>(n1 + 1023) << 52, b2 = static_cast<uint64_t>(n2 + 1023) << 52;
  double s1, s2;
  std::memcpy(&s1, &b1, sizeof(s1));
  std::memcpy(&s2, &b2, sizeof(s2));
  return y * s1 * s2;
}

template <typename T>
inline T ClampForExp(T x) {
  x = x < ExpLimits<T>::kLo ? ExpLimits<T>::kLo : x;
  return x > ExpLimits<T>::kHi ? ExpLimits<T>::kHi : x;
}

}  // namespace vec_detail

// exp(x) for one float or double (same results as VecExpArray).
template <typename T>
inline T VecExp(T x) {
  return vec_detail::ExpCore(vec_detail::ClampForExp(x));
}

// y[i] = exp(x[i] - shift) for i < n; y may alias x.
template <typename T>
void VecExpArray(const T* x, T shift, T* y, int64_t n) {
  constexpr int64_t kChunk = 256;
  T buf[kChunk];
  for (int64_t b = 0; b < n; b += kChunk) {
    const int64_t m = std::min(kChunk, n - b);
    for (int64_t i = 0; i < m; ++i) buf[i] = vec_detail::ClampForExp(x[b + i] - shift);
    for (int64_t i = 0; i < m; ++i) y[b + i] = vec_detail::ExpCore(buf[i]);
  }
}

// The largest of x[0..n), ignoring NaN; -inf when n == 0 or all are NaN.
template <typename T>
T VecMax(const T* x, int64_t n) {
  constexpr int kW = 32 / sizeof(T);  // elements per 256-bit vector
  typedef T Vec __attribute__((vector_size(32)));
  const T ninf = -std::numeric_limits<T>::infinity();
  Vec acc[4];
  for (Vec& a : acc)
    for (int l = 0; l < kW; ++l) a[l] = ninf;
  int64_t i = 0;
  for (; i + 4 * kW <= n; i += 4 * kW) {
    for (int v = 0; v < 4; ++v) {
      Vec e;
      std::memcpy(&e, x + i + v * kW, sizeof(e));
      acc[v] = e > acc[v] ? e : acc[v];
    }
  }
  acc[0] = acc[1] > acc[0] ? acc[1] : acc[0];
  acc[2] = acc[3] > acc[2] ? acc[3] : acc[2];
  acc[0] = acc[2] > acc[0] ? acc[2] : acc[0];
  T m = ninf;
  for (int l = 0; l < kW; ++l) m = acc[0][l] > m ? acc[0][l] : m;
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

// Note [Vector float32]
// Each function (vec_math_impl.h) maps a vector of floats branch-free: every lane computes every
// case and a select keeps the right one, so special values (NaN, +-inf, 0, subnormals) need no
// branches. The functions are templates over the vector type, compiled twice (namespaces
// vec::avx2 with 8 lanes and vec::avx512 with 16) under the matching target pragmas: gcc
// must see a 16-lane body only inside an AVX-512 function, or it splits the vectors up.
// Range reduction and polynomials follow Cephes (S. Moshier) and Eigen. Worst errors against
// double-precision libm, measured by csrc/tests/math_test.cc over millions of inputs spread over
// each function's range: exp 1.0 ulp, log 0.8, log1p 2.4, expm1 2.4, tanh 5.5 (a rational
// approximation without exp, like TensorFlow's, which measures 5.8), sigmoid 2.3, erf 1.1, sin
// and cos 1.5, tan 2.4 (|x| <= 10). sin, cos and tan reduce arguments with a 3-part
// pi/4 (Cody-Waite); up to |x| = 8192 the absolute error stays below 1e-6 (results near zeros of
// sin lose relative precision there, as in Cephes), and larger lanes are redone by libm. sqrt is
// the hardware's, correctly rounded. Map runs a function over an array on 16 lanes where the CPU
// has AVX-512, else 8 (AVX2).
//
// Vector arguments change the calling convention between AVX levels; every caller here inlines or
// shares one build, and tests built without AVX compile this on emulated vectors. The warning
// would fire at template instantiation, at the end of each including file, so it stays off there.
#pragma GCC diagnostic ignored "-Wpsabi"
namespace vec {

// N float lanes and the integer vectors of the same width.
template <int N>
struct Lanes {
  typedef float F __attribute__((vector_size(4 * N)));
  typedef int32_t I __attribute__((vector_size(4 * N)));
  typedef uint32_t U __attribute__((vector_size(4 * N)));
};
typedef Lanes<8>::F F8;  // AVX2
typedef Lanes<16>::F F16;  // AVX-512

template <typename F>
constexpr int kLanes = static_cast<int>(sizeof(F) / sizeof(float));
template <typename F>
using IntOf = typename Lanes<kLanes<F>>::I;
template <typename F>
using UintOf = typename Lanes<kLanes<F>>::U;

// The functions Map applies.
enum class Fn { kExp, kExpm1, kLog, kLog1p, kTanh, kSigmoid, kErf, kErfc, kErfinv, kSin, kCos, kTan, kSqrt, kRsqrt };

#define TX_VEC_INLINE inline __attribute__((always_inline))
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
#include "tensorflux/kernels/cpu/vec_math_impl.h"  // NOLINT: included once per instruction set
}  // namespace avx2
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl")
namespace avx512 {
#include "tensorflux/kernels/cpu/vec_math_impl.h"  // NOLINT
}  // namespace avx512
#pragma GCC pop_options
#undef TX_VEC_INLINE

// Whether Map uses 16-lane AVX-512 code: where the CPU has it, unless a test turned it off.
inline bool& UseAvx512() {
  static bool use = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  return use;
}

// y[i] = f(x[i]) for i < n (y may alias x): 16 lanes with AVX-512, else 8 (AVX2).
template <Fn f>
void Map(const float* x, float* y, int64_t n) {
  if (UseAvx512())
    avx512::MapLanes<f, F16>(x, y, n);
  else
    avx2::MapLanes<f, F8>(x, y, n);
}

}  // namespace vec

// VecExpArray for float on vec::Map's vectors (the template above serves double).
inline void VecExpArray(const float* x, float shift, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] - shift;
  vec::Map<vec::Fn::kExp>(y, y, n);
}

}  // namespace cpu
}  // namespace tx

// CVec<R>: kLanes<R> complex values of kLanes independent FFT lines, stored as a vector of real
// parts and a vector of imaginary parts (GCC vector extensions: one AVX2 register each), so the
// FFT passes, instantiated on CVec, transform kLanes lines at once with every butterfly a SIMD
// operation (Note [FFT lines] in fft_lines.cc).
#pragma once

#include <complex>
#include <cstdint>

namespace tx {
namespace fft {

// Lines per CVec: one 256-bit register of R.
template <typename R>
inline constexpr int kLanes = static_cast<int>(32 / sizeof(R));

// Aligned to 32 bytes explicitly: a vector type's natural alignment depends on the target flags
// of the translation unit (16 without AVX), and every user must agree on the layout.
template <typename R>
struct alignas(32) CVec {
  typedef R V __attribute__((vector_size(32), aligned(32)));
  V re, im;
};

template <typename R>
inline CVec<R> operator+(CVec<R> a, CVec<R> b) {
  return {a.re + b.re, a.im + b.im};
}
template <typename R>
inline CVec<R> operator-(CVec<R> a, CVec<R> b) {
  return {a.re - b.re, a.im - b.im};
}
template <typename R>
inline CVec<R> operator-(CVec<R> a) {
  return {-a.re, -a.im};
}
template <typename R>
inline CVec<R> operator*(R s, CVec<R> a) {
  return {s * a.re, s * a.im};
}
template <typename R>
inline CVec<R>& operator+=(CVec<R>& a, CVec<R> b) {
  a.re += b.re;
  a.im += b.im;
  return a;
}

// Complex conjugates, lane by lane (std::conj for scalars).
template <typename R>
inline CVec<R> Conj(CVec<R> a) {
  return {a.re, -a.im};
}
template <typename R>
inline std::complex<R> Conj(std::complex<R> a) {
  return std::conj(a);
}

}  // namespace fft
}  // namespace tx

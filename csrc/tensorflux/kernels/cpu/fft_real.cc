// Real FFT plans (Note [FFT plans] in fft_plan.h). Even n: the n reals read as n/2 complex values
// z_j = x_{2j} + i x_{2j+1} (no copy: the layout is the same), one complex FFT of n/2, then
// X_k = E_k + w^k O_k with E_k = (Z_k + conj Z_{m-k}) / 2, O_k = (Z_k - conj Z_{m-k}) / 2i,
// w = exp(-2 pi i / n), m = n/2; the backward transform runs these steps in reverse. Odd n: the
// complex plan of n on the real values (the Hermitian half of its result is kept).
#include <cstring>

#include "tensorflux/kernels/cpu/fft_plan.h"

namespace tx {
namespace fft {
namespace {

template <typename R>
inline std::complex<R> MulI(std::complex<R> a) {
  return {-a.imag(), a.real()};
}

}  // namespace

template <typename R>
RealPlan<R>::RealPlan(int64_t n) : n_(n) {
  if (n % 2 == 0) {
    half_ = GetComplexPlan<R>(n / 2);
    for (const std::complex<double>& w : UnitRoots(n, n / 4 + 1))
      twiddle_.emplace_back(static_cast<R>(w.real()), static_cast<R>(w.imag()));
  } else {
    full_ = GetComplexPlan<R>(n);
  }
}

template <typename R>
RealPlan<R>::~RealPlan() = default;

template <typename R>
int64_t RealPlan<R>::scratch_size() const {
  return half_ ? half_->scratch_size() : n_ + full_->scratch_size();
}

template <typename R>
void RealPlan<R>::Forward(const R* in, C* out, C* scratch, ThreadPool* pool) const {
  if (full_) {
    C* buf = scratch;
    for (int64_t j = 0; j < n_; ++j) buf[j] = C(in[j], R(0));
    full_->Execute(buf, scratch + n_, true, pool);
    std::memcpy(static_cast<void*>(out), buf, sizeof(C) * static_cast<size_t>(n_ / 2 + 1));
    return;
  }
  const int64_t m = n_ / 2;
  if (static_cast<const void*>(in) != static_cast<const void*>(out))
    std::memmove(static_cast<void*>(out), in, sizeof(R) * static_cast<size_t>(n_));
  half_->Execute(out, scratch, true, pool);
  const C z0 = out[0];
  out[0] = C(z0.real() + z0.imag(), R(0));
  out[m] = C(z0.real() - z0.imag(), R(0));
  for (int64_t k = 1; k <= m - k; ++k) {
    const C zk = out[k], zmk = std::conj(out[m - k]);
    const C e = R(0.5) * (zk + zmk);
    const C o = R(0.5) * (zk - zmk);  // O_k times i
    const C w = twiddle_[k];
    const C wo(w.real() * o.imag() + w.imag() * o.real(), w.imag() * o.imag() - w.real() * o.real());  // w O_k
    out[k] = e + wo;
    out[m - k] = std::conj(e - wo);
  }
}

template <typename R>
void RealPlan<R>::Backward(const C* in, R* out, C* scratch, ThreadPool* pool) const {
  if (full_) {
    C* buf = scratch;
    buf[0] = C(in[0].real(), R(0));
    for (int64_t k = 1; k <= n_ / 2; ++k) {
      buf[k] = in[k];
      buf[n_ - k] = std::conj(in[k]);
    }
    full_->Execute(buf, scratch + n_, false, pool);
    for (int64_t j = 0; j < n_; ++j) out[j] = buf[j].real();
    return;
  }
  const int64_t m = n_ / 2;
  C* z = reinterpret_cast<C*>(out);  // n reals are m complex values
  const R x0 = in[0].real(), xm = in[m].real();
  z[0] = C(x0 + xm, x0 - xm);
  for (int64_t k = 1; k <= m - k; ++k) {
    const C xk = in[k], xmk = std::conj(in[m - k]);
    const C a = xk + xmk, d = xk - xmk, w = twiddle_[k];
    const C b(d.real() * w.real() + d.imag() * w.imag(), d.imag() * w.real() - d.real() * w.imag());  // d conj(w^k)
    z[k] = a + MulI(b);
    z[m - k] = std::conj(a) + MulI(std::conj(b));
  }
  half_->Execute(z, scratch, false, pool);
}

template <typename R>
void RealPlan<R>::ForwardLanes(CVec<R>* z, CVec<R>* scratch) const {
  if (full_) {
    full_->ExecuteLanes(z, scratch, true);
    return;
  }
  const int64_t m = n_ / 2;
  half_->ExecuteLanes(z, scratch, true);
  const CVec<R> z0 = z[0];
  z[0] = {z0.re + z0.im, typename CVec<R>::V{}};
  z[m] = {z0.re - z0.im, typename CVec<R>::V{}};
  for (int64_t k = 1; k <= m - k; ++k) {
    const CVec<R> zk = z[k], zmk = Conj(z[m - k]);
    const CVec<R> e = R(0.5) * (zk + zmk), o = R(0.5) * (zk - zmk);
    const R wr = twiddle_[k].real(), wi = twiddle_[k].imag();
    const CVec<R> wo = {wr * o.im + wi * o.re, wi * o.im - wr * o.re};
    z[k] = e + wo;
    z[m - k] = Conj(e - wo);
  }
}

template <typename R>
void RealPlan<R>::BackwardLanes(CVec<R>* z, CVec<R>* scratch) const {
  if (full_) {
    z[0].im = typename CVec<R>::V{};
    for (int64_t k = 1; k <= n_ / 2; ++k) z[n_ - k] = Conj(z[k]);
    full_->ExecuteLanes(z, scratch, false);
    return;
  }
  const int64_t m = n_ / 2;
  const typename CVec<R>::V x0 = z[0].re, xm = z[m].re;
  z[0] = {x0 + xm, x0 - xm};
  for (int64_t k = 1; k <= m - k; ++k) {
    const CVec<R> xk = z[k], xmk = Conj(z[m - k]);
    const CVec<R> a = xk + xmk, d = xk - xmk;
    const R wr = twiddle_[k].real(), wi = twiddle_[k].imag();
    const CVec<R> b = {d.re * wr + d.im * wi, d.im * wr - d.re * wi};  // d conj(w^k)
    z[k] = {a.re - b.im, a.im + b.re};  // a + i b
    z[m - k] = {a.re + b.im, b.re - a.im};  // conj(a) + i conj(b)
  }
  half_->ExecuteLanes(z, scratch, false);
}

template class RealPlan<float>;
template class RealPlan<double>;

}  // namespace fft
}  // namespace tx

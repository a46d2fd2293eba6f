// The Stockham passes of the complex FFT (Note [FFT plans] in fft_plan.h): one pass per factor
// ip of the length, radix 2, 3, 4 and 5 written out and a generic pass for any odd factor. The
// element type T is std::complex<R> (one line) or CVec<R> (kLanes lines at once, fft_vec.h);
// twiddles are std::complex<R> either way.
//
// A pass reads cc as [l1][ip][ido] and writes ch as [ip][l1][ido]: for each k < l1 and i < ido it
// takes the ip values cc(i, j, k), computes their length-ip DFT v_j, and stores v_j times the
// twiddle exp(-/+ 2 pi i j i l1 / n) at ch(i, k, j). tw holds the forward twiddles for j >= 1,
// i >= 1 at tw[(j - 1) (ido - 1) + i - 1]; backward passes use their conjugates. Each pass covers
// the block k in [r.k0, r.k1), i in [r.i0, r.i1), so blocks of one pass may run on several
// threads. Only fft_plan.cc includes this file.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/fft_vec.h"

namespace tx {
namespace fft {
namespace passes {

template <typename R>
using C = std::complex<R>;

// The block of (k, i) a pass call covers.
struct Range {
  int64_t k0, k1, i0, i1;
};

// a * w (kFwd) or a * conj(w), without std::complex's NaN recovery (the FFT never needs it).
template <bool kFwd, typename R>
inline C<R> Twiddle(C<R> a, C<R> w) {
  const R ar = a.real(), ai = a.imag(), wr = w.real(), wi = w.imag();
  if constexpr (kFwd)
    return {ar * wr - ai * wi, ar * wi + ai * wr};
  else
    return {ar * wr + ai * wi, ai * wr - ar * wi};
}
template <bool kFwd, typename R>
inline CVec<R> Twiddle(CVec<R> a, C<R> w) {
  const R wr = w.real(), wi = w.imag();
  if constexpr (kFwd)
    return {a.re * wr - a.im * wi, a.re * wi + a.im * wr};
  else
    return {a.re * wr + a.im * wi, a.im * wr - a.re * wi};
}

// -i a (kFwd) or i a: the rotation by the direction's quarter turn.
template <bool kFwd, typename R>
inline C<R> QuarterTurn(C<R> a) {
  if constexpr (kFwd)
    return {a.imag(), -a.real()};
  else
    return {-a.imag(), a.real()};
}
template <bool kFwd, typename R>
inline CVec<R> QuarterTurn(CVec<R> a) {
  if constexpr (kFwd)
    return {a.im, -a.re};
  else
    return {-a.im, a.re};
}

template <bool kFwd, typename T, typename R>
void Pass2(int64_t ido, int64_t l1, const T* cc, T* ch, const C<R>* tw, Range r) {
  for (int64_t k = r.k0; k < r.k1; ++k) {
    const T* in = cc + 2 * k * ido;
    T* o0 = ch + k * ido;
    T* o1 = ch + (k + l1) * ido;
    int64_t i = r.i0;
    if (i == 0) {
      o0[0] = in[0] + in[ido];
      o1[0] = in[0] - in[ido];
      ++i;
    }
    for (; i < r.i1; ++i) {
      const T a = in[i], b = in[i + ido];
      o0[i] = a + b;
      o1[i] = Twiddle<kFwd>(a - b, tw[i - 1]);
    }
  }
}

template <bool kFwd, typename T, typename R>
void Pass3(int64_t ido, int64_t l1, const T* cc, T* ch, const C<R>* tw, Range r) {
  constexpr R kHalf = R(0.5), kSin = R(0.866025403784438646763723170752936183);  // sin(2 pi / 3)
  for (int64_t k = r.k0; k < r.k1; ++k) {
    const T* in = cc + 3 * k * ido;
    T* o[3] = {ch + k * ido, ch + (k + l1) * ido, ch + (k + 2 * l1) * ido};
    for (int64_t i = r.i0; i < r.i1; ++i) {
      const T u0 = in[i], u1 = in[i + ido], u2 = in[i + 2 * ido];
      const T t = u1 + u2, c = u0 - kHalf * t, d = QuarterTurn<kFwd>(kSin * (u1 - u2));
      o[0][i] = u0 + t;
      if (i == 0) {
        o[1][0] = c + d;
        o[2][0] = c - d;
      } else {
        o[1][i] = Twiddle<kFwd>(c + d, tw[i - 1]);
        o[2][i] = Twiddle<kFwd>(c - d, tw[ido - 1 + i - 1]);
      }
    }
  }
}

template <bool kFwd, typename T, typename R>
void Pass4(int64_t ido, int64_t l1, const T* cc, T* ch, const C<R>* tw, Range r) {
  for (int64_t k = r.k0; k < r.k1; ++k) {
    const T* in = cc + 4 * k * ido;
    T* o0 = ch + k * ido;
    T* o1 = ch + (k + l1) * ido;
    T* o2 = ch + (k + 2 * l1) * ido;
    T* o3 = ch + (k + 3 * l1) * ido;
    for (int64_t i = r.i0; i < r.i1; ++i) {
      const T u0 = in[i], u1 = in[i + ido], u2 = in[i + 2 * ido], u3 = in[i + 3 * ido];
      const T t1 = u0 + u2, t2 = u0 - u2, t3 = u1 + u3, t4 = QuarterTurn<kFwd>(u1 - u3);
      o0[i] = t1 + t3;
      if (i == 0) {
        o1[0] = t2 + t4;
        o2[0] = t1 - t3;
        o3[0] = t2 - t4;
      } else {
        o1[i] = Twiddle<kFwd>(t2 + t4, tw[i - 1]);
        o2[i] = Twiddle<kFwd>(t1 - t3, tw[ido - 1 + i - 1]);
        o3[i] = Twiddle<kFwd>(t2 - t4, tw[2 * (ido - 1) + i - 1]);
      }
    }
  }
}

template <bool kFwd, typename T, typename R>
void Pass5(int64_t ido, int64_t l1, const T* cc, T* ch, const C<R>* tw, Range r) {
  // cos and sin of 2 pi / 5 and 4 pi / 5.
  constexpr R c1 = R(0.309016994374947424102293417182819059), c2 = R(-0.809016994374947424102293417182819059);
  constexpr R s1 = R(0.951056516295153572116439333379382143), s2 = R(0.587785252292473129168705954639072769);
  for (int64_t k = r.k0; k < r.k1; ++k) {
    const T* in = cc + 5 * k * ido;
    for (int64_t i = r.i0; i < r.i1; ++i) {
      const T u0 = in[i], u1 = in[i + ido], u2 = in[i + 2 * ido], u3 = in[i + 3 * ido], u4 = in[i + 4 * ido];
      const T t1 = u1 + u4, t2 = u2 + u3, t3 = u1 - u4, t4 = u2 - u3;
      const T a1 = u0 + c1 * t1 + c2 * t2, a2 = u0 + c2 * t1 + c1 * t2;
      const T b1 = QuarterTurn<kFwd>(s1 * t3 + s2 * t4), b2 = QuarterTurn<kFwd>(s2 * t3 - s1 * t4);
      const T v[5] = {u0 + t1 + t2, a1 + b1, a2 + b2, a2 - b2, a1 - b1};
      ch[k * ido + i] = v[0];
      for (int j = 1; j < 5; ++j)
        ch[(k + j * l1) * ido + i] = i == 0 ? v[j] : Twiddle<kFwd>(v[j], tw[(j - 1) * (ido - 1) + i - 1]);
    }
  }
}

// Any odd ip, O(ip) work per element: the DFT of each group pairs u_j with u_{ip-j}.
// cs/sn hold cos and sin of 2 pi m / ip for m < ip; work holds 2 * ip values.
template <bool kFwd, typename T, typename R>
void PassGeneric(int64_t ip, int64_t ido, int64_t l1, const T* cc, T* ch, const C<R>* tw, const R* cs, const R* sn,
                 T* work, Range r) {
  const int64_t h = (ip - 1) / 2;
  T* u = work;
  T* v = work + ip;
  for (int64_t k = r.k0; k < r.k1; ++k) {
    for (int64_t i = r.i0; i < r.i1; ++i) {
      T sum = cc[(k * ip) * ido + i];
      u[0] = sum;
      for (int64_t j = 1; j <= h; ++j) {
        const T a = cc[(j + k * ip) * ido + i], b = cc[(ip - j + k * ip) * ido + i];
        u[j] = a + b;  // pair sums
        u[ip - j] = a - b;  // pair differences
        sum += u[j];
      }
      v[0] = sum;
      for (int64_t jj = 1; jj <= h; ++jj) {
        T re = u[0], im{};
        int64_t m = 0;
        for (int64_t j = 1; j <= h; ++j) {
          m += jj;
          if (m >= ip) m -= ip;
          re += cs[m] * u[j];
          im += sn[m] * u[ip - j];
        }
        const T rot = QuarterTurn<kFwd>(im);
        v[jj] = re + rot;
        v[ip - jj] = re - rot;
      }
      ch[k * ido + i] = v[0];
      for (int64_t j = 1; j < ip; ++j)
        ch[(k + j * l1) * ido + i] = i == 0 ? v[j] : Twiddle<kFwd>(v[j], tw[(j - 1) * (ido - 1) + i - 1]);
    }
  }
}

}  // namespace passes
}  // namespace fft
}  // namespace tx

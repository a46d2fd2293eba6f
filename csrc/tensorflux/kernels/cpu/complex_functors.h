// Elementwise functors on complex64/complex128 with TensorFlow's complex semantics, for the
// BinaryOp and UnaryOp kernel templates: maps whose real-type versions do not apply to complex
// values (|x|-based Sign, (x - y) conj(x - y), accurate expm1/log1p, the conjugated derivative
// factors of the fused gradient ops) and the part maps (Real, Imag, Angle, ComplexAbs, Conj).
#pragma once

#include <cmath>
#include <complex>

#include "tensorflux/core/complex.h"
#include "tensorflux/kernels/cpu/binary_functors.h"
#include "tensorflux/kernels/cpu/unary_op.h"

namespace tx {
namespace cpu {
namespace complex_fn {

// A unary complex map Apply(x) with a relative per-element cost.
#define TX_COMPLEX_UNARY_FN(NAME, EXPR, COST) \
  struct NAME : Map<NAME> {                   \
    static constexpr int64_t kCost = COST;    \
    template <typename C>                     \
    static auto Apply(C x) {                  \
      return EXPR;                            \
    }                                         \
  }

// exp(x) - 1 without cancellation for small |x|: expm1(a) cos b - 2 sin^2(b/2) + i e^a sin b.
template <typename R>
std::complex<R> Expm1(std::complex<R> x) {
  const R a = x.real(), b = x.imag(), s = std::sin(b / 2);
  return {std::expm1(a) * std::cos(b) - 2 * s * s, std::exp(a) * std::sin(b)};
}

// log(1 + x) without cancellation for small |x|: log|1 + x| = log1p(2a + a^2 + b^2) / 2.
template <typename R>
std::complex<R> Log1p(std::complex<R> x) {
  const R a = x.real(), b = x.imag();
  return {std::log1p(a * (2 + a) + b * b) / 2, std::atan2(b, 1 + a)};
}

// x / |x|, 0 at 0 (TensorFlow's complex Sign).
template <typename R>
std::complex<R> Sign(std::complex<R> x) {
  const R m = std::abs(x);
  return m == R(0) ? std::complex<R>(0) : x / m;
}

TX_COMPLEX_UNARY_FN(ConjFn, std::conj(x), 1);
TX_COMPLEX_UNARY_FN(RealFn, x.real(), 1);
TX_COMPLEX_UNARY_FN(ImagFn, x.imag(), 1);
TX_COMPLEX_UNARY_FN(AngleFn, std::arg(x), 16);
TX_COMPLEX_UNARY_FN(ComplexAbsFn, std::abs(x), 4);
TX_COMPLEX_UNARY_FN(SignFn, Sign(x), 8);
TX_COMPLEX_UNARY_FN(SqrtFn, std::sqrt(x), 8);
TX_COMPLEX_UNARY_FN(RsqrtFn, C(1) / std::sqrt(x), 12);
TX_COMPLEX_UNARY_FN(ExpFn, std::exp(x), 16);
TX_COMPLEX_UNARY_FN(Expm1Fn, Expm1(x), 24);
TX_COMPLEX_UNARY_FN(LogFn, std::log(x), 16);
TX_COMPLEX_UNARY_FN(Log1pFn, Log1p(x), 24);
TX_COMPLEX_UNARY_FN(SinFn, std::sin(x), 24);
TX_COMPLEX_UNARY_FN(CosFn, std::cos(x), 24);
TX_COMPLEX_UNARY_FN(TanFn, std::tan(x), 32);
TX_COMPLEX_UNARY_FN(SinhFn, std::sinh(x), 24);
TX_COMPLEX_UNARY_FN(CoshFn, std::cosh(x), 24);
TX_COMPLEX_UNARY_FN(TanhFn, std::tanh(x), 32);
TX_COMPLEX_UNARY_FN(AsinFn, std::asin(x), 32);
TX_COMPLEX_UNARY_FN(AcosFn, std::acos(x), 32);
TX_COMPLEX_UNARY_FN(AtanFn, std::atan(x), 32);
TX_COMPLEX_UNARY_FN(AsinhFn, std::asinh(x), 32);
TX_COMPLEX_UNARY_FN(AcoshFn, std::acosh(x), 32);
TX_COMPLEX_UNARY_FN(AtanhFn, std::atanh(x), 32);
TX_COMPLEX_UNARY_FN(SigmoidFn, C(1) / (C(1) + std::exp(-x)), 24);
#undef TX_COMPLEX_UNARY_FN

// A binary complex map Apply(x, y) (no integer checks) with a relative per-element cost.
#define TX_COMPLEX_BINARY_FN(NAME, EXPR, COST)          \
  struct NAME {                                         \
    static constexpr IntCheck kCheck = IntCheck::kNone; \
    static constexpr int64_t kCost = COST;              \
    template <typename C>                               \
    static auto Apply(C x, C y) {                       \
      return EXPR;                                      \
    }                                                   \
  }

// (x - y) conj(x - y): |x - y|^2 as a complex number, as TensorFlow computes it.
TX_COMPLEX_BINARY_FN(SquaredDifferenceFn, C(std::norm(x - y)), 2);
TX_COMPLEX_BINARY_FN(XlogyFn, x == C(0) ? C(0) : x * std::log(y), 16);
TX_COMPLEX_BINARY_FN(Xlog1pyFn, x == C(0) ? C(0) : x * Log1p(y), 24);
TX_COMPLEX_BINARY_FN(XdivyFn, x == C(0) ? C(0) : x / y, 4);
TX_COMPLEX_BINARY_FN(DivNoNanFn, y == C(0) ? C(0) : x / y, 4);
TX_COMPLEX_BINARY_FN(MulNoNanFn, y == C(0) ? C(0) : x * y, 2);
// Complex(real, imag): the inputs are real, the result complex.
TX_COMPLEX_BINARY_FN(MakeComplexFn, std::complex<C>(x, y), 1);
// The fused gradient ops (y, dy) -> dy * conj(f'(x)) written in terms of y = f(x), as TensorFlow's
// complex kernels compute them.
TX_COMPLEX_BINARY_FN(SqrtGradFn, y* C(0.5) / std::conj(x), 4);
TX_COMPLEX_BINARY_FN(RsqrtGradFn, y* std::conj(C(-0.5) * x * x * x), 4);
TX_COMPLEX_BINARY_FN(ReciprocalGradFn, y* std::conj(-x* x), 2);
TX_COMPLEX_BINARY_FN(TanhGradFn, y* std::conj(C(1) - x * x), 2);
TX_COMPLEX_BINARY_FN(SigmoidGradFn, y* std::conj(x*(C(1) - x)), 2);
#undef TX_COMPLEX_BINARY_FN

}  // namespace complex_fn
}  // namespace cpu
}  // namespace tx

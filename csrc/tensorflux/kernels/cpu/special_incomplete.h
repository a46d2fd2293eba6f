// The regularized incomplete gamma functions P(a, x) and Q(a, x) with their derivative in a, the
// implicit reparameterization derivative of a Gamma(a) sample, and the regularized incomplete
// beta function I_x(a, b), in double precision with the domain conventions of TensorFlow's
// kernels (NaN for a <= 0, b <= 0, x < 0, x > 1 where that is outside the domain).
#pragma once

namespace tx {
namespace cpu {
namespace special {

// Note [Incomplete gamma with its a-derivative]
// P(a, x) = exp(a log x - x - lgamma(a + 1)) * sum_n x^n / ((a+1)...(a+n)) converges fast for
// x <= max(1, a); elsewhere Q(a, x) = exp(a log x - x - lgamma(a)) * K(a, x) with K Legendre's
// continued fraction, evaluated by the modified Lentz method. Both are carried as (value,
// d/da) pairs: every term's derivative follows from the previous one (forward-mode
// differentiation of the recurrences), so dP/da costs no more iterations than P. The
// prefactor's derivative is log x - digamma. A Gamma(a) sample's derivative, -dP/da / dP/dx,
// cancels the prefactor analytically, so it stays finite where the prefactor underflows.

// P(a, x), the regularized lower incomplete gamma function.
double Igamma(double a, double x);
// Q(a, x) = 1 - P(a, x), computed directly where it is small.
double Igammac(double a, double x);
// dP(a, x) / da.
double IgammaGradA(double a, double x);
// d sample / d alpha of a Gamma(alpha, 1) sample (implicit reparameterization):
// -dP/da / dP/dx at x = sample.
double GammaSampleGradAlpha(double a, double x);

// I_x(a, b), the regularized incomplete beta function.
double Betainc(double a, double b, double x);

}  // namespace special
}  // namespace cpu
}  // namespace tx

// Scalar special functions in double precision, with the domain conventions of TensorFlow's
// kernels: digamma, the Hurwitz zeta function, polygamma and the exponentially scaled modified
// Bessel functions of orders 0 and 1. Float kernels call these and round.
#pragma once

#include <cmath>
#include <limits>

namespace tx {
namespace cpu {
namespace special {

constexpr double kPi = 3.14159265358979323846;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// psi(x) = d/dx log Gamma(x); NaN at the poles x = 0, -1, -2, ... and at -inf.
inline double Digamma(double x) {
  if (std::isnan(x) || x == -kInf) return kNaN;
  if (x == kInf) return kInf;
  double result = 0.0;
  if (x <= 0.0) {
    if (x == std::floor(x)) return kNaN;
    // Reflection: psi(x) = psi(1 - x) - pi / tan(pi x), with the tangent of the reduced argument.
    const double r = x - std::floor(x);
    result = -kPi / std::tan(kPi * r);
    x = 1.0 - x;
  }
  while (x < 10.0) {  // psi(x) = psi(x + 1) - 1 / x until the asymptotic series is accurate
    result -= 1.0 / x;
    x += 1.0;
  }
  const double z = 1.0 / (x * x);
  // Asymptotic series: log x - 1/(2x) - sum B_2k / (2k x^2k).
  const double series =
      z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * 691.0 / 32760)))));
  return result + std::log(x) - 0.5 / x - series;
}

// zeta(s, q) = sum_{k>=0} (q + k)^-s for s > 1 (Euler-Maclaurin summation); inf at s == 1, NaN
// for s < 1; q at a non-positive integer gives inf, and q < 0 with non-integer s gives NaN.
inline double Zeta(double s, double q) {
  if (std::isnan(s) || std::isnan(q)) return kNaN;
  if (s == 1.0) return kInf;
  if (s < 1.0) return kNaN;
  if (s == kInf) return q == 1.0 ? 1.0 : (q > 1.0 ? 0.0 : kInf);
  if (q <= 0.0) {
    if (q == std::floor(q)) return kInf;
    if (s != std::floor(s)) return kNaN;
  }
  constexpr int kTerms = 9;
  double sum = 0.0;
  double a = q;
  int k = 0;
  for (; k < kTerms || a <= 9.0; ++k, a += 1.0) {
    const double term = std::pow(a, -s);
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) return sum;
    if (k > 10000) break;
  }
  // Tail: integral plus half the first omitted term plus Bernoulli corrections.
  sum += std::pow(a, 1.0 - s) / (s - 1.0) + 0.5 * std::pow(a, -s);
  // B_2j / (2j)! for j = 1..12.
  static const double kB[] = {8.33333333333333287074e-02,  -1.38888888888888894189e-03, 3.30687830687830710131e-05,
                              -8.26719576719576754153e-07, 2.08767569878681001866e-08,  -5.28419013868749322002e-10,
                              1.33825365306846788611e-11,  -3.38968029632258271696e-13, 8.58606205627784516939e-15,
                              -2.17486869855806192266e-16, 5.50900282836022953019e-18,  -1.39544646858125223056e-19};
  double factor = s * std::pow(a, -s - 1.0);  // s (s+1) ... (s+2j-2) a^(-s-2j+1)
  for (int j = 0; j < 12; ++j) {
    const double term = kB[j] * factor;
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
    factor *= (s + 2 * j + 1) * (s + 2 * j + 2) / (a * a);
  }
  return sum;
}

// psi^(n)(x): digamma for n == 0, (-1)^(n+1) n! zeta(n + 1, x) for integer n > 0; NaN for
// negative or non-integer n.
inline double Polygamma(double n, double x) {
  if (std::isnan(n) || std::isnan(x) || n < 0.0 || n != std::floor(n)) return kNaN;
  if (n == 0.0) return Digamma(x);
  const double sign = std::fmod(n, 2.0) == 0.0 ? -1.0 : 1.0;
  return sign * std::exp(std::lgamma(n + 1.0)) * Zeta(n + 1.0, x);
}

// The terms of the large-|x| expansion exp(-x) I_n(x) ~ (2 pi x)^-1/2 sum_k (-1)^k a_k(n) / x^k,
// a_k(n) = prod_{j=1..k} (4n^2 - (2j-1)^2) / (8j); used above kBesselAsymptotic, where 12 terms
// are exact to double precision and the direct form's exp(x) would overflow.
constexpr double kBesselAsymptotic = 500.0;
inline double BesselIeAsymptotic(int n, double x) {
  double term = 1.0, sum = 1.0;
  const double mu = 4.0 * n * n;
  for (int k = 1; k <= 12; ++k) {
    term *= -(mu - (2.0 * k - 1.0) * (2.0 * k - 1.0)) / (8.0 * k * x);
    sum += term;
  }
  return sum / std::sqrt(2.0 * kPi * x);
}

// exp(-|x|) I_0(x), the exponentially scaled modified Bessel function of order 0 (even in x).
inline double BesselI0e(double x) {
  if (std::isnan(x)) return kNaN;
  const double ax = std::fabs(x);
  if (ax == kInf) return 0.0;
  if (ax > kBesselAsymptotic) return BesselIeAsymptotic(0, ax);
  return std::exp(-ax) * std::cyl_bessel_i(0.0, ax);
}

// exp(-|x|) I_1(x), the exponentially scaled modified Bessel function of order 1 (odd in x).
inline double BesselI1e(double x) {
  if (std::isnan(x)) return kNaN;
  const double ax = std::fabs(x);
  double r;
  if (ax == kInf)
    r = 0.0;
  else if (ax > kBesselAsymptotic)
    r = BesselIeAsymptotic(1, ax);
  else
    r = std::exp(-ax) * std::cyl_bessel_i(1.0, ax);
  return x < 0 ? -r : r;
}

}  // namespace special
}  // namespace cpu
}  // namespace tx

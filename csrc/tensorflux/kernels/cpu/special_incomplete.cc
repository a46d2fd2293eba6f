#include "tensorflux/kernels/cpu/special_incomplete.h"

#include <cmath>
#include <limits>

#include "tensorflux/kernels/cpu/special_functions.h"

namespace tx {
namespace cpu {
namespace special {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kTiny = 1e-300;  // Lentz's guard against division by zero
constexpr int kMaxIterations = 20000;

// A value and its derivative in a (Note [Incomplete gamma with its a-derivative]).
struct WithGradA {
  double value;
  double grad;
};

// The series factor S(a, x) = sum_n x^n / ((a+1)...(a+n)) and dS/da.
WithGradA LowerSeries(double a, double x) {
  double term = 1.0, dterm = 0.0, sum = 1.0, dsum = 0.0;
  for (int n = 1; n < kMaxIterations; ++n) {
    const double r = x / (a + n);
    const double dr = -r / (a + n);
    dterm = dterm * r + term * dr;
    term *= r;
    sum += term;
    dsum += dterm;
    if (std::fabs(term) <= kEps * std::fabs(sum) && std::fabs(dterm) <= kEps * std::fabs(dsum) + kTiny) break;
  }
  return {sum, dsum};
}

// Legendre's continued fraction K(a, x) with Q = exp(a log x - x - lgamma(a)) * K, and dK/da,
// by the modified Lentz method carried with derivatives.
WithGradA UpperFraction(double a, double x) {
  double b = x + 1.0 - a, db = -1.0;
  double c = 1.0 / kTiny, dc = 0.0;
  double d = 1.0 / b, dd = -db / (b * b);
  double h = d, dh = dd;
  for (int i = 1; i < kMaxIterations; ++i) {
    const double an = -i * (i - a), dan = i;
    b += 2.0;
    // d <- 1 / (an * d + b)
    double den = an * d + b, dden = dan * d + an * dd + db;
    if (std::fabs(den) < kTiny) den = kTiny;
    d = 1.0 / den;
    dd = -dden * d * d;
    // c <- b + an / c
    const double cn = b + an / c;
    const double dcn = db + (dan * c - an * dc) / (c * c);
    c = std::fabs(cn) < kTiny ? kTiny : cn;
    dc = dcn;
    const double del = d * c, ddel = dd * c + d * dc;
    dh = dh * del + h * ddel;
    h *= del;
    if (std::fabs(del - 1.0) <= kEps && std::fabs(h * ddel) <= kEps * std::fabs(dh) + kTiny) break;
  }
  return {h, dh};
}

// Whether (a, x) is outside the domain of P and Q (NaN results), as in TensorFlow.
bool OutOfDomain(double a, double x) { return std::isnan(a) || std::isnan(x) || a <= 0.0 || x < 0.0; }

// Which form converges: the series of P, or the continued fraction of Q.
bool UseSeries(double a, double x) { return x <= 1.0 || x <= a; }

// P (upper = false) or Q (upper = true) with the derivative in a.
WithGradA IncompleteGamma(double a, double x, bool upper) {
  if (UseSeries(a, x)) {
    const double log_prefactor = a * std::log(x) - x - std::lgamma(a + 1.0);
    const double dlog_prefactor = std::log(x) - Digamma(a + 1.0);
    const WithGradA s = LowerSeries(a, x);
    const double p = std::exp(log_prefactor) * s.value;
    const double dp = std::exp(log_prefactor) * (dlog_prefactor * s.value + s.grad);
    return upper ? WithGradA{1.0 - p, -dp} : WithGradA{p, dp};
  }
  const double log_prefactor = a * std::log(x) - x - std::lgamma(a);
  const double dlog_prefactor = std::log(x) - Digamma(a);
  const WithGradA k = UpperFraction(a, x);
  const double q = std::exp(log_prefactor) * k.value;
  const double dq = std::exp(log_prefactor) * (dlog_prefactor * k.value + k.grad);
  return upper ? WithGradA{q, dq} : WithGradA{1.0 - q, -dq};
}

}  // namespace

double Igamma(double a, double x) {
  if (OutOfDomain(a, x)) return kNaN;
  if (x == 0.0) return 0.0;
  if (std::isinf(x)) return std::isinf(a) ? kNaN : 1.0;
  if (std::isinf(a)) return 0.0;
  return IncompleteGamma(a, x, false).value;
}

double Igammac(double a, double x) {
  if (OutOfDomain(a, x)) return kNaN;
  if (x == 0.0) return 1.0;
  if (std::isinf(x)) return std::isinf(a) ? kNaN : 0.0;
  if (std::isinf(a)) return 1.0;
  return IncompleteGamma(a, x, true).value;
}

double IgammaGradA(double a, double x) {
  if (OutOfDomain(a, x)) return kNaN;
  if (x == 0.0 || std::isinf(x) || std::isinf(a)) return 0.0;
  return IncompleteGamma(a, x, false).grad;
}

double GammaSampleGradAlpha(double a, double x) {
  if (OutOfDomain(a, x)) return kNaN;
  if (x == 0.0 || std::isinf(x) || std::isinf(a)) return 0.0;
  // dP/dx = x^(a-1) e^-x / Gamma(a); divided into -dP/da with the prefactor cancelled.
  if (UseSeries(a, x)) {
    const WithGradA s = LowerSeries(a, x);
    const double dlog_prefactor = std::log(x) - Digamma(a + 1.0);
    return -(dlog_prefactor * s.value + s.grad) * x / a;
  }
  const WithGradA k = UpperFraction(a, x);
  const double dlog_prefactor = std::log(x) - Digamma(a);
  return (dlog_prefactor * k.value + k.grad) * x;
}

namespace {

// The continued fraction of I_x(a, b) (modified Lentz), accurate for x < (a + 1) / (a + b + 2).
double BetaFraction(double a, double b, double x) {
  const double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0, d = 1.0 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m < kMaxIterations; ++m) {
    const int m2 = 2 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) <= kEps) break;
  }
  return h;
}

}  // namespace

double Betainc(double a, double b, double x) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(x) || a <= 0.0 || b <= 0.0 || x < 0.0 || x > 1.0) return kNaN;
  if (x == 0.0) return 0.0;
  if (x == 1.0) return 1.0;
  if (std::isinf(a) || std::isinf(b)) return kNaN;
  const double log_beta = std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b);
  const double log_front = a * std::log(x) + b * std::log1p(-x) - log_beta;
  if (x < (a + 1.0) / (a + b + 2.0)) return std::exp(log_front) * BetaFraction(a, b, x) / a;
  return 1.0 - std::exp(log_front) * BetaFraction(b, a, 1.0 - x) / b;
}

}  // namespace special
}  // namespace cpu
}  // namespace tx

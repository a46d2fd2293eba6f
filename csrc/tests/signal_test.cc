// Tests of the FFT library (kernels/cpu/fft_plan.h) against a direct DFT in long double, over the
// lengths that exercise every code path (radix 2/3/4/5 passes, generic odd factors, Bluestein,
// real even/odd), with and without a pool splitting the passes; the FFT ops' shape functions;
// and the complex kernels' special cases (Sign at 0, accurate expm1/log1p near 0).
#include <cmath>
#include <complex>
#include <cstdint>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "test_util.h"
#include "tensorflux/core/complex.h"
#include "tensorflux/core/thread_pool.h"
#include "tensorflux/kernels/cpu/fft_plan.h"

using namespace tx;
using namespace tx_test;

namespace {

using LC = std::complex<long double>;

// The DFT of x by its definition, in long double.
std::vector<LC> Dft(const std::vector<LC>& x, bool forward) {
  const int64_t n = static_cast<int64_t>(x.size());
  const long double two_pi = 6.283185307179586476925286766559005768L;
  std::vector<LC> roots(x.size());
  for (int64_t m = 0; m < n; ++m) {
    const long double a = (forward ? -two_pi : two_pi) * static_cast<long double>(m) / n;
    roots[m] = LC(std::cos(a), std::sin(a));
  }
  std::vector<LC> y(x.size());
  for (int64_t k = 0; k < n; ++k) {
    LC s = 0;
    for (int64_t j = 0, m = 0; j < n; ++j, m = (m + k) % n) s += x[j] * roots[m];
    y[k] = s;
  }
  return y;
}

std::vector<LC> RandomSignal(int64_t n, unsigned seed, bool real) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<LC> x(static_cast<size_t>(n));
  for (LC& v : x) v = LC(u(gen), real ? 0.0 : u(gen));
  return x;
}

// max |got - want| / max |want| (relative to the largest output).
template <typename C>
double RelError(const std::vector<C>& got, const std::vector<LC>& want) {
  long double err = 0, scale = 1e-30L;
  for (size_t i = 0; i < want.size(); ++i) {
    err = std::max(err, std::abs(LC(got[i].real(), got[i].imag()) - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  return static_cast<double>(err / scale);
}

// Complex plans of length n in both directions against Dft; the error bound grows like log n.
template <typename R>
bool CheckComplex(int64_t n, double tol, ThreadPool* pool) {
  using C = std::complex<R>;
  const std::vector<LC> x = RandomSignal(n, static_cast<unsigned>(n), false);
  const auto plan = fft::GetComplexPlan<R>(n);
  std::vector<C> scratch(static_cast<size_t>(plan->scratch_size()));
  bool ok = true;
  for (bool forward : {true, false}) {
    std::vector<C> data;
    for (const LC& v : x) data.emplace_back(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    plan->Execute(data.data(), scratch.data(), forward, pool);
    const double e = RelError(data, Dft(x, forward));
    if (!(e < tol)) {
      std::printf("  complex n=%lld %s %s: rel error %.3g > %.3g\n", static_cast<long long>(n),
                  sizeof(R) == 4 ? "float" : "double", forward ? "forward" : "backward", e, tol);
      ok = false;
    }
  }
  return ok;
}

// Real plans of length n: forward against Dft's first n/2 + 1 values, backward against the
// real part of the inverse DFT of the Hermitian extension (imaginary parts of X_0 and X_n/2 set,
// to check they are ignored).
template <typename R>
bool CheckReal(int64_t n, double tol) {
  using C = std::complex<R>;
  const std::vector<LC> x = RandomSignal(n, static_cast<unsigned>(n) + 7, true);
  const auto plan = fft::GetRealPlan<R>(n);
  std::vector<C> scratch(static_cast<size_t>(plan->scratch_size()));
  std::vector<R> in;
  for (const LC& v : x) in.push_back(static_cast<R>(v.real()));
  std::vector<C> spectrum(static_cast<size_t>(n / 2 + 1));
  plan->Forward(in.data(), spectrum.data(), scratch.data());
  std::vector<LC> want = Dft(x, true);
  want.resize(spectrum.size());
  bool ok = true;
  const double ef = RelError(spectrum, want);
  if (!(ef < tol)) {
    std::printf("  real forward n=%lld: rel error %.3g > %.3g\n", static_cast<long long>(n), ef, tol);
    ok = false;
  }
  std::vector<C> half;
  for (const LC& v : want) half.emplace_back(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  half[0] += C(0, 3);  // ignored
  if (n % 2 == 0) half[n / 2] += C(0, -5);
  std::vector<R> back(static_cast<size_t>(n));
  plan->Backward(half.data(), back.data(), scratch.data());
  std::vector<C> got;
  for (R v : back) got.emplace_back(v / static_cast<R>(n), R(0));
  const double eb = RelError(got, x);
  if (!(eb < tol)) {
    std::printf("  real backward n=%lld: rel error %.3g > %.3g\n", static_cast<long long>(n), eb, tol);
    ok = false;
  }
  return ok;
}

// The lane versions: kLanes lines at once, each against Dft.
template <typename R>
bool CheckLanes(int64_t n, double tol) {
  constexpr int L = fft::kLanes<R>;
  bool ok = true;
  std::vector<std::vector<LC>> x;
  for (int v = 0; v < L; ++v) x.push_back(RandomSignal(n, static_cast<unsigned>(n * 31 + v), false));
  const auto plan = fft::GetComplexPlan<R>(n);
  std::vector<fft::CVec<R>> z(static_cast<size_t>(n)), scratch(static_cast<size_t>(plan->scratch_size()));
  for (bool forward : {true, false}) {
    for (int64_t t = 0; t < n; ++t)
      for (int v = 0; v < L; ++v)
        z[t].re[v] = static_cast<R>(x[v][t].real()), z[t].im[v] = static_cast<R>(x[v][t].imag());
    plan->ExecuteLanes(z.data(), scratch.data(), forward);
    for (int v = 0; v < L; ++v) {
      std::vector<std::complex<R>> got;
      for (int64_t t = 0; t < n; ++t) got.emplace_back(z[t].re[v], z[t].im[v]);
      ok = ok && RelError(got, Dft(x[v], forward)) < tol;
    }
  }
  // Real lanes: forward against the first n/2 + 1 DFT values, backward back to n x.
  const auto real = fft::GetRealPlan<R>(n);
  std::vector<fft::CVec<R>> w(static_cast<size_t>(real->lane_slots())), rs(static_cast<size_t>(real->scratch_size()));
  std::fill(w.begin(), w.end(), fft::CVec<R>{});
  for (int64_t j = 0; j < n; ++j)
    for (int v = 0; v < L; ++v) real->RealAt(w.data(), j, v) = static_cast<R>(x[v][j].real());
  real->ForwardLanes(w.data(), rs.data());
  for (int v = 0; v < L; ++v) {
    std::vector<LC> re_only;
    for (const LC& c : x[v]) re_only.emplace_back(c.real(), 0);
    std::vector<LC> want = Dft(re_only, true);
    want.resize(static_cast<size_t>(n / 2 + 1));
    std::vector<std::complex<R>> got;
    for (int64_t k = 0; k <= n / 2; ++k) got.emplace_back(w[k].re[v], w[k].im[v]);
    ok = ok && RelError(got, want) < tol;
  }
  real->BackwardLanes(w.data(), rs.data());
  for (int v = 0; v < L; ++v) {
    std::vector<std::complex<R>> got;
    std::vector<LC> want;
    for (int64_t j = 0; j < n; ++j) {
      got.emplace_back(real->RealAt(w.data(), j, v) / static_cast<R>(n), R(0));
      want.emplace_back(x[v][j].real(), 0);
    }
    ok = ok && RelError(got, want) < tol;
  }
  if (!ok)
    std::printf("  lanes n=%lld %s: error above %.3g\n", static_cast<long long>(n), sizeof(R) == 4 ? "float" : "double",
                tol);
  return ok;
}

std::vector<int64_t> Lengths() {
  std::vector<int64_t> n;
  for (int64_t i = 1; i <= 40; ++i) n.push_back(i);
  for (int64_t v : {49,  60,  64,  81,  97,  100, 121, 125,  127,  128,  143,  169, 210,
                    211, 243, 256, 289, 360, 509, 625, 1000, 1009, 1024, 2310, 4099})
    n.push_back(v);
  return n;
}

}  // namespace

TEST(ComplexFftMatchesDirectDft) {
  for (int64_t n : Lengths()) {
    EXPECT_TRUE(CheckComplex<double>(n, 1e-14, nullptr));
    EXPECT_TRUE(CheckComplex<float>(n, 2e-6, nullptr));
  }
}

// Long transforms split each pass over a pool: the same arithmetic per element, so the result is
// bit-identical to the single-threaded one; a few bins are also checked against their direct sums.
TEST(ComplexFftSplitOverPoolIsExact) {
  ThreadPool pool(3);
  for (int64_t n : {int64_t{1} << 15, int64_t{3} << 14, int64_t{32771}}) {  // radix 4/2, radix 3, Bluestein
    const std::vector<LC> x = RandomSignal(n, 5, false);
    const auto plan = fft::GetComplexPlan<double>(n);
    std::vector<complex128> scratch(static_cast<size_t>(plan->scratch_size())), a, b;
    for (const LC& v : x) a.emplace_back(static_cast<double>(v.real()), static_cast<double>(v.imag()));
    b = a;
    plan->Execute(a.data(), scratch.data(), true, nullptr);
    plan->Execute(b.data(), scratch.data(), true, &pool);
    EXPECT_TRUE(a == b);
    const long double two_pi = 6.283185307179586476925286766559005768L;
    for (int64_t k : {int64_t{0}, int64_t{1}, n / 3, n - 1}) {
      LC s = 0;
      for (int64_t j = 0; j < n; ++j) {
        const long double t = -two_pi * static_cast<long double>((j * k) % n) / n;
        s += x[j] * LC(std::cos(t), std::sin(t));
      }
      EXPECT_TRUE(std::abs(LC(a[k].real(), a[k].imag()) - s) < 1e-10L);
    }
  }
}

TEST(LaneFftsMatchDirectDft) {
  for (int64_t n : Lengths()) {
    EXPECT_TRUE(CheckLanes<double>(n, 1e-14));
    EXPECT_TRUE(CheckLanes<float>(n, 2e-6));
  }
}

TEST(RealFftMatchesDirectDft) {
  for (int64_t n : Lengths()) {
    EXPECT_TRUE(CheckReal<double>(n, 1e-14));
    EXPECT_TRUE(CheckReal<float>(n, 2e-6));
  }
}

TEST(UnitRootsAreAccurate) {
  const int64_t n = 1000003;
  const std::vector<std::complex<double>> r = fft::UnitRoots(n, n);
  double worst = 0;
  for (int64_t m = 0; m < n; m += 997) {
    const long double a = -6.283185307179586476925286766559005768L * m / n;
    worst = std::max(worst, static_cast<double>(std::abs(LC(r[m].real(), r[m].imag()) - LC(std::cos(a), std::sin(a)))));
  }
  std::printf("  UnitRoots(%lld): worst error %.3g\n", static_cast<long long>(n), worst);
  EXPECT_TRUE(worst < 2.5e-16);
}

namespace {

Tensor I32(std::vector<int32_t> v) { return MakeTensor<int32_t>({static_cast<int64_t>(v.size())}, v); }
InputSpec C64(PartialShape s) { return Ph(DT_COMPLEX64, std::move(s)); }
InputSpec F32(PartialShape s) { return Ph(DT_FLOAT, std::move(s)); }

struct ShapeCase {
  std::string op;
  std::vector<InputSpec> inputs;
  AttrMap attrs;
  std::string want;  // output 0's shape, or "!" followed by a substring of the error
};

void RunShapeCases(const std::vector<ShapeCase>& cases) {
  for (const ShapeCase& c : cases) {
    OpTester t;
    Node* n = nullptr;
    Status s = t.AddOp(c.op, c.inputs, c.attrs, &n);
    const std::string got = s.ok() ? t.graph().OutputShape({n, 0}).ToString() : "!" + s.message();
    const bool is_error = !c.want.empty() && c.want[0] == '!';
    const bool ok = is_error ? (got[0] == '!' && got.find(c.want.substr(1)) != std::string::npos) : got == c.want;
    if (!ok) std::printf("  shape case %s: got '%s', want '%s'\n", c.op.c_str(), got.c_str(), c.want.c_str());
    EXPECT_TRUE(ok);
  }
}

}  // namespace

TEST(FftShapeFunctions) {
  const AttrMap f64 = {{"Treal", AttrValue::Type(DT_DOUBLE)}, {"Tcomplex", AttrValue::Type(DT_COMPLEX64)}};
  RunShapeCases({
      {"FFT", {C64({3, 8})}, {}, "[3,8]"},
      {"IFFT2D", {C64({2, 3, 5})}, {}, "[2,3,5]"},
      {"FFT3D", {C64({4, 5})}, {}, "!rank of at least 3"},
      {"FFT", {C64(PartialShape())}, {}, "<unknown>"},
      {"RFFT", {F32({3, 8}), Cst(I32({8}))}, {}, "[3,5]"},
      {"RFFT", {F32({3, 8}), Cst(I32({5}))}, {}, "[3,3]"},
      {"RFFT", {F32({3, 8}), Ph(DT_INT32, PartialShape({1}))}, {}, "[3,?]"},
      {"RFFT", {F32({3, 8}), Cst(I32({-1}))}, {}, "!fft_length[0] must be >= 0"},
      {"RFFT", {F32({3, 8}), Cst(I32({4, 4}))}, {}, "!fft_length must have shape [1]"},
      {"RFFT", {Ph(DT_DOUBLE, PartialShape({3, 8})), Cst(I32({8}))}, f64, "!does not go with Tcomplex"},
      {"IRFFT", {C64({3, 5}), Cst(I32({8}))}, {}, "[3,8]"},
      {"IRFFT", {C64({3, 5}), Cst(I32({9}))}, {}, "[3,9]"},
      {"RFFT2D", {F32({2, 6, 8}), Cst(I32({4, 10}))}, {}, "[2,4,6]"},
      {"IRFFT2D", {C64({2, 6, 5}), Cst(I32({4, 7}))}, {}, "[2,4,7]"},
      {"RFFT3D", {F32({6, 8}), Cst(I32({2, 2, 2}))}, {}, "!rank of at least 3"},
      {"FFTND", {C64({2, 3, 4}), Cst(I32({5, 6})), Cst(I32({0, 2}))}, {}, "[5,3,6]"},
      {"FFTND", {C64({2, 3, 4}), Cst(I32({5})), Ph(DT_INT32, PartialShape({1}))}, {}, "[?,?,?]"},
      {"FFTND", {C64({2, 3, 4}), Cst(I32({5})), Cst(I32({3}))}, {}, "!out of range"},
      {"FFTND", {C64({2, 3, 4}), Cst(I32({5, 5})), Cst(I32({1, -2}))}, {}, "!repeats axis 1"},
      {"FFTND", {C64({2, 3, 4}), Cst(I32({5, 5})), Cst(I32({1}))}, {}, "!same shape"},
      {"RFFTND", {F32({2, 3, 4}), Cst(I32({6, 3})), Cst(I32({2, 1}))}, {}, "[2,2,6]"},
      {"IRFFTND", {C64({2, 3, 4}), Cst(I32({5, 6})), Cst(I32({0, 2}))}, {}, "[5,3,6]"},
      {"RFFTND", {F32({2, 3}), Cst(I32({})), Cst(I32({}))}, {}, "!at least one axis"},
  });
}

TEST(ComplexSpecialValues) {
  OpTester t;
  std::vector<Tensor> out;
  const std::vector<complex128> x = {{0, 0}, {1e-20, 1e-20}, {-3, 4}};
  EXPECT_OK(t.RunOp("Sign", {MakeTensor<complex128>({3}, x)}, {}, &out));
  const std::vector<complex128> sign = Values<complex128>(out[0]);
  EXPECT_TRUE(sign[0] == complex128(0, 0));
  EXPECT_TRUE(std::abs(sign[2] - complex128(-0.6, 0.8)) < 1e-15);
  EXPECT_OK(t.RunOp("Expm1", {MakeTensor<complex128>({3}, x)}, {}, &out));
  EXPECT_TRUE(std::abs(Values<complex128>(out[0])[1] - complex128(1e-20, 1e-20)) < 1e-35);
  EXPECT_OK(t.RunOp("Log1p", {MakeTensor<complex128>({3}, x)}, {}, &out));
  EXPECT_TRUE(std::abs(Values<complex128>(out[0])[1] - complex128(1e-20, 1e-20)) < 1e-35);
}

// Complex FFT plans (Note [FFT plans] in fft_plan.h): factorization, twiddles, the Stockham pass
// sequence, Bluestein's algorithm, and the per-length plan cache.
#include "tensorflux/kernels/cpu/fft_plan.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "tensorflux/core/thread_pool.h"
#include "tensorflux/kernels/cpu/fft_passes.h"

namespace tx {
namespace fft {

std::vector<std::complex<double>> UnitRoots(int64_t n, int64_t count) {
  // root(m) = table_hi[m / step] * table_lo[m % step], both tables computed in long double.
  const int64_t step = std::max<int64_t>(1, static_cast<int64_t>(std::sqrt(static_cast<double>(n))));
  const long double two_pi = 6.283185307179586476925286766559005768L;
  auto root = [&](int64_t m) {
    const long double a = two_pi * static_cast<long double>(m % n) / static_cast<long double>(n);
    return std::complex<long double>(std::cos(a), -std::sin(a));
  };
  std::vector<std::complex<long double>> lo(static_cast<size_t>(step)), hi(static_cast<size_t>(count / step + 1));
  for (int64_t b = 0; b < step; ++b) lo[b] = root(b);
  for (int64_t a = 0; a < static_cast<int64_t>(hi.size()); ++a) hi[a] = root(a * step);
  std::vector<std::complex<double>> out(static_cast<size_t>(count));
  for (int64_t m = 0; m < count; ++m) {
    const std::complex<long double> h = hi[m / step], l = lo[m % step];
    out[m] = {static_cast<double>(h.real() * l.real() - h.imag() * l.imag()),
              static_cast<double>(h.real() * l.imag() + h.imag() * l.real())};
  }
  return out;
}

namespace {

// n's factors in pass order: 4s, then a 2, then odd primes ascending.
std::vector<int64_t> Factorize(int64_t n) {
  std::vector<int64_t> f;
  while (n % 4 == 0) f.push_back(4), n /= 4;
  if (n % 2 == 0) f.push_back(2), n /= 2;
  for (int64_t p = 3; p * p <= n; p += 2)
    while (n % p == 0) f.push_back(p), n /= p;
  if (n > 1) f.push_back(n);
  return f;
}

// Rough operation count of the Cooley-Tukey plan of n (per element: ~ip per pass of factor ip,
// a little more for the generic pass).
double CooleyTukeyCost(int64_t n) {
  double per = 0;
  for (int64_t f : Factorize(n)) per += f == 4 ? 2.5 : f <= 5 ? static_cast<double>(f) : 1.1 * static_cast<double>(f);
  return per * static_cast<double>(n);
}

// The smallest 2^a 3^b 5^c >= n.
int64_t SmoothSize(int64_t n) {
  int64_t best = int64_t{1} << 62;
  for (int64_t p5 = 1; p5 < best; p5 *= 5)
    for (int64_t p35 = p5; p35 < best; p35 *= 3) {
      int64_t v = p35;
      while (v < n) v *= 2;
      best = std::min(best, v);
      if (p35 > n) break;
    }
  return best;
}

// Splits one pass's (k, i) blocks over `pool` when the transform is long enough to gain.
constexpr int64_t kParallelPassMin = int64_t{1} << 15;

template <typename F>
void ForBlocks(ThreadPool* pool, int64_t n, int64_t ido, int64_t l1, const F& run) {
  const int threads = pool == nullptr ? 1 : pool->num_threads() + 1;
  if (threads == 1 || n < kParallelPassMin) {
    run(passes::Range{0, l1, 0, ido});
    return;
  }
  if (l1 >= 4 * threads) {
    pool->ParallelFor(l1, ido * 8, [&](int64_t b, int64_t e) { run(passes::Range{b, e, 0, ido}); });
  } else {
    const int64_t chunk = 256, chunks = (ido + chunk - 1) / chunk;
    pool->ParallelFor(l1 * chunks, chunk * 8, [&](int64_t b, int64_t e) {
      for (int64_t it = b; it < e; ++it) {
        const int64_t k = it / chunks, c = it % chunks;
        run(passes::Range{k, k + 1, c * chunk, std::min(ido, (c + 1) * chunk)});
      }
    });
  }
}

}  // namespace

// A Stockham mixed-radix plan: one pass per factor with its twiddles.
template <typename R>
class CooleyTukey {
 public:
  using C = std::complex<R>;

  explicit CooleyTukey(int64_t n) : n_(n) {
    const std::vector<std::complex<double>> roots = UnitRoots(n, n);
    int64_t l1 = 1;
    for (int64_t ip : Factorize(n)) {
      Pass p;
      p.ip = ip;
      p.l1 = l1;
      p.ido = n / (l1 * ip);
      p.tw.resize(static_cast<size_t>((ip - 1) * (p.ido - 1)));
      for (int64_t j = 1; j < ip; ++j)
        for (int64_t i = 1; i < p.ido; ++i) {
          const std::complex<double> w = roots[(j * i * l1) % n];
          p.tw[(j - 1) * (p.ido - 1) + i - 1] = C(static_cast<R>(w.real()), static_cast<R>(w.imag()));
        }
      if (ip > 5) {
        const std::vector<std::complex<double>> pr = UnitRoots(ip, ip);
        for (int64_t m = 0; m < ip; ++m) {
          p.cs.push_back(static_cast<R>(pr[m].real()));
          p.sn.push_back(static_cast<R>(-pr[m].imag()));
        }
        max_generic_ = std::max(max_generic_, ip);
      }
      passes_.push_back(std::move(p));
      l1 *= ip;
    }
  }

  int64_t scratch_size() const { return n_; }

  // T: C (one line) or CVec<R> (kLanes lines).
  template <typename T>
  void Execute(T* data, T* scratch, bool forward, ThreadPool* pool) const {
    if (n_ == 1) return;
    T* in = data;
    T* out = scratch;
    for (const Pass& p : passes_) {
      ForBlocks(pool, n_, p.ido, p.l1, [&](passes::Range r) {
        if (forward)
          Run<true>(p, in, out, r);
        else
          Run<false>(p, in, out, r);
      });
      std::swap(in, out);
    }
    if (in != data) std::memcpy(static_cast<void*>(data), in, sizeof(T) * static_cast<size_t>(n_));
  }

 private:
  struct Pass {
    int64_t ip, l1, ido;
    std::vector<C> tw;
    std::vector<R> cs, sn;  // generic passes: cos and sin of 2 pi m / ip
  };

  template <bool kFwd, typename T>
  void Run(const Pass& p, const T* in, T* out, passes::Range r) const {
    switch (p.ip) {
      case 2: passes::Pass2<kFwd>(p.ido, p.l1, in, out, p.tw.data(), r); return;
      case 3: passes::Pass3<kFwd>(p.ido, p.l1, in, out, p.tw.data(), r); return;
      case 4: passes::Pass4<kFwd>(p.ido, p.l1, in, out, p.tw.data(), r); return;
      case 5: passes::Pass5<kFwd>(p.ido, p.l1, in, out, p.tw.data(), r); return;
      default: {
        std::vector<T> work(static_cast<size_t>(2 * p.ip));
        passes::PassGeneric<kFwd>(p.ip, p.ido, p.l1, in, out, p.tw.data(), p.cs.data(), p.sn.data(), work.data(), r);
      }
    }
  }

  int64_t n_;
  int64_t max_generic_ = 0;
  std::vector<Pass> passes_;
};

// Bluestein's algorithm: X_k = conj(b_k) sum_j (x_j conj(b_j)) b_{k-j} with the chirp
// b_m = exp(i pi m^2 / n), the sum a cyclic convolution of length m >= 2n - 1 done with FFTs.
template <typename R>
class Bluestein {
 public:
  using C = std::complex<R>;

  explicit Bluestein(int64_t n) : n_(n), m_(SmoothSize(2 * n - 1)), inner_(m_) {
    // b_j = exp(i pi j^2 / n) = conj(root_{2n}(j^2 mod 2n)).
    const std::vector<std::complex<double>> roots = UnitRoots(2 * n, 2 * n);
    chirp_.resize(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      using U128 = unsigned __int128;
      const int64_t q = static_cast<int64_t>(static_cast<U128>(j) * static_cast<U128>(j) % static_cast<U128>(2 * n));
      chirp_[j] = C(static_cast<R>(roots[q].real()), static_cast<R>(-roots[q].imag()));
    }
    // The convolution kernel b_{-(n-1)..(n-1)} wrapped to length m, transformed and scaled by 1/m.
    kernel_.assign(static_cast<size_t>(m_), C(0));
    kernel_[0] = chirp_[0];
    for (int64_t j = 1; j < n; ++j) kernel_[j] = kernel_[m_ - j] = chirp_[j];
    std::vector<C> scratch(static_cast<size_t>(inner_.scratch_size()));
    inner_.Execute(kernel_.data(), scratch.data(), true, nullptr);
    const R scale = R(1) / static_cast<R>(m_);
    for (C& v : kernel_) v *= scale;
  }

  int64_t scratch_size() const { return m_ + inner_.scratch_size(); }

  template <typename T>
  void Execute(T* data, T* scratch, bool forward, ThreadPool* pool) const {
    T* a = scratch;
    T* inner_scratch = scratch + m_;
    // Backward = conj(forward(conj(x))).
    for (int64_t j = 0; j < n_; ++j) a[j] = passes::Twiddle<false>(forward ? data[j] : Conj(data[j]), chirp_[j]);
    std::fill(a + n_, a + m_, T{});
    inner_.Execute(a, inner_scratch, true, pool);
    for (int64_t k = 0; k < m_; ++k) a[k] = passes::Twiddle<true>(a[k], kernel_[k]);
    inner_.Execute(a, inner_scratch, false, pool);
    for (int64_t k = 0; k < n_; ++k) {
      const T v = passes::Twiddle<false>(a[k], chirp_[k]);
      data[k] = forward ? v : Conj(v);
    }
  }

 private:
  int64_t n_, m_;
  CooleyTukey<R> inner_;
  std::vector<C> chirp_, kernel_;
};

template <typename R>
ComplexPlan<R>::ComplexPlan(int64_t n) : n_(n) {
  const std::vector<int64_t> f = Factorize(n);
  const int64_t largest = f.empty() ? 1 : f.back();
  if (largest > 5 && 3.0 * CooleyTukeyCost(SmoothSize(2 * n - 1)) < CooleyTukeyCost(n))
    bluestein_ = std::make_unique<Bluestein<R>>(n);
  else
    ct_ = std::make_unique<CooleyTukey<R>>(n);
}

template <typename R>
ComplexPlan<R>::~ComplexPlan() = default;

template <typename R>
int64_t ComplexPlan<R>::scratch_size() const {
  return ct_ ? ct_->scratch_size() : bluestein_->scratch_size();
}

template <typename R>
void ComplexPlan<R>::Execute(C* data, C* scratch, bool forward, ThreadPool* pool) const {
  if (ct_)
    ct_->Execute(data, scratch, forward, pool);
  else
    bluestein_->Execute(data, scratch, forward, pool);
}

template <typename R>
void ComplexPlan<R>::ExecuteLanes(CVec<R>* data, CVec<R>* scratch, bool forward) const {
  if (ct_)
    ct_->Execute(data, scratch, forward, nullptr);
  else
    bluestein_->Execute(data, scratch, forward, nullptr);
}

namespace {

// A small map of shared plans per length; at most kMaxPlans are kept (the oldest goes first).
template <typename Plan>
std::shared_ptr<const Plan> Cached(int64_t n) {
  constexpr size_t kMaxPlans = 64;
  static std::mutex mu;
  static std::map<int64_t, std::pair<uint64_t, std::shared_ptr<const Plan>>> plans;
  static uint64_t clock = 0;
  {
    std::lock_guard<std::mutex> l(mu);
    auto it = plans.find(n);
    if (it != plans.end()) {
      it->second.first = ++clock;
      return it->second.second;
    }
  }
  auto plan = std::make_shared<const Plan>(n);  // built outside the lock
  std::lock_guard<std::mutex> l(mu);
  if (plans.size() >= kMaxPlans) {
    auto oldest = plans.begin();
    for (auto it = plans.begin(); it != plans.end(); ++it)
      if (it->second.first < oldest->second.first) oldest = it;
    plans.erase(oldest);
  }
  plans[n] = {++clock, plan};
  return plan;
}

}  // namespace

template <typename R>
std::shared_ptr<const ComplexPlan<R>> GetComplexPlan(int64_t n) {
  return Cached<ComplexPlan<R>>(n);
}

template <typename R>
std::shared_ptr<const RealPlan<R>> GetRealPlan(int64_t n) {
  return Cached<RealPlan<R>>(n);
}

template class ComplexPlan<float>;
template class ComplexPlan<double>;
template std::shared_ptr<const ComplexPlan<float>> GetComplexPlan<float>(int64_t);
template std::shared_ptr<const ComplexPlan<double>> GetComplexPlan<double>(int64_t);
template std::shared_ptr<const RealPlan<float>> GetRealPlan<float>(int64_t);
template std::shared_ptr<const RealPlan<double>> GetRealPlan<double>(int64_t);

}  // namespace fft
}  // namespace tx

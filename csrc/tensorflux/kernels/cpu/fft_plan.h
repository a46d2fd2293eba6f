// FFT plans: complex transforms of any length (mixed radix 2/3/4/5 with a generic pass for other
// factors, Bluestein's algorithm when a length has a large prime factor) and real transforms, each
// planned once per length and cached (Note [FFT plans]).
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "tensorflux/kernels/cpu/fft_vec.h"

namespace tx {

class ThreadPool;

namespace fft {

template <typename R>
class CooleyTukey;
template <typename R>
class Bluestein;

// A complex DFT of one length n >= 1; immutable after construction, so one plan serves many
// threads at once (each with its own scratch).
template <typename R>
class ComplexPlan {
 public:
  using C = std::complex<R>;
  explicit ComplexPlan(int64_t n);
  ~ComplexPlan();
  ComplexPlan(const ComplexPlan&) = delete;
  ComplexPlan& operator=(const ComplexPlan&) = delete;

  int64_t size() const { return n_; }
  // Complex values of scratch one Execute call needs.
  int64_t scratch_size() const;
  // data[k] <- sum_j data[j] exp(-/+ 2 pi i j k / n) (forward: -, backward: +), unscaled, in place.
  // `scratch` holds scratch_size() values; `pool` (nullable) may split one long transform.
  void Execute(C* data, C* scratch, bool forward, ThreadPool* pool = nullptr) const;
  // Execute on kLanes<R> lines at once (lane v of data[k] is line v's element k); scratch holds
  // scratch_size() values.
  void ExecuteLanes(CVec<R>* data, CVec<R>* scratch, bool forward) const;

 private:
  int64_t n_;
  std::unique_ptr<CooleyTukey<R>> ct_;  // one of ct_ and bluestein_ is set
  std::unique_ptr<Bluestein<R>> bluestein_;
};

// A real DFT of one length n >= 1: forward maps n reals to the n/2 + 1 non-negative frequencies;
// backward maps them back to n reals (unscaled, the imaginary parts of frequency 0 and, for even
// n, n/2 ignored: NumPy's and TensorFlow's Hermitian convention).
template <typename R>
class RealPlan {
 public:
  using C = std::complex<R>;
  explicit RealPlan(int64_t n);
  ~RealPlan();

  int64_t size() const { return n_; }
  int64_t scratch_size() const;
  // out[k] = sum_j in[j] exp(-2 pi i j k / n), k <= n/2. `in` may be `out` viewed as reals.
  void Forward(const R* in, C* out, C* scratch, ThreadPool* pool = nullptr) const;
  // out[j] = sum_k X[k] exp(2 pi i j k / n) over the Hermitian extension of in[0..n/2].
  void Backward(const C* in, R* out, C* scratch, ThreadPool* pool = nullptr) const;

  // The lane versions transform kLanes<R> lines in z, which has lane_slots() values. Forward: z
  // holds the reals packed as the complex plan reads them (LoadReal), and gets the n/2 + 1
  // frequencies in z[0..n/2]. Backward: z[0..n/2] holds the frequencies, and gets the reals as
  // packed (StoreReal). scratch holds scratch_size() values.
  int64_t lane_slots() const { return half_ ? n_ / 2 + 1 : n_; }
  void ForwardLanes(CVec<R>* z, CVec<R>* scratch) const;
  void BackwardLanes(CVec<R>* z, CVec<R>* scratch) const;
  // Where real sample j of lane v lives in z: even n packs pairs (x_2t + i x_2t+1), odd n puts
  // x_t in the real part of z[t].
  R& RealAt(CVec<R>* z, int64_t j, int v) const {
    R* base = reinterpret_cast<R*>(z);  // each CVec: kLanes real parts, then kLanes imaginary parts
    return half_ ? base[(j / 2) * 2 * kLanes<R> + (j % 2) * kLanes<R> + v] : base[j * 2 * kLanes<R> + v];
  }

 private:
  int64_t n_;
  std::shared_ptr<const ComplexPlan<R>> half_;  // even n: a complex plan of n/2
  std::shared_ptr<const ComplexPlan<R>> full_;  // odd n: a complex plan of n
  std::vector<C> twiddle_;  // even n: exp(-2 pi i k / n), k <= n/4
};

// The cached plan for length n (built on first use; thread-safe).
template <typename R>
std::shared_ptr<const ComplexPlan<R>> GetComplexPlan(int64_t n);
template <typename R>
std::shared_ptr<const RealPlan<R>> GetRealPlan(int64_t n);

// exp(-2 pi i m / n) for m in [0, count), each accurate to about one ulp of double (products of
// two small tables computed in long double, not a recurrence).
std::vector<std::complex<double>> UnitRoots(int64_t n, int64_t count);

}  // namespace fft
}  // namespace tx

// Note [FFT plans]
// A complex plan of length n factors n into 4s, a 2, 3s, 5s and other primes and runs one Stockham
// autosort pass per factor (fft_passes.h): pass s reads l1 sub-transforms of length ip * ido and
// writes ip * l1 of length ido, multiplying by the twiddles exp(-2 pi i j i' l1 / n), ping-ponging
// between the data and a scratch buffer, so no bit-reversal permutation is needed. A prime factor
// p > 5 uses a generic pass of O(p) work per element; when that would cost more than three FFTs of
// a 2-3-5-smooth length m >= 2n - 1, the plan uses Bluestein's algorithm instead (the DFT as a
// chirp convolution, done with those FFTs), so prime lengths cost O(n log n). Twiddles are computed
// in long double from two small tables of roots of unity, so float plans are exact to rounding
// and double plans to about one ulp. Real transforms of even length run a complex FFT of half the
// length on the even/odd samples and separate the halves with one twiddle pass; odd lengths run
// the complex plan of n. Plans are cached per length (and type) in a small map shared by every
// kernel, and a plan is immutable, so threads share it.

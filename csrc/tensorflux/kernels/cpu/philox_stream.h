// A Philox stream read block by block, and the double-precision draws TensorFlow's samplers of
// parameterized distributions make from it (Note [Per-element sampler streams]).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/philox.h"

namespace tx {
namespace cpu {

// Note [Per-element sampler streams]
// Rejection samplers use a variable number of draws per output, so output element i (numbered
// parameter-major: i = param * samples_per_param + sample) gets a private copy of the stream
// advanced by a fixed budget of blocks (kSamplerBlocksPerOutput; 42 for binomial inversion), as
// TensorFlow's gamma, Poisson and binomial kernels do. Each block yields two doubles: uniforms
// from words (0, 1) and (2, 3) through Uint64ToDouble, or two Box-Muller normals from all four;
// a sampler takes them last first (TensorFlow's SampleBuffer). With TensorFlow's (key, counter)
// for a seed (StreamFromSeed) the stateless samplers give TensorFlow's values bit for bit, on
// any number of threads.

// Blocks reserved per output element by the gamma, Poisson and binomial (BTRS) samplers.
inline constexpr uint64_t kSamplerBlocksPerOutput = 256;

// A stream: (key, counter), the counter advanced by one per block read.
class PhiloxStream {
 public:
  PhiloxStream(PhiloxKey key, PhiloxCounter counter) : key_(key), counter_(counter) {}
  PhiloxBlock Next() {
    const PhiloxBlock b = Philox4x32(counter_, key_);
    counter_ = PhiloxAdd(counter_, 1);
    return b;
  }
  // Advances the counter by `blocks`.
  void Skip(uint64_t blocks) { counter_ = PhiloxAdd(counter_, blocks); }

 private:
  PhiloxKey key_;
  PhiloxCounter counter_;
};

// Doubles from a stream, two per block, handed out last first; kNormal selects Box-Muller normals
// instead of uniforms in [0, 1).
template <bool kNormal>
class DoubleDraws {
 public:
  explicit DoubleDraws(PhiloxStream* stream) : stream_(stream) {}
  double operator()() {
    if (left_ == 0) {
      const PhiloxBlock w = stream_->Next();
      if (kNormal) {
        BoxMullerDouble(w[0], w[1], w[2], w[3], &v_[0], &v_[1]);
      } else {
        v_[0] = Uint64ToDouble(w[0], w[1]);
        v_[1] = Uint64ToDouble(w[2], w[3]);
      }
      left_ = 2;
    }
    return v_[--left_];
  }

 private:
  PhiloxStream* stream_;
  std::array<double, 2> v_{};
  int left_ = 0;
};
using UniformDraws = DoubleDraws<false>;
using NormalDraws = DoubleDraws<true>;

// A sample as the output type: integer outputs take NaN (an undefined parameter) as 0.
template <typename Out>
Out SampleAs(double v) {
  if constexpr (std::is_integral_v<Out>) {
    if (std::isnan(v)) return Out(0);
  }
  return static_cast<Out>(v);
}

// Fills out[num_params * per_param] for a sampler: output element i (Note [Per-element sampler
// streams]) is sample(param, i) with param = i / per_param, stored at (i % per_param) *
// num_params + param (the parameters vary fastest in memory); split over `pool`.
template <typename Out, typename F>
void FillSamples(int64_t num_params, int64_t per_param, int64_t cost, ThreadPool* pool, Out* out, const F& sample) {
  ParallelItems(pool, num_params * per_param, cost, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t param = i / per_param;
      out[(i % per_param) * num_params + param] = sample(param, i);
    }
  });
}

// The stream of a shape-[2] int32/int64 seed (TensorFlow's derivation: the seed words form the
// counter of one Philox block under a fixed key; its output becomes key and counter high words).
Status StreamFromSeed(const Tensor& seed, PhiloxKey* key, PhiloxCounter* counter);

// The stream named by key ([1] uint64), counter ([>= 2] uint64) and alg (scalar int32: 1
// Philox, 3 auto-select) inputs at positions k, k + 1 and k + 2.
Status StreamFromKeyCounterAlg(const OpKernelContext* ctx, int k, PhiloxKey* key, PhiloxCounter* counter);

// The output shape of a stateless sampler: the `shape` input, which must end with `params`.
Status StatelessSamplerShape(const Tensor& shape_t, const TensorShape& params, TensorShape* out);

}  // namespace cpu
}  // namespace tx

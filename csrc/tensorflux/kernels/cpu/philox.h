// Philox4x32-10, the counter-based generator of Salmon et al. ("Parallel random numbers: as easy
// as 1, 2, 3", SC'11), and the conversions from its 32-bit words to the distributions the random
// kernels sample. Every value depends only on (key, counter), so a kernel that gives element i its
// own counter is independent of thread count and work split (Note [Random streams]).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "tensorflux/core/shape.h"
#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/core/thread_pool.h"

namespace tx {
namespace cpu {

// Note [Random streams]
// A stream is a 64-bit key plus a 128-bit counter; one Philox block turns (key, counter) into four
// 32-bit words. A kernel maps output element i to block base + f(i) (f fixed per op and dtype:
// i/4 for float uniforms and normals, i/2 for doubles and integers, (i/4)*256.. for float and
// (i/2)*128.. for double truncated normals, as TensorFlow's),
// so shards compute their blocks from their own element range. Stateful kernels key the stream
// with (seed, seed2): key = seed, counter high 64 bits = seed2, low 64 bits = a per-kernel offset
// reserved atomically per run. Stateless kernels take key and counter from their inputs.

using PhiloxKey = std::array<uint32_t, 2>;
using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxBlock = std::array<uint32_t, 4>;

// The 10-round Philox4x32 bijection of `counter` under `key`.
PhiloxBlock Philox4x32(PhiloxCounter counter, PhiloxKey key);

// counter + n as a 128-bit little-endian integer (word 0 least significant), wrapping.
PhiloxCounter PhiloxAdd(PhiloxCounter counter, uint64_t n);

// The key and counter of a stream from 64-bit parts: key = k, counter = hi:lo (128 bits).
inline PhiloxKey MakeKey(uint64_t k) { return {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)}; }
inline PhiloxCounter MakeCounter(uint64_t lo, uint64_t hi) {
  return {static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32), static_cast<uint32_t>(hi),
          static_cast<uint32_t>(hi >> 32)};
}

// A float in [0, 1) from the 23 low bits of x placed in the mantissa of 1.0f (then minus 1).
float Uint32ToFloat(uint32_t x);
// A double in [0, 1) from 52 bits: the low 20 bits of hi and all of lo, in the mantissa of 1.0.
double Uint64ToDouble(uint32_t hi, uint32_t lo);

// Two independent standard normals from two words (Box-Muller, float precision).
void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1);
// Two independent standard normals from four words (Box-Muller, double precision).
void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0, double* d1);

// A 64-bit seed from the operating system's entropy source (for seed == seed2 == 0).
uint64_t NondeterministicSeed();

// Reads a 1-D int32/int64 shape tensor into *out; InvalidArgument for another rank or type or a
// negative entry, and when the element count overflows int64 or exceeds kMaxRandomElements.
Status RandomShapeFromTensor(const Tensor& t, TensorShape* out);

// The most elements a random kernel will produce in one output (a guard against absurd sizes).
inline constexpr int64_t kMaxRandomElements = int64_t{1} << 38;

// The distributions the float kernels sample; each fixes its element -> block map.
enum class RandomDist { kUniform, kNormal, kTruncatedNormal };

// Blocks reserved for each group of truncated normals (4 floats or 2 doubles): TensorFlow's 256
// words per element; a group reads on into the next group's blocks in the (never seen) case that
// it needs more.
template <typename T>
inline constexpr uint64_t kTruncatedSkip = sizeof(T) == 4 ? 256 : 128;

// Philox blocks `n` elements of T (float or double) drawn from `dist` consume.
template <typename T>
uint64_t BlocksFor(RandomDist dist, int64_t n);

// Fills out[0, n) from `dist` with the stream (key, base), element i using the blocks
// Note [Random streams] assigns it, split over `pool` (null: one thread).
template <typename T>
void FillRandom(RandomDist dist, PhiloxKey key, PhiloxCounter base, T* out, int64_t n, ThreadPool* pool);

// The per-kernel stream of a stateful op: key and counter high word from (seed, seed2), or
// from the OS when both are 0; Reserve hands out disjoint counter ranges, safe across threads.
class PhiloxState {
 public:
  PhiloxState(int64_t seed, int64_t seed2);
  const PhiloxKey& key() const { return key_; }
  // The base counter of `blocks` consecutive blocks no other Reserve call gets.
  PhiloxCounter Reserve(uint64_t blocks) { return MakeCounter(offset_.fetch_add(blocks), hi_); }

 private:
  PhiloxKey key_;
  uint64_t hi_;
  std::atomic<uint64_t> offset_{0};
};

}  // namespace cpu
}  // namespace tx

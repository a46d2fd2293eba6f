// Philox4x32-10 and the word-to-distribution conversions (Note [Random streams] in philox.h).
#include "tensorflux/kernels/cpu/philox.h"

#include "tensorflux/kernels/cpu/kernel_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace tx {
namespace cpu {
namespace {

// Round multipliers and key increments (the Weyl sequence) from the Philox paper.
constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

inline void MulHiLo(uint32_t a, uint32_t b, uint32_t* hi, uint32_t* lo) {
  const uint64_t p = static_cast<uint64_t>(a) * b;
  *hi = static_cast<uint32_t>(p >> 32);
  *lo = static_cast<uint32_t>(p);
}

}  // namespace

PhiloxBlock Philox4x32(PhiloxCounter c, PhiloxKey k) {
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0, lo0, hi1, lo1;
    MulHiLo(kMul0, c[0], &hi0, &lo0);
    MulHiLo(kMul1, c[2], &hi1, &lo1);
    c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
    k[0] += kWeyl0;
    k[1] += kWeyl1;
  }
  return c;
}

PhiloxCounter PhiloxAdd(PhiloxCounter c, uint64_t n) {
  uint64_t lo = (static_cast<uint64_t>(c[1]) << 32) | c[0];
  uint64_t hi = (static_cast<uint64_t>(c[3]) << 32) | c[2];
  const uint64_t sum = lo + n;
  if (sum < lo) ++hi;
  return MakeCounter(sum, hi);
}

float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f - 1.0f;
}

double Uint64ToDouble(uint32_t hi, uint32_t lo) {
  const uint64_t bits = (uint64_t{1023} << 52) | (static_cast<uint64_t>(hi & 0xfffffu) << 32) | lo;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d - 1.0;
}

void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  constexpr float kEps = 1.0e-7f;  // keeps log() finite
  float u1 = Uint32ToFloat(x0);
  if (u1 < kEps) u1 = kEps;
  // 2 pi in double, the product rounded to float once: TensorFlow's `2.0f * M_PI * u` (M_PI is a
  // double), which its stateless normals are bit for bit only with.
  const float v1 = static_cast<float>(2.0 * M_PI * static_cast<double>(Uint32ToFloat(x1)));
  const float r = std::sqrt(-2.0f * std::log(u1));
  *f0 = std::sin(v1) * r;
  *f1 = std::cos(v1) * r;
}

void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0, double* d1) {
  constexpr double kEps = 1.0e-7;
  double u1 = Uint64ToDouble(x0, x1);
  if (u1 < kEps) u1 = kEps;
  const double v1 = 2.0 * M_PI * Uint64ToDouble(x2, x3);
  const double r = std::sqrt(-2.0 * std::log(u1));
  *d0 = std::sin(v1) * r;
  *d1 = std::cos(v1) * r;
}

uint64_t NondeterministicSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

Status RandomShapeFromTensor(const Tensor& t, TensorShape* out) {
  if (t.rank() != 1) return InvalidArgument("shape must be a vector, got a tensor of shape ", t.shape().ToString());
  if (t.dtype() != DT_INT32 && t.dtype() != DT_INT64)
    return InvalidArgument("shape must be int32 or int64, got ", DataTypeString(t.dtype()));
  if (t.num_elements() > 0 && (!t.initialized() || t.buffer()->size() < t.byte_size()))
    return InvalidArgument("shape tensor holds too little data");
  std::vector<int64_t> dims(t.num_elements());
  int64_t count = 1;
  for (size_t k = 0; k < dims.size(); ++k) {
    dims[k] = t.dtype() == DT_INT32 ? t.data<int32_t>()[k] : t.data<int64_t>()[k];
    if (dims[k] < 0) return InvalidArgument("shape must be non-negative, got dimension ", k, " = ", dims[k]);
    if (__builtin_mul_overflow(count, dims[k], &count))
      return InvalidArgument("shape has too many elements (overflows int64)");
  }
  if (count > kMaxRandomElements)
    return ResourceExhausted("requested ", count, " random values, more than the limit of ", kMaxRandomElements);
  *out = TensorShape(std::move(dims));
  return Status::OK();
}

namespace {

// Elements one block yields for the uniform and normal maps: 4 floats or 2 doubles.
template <typename T>
constexpr int64_t kPerBlock = sizeof(T) == 4 ? 4 : 2;

// Writes the (up to kPerBlock) elements of one block, starting at out[0], `count` of them.
template <typename T>
void BlockValues(RandomDist dist, const PhiloxBlock& w, T* out, int64_t count) {
  T v[4];
  if constexpr (sizeof(T) == 4) {
    if (dist == RandomDist::kUniform) {
      for (int j = 0; j < 4; ++j) v[j] = Uint32ToFloat(w[j]);
    } else {
      BoxMullerFloat(w[0], w[1], &v[0], &v[1]);
      BoxMullerFloat(w[2], w[3], &v[2], &v[3]);
    }
  } else {
    if (dist == RandomDist::kUniform) {
      v[0] = Uint64ToDouble(w[0], w[1]);
      v[1] = Uint64ToDouble(w[2], w[3]);
    } else {
      BoxMullerDouble(w[0], w[1], w[2], w[3], &v[0], &v[1]);
    }
  }
  for (int64_t j = 0; j < count; ++j) out[j] = v[j];
}

// Truncated normals are made in groups of kTruncatedGroup (TensorFlow's TruncatedNormalDistribution
// over a SingleSampleAdapter): group g reads the words of blocks base + g * kTruncatedSkip<T>, then
// the next, ... in order, turns each pair (float) or quadruple (double) into two Box-Muller
// candidates, and keeps those with |z| < 2, in order, until the group is full; a last, short group
// keeps its first `count`. So TensorFlow's stateless values come out bit for bit.
template <typename T>
constexpr int64_t kTruncatedGroup = sizeof(T) == 4 ? 4 : 2;

// Writes the first `count` (<= kTruncatedGroup) values of the group whose blocks start at `first`.
template <typename T>
void TruncatedGroup(PhiloxKey key, PhiloxCounter first, T* out, int64_t count) {
  int64_t have = 0;
  for (uint64_t b = 0;; ++b) {  // each candidate is kept with probability 0.95: this ends
    const PhiloxBlock w = Philox4x32(PhiloxAdd(first, b), key);
    for (int pair = 0; pair < (sizeof(T) == 4 ? 2 : 1); ++pair) {
      T v[2];
      if constexpr (sizeof(T) == 4) {
        BoxMullerFloat(w[2 * pair], w[2 * pair + 1], &v[0], &v[1]);
      } else {
        BoxMullerDouble(w[0], w[1], w[2], w[3], &v[0], &v[1]);
      }
      for (T z : v) {
        if (!(std::fabs(z) < T(2))) continue;
        out[have++] = z;
        if (have == count) return;
      }
    }
  }
}

}  // namespace

template <typename T>
uint64_t BlocksFor(RandomDist dist, int64_t n) {
  if (dist == RandomDist::kTruncatedNormal)
    return static_cast<uint64_t>((n + kTruncatedGroup<T> - 1) / kTruncatedGroup<T>) * kTruncatedSkip<T>;
  return static_cast<uint64_t>((n + kPerBlock<T> - 1) / kPerBlock<T>);
}

template <typename T>
void FillRandom(RandomDist dist, PhiloxKey key, PhiloxCounter base, T* out, int64_t n, ThreadPool* pool) {
  if (n <= 0) return;
  if (dist == RandomDist::kTruncatedNormal) {
    constexpr int64_t group = kTruncatedGroup<T>;
    ParallelItems(pool, (n + group - 1) / group, 120 * group, [&](int64_t b, int64_t e) {
      for (int64_t g = b; g < e; ++g)
        TruncatedGroup<T>(key, PhiloxAdd(base, static_cast<uint64_t>(g) * kTruncatedSkip<T>), out + g * group,
                          std::min(group, n - g * group));
    });
    return;
  }
  constexpr int64_t per = kPerBlock<T>;
  const int64_t blocks = (n + per - 1) / per;
  ParallelItems(pool, blocks, dist == RandomDist::kUniform ? 40 : 120, [&](int64_t b, int64_t e) {
    for (int64_t g = b; g < e; ++g)
      BlockValues<T>(dist, Philox4x32(PhiloxAdd(base, static_cast<uint64_t>(g)), key), out + g * per,
                     std::min(per, n - g * per));
  });
}

template uint64_t BlocksFor<float>(RandomDist, int64_t);
template uint64_t BlocksFor<double>(RandomDist, int64_t);
template void FillRandom<float>(RandomDist, PhiloxKey, PhiloxCounter, float*, int64_t, ThreadPool*);
template void FillRandom<double>(RandomDist, PhiloxKey, PhiloxCounter, double*, int64_t, ThreadPool*);

PhiloxState::PhiloxState(int64_t seed, int64_t seed2) {
  uint64_t s = static_cast<uint64_t>(seed), s2 = static_cast<uint64_t>(seed2);
  if (s == 0 && s2 == 0) {
    s = NondeterministicSeed();
    s2 = NondeterministicSeed();
  }
  key_ = MakeKey(s);
  hi_ = s2;
}

}  // namespace cpu
}  // namespace tx

// The string hashes behind TensorFlow's hash-bucket ops, reimplemented so buckets computed here
// equal TensorFlow's for the same input (Note [String hash buckets]).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tx {
namespace strhash {

// Note [String hash buckets]
// TensorFlow maps a string to a bucket as hash(s) % num_buckets with three different hashes, one
// per op, and models trained with one must keep it:
//  - StringToHashBucketFast: FarmHash's Fingerprint64 (farmhashna::Hash64), stable across
//    platforms and releases by FarmHash's promise.
//  - StringToHashBucket (deprecated): TensorFlow's own Hash64, a MurmurHash2-64 variant with
//    seed 0xDECAFCAFFE (tensorflow/core/lib/hash/hash.cc).
//  - StringToHashBucketStrong: SipHash-2-4 keyed by the op's two-integer `key`.
// All three read the bytes little-endian, as the reference implementations do on the x86-64 and
// arm64 targets TensorFlow ships for; tests compare against TensorFlow on many strings.

// FarmHash Fingerprint64 of `n` bytes at `s`.
uint64_t Fingerprint64(const char* s, size_t n);

// TensorFlow's Hash64(s, n, seed); TensorFlow's default seed is kHash64Seed.
constexpr uint64_t kHash64Seed = 0xDECAFCAFFE;
uint64_t Hash64(const char* s, size_t n, uint64_t seed = kHash64Seed);

// SipHash-2-4 of `n` bytes at `s` under the 128-bit key {k0, k1}.
uint64_t SipHash24(uint64_t k0, uint64_t k1, const char* s, size_t n);

}  // namespace strhash
}  // namespace tx

#include "tensorflux/lib/string_hash.h"

#include <cstring>
#include <utility>

namespace tx {
namespace strhash {
namespace {

uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;  // little-endian targets only (Note [String hash buckets])
}

uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

uint64_t Rotr(uint64_t v, int shift) { return shift == 0 ? v : (v >> shift) | (v << (64 - shift)); }
uint64_t Rotl(uint64_t v, int shift) { return (v << shift) | (v >> (64 - shift)); }

// ----------------------------------------------------------------------------
// FarmHash (farmhashna) Fingerprint64.

constexpr uint64_t kK0 = 0xc3a5c85c97cb3127ULL;
constexpr uint64_t kK1 = 0xb492b66fbe98f273ULL;
constexpr uint64_t kK2 = 0x9ae16a3b2f90404fULL;

uint64_t ShiftMix(uint64_t v) { return v ^ (v >> 47); }

uint64_t HashLen16(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = (u ^ v) * mul;
  a ^= a >> 47;
  uint64_t b = (v ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}

uint64_t HashLen0to16(const char* s, size_t len) {
  if (len >= 8) {
    const uint64_t mul = kK2 + len * 2;
    const uint64_t a = Load64(s) + kK2;
    const uint64_t b = Load64(s + len - 8);
    const uint64_t c = Rotr(b, 37) * mul + a;
    const uint64_t d = (Rotr(a, 25) + b) * mul;
    return HashLen16(c, d, mul);
  }
  if (len >= 4) {
    const uint64_t mul = kK2 + len * 2;
    const uint64_t a = Load32(s);
    return HashLen16(len + (a << 3), Load32(s + len - 4), mul);
  }
  if (len > 0) {
    const uint8_t a = static_cast<uint8_t>(s[0]), b = static_cast<uint8_t>(s[len >> 1]),
                  c = static_cast<uint8_t>(s[len - 1]);
    const uint32_t y = static_cast<uint32_t>(a) + (static_cast<uint32_t>(b) << 8);
    const uint32_t z = static_cast<uint32_t>(len) + (static_cast<uint32_t>(c) << 2);
    return ShiftMix(y * kK2 ^ z * kK0) * kK2;
  }
  return kK2;
}

uint64_t HashLen17to32(const char* s, size_t len) {
  const uint64_t mul = kK2 + len * 2;
  const uint64_t a = Load64(s) * kK1;
  const uint64_t b = Load64(s + 8);
  const uint64_t c = Load64(s + len - 8) * mul;
  const uint64_t d = Load64(s + len - 16) * kK2;
  return HashLen16(Rotr(a + b, 43) + Rotr(c, 30) + d, a + Rotr(b + kK2, 18) + c, mul);
}

uint64_t HashLen33to64(const char* s, size_t len) {
  const uint64_t mul = kK2 + len * 2;
  const uint64_t a = Load64(s) * kK2;
  const uint64_t b = Load64(s + 8);
  const uint64_t c = Load64(s + len - 8) * mul;
  const uint64_t d = Load64(s + len - 16) * kK2;
  const uint64_t y = Rotr(a + b, 43) + Rotr(c, 30) + d;
  const uint64_t z = HashLen16(y, a + Rotr(b + kK2, 18) + c, mul);
  const uint64_t e = Load64(s + 16) * mul;
  const uint64_t f = Load64(s + 24);
  const uint64_t g = (y + Load64(s + len - 32)) * mul;
  const uint64_t h = (z + Load64(s + len - 24)) * mul;
  return HashLen16(Rotr(e + f, 43) + Rotr(g, 30) + h, e + Rotr(f + a, 18) + g, mul);
}

// A 16-byte hash of 32 bytes (w, x, y, z) with two seeds.
std::pair<uint64_t, uint64_t> WeakHashLen32WithSeeds(const char* s, uint64_t a, uint64_t b) {
  const uint64_t w = Load64(s), x = Load64(s + 8), y = Load64(s + 16), z = Load64(s + 24);
  a += w;
  b = Rotr(b + a + z, 21);
  const uint64_t c = a;
  a += x;
  a += y;
  b += Rotr(a, 44);
  return {a + z, b + c};
}

}  // namespace

uint64_t Fingerprint64(const char* s, size_t len) {
  if (len <= 16) return HashLen0to16(s, len);
  if (len <= 32) return HashLen17to32(s, len);
  if (len <= 64) return HashLen33to64(s, len);
  // Longer strings: 64 bytes per round, then the last 64 bytes again.
  constexpr uint64_t kSeed = 81;
  uint64_t x = kSeed;
  uint64_t y = kSeed * kK1 + 113;
  uint64_t z = ShiftMix(y * kK2 + 113) * kK2;
  std::pair<uint64_t, uint64_t> v{0, 0}, w{0, 0};
  x = x * kK2 + Load64(s);
  const char* end = s + ((len - 1) / 64) * 64;
  const char* last64 = end + ((len - 1) & 63) - 63;
  do {
    x = Rotr(x + y + v.first + Load64(s + 8), 37) * kK1;
    y = Rotr(y + v.second + Load64(s + 48), 42) * kK1;
    x ^= w.second;
    y += v.first + Load64(s + 40);
    z = Rotr(z + w.first, 33) * kK1;
    v = WeakHashLen32WithSeeds(s, v.second * kK1, x + w.first);
    w = WeakHashLen32WithSeeds(s + 32, z + w.second, y + Load64(s + 16));
    std::swap(z, x);
    s += 64;
  } while (s != end);
  const uint64_t mul = kK1 + ((z & 0xff) << 1);
  s = last64;
  w.first += ((len - 1) & 63);
  v.first += w.first;
  w.first += v.first;
  x = Rotr(x + y + v.first + Load64(s + 8), 37) * mul;
  y = Rotr(y + v.second + Load64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + Load64(s + 40);
  z = Rotr(z + w.first, 33) * mul;
  v = WeakHashLen32WithSeeds(s, v.second * mul, x + w.first);
  w = WeakHashLen32WithSeeds(s + 32, z + w.second, y + Load64(s + 16));
  std::swap(z, x);
  return HashLen16(HashLen16(v.first, w.first, mul) + ShiftMix(y) * kK0 + z, HashLen16(v.second, w.second, mul) + x,
                   mul);
}

// ----------------------------------------------------------------------------
// TensorFlow's Hash64 (MurmurHash2-64 shape).

uint64_t Hash64(const char* s, size_t n, uint64_t seed) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  uint64_t h = seed ^ (n * m);
  while (n >= 8) {
    uint64_t k = Load64(s);
    s += 8;
    n -= 8;
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  auto byte = [&](size_t i) { return static_cast<uint64_t>(static_cast<uint8_t>(s[i])); };
  switch (n) {
    case 7: h ^= byte(6) << 48; [[fallthrough]];
    case 6: h ^= byte(5) << 40; [[fallthrough]];
    case 5: h ^= byte(4) << 32; [[fallthrough]];
    case 4: h ^= byte(3) << 24; [[fallthrough]];
    case 3: h ^= byte(2) << 16; [[fallthrough]];
    case 2: h ^= byte(1) << 8; [[fallthrough]];
    case 1:
      h ^= byte(0);
      h *= m;
      break;
    default: break;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

// ----------------------------------------------------------------------------
// SipHash-2-4.

uint64_t SipHash24(uint64_t k0, uint64_t k1, const char* s, size_t n) {
  uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
  uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
  auto round = [&] {
    v0 += v1;
    v1 = Rotl(v1, 13);
    v1 ^= v0;
    v0 = Rotl(v0, 32);
    v2 += v3;
    v3 = Rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = Rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = Rotl(v1, 17);
    v1 ^= v2;
    v2 = Rotl(v2, 32);
  };
  const size_t full = n & ~size_t{7};
  for (size_t i = 0; i < full; i += 8) {
    const uint64_t m = Load64(s + i);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  uint64_t last = static_cast<uint64_t>(n & 0xff) << 56;
  for (size_t i = 0; i < (n & 7); ++i) last |= static_cast<uint64_t>(static_cast<uint8_t>(s[full + i])) << (8 * i);
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

}  // namespace strhash
}  // namespace tx

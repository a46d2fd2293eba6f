// Tests of the bfloat16 <-> float32 array conversions (Note [bfloat16 conversion] in
// kernels/cpu/convert_bf16.h): every level this CPU runs, forced one at a time, against a reference
// that rounds by comparing distances in double (not the bit trick under test): every bfloat16
// value with low halves at, around and away from the ties (denormals, the largest finite values,
// infinities and NaN payloads included), both roundings, and odd lengths at unaligned offsets so
// each vector body and tail runs.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "test_util.h"
#include "tensorflux/core/float16.h"
#include "tensorflux/kernels/cpu/convert_bf16.h"

using tx::BFloat16;
using tx::cpu::ConvertIsa;

namespace {

float FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof(f));
  return f;
}

// The magnitude of bfloat16 bits `h` (sign cleared) in double; 0x7f80 (infinity) counts as 2^128,
// the value rounding to nearest treats as the next step past the largest finite bfloat16.
double Magnitude(uint32_t h) { return h >= 0x7f80u ? std::ldexp(1.0, 128) : FromBits(h << 16); }

// The bfloat16 bits of `v`, by distance to the two neighbours (ties to the even one), or toward zero.
uint16_t Reference(uint32_t v, bool truncate) {
  const uint32_t sign = (v >> 16) & 0x8000u, mag = v & 0x7fffffffu;
  if (mag > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7fc0u);
  const uint32_t lo = mag >> 16;
  if (truncate || mag == 0x7f800000u) return static_cast<uint16_t>(sign | lo);
  const double x = FromBits(mag), below = Magnitude(lo), above = Magnitude(lo + 1);
  const double dl = x - below, da = above - x;
  const uint32_t pick = dl < da ? lo : da < dl ? lo + 1 : ((lo & 1u) ? lo + 1 : lo);
  return static_cast<uint16_t>(sign | pick);
}

// Float bits covering every bfloat16 high half with low halves at and around the ties, plus random ones.
std::vector<uint32_t> NarrowInputs() {
  const uint32_t lows[] = {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu};
  std::mt19937 rng(7);
  std::vector<uint32_t> out;
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    for (uint32_t low : lows) out.push_back(h << 16 | low);
    out.push_back(h << 16 | (rng() & 0xffffu));
  }
  return out;
}

std::vector<ConvertIsa> Levels() {
  std::vector<ConvertIsa> out = {ConvertIsa::kPortable};
  if (tx::cpu::ConvertIsaSupported(ConvertIsa::kAvx512))
    out.push_back(ConvertIsa::kAvx512);
  else
    std::printf("  SKIPPED: the avx512 level (this CPU lacks AVX512F/BW/VL)\n");
  return out;
}

}  // namespace

TEST(NarrowMatchesReferenceOnEveryLevel) {
  const std::vector<uint32_t> bits = NarrowInputs();
  std::vector<float> x(bits.size());
  std::memcpy(x.data(), bits.data(), bits.size() * sizeof(float));
  for (ConvertIsa isa : Levels())
    for (bool truncate : {false, true}) {
      std::vector<BFloat16> y(x.size());
      tx::cpu::FloatToBFloat16WithIsa(isa, x.data(), y.data(), static_cast<int64_t>(x.size()), truncate);
      int bad = 0;
      for (size_t i = 0; i < x.size(); ++i)
        if (y[i].bits != Reference(bits[i], truncate) && bad++ < 5)
          std::printf("  %s truncate=%d: 0x%08x -> 0x%04x, expected 0x%04x\n", tx::cpu::ConvertIsaName(isa), truncate,
                      bits[i], y[i].bits, Reference(bits[i], truncate));
      EXPECT_EQ(bad, 0);
    }
}

TEST(WidenIsExactOnEveryLevel) {
  std::vector<BFloat16> x(0x10000);
  for (uint32_t h = 0; h < 0x10000u; ++h) x[h].bits = static_cast<uint16_t>(h);
  for (ConvertIsa isa : Levels()) {
    std::vector<float> y(x.size());
    tx::cpu::BFloat16ToFloatWithIsa(isa, x.data(), y.data(), static_cast<int64_t>(x.size()));
    int bad = 0;
    for (uint32_t h = 0; h < 0x10000u; ++h) {
      uint32_t got;
      std::memcpy(&got, &y[h], sizeof(got));
      bad += got != h << 16;
    }
    EXPECT_EQ(bad, 0);
  }
}

TEST(OddLengthsAtUnalignedOffsetsTouchOnlyTheirRange) {
  std::mt19937 rng(3);
  std::vector<float> x(80);
  for (float& v : x) v = std::uniform_real_distribution<float>(-3.0f, 3.0f)(rng);
  for (ConvertIsa isa : Levels())
    for (int64_t off = 0; off < 4; ++off)
      for (int64_t n = 0; n <= 40; ++n) {
        std::vector<BFloat16> y(x.size());
        std::vector<float> back(x.size(), -7.0f);
        for (BFloat16& b : y) b.bits = 0xdeadu;
        tx::cpu::FloatToBFloat16WithIsa(isa, x.data() + off, y.data() + off, n, false);
        tx::cpu::BFloat16ToFloatWithIsa(isa, y.data() + off, back.data() + off, n);
        for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
          uint32_t xb;
          std::memcpy(&xb, &x[i], sizeof(xb));
          const bool inside = i >= off && i < off + n;
          EXPECT_EQ(y[i].bits, inside ? Reference(xb, false) : 0xdeadu);
          EXPECT_TRUE(inside ? back[i] == FromBits(static_cast<uint32_t>(y[i].bits) << 16) : back[i] == -7.0f);
        }
      }
}

TEST(DefaultIsTheBestLevel) {
  const ConvertIsa best = tx::cpu::BestConvertIsa();
  EXPECT_TRUE(tx::cpu::ConvertIsaSupported(best));
  const float x[3] = {1.00390625f, -0.0f, 3.0e38f};  // a tie (to even: 1.0), -0, rounds to the largest value
  BFloat16 y[3];
  tx::cpu::FloatToBFloat16(x, y, 3);
  EXPECT_EQ(y[0].bits, 0x3f80u);
  EXPECT_EQ(y[1].bits, 0x8000u);
  EXPECT_EQ(y[2].bits, 0x7f62u);
}

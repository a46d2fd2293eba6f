// The 16-bit floating types, IEEE half (float16) and bfloat16, stored as raw bits, with exact
// scalar conversions to and from float (Note [16-bit floats]).
#pragma once

#include <cstdint>
#include <cstring>

namespace tx {

// Note [16-bit floats]
// Tensors of half and bfloat16 hold raw bits. Kernels compute in float32 and round once per
// output (kernels/cpu/convert16.h converts whole arrays). float -> half rounds to nearest even,
// overflows to inf and quiets a NaN keeping its sign and top payload bits, bit for bit as the
// F16C instruction VCVTPS2PH (which TensorFlow's Cast uses). float -> bfloat16 rounds to nearest
// even with subnormals kept, and turns any NaN into the quiet NaN of its sign (0x7fc0 | sign),
// as ml_dtypes and Eigen do; the truncating form (Cast's Truncate=true) keeps the top 16 bits.
// Both widenings to float are exact. Other sources (double, integers) convert through float, as
// TensorFlow's Eigen types do: double -> half may then differ from NumPy's single rounding by one
// ulp at exact float ties.

// Exact float value of half bits `h` (NaN payload kept).
inline float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  uint32_t bits;
  if (e == 0x1f) {
    bits = sign | 0x7f800000u | (m << 13);
  } else if (e != 0) {
    bits = sign | ((e + 112u) << 23) | (m << 13);
  } else {
    float v = static_cast<float>(m) * 5.9604644775390625e-8f;  // m * 2^-24, exact
    std::memcpy(&bits, &v, sizeof(bits));
    bits |= sign;
  }
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// Half bits nearest to `f` (ties to even; F16C's NaN and overflow rules).
inline uint16_t FloatToHalfBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof(x));
  const uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u)
    return static_cast<uint16_t>(x == 0x7f800000u ? sign | 0x7c00u : sign | 0x7e00u | ((x >> 13) & 0x3ffu));
  const uint32_t e = x >> 23;
  if (e >= 113) {  // |f| >= 2^-14: a normal half, or overflow to inf
    const uint32_t r = (x + 0xfffu + ((x >> 13) & 1u) - (112u << 23)) >> 13;
    return static_cast<uint16_t>(sign | (r > 0x7c00u ? 0x7c00u : r));
  }
  if (e < 102) return static_cast<uint16_t>(sign);  // |f| < 2^-25 rounds to zero
  const uint32_t mant = (x & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126 - e;  // 14..24: half subnormals count units of 2^-24
  uint32_t h = mant >> shift;
  const uint32_t rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
  if (rem > halfway || (rem == halfway && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

// Exact float value of bfloat16 bits `b`.
inline float BFloat16BitsToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// bfloat16 bits nearest to `f` (ties to even; NaN becomes 0x7fc0 with f's sign).
inline uint16_t FloatToBFloat16Bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof(x));
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>(((x >> 16) & 0x8000u) | 0x7fc0u);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

// bfloat16 bits of `f` with the low 16 bits dropped (NaN becomes 0x7fc0 with f's sign).
inline uint16_t FloatToBFloat16BitsTruncated(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof(x));
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>(((x >> 16) & 0x8000u) | 0x7fc0u);
  return static_cast<uint16_t>(x >> 16);
}

// An IEEE binary16 value as raw bits; explicit conversions to and from float.
struct Half {
  uint16_t bits;
  Half() = default;
  explicit Half(float f) : bits(FloatToHalfBits(f)) {}
  explicit operator float() const { return HalfBitsToFloat(bits); }
  static Half FromBits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
};

// A bfloat16 value (float32's top 16 bits) as raw bits; explicit conversions to and from float.
struct BFloat16 {
  uint16_t bits;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(FloatToBFloat16Bits(f)) {}
  explicit operator float() const { return BFloat16BitsToFloat(bits); }
  static BFloat16 FromBits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
};

}  // namespace tx

// bfloat16 <-> float32 array conversions (Note [bfloat16 conversion] in convert_bf16.h).
#include "tensorflux/kernels/cpu/convert_bf16.h"

#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TX_CONVERT_X86 1
// GCC 12 reports the _mm512_undefined_* operands inside its own AVX-512 intrinsic headers as "may
// be used uninitialized" once they are inlined here (a false positive of the headers).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace tx {
namespace cpu {
namespace {

constexpr uint32_t kAbsMask = 0x7fffffffu, kInfBits = 0x7f800000u;  // a float is NaN when |bits| > inf
constexpr uint32_t kSignBit16 = 0x8000u, kQuietNan16 = 0x7fc0u;
constexpr uint32_t kHalfUlpMinusOne = 0x7fffu;  // with the kept lsb added: ties go to even

void WidenPortable(const BFloat16* x, float* y, int64_t n) {
#pragma GCC ivdep
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t b = static_cast<uint32_t>(x[i].bits) << 16;
    std::memcpy(y + i, &b, sizeof(b));  // memcpy, not a uint32_t* store: floats must not alias them
  }
}

void NarrowPortable(const float* x, BFloat16* y, int64_t n) {
#pragma GCC ivdep
  for (int64_t i = 0; i < n; ++i) {
    uint32_t v;
    std::memcpy(&v, x + i, sizeof(v));
    const uint32_t rounded = (v + kHalfUlpMinusOne + ((v >> 16) & 1u)) >> 16;
    const uint32_t nan = ((v >> 16) & kSignBit16) | kQuietNan16;
    y[i].bits = static_cast<uint16_t>((v & kAbsMask) > kInfBits ? nan : rounded);
  }
}

void TruncatePortable(const float* x, BFloat16* y, int64_t n) {
#pragma GCC ivdep
  for (int64_t i = 0; i < n; ++i) {
    uint32_t v;
    std::memcpy(&v, x + i, sizeof(v));
    const uint32_t nan = ((v >> 16) & kSignBit16) | kQuietNan16;
    y[i].bits = static_cast<uint16_t>((v & kAbsMask) > kInfBits ? nan : v >> 16);
  }
}

#ifdef TX_CONVERT_X86
#define TX_CONVERT_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))

TX_CONVERT_AVX512 void WidenAvx512(const BFloat16* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
    _mm512_storeu_si512(y + i, _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    const __m256i h = _mm256_maskz_loadu_epi16(m, x + i);
    _mm512_mask_storeu_epi32(y + i, m, _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
}

// 16 float bits narrowed to bfloat16 bits (in the low half of each lane).
TX_CONVERT_AVX512 inline __m512i Narrow16(__m512i v, bool truncate) {
  const __m512i high = _mm512_srli_epi32(v, 16);
  const __m512i nan =
      _mm512_or_si512(_mm512_and_si512(high, _mm512_set1_epi32(kSignBit16)), _mm512_set1_epi32(kQuietNan16));
  const __mmask16 is_nan =
      _mm512_cmpgt_epu32_mask(_mm512_and_si512(v, _mm512_set1_epi32(kAbsMask)), _mm512_set1_epi32(kInfBits));
  __m512i r = high;
  if (!truncate) {
    const __m512i lsb = _mm512_and_si512(high, _mm512_set1_epi32(1));
    r = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(v, _mm512_set1_epi32(kHalfUlpMinusOne)), lsb), 16);
  }
  return _mm512_mask_blend_epi32(is_nan, r, nan);
}

TX_CONVERT_AVX512 void NarrowAvx512(const float* x, BFloat16* y, int64_t n, bool truncate) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i),
                        _mm512_cvtepi32_epi16(Narrow16(_mm512_loadu_si512(x + i), truncate)));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_cvtepi32_storeu_epi16(y + i, m, Narrow16(_mm512_maskz_loadu_epi32(m, x + i), truncate));
  }
}
#endif  // TX_CONVERT_X86

bool Avx512Supported() {
#ifdef TX_CONVERT_X86
  static const bool ok =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  return ok;
#else
  return false;
#endif
}

}  // namespace

const char* ConvertIsaName(ConvertIsa isa) { return isa == ConvertIsa::kAvx512 ? "avx512" : "portable"; }

bool ConvertIsaSupported(ConvertIsa isa) { return isa == ConvertIsa::kPortable || Avx512Supported(); }

ConvertIsa BestConvertIsa() { return Avx512Supported() ? ConvertIsa::kAvx512 : ConvertIsa::kPortable; }

void BFloat16ToFloatWithIsa(ConvertIsa isa, const BFloat16* x, float* y, int64_t n) {
#ifdef TX_CONVERT_X86
  if (isa == ConvertIsa::kAvx512) return WidenAvx512(x, y, n);
#endif
  WidenPortable(x, y, n);
}

void FloatToBFloat16WithIsa(ConvertIsa isa, const float* x, BFloat16* y, int64_t n, bool truncate) {
#ifdef TX_CONVERT_X86
  if (isa == ConvertIsa::kAvx512) return NarrowAvx512(x, y, n, truncate);
#endif
  if (truncate)
    TruncatePortable(x, y, n);
  else
    NarrowPortable(x, y, n);
}

void BFloat16ToFloat(const BFloat16* x, float* y, int64_t n) {
  static const ConvertIsa isa = BestConvertIsa();
  BFloat16ToFloatWithIsa(isa, x, y, n);
}

void FloatToBFloat16(const float* x, BFloat16* y, int64_t n, bool truncate) {
  static const ConvertIsa isa = BestConvertIsa();
  FloatToBFloat16WithIsa(isa, x, y, n, truncate);
}

}  // namespace cpu
}  // namespace tx

// The AVX2+FMA (6 x 16 tiles) and AVX-512 (14 x 32 tiles) GEMM kernels: gemm_tiles.h compiled
// twice, each copy in its own namespace under its level's `#pragma GCC target`, so the file needs
// no compiler flags and each copy runs only where BestIsa (gemm.cc) found the level.
#include "tensorflux/kernels/cpu/gemm/gemm_kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

// Vector arguments change the calling convention between AVX levels; every call here stays
// inside one level (Note [Vector float32] in vec_math.h).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace tx {
namespace cpu {
namespace gemm {

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
namespace {
struct Vec {
  using V = __m256;
  static constexpr int kLanes = 8;
  static V Zero() { return _mm256_setzero_ps(); }
  static V Load(const float* p) { return _mm256_loadu_ps(p); }
  static void Store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V Set1(float x) { return _mm256_set1_ps(x); }
  static V Bcast(const float* p) { return _mm256_broadcast_ss(p); }
  static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V Fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static float Sum(V v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
};
#include "tensorflux/kernels/cpu/gemm/gemm_tiles.h"  // NOLINT: included once per instruction set

// Transposes the 8 x 8 block r[0..7] in place: afterwards r[q] holds what was column q.
inline void Transpose8(__m256* r) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xee);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xee);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xee);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xee);
  r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
  r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
  r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
  r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
  r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

// GatherFn for panels kWidth wide (6, 8, 14, 16 or 32): 8 x 8 blocks transposed in registers.
template <int kWidth>
void Gather(const float* src, int64_t ld, int count, int64_t kc, float* dst) {
  static_assert(kWidth % 8 == 0 || kWidth % 8 == 6, "the last group of a panel stores 8 or 6 lanes");
  int64_t p = 0;
  for (; p + 8 <= kc; p += 8) {
#pragma GCC unroll 4
    for (int g = 0; g < (kWidth + 7) / 8; ++g) {
      __m256 r[8];
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) r[i] = 8 * g + i < count ? _mm256_loadu_ps(src + (8 * g + i) * ld + p) : Vec::Zero();
      Transpose8(r);
#pragma GCC unroll 8
      for (int q = 0; q < 8; ++q) {
        float* d = dst + (p + q) * kWidth + 8 * g;
        if (kWidth - 8 * g >= 8) {
          _mm256_storeu_ps(d, r[q]);
        } else {  // 6 lanes
          _mm_storeu_ps(d, _mm256_castps256_ps128(r[q]));
          _mm_storel_pi(reinterpret_cast<__m64*>(d + 4), _mm256_extractf128_ps(r[q], 1));
        }
      }
    }
  }
  GatherScalar<kWidth>(src + p, ld, count, kc - p, dst + p * kWidth);
}

// 12 accumulators of the 16 ymm registers, two B vectors and a broadcast.
constexpr KernelSet kKernels = MakeKernelSet<6, 2>("avx2", &Gather<6>, &Gather<16>);
// The AVX-512 kernels' packers (AVX-512 includes AVX2).
constexpr GatherFn kGather14 = &Gather<14>, kGather32 = &Gather<32>;
// AVX2 code in the AVX-512 kernels' shape and with their packers, so that CPUs without AVX-512
// test that shape's blocking, edges and packing (it spills registers: tests only).
constexpr KernelSet kAvx512Shaped = MakeKernelSet<14, 4>("avx2 in the avx512 tile shape", kGather14, kGather32);
}  // namespace
}  // namespace avx2
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f")
namespace avx512 {
namespace {
struct Vec {
  using V = __m512;
  static constexpr int kLanes = 16;
  static V Zero() { return _mm512_setzero_ps(); }
  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  static void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V Set1(float x) { return _mm512_set1_ps(x); }
  static V Bcast(const float* p) { return _mm512_set1_ps(*p); }
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static float Sum(V v) {
    // Through memory: GCC 12 warns that the _mm256_undefined_pd inside every 512-bit extract
    // intrinsic is uninitialized. Sum runs once per dot product, so the store costs little.
    alignas(64) float t[16];
    _mm512_store_ps(t, v);
    __m256 h = _mm256_add_ps(_mm256_load_ps(t), _mm256_load_ps(t + 8));
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
};
#include "tensorflux/kernels/cpu/gemm/gemm_tiles.h"  // NOLINT
// 28 accumulators of the 32 zmm registers, two B vectors and a broadcast.
constexpr KernelSet kKernels = MakeKernelSet<14, 2>("avx512", avx2::kGather14, avx2::kGather32);

// The VDPBF16PS kernels (Note [bf16 GEMM] in gemm.h), on the same Vec for their stores.
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512bf16")
namespace bf16 {
// The tile: 14 x 32 sums, as the float32 kernels' (28 accumulators, two B vectors, a broadcast).
constexpr int kMr = 14, kNr = 32;

// TileFn of Bf16KernelSet for the first R rows.
template <int R>
void TileRows(int64_t kc, const uint16_t* __restrict a, const uint16_t* __restrict b, float* __restrict c, int64_t ldc,
              float alpha, float beta, int cols) {
  __m512 acc[R][2];
  PrefetchTile<R, kNr>(kc, c, ldc);
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  const int64_t pairs = (kc + 1) / 2;
#pragma GCC unroll 2
  for (int64_t q = 0; q < pairs; ++q) {
    const __m512bh b0 = (__m512bh)_mm512_loadu_si512(b), b1 = (__m512bh)_mm512_loadu_si512(b + kNr);
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
      int32_t pair;
      __builtin_memcpy(&pair, a + 2 * i, sizeof(pair));
      const __m512bh av = (__m512bh)_mm512_set1_epi32(pair);
      acc[i][0] = _mm512_dpbf16_ps(acc[i][0], av, b0);
      acc[i][1] = _mm512_dpbf16_ps(acc[i][1], av, b1);
    }
    a += 2 * kMr;
    b += 2 * kNr;
  }
  StoreTile<R, 2>(acc, c, ldc, alpha, beta, cols);
}

template <int R>
void Tile(int64_t kc, const uint16_t* a, const uint16_t* b, float* c, int64_t ldc, float alpha, float beta, int rows,
          int cols) {
  if constexpr (R > 1) {
    if (rows < R) return Tile<R - 1>(kc, a, b, c, ldc, alpha, beta, rows, cols);
  }
  TileRows<R>(kc, a, b, c, ldc, alpha, beta, cols);
}

// The mask of the first n of 16 lanes (n may be below 0 or above 16).
inline __mmask16 FirstLanes(int n) {
  return n >= 16 ? __mmask16(0xffff) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1);
}

// PairInterleaveFn for panels kWidth (14 or 32) lanes wide: rows 2q and 2q + 1, 16 columns at a
// time, interleaved by 16-bit unpacks.
template <int kWidth>
void Interleave(const uint16_t* src, int64_t ld, int count, int64_t kc, uint16_t* dst) {
  static_assert(kWidth == 32 || kWidth == 14, "a panel is two chunks of 16 lanes or 14 lanes");
  for (int64_t p = 0; p < kc; p += 2, dst += 2 * kWidth) {
    const uint16_t* r0 = src + p * ld;
#pragma GCC unroll 2
    for (int g = 0; g < (kWidth + 15) / 16; ++g) {
      const __mmask16 m = FirstLanes(count - 16 * g);
      const __m256i x0 = _mm256_maskz_loadu_epi16(m, r0 + 16 * g);
      const __m256i x1 = p + 1 < kc ? _mm256_maskz_loadu_epi16(m, r0 + ld + 16 * g) : _mm256_setzero_si256();
      const __m256i lo = _mm256_unpacklo_epi16(x0, x1), hi = _mm256_unpackhi_epi16(x0, x1);
      uint16_t* d = dst + 32 * g;
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), _mm256_permute2x128_si256(lo, hi, 0x20));  // columns 0-7
      if (kWidth == 32)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 16), _mm256_permute2x128_si256(lo, hi, 0x31));
      else  // columns 8-13
        _mm256_mask_storeu_epi16(d + 16, 0x0fff, _mm256_permute2x128_si256(lo, hi, 0x31));
    }
  }
}

// Pairs lanes j of two 32-lane vectors x and y for _mm512_permutex2var_epi16: out[2 j] = x[j],
// out[2 j + 1] = y[j] for j < 16 (add 16 to each index for j from 16 to 31).
inline __m512i PairLowHalves() {
  return _mm512_setr_epi32(0x200000, 0x210001, 0x220002, 0x230003, 0x240004, 0x250005, 0x260006, 0x270007, 0x280008,
                           0x290009, 0x2a000a, 0x2b000b, 0x2c000c, 0x2d000d, 0x2e000e, 0x2f000f);
}

// Bf16KernelSet::interleave16: rows 2q and 2q + 1 of ceil(count / 16) panels at once, paired by
// one two-source 16-bit permute per panel, so a transposed A is read in rows of `count` values.
void Interleave16(const uint16_t* src, int64_t ld, int count, int64_t kc, uint16_t* dst) {
  const __m512i lo = PairLowHalves();
  const int64_t panel = (kc + 1) / 2 * 32;
  for (int64_t p = 0; p < kc; p += 2, dst += 32) {
    const uint16_t *r0 = src + p * ld, *r1 = r0 + ld;
    for (int j = 0; j < count; j += 16) {
      const __mmask32 m = static_cast<__mmask32>(FirstLanes(count - j));
      const __m512i x0 = _mm512_maskz_loadu_epi16(m, r0 + j);
      const __m512i x1 = p + 1 < kc ? _mm512_maskz_loadu_epi16(m, r1 + j) : _mm512_setzero_si512();
      _mm512_storeu_si512(dst + j / 16 * panel, _mm512_permutex2var_epi16(x0, lo, x1));
    }
  }
}

// Most elements between rows for which GatherPairs' byte offsets (15 rows) fit 32 bits.
constexpr int64_t kMaxGatherLd = (int64_t{1} << 31) / 2 / 16;

// PairGatherFn for panels kWidth (14, 16 or 32) lanes wide: a pair is 32 bits of a row, so each
// pair column of up to 16 rows is one masked gather; far-apart rows and an odd last value go one
// by one.
template <int kWidth>
void GatherPairs(const uint16_t* src, int64_t ld, int count, int64_t kc, uint16_t* dst) {
  static_assert(kWidth == 32 || kWidth == 16 || kWidth == 14, "a panel is chunks of 16 lanes, or 14 lanes");
  const int64_t pairs = ld <= kMaxGatherLd ? kc / 2 : 0;
  const __m512i offsets = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                             _mm512_set1_epi32(static_cast<int>(2 * ld)));
  for (int g = 0; g < (kWidth + 15) / 16; ++g) {
    const __mmask16 m = FirstLanes(count - 16 * g);
    const uint16_t* s = src + 16 * g * ld;
    uint16_t* d = dst + 32 * g;
    for (int64_t q = 0; q < pairs; ++q, d += 2 * kWidth) {
      const __m512i v = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, offsets, s + 2 * q, 1);
      if (kWidth != 14)
        _mm512_storeu_si512(d, v);
      else
        _mm512_mask_storeu_epi32(d, 0x3fff, v);
    }
  }
  for (int64_t q = pairs; 2 * q < kc; ++q)
    for (int i = 0; i < kWidth; ++i) {
      uint16_t* d = dst + q * 2 * kWidth + 2 * i;
      d[0] = i < count ? src[i * ld + 2 * q] : 0;
      d[1] = i < count && 2 * q + 1 < kc ? src[i * ld + 2 * q + 1] : 0;
    }
}

// The mask of the first n of 32 lanes (n may be below 0 or above 32).
inline __mmask32 FirstLanes32(int64_t n) {
  return n >= 32 ? __mmask32(0xffffffffu) : n <= 0 ? __mmask32(0) : __mmask32((1u << n) - 1);
}

// c = alpha * acc + beta * c on the lanes of `m`, not reading c when beta == 0.
inline void StoreLanes(__m512 acc, float* c, float alpha, float beta, __mmask16 m) {
  if (alpha != 1.0f) acc = _mm512_mul_ps(_mm512_set1_ps(alpha), acc);
  if (beta != 0.0f) acc = _mm512_fmadd_ps(_mm512_set1_ps(beta), _mm512_maskz_loadu_ps(m, c), acc);
  _mm512_mask_storeu_ps(c, m, acc);
}

// The 32-bit pair at p (two bfloat16, the first in the low half), read unaligned.
inline int32_t LoadPair(const uint16_t* p) {
  int32_t pair;
  __builtin_memcpy(&pair, p, sizeof(pair));
  return pair;
}

// R rows by the first `cols` (<= 16 NV) columns of C from B stored [k, n] as it is (Note [bf16
// GEMM], few rows): rows 2q and 2q + 1 of B become pairs in registers (one two-source 16-bit
// permute per 16 columns), met by R broadcast A pairs, a[q * R + i] (zero-padded for an odd k).
template <int R, int NV>
void RowsBlock(int64_t k, const int32_t* a, const uint16_t* b, int64_t ldb, float* c, int64_t ldc, float alpha,
               float beta, int cols) {
  static_assert(NV % 2 == 0, "B is read 32 columns at a time");
  const __m512i lo = PairLowHalves();
  const __m512i hi = _mm512_add_epi16(lo, _mm512_set1_epi16(16));
  __mmask32 m[NV / 2];
#pragma GCC unroll 8
  for (int h = 0; h < NV / 2; ++h) m[h] = FirstLanes32(cols - 32 * h);
  __m512 acc[R][NV];
#pragma GCC unroll 4
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_ps();
  // One pair of rows (r1 null: the odd last row, paired with zeros).
  auto step = [&](const uint16_t* r0, const uint16_t* r1, const int32_t* ap) __attribute__((always_inline)) {
    __m512bh bv[NV];
#pragma GCC unroll 8
    for (int h = 0; h < NV / 2; ++h) {
      const __m512i x = _mm512_maskz_loadu_epi16(m[h], r0 + 32 * h);
      const __m512i y = r1 != nullptr ? _mm512_maskz_loadu_epi16(m[h], r1 + 32 * h) : _mm512_setzero_si512();
      bv[2 * h] = (__m512bh)_mm512_permutex2var_epi16(x, lo, y);
      bv[2 * h + 1] = (__m512bh)_mm512_permutex2var_epi16(x, hi, y);
    }
#pragma GCC unroll 4
    for (int i = 0; i < R; ++i) {
      const __m512bh av = (__m512bh)_mm512_set1_epi32(ap[i]);
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_dpbf16_ps(acc[i][v], av, bv[v]);
    }
  };
  int64_t q = 0;
  for (; 2 * q + 1 < k; ++q) step(b + 2 * q * ldb, b + (2 * q + 1) * ldb, a + q * R);
  if (2 * q < k) step(b + 2 * q * ldb, nullptr, a + q * R);
#pragma GCC unroll 4
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v)
      if (cols > 16 * v) StoreLanes(acc[i][v], c + i * ldc + 16 * v, alpha, beta, FirstLanes(cols - 16 * v));
}

template <int R>
void RowsR(int64_t n, int64_t k, const int32_t* a, const uint16_t* b, int64_t ldb, float* c, int64_t ldc, float alpha,
           float beta) {
  constexpr int NV = R <= 2 ? 8 : 4;  // R * NV accumulators and NV vectors of B in 32 registers
  for (int64_t j = 0; j < n; j += 16 * NV)
    RowsBlock<R, NV>(k, a, b + j, ldb, c + j, ldc, alpha, beta, static_cast<int>(n - j < 16 * NV ? n - j : 16 * NV));
}

// Bf16KernelSet::rows.
void Rows(int m, int64_t n, int64_t k, const int32_t* a, const uint16_t* b, int64_t ldb, float* c, int64_t ldc,
          float alpha, float beta) {
  switch (m) {
    case 1: return RowsR<1>(n, k, a, b, ldb, c, ldc, alpha, beta);
    case 2: return RowsR<2>(n, k, a, b, ldb, c, ldc, alpha, beta);
    case 3: return RowsR<3>(n, k, a, b, ldb, c, ldc, alpha, beta);
    default: return RowsR<4>(n, k, a, b, ldb, c, ldc, alpha, beta);
  }
}

// c[R, J] from dot products of rows of A and of B stored [n, k], both read in place: 16 float32
// lanes per product, each adding the products of pairs 16 apart, then added across the lanes.
template <int R, int J>
void DotsBlock(int64_t k, const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb, float* c, int64_t ldc,
               float alpha, float beta) {
  __m512 acc[R][J];
#pragma GCC unroll 4
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < J; ++j) acc[i][j] = _mm512_setzero_ps();
  for (int64_t p = 0; p < k; p += 32) {
    const __mmask32 m = FirstLanes32(k - p);  // zeros past k, in A and in B
    __m512bh bv[J];
#pragma GCC unroll 8
    for (int j = 0; j < J; ++j) bv[j] = (__m512bh)_mm512_maskz_loadu_epi16(m, b + j * ldb + p);
#pragma GCC unroll 4
    for (int i = 0; i < R; ++i) {
      const __m512bh av = (__m512bh)_mm512_maskz_loadu_epi16(m, a + i * lda + p);
#pragma GCC unroll 8
      for (int j = 0; j < J; ++j) acc[i][j] = _mm512_dpbf16_ps(acc[i][j], av, bv[j]);
    }
  }
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < J; ++j) {
      const float s = alpha * Vec::Sum(acc[i][j]);
      float* cp = c + i * ldc + j;
      *cp = beta == 0.0f ? s : s + beta * *cp;
    }
}

template <int R>
void DotsR(int64_t n, int64_t k, const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb, float* c, int64_t ldc,
           float alpha, float beta) {
  constexpr int J = R == 1 ? 8 : (R == 2 ? 6 : 4);
  int64_t j = 0;
  for (; j + J <= n; j += J) DotsBlock<R, J>(k, a, lda, b + j * ldb, ldb, c + j, ldc, alpha, beta);
  for (; j < n; ++j) DotsBlock<R, 1>(k, a, lda, b + j * ldb, ldb, c + j, ldc, alpha, beta);
}

// Bf16KernelSet::dots.
void Dots(int m, int64_t n, int64_t k, const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb, float* c,
          int64_t ldc, float alpha, float beta) {
  switch (m) {
    case 1: return DotsR<1>(n, k, a, lda, b, ldb, c, ldc, alpha, beta);
    case 2: return DotsR<2>(n, k, a, lda, b, ldb, c, ldc, alpha, beta);
    case 3: return DotsR<3>(n, k, a, lda, b, ldb, c, ldc, alpha, beta);
    default: return DotsR<4>(n, k, a, lda, b, ldb, c, ldc, alpha, beta);
  }
}

// Rows of the narrow kernel: at most this many rows of C per call (one accumulator each).
constexpr int kNarrowRows = 16;

// R rows by the first `cols` (<= 16) columns of C on a B panel 16 pairs wide: A's pair (i, q) is
// the 32 bits at a + i * a_rs + q * a_qs; with `tail16`, k is odd and A's last value is read
// alone (16 bits, paired with a zero), so no read passes the end of a row of A stored [m, k].
template <int R>
void NarrowRows(int64_t k, const uint16_t* a, int64_t a_rs, int64_t a_qs, bool tail16, const uint16_t* b, float* c,
                int64_t ldc, float alpha, float beta, int cols) {
  __m512 acc[R];
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i) acc[i] = _mm512_setzero_ps();
  const int64_t pairs = tail16 ? k / 2 : (k + 1) / 2;
#pragma GCC unroll 2
  for (int64_t q = 0; q < pairs; ++q) {
    const __m512bh bv = (__m512bh)_mm512_loadu_si512(b + 32 * q);
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i)
      acc[i] = _mm512_dpbf16_ps(acc[i], (__m512bh)_mm512_set1_epi32(LoadPair(a + i * a_rs + q * a_qs)), bv);
  }
  if (tail16) {
    const __m512bh bv = (__m512bh)_mm512_loadu_si512(b + 32 * pairs);
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i)
      acc[i] = _mm512_dpbf16_ps(acc[i], (__m512bh)_mm512_set1_epi32(a[i * a_rs + pairs * a_qs]), bv);
  }
  const __mmask16 m = FirstLanes(cols);
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i) StoreLanes(acc[i], c + i * ldc, alpha, beta, m);
}

// Bf16KernelSet::narrow: NarrowRows for `rows` (1 to kNarrowRows) rows.
template <int R = kNarrowRows>
void Narrow(int rows, int64_t k, const uint16_t* a, int64_t a_rs, int64_t a_qs, bool tail16, const uint16_t* b,
            float* c, int64_t ldc, float alpha, float beta, int cols) {
  if constexpr (R > 1) {
    if (rows < R) return Narrow<R - 1>(rows, k, a, a_rs, a_qs, tail16, b, c, ldc, alpha, beta, cols);
  }
  NarrowRows<R>(k, a, a_rs, a_qs, tail16, b, c, ldc, alpha, beta, cols);
}

constexpr Bf16KernelSet kKernels = {
    "avx512_bf16",    kMr,   kNr,   &Tile<kMr>, &GatherPairs<kMr>, &GatherPairs<kNr>, &Interleave<kMr>,
    &Interleave<kNr>, &Rows, &Dots, &Narrow<>,  kNarrowRows,       &GatherPairs<16>,  &Interleave16};
}  // namespace bf16
#pragma GCC pop_options
}  // namespace
}  // namespace avx512
#pragma GCC pop_options

const KernelSet* Avx2Kernels() { return &avx2::kKernels; }
const KernelSet* Avx512ShapedAvx2Kernels() { return &avx2::kAvx512Shaped; }
const KernelSet* Avx512Kernels() { return &avx512::kKernels; }
const Bf16KernelSet* Avx512Bf16Kernels() { return &avx512::bf16::kKernels; }

}  // namespace gemm
}  // namespace cpu
}  // namespace tx

#else

const tx::cpu::gemm::KernelSet* tx::cpu::gemm::Avx2Kernels() { return nullptr; }
const tx::cpu::gemm::KernelSet* tx::cpu::gemm::Avx512Kernels() { return nullptr; }
const tx::cpu::gemm::KernelSet* tx::cpu::gemm::Avx512ShapedAvx2Kernels() { return nullptr; }
const tx::cpu::gemm::Bf16KernelSet* tx::cpu::gemm::Avx512Bf16Kernels() { return nullptr; }

#endif

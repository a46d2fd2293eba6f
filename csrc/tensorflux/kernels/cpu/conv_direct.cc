#include "tensorflux/kernels/cpu/conv_direct.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "tensorflux/kernels/cpu/conv_direct_impl.h"
#include "tensorflux/kernels/cpu/kernel_util.h"

namespace tx {
namespace cpu {
namespace {

// Output-row blocks per thread the direct path aims for: small enough to rebalance, big enough for whole tiles.
constexpr int64_t kClaimsPerThread = 16;
// Largest zero-padded input copy (in floats) kept between calls: 64 MiB.
constexpr int64_t kMaxKeptPaddedFloats = int64_t{16} << 20;

// Copies images [n0, n1) of x [N,H,W,C] into xp [N,hp,wp,C] (zeros around them).
void PadImages(const ConvGeometry& g, const PaddedInput& p, const float* x, int64_t n0, int64_t n1, float* xp) {
  const int64_t c = g.c, row = p.wp * c;
  for (int64_t n = n0; n < n1; ++n) {
    float* img = xp + n * p.hp * row;
    for (int64_t h = 0; h < p.hp; ++h) {
      float* dst = img + h * row;
      const int64_t ih = h - g.pt;
      if (ih < 0 || ih >= g.h) {
        std::memset(dst, 0, sizeof(float) * row);
        continue;
      }
      const int64_t right = p.wp - g.pl - g.w;
      std::memset(dst, 0, sizeof(float) * g.pl * c);
      std::memcpy(dst + g.pl * c, x + ((n * g.h + ih) * g.w) * c, sizeof(float) * g.w * c);
      std::memset(dst + (g.pl + g.w) * c, 0, sizeof(float) * right * c);
    }
  }
}

#if TX_DIRECT_CONV
using Slice = PatchSlice;

// y[R pixels, 16*NV channels] = sum over slices s, p < s.len of a[r][s.offset + p] * w[(s.filter_row + p)*m + ...],
// where a[r] points at pixel r's first tap and y's pixels are m apart.
template <int R, int NV>
TX_AVX512 inline void Tile(const Slice* slices, int64_t nslices, const float* const* a, const float* w, int64_t m,
                           float* y) {
  __m512 acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NV; ++j) acc[r][j] = _mm512_setzero_ps();
  for (int64_t s = 0; s < nslices; ++s) {
    const float* as[R];
    for (int r = 0; r < R; ++r) as[r] = a[r] + slices[s].offset;
    const float* ws = w + slices[s].filter_row * m;
    for (int64_t p = 0; p < slices[s].len; ++p) {
      __m512 b[NV];
      for (int j = 0; j < NV; ++j) b[j] = _mm512_loadu_ps(ws + p * m + 16 * j);
      for (int r = 0; r < R; ++r) {
        const __m512 av = _mm512_set1_ps(as[r][p]);
        for (int j = 0; j < NV; ++j) acc[r][j] = _mm512_fmadd_ps(av, b[j], acc[r][j]);
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NV; ++j) _mm512_storeu_ps(y + r * m + 16 * j, acc[r][j]);
}

// One column block of 16*NV channels for R pixels, in register tiles of at most 24/NV pixels
// (24 of the 32 zmm registers hold accumulators). For M = 64 6x4, 12x2 and 14x2 tiles measured
// within noise of each other, 8x2 and 4x4 slower; for M = 32, 12x2 tiles measured ~2.4 ms of CPU
// time against 2.6-2.8 ms for 6x2 on the CNN benchmark's 32->64 input gradient.
template <int R, int NV>
TX_AVX512 void Columns(const Slice* slices, int64_t nslices, const float* const* a, const float* w, int64_t m,
                       float* y) {
  constexpr int kMax = 24 / NV;
  if constexpr (R <= kMax) {
    Tile<R, NV>(slices, nslices, a, w, m, y);
  } else {
    Tile<kMax, NV>(slices, nslices, a, w, m, y);
    Columns<R - kMax, NV>(slices, nslices, a + kMax, w, m, y + kMax * m);
  }
}

// All output channels of R pixels, in column blocks of 64, then 32, then 16.
template <int R>
TX_AVX512 void Pixels(const Slice* slices, int64_t nslices, const float* const* a, const float* w, int64_t m, float* y) {
  int64_t j = 0;
  for (; j + 64 <= m; j += 64) Columns<R, 4>(slices, nslices, a, w + j, m, y + j);
  for (; j + 32 <= m; j += 32) Columns<R, 2>(slices, nslices, a, w + j, m, y + j);
  for (; j < m; j += 16) Columns<R, 1>(slices, nslices, a, w + j, m, y + j);
}

// The last r (< 6) pixels of a range.
TX_AVX512 void PixelsTail(int64_t r, const Slice* slices, int64_t nslices, const float* const* a, const float* w,
                          int64_t m, float* y) {
  switch (r) {
    case 5: Pixels<5>(slices, nslices, a, w, m, y); break;
    case 4: Pixels<4>(slices, nslices, a, w, m, y); break;
    case 3: Pixels<3>(slices, nslices, a, w, m, y); break;
    case 2: Pixels<2>(slices, nslices, a, w, m, y); break;
    case 1: Pixels<1>(slices, nslices, a, w, m, y); break;
    default: break;
  }
}

// Output pixels [q0, q1) of y, in groups of G pixels (full register tiles for the widest column
// block of M), then groups of 6, then the rest.
template <int G>
TX_AVX512 void PixelRange(const ConvGeometry& g, const PaddedInput& p, const float* xp,
                          const std::vector<Slice>& slices, const float* w, int64_t q0, int64_t q1, float* y) {
  const float* a[G];
  PixelWalker pixels(g, p, xp, q0);
  int64_t q = q0;
  for (; q + G <= q1; q += G) {
    for (int i = 0; i < G; ++i) a[i] = pixels.Next();
    Pixels<G>(slices.data(), slices.size(), a, w, g.m, y + q * g.m);
  }
  for (; q + 6 <= q1; q += 6) {
    for (int i = 0; i < 6; ++i) a[i] = pixels.Next();
    Pixels<6>(slices.data(), slices.size(), a, w, g.m, y + q * g.m);
  }
  for (int64_t i = 0; i < q1 - q; ++i) a[i] = pixels.Next();
  PixelsTail(q1 - q, slices.data(), slices.size(), a, w, g.m, y + q * g.m);
}
#endif  // TX_DIRECT_CONV

}  // namespace

bool DirectConvSupported(const ConvGeometry& g) {
#if TX_DIRECT_CONV
  static const bool has_avx512 = __builtin_cpu_supports("avx512f");
  if (!has_avx512 || g.m <= 0 || g.m % 16 != 0 || g.kh * g.kw * g.c <= 0) return false;
  // The padded copy must stay comparable to the tensors themselves (huge explicit padding with
  // huge strides goes to the im2col path, which never materializes the padding).
  const PaddedInput p = DirectConvPadding(g);
  const double padded = static_cast<double>(g.n) * p.hp * p.wp * g.c;
  const double tensors = static_cast<double>(g.n) * g.h * g.w * g.c + static_cast<double>(g.n) * g.oh * g.ow * g.m;
  return padded <= 4 * tensors + (1 << 20);
#else
  return false;
#endif
}

PaddedInput DirectConvPadding(const ConvGeometry& g) {
  PaddedInput p;
  p.hp = std::max(g.pt + g.h, (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1);
  p.wp = std::max(g.pl + g.w, (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1);
  return p;
}

const float* DirectConvPaddedInput(ThreadPool* pool, const ConvGeometry& g, const float* x, std::vector<float>* fresh) {
  const PaddedInput p = DirectConvPadding(g);
  if (p.hp == g.h && p.wp == g.w && g.pt == 0 && g.pl == 0) return x;
  // Reused per-thread buffer (page faults of a fresh one cost ~10% of the forward benchmark),
  // unless it would pin a large amount of memory.
  thread_local std::vector<float> padded;
  const int64_t size = g.n * p.hp * p.wp * g.c;
  std::vector<float>& buf = size <= kMaxKeptPaddedFloats ? padded : *fresh;
  if (static_cast<int64_t>(buf.size()) < size) buf.resize(size);
  float* dst = buf.data();
  pool->ParallelFor(g.n, p.hp * p.wp * g.c, [&](int64_t n0, int64_t n1) { PadImages(g, p, x, n0, n1, dst); });
  return dst;
}

#if TX_DIRECT_CONV
void DirectConv(ThreadPool* pool, const ConvGeometry& g, const float* x, const float* w, float* y) {
  const PaddedInput p = DirectConvPadding(g);
  std::vector<float> fresh;
  const float* xp = DirectConvPaddedInput(pool, g, x, &fresh);
  const std::vector<Slice> slices = PatchSlices(g, p);
  // ~cycles per output row, saturated so the product cannot overflow (k and m fit 32 bits).
  const int64_t pixel_cost = std::min<int64_t>(2 * g.kh * g.kw * g.c * g.m, int64_t{1} << 30);
  const int64_t row_cost = std::min<int64_t>(pixel_cost * std::min<int64_t>(g.ow, int64_t{1} << 20), int64_t{1} << 30);
  const int64_t rows = g.n * g.oh, block = std::max<int64_t>(1, rows / (kClaimsPerThread * (pool->num_threads() + 1)));
  // Pixels are numbered q = r*OW + ow over the whole range, so tiles run across output rows.
  ParallelClaims(pool, rows, block, row_cost, [&](int64_t r0, int64_t r1) {
    if (g.m % 64 == 0) PixelRange<6>(g, p, xp, slices, w, r0 * g.ow, r1 * g.ow, y);
    else if (g.m % 32 == 0) PixelRange<12>(g, p, xp, slices, w, r0 * g.ow, r1 * g.ow, y);
    else PixelRange<24>(g, p, xp, slices, w, r0 * g.ow, r1 * g.ow, y);
  });
}
#else
void DirectConv(ThreadPool*, const ConvGeometry&, const float*, const float*, float*) {}
#endif  // TX_DIRECT_CONV

}  // namespace cpu
}  // namespace tx

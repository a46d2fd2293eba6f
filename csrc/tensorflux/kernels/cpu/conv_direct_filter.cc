// Direct float32 Conv2DBackpropFilter for CPUs with AVX-512F (declared in conv_direct.h).
// Note [Direct Conv2D filter gradient]: dW viewed as [K = KH*KW*C, M] is sum over output pixels p
// of patch(p)[K] (outer) dY[p][M]. Instead of copying patches (im2col) for a BLAS call, the input
// is zero-padded once and each pixel's patch is read in place as the contiguous slices of
// PatchSlices. A register tile holds R consecutive K rows of one slice x 16*NV output channels
// (R*NV = 24 zmm accumulators); its inner loop runs over pixels, loading dY[p] (NV vectors) and
// broadcasting the R input values, so the accumulators stay in registers for a whole chunk of
// kChunkPixels pixels (whose dY rows stay in L1 and whose input pointers come from a small table).
// The pixels are cut into a fixed number of contiguous units (one per intra-op thread, fewer for
// small work), each summed into its own [K, M] buffer (the first into dw itself) and then added
// in unit order, so the result depends only on the thread count, never on scheduling.
// Measured on the 3x3 64->64 [16,32,32,64] benchmark (tools/bench/conv_grad_bench.py, 2 shared
// cores): 4.8-6.6 ms per run against 10.9 ms for im2col + OpenBLAS (TensorFlow 2.21: 4.8-6.4 ms),
// ~8-9 ms of process CPU time, the same as the forward direct kernel on the same shapes.
#include <algorithm>
#include <vector>

#include "tensorflux/kernels/cpu/conv_direct_impl.h"
#include "tensorflux/kernels/cpu/kernel_util.h"

namespace tx {
namespace cpu {
namespace {

// Pixels whose dY rows one register tile streams through: 128 x 64 channels is 32 KiB (L1).
constexpr int64_t kChunkPixels = 128;
// Less work than this (multiply-adds) per pixel unit and fewer units are used.
constexpr double kMinUnitMacs = 1 << 22;

#if TX_DIRECT_CONV
// dw[R rows, 16*NV channels] (+)= sum over pixels p < np of a[p][off + r] * dy[p*m + 16*j + ...],
// dw rows being m apart; `accumulate` adds to dw instead of overwriting it.
template <int R, int NV>
TX_AVX512 void GradTile(const float* const* a, int64_t off, int64_t np, const float* dy, int64_t m, bool accumulate,
                        float* dw) {
  __m512 acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NV; ++j) acc[r][j] = accumulate ? _mm512_loadu_ps(dw + r * m + 16 * j) : _mm512_setzero_ps();
  for (int64_t p = 0; p < np; ++p) {
    const float* ap = a[p] + off;
    __m512 b[NV];
    for (int j = 0; j < NV; ++j) b[j] = _mm512_loadu_ps(dy + p * m + 16 * j);
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(ap[r]);
      for (int j = 0; j < NV; ++j) acc[r][j] = _mm512_fmadd_ps(av, b[j], acc[r][j]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NV; ++j) _mm512_storeu_ps(dw + r * m + 16 * j, acc[r][j]);
}

// GradTile for r (1 <= r <= R) rows, R being the widest tile for NV vectors.
template <int NV, int R>
TX_AVX512 void GradRows(int64_t r, const float* const* a, int64_t off, int64_t np, const float* dy, int64_t m,
                        bool accumulate, float* dw) {
  if constexpr (R > 1) {
    if (r < R) return GradRows<NV, R - 1>(r, a, off, np, dy, m, accumulate, dw);
  }
  GradTile<R, NV>(a, off, np, dy, m, accumulate, dw);
}

// All K rows of 16*NV channels of dw for one chunk of pixels (taps: their first taps).
template <int NV>
TX_AVX512 void GradColumns(const std::vector<PatchSlice>& slices, const float* const* taps, int64_t np, const float* dy,
                           int64_t m, bool accumulate, float* dw) {
  constexpr int64_t kRows = 24 / NV;  // R*NV accumulators, 24 of the 32 zmm registers
  for (const PatchSlice& s : slices)
    for (int64_t k = 0; k < s.len; k += kRows)
      GradRows<NV, kRows>(std::min(kRows, s.len - k), taps, s.offset + k, np, dy, m, accumulate,
                          dw + (s.filter_row + k) * m);
}

// dw[K, M] = the filter gradient over output pixels [q0, q1) (q = (n*OH + oh)*OW + ow).
TX_AVX512 void GradPixels(const ConvGeometry& g, const PaddedInput& p, const std::vector<PatchSlice>& slices,
                          const float* xp, const float* dy, int64_t q0, int64_t q1, float* dw) {
  const float* taps[kChunkPixels];
  PixelWalker pixels(g, p, xp, q0);
  for (int64_t c0 = q0; c0 < q1; c0 += kChunkPixels) {
    const int64_t np = std::min(kChunkPixels, q1 - c0);
    for (int64_t i = 0; i < np; ++i) taps[i] = pixels.Next();
    const float* dyc = dy + c0 * g.m;
    const bool accumulate = c0 != q0;
    int64_t j = 0;
    for (; j + 64 <= g.m; j += 64) GradColumns<4>(slices, taps, np, dyc + j, g.m, accumulate, dw + j);
    for (; j + 32 <= g.m; j += 32) GradColumns<2>(slices, taps, np, dyc + j, g.m, accumulate, dw + j);
    for (; j < g.m; j += 16) GradColumns<1>(slices, taps, np, dyc + j, g.m, accumulate, dw + j);
  }
}
#endif  // TX_DIRECT_CONV

}  // namespace

#if TX_DIRECT_CONV
void DirectConvBackpropFilter(ThreadPool* pool, const ConvGeometry& g, const float* x, const float* dy, float* dw) {
  const PaddedInput p = DirectConvPadding(g);
  std::vector<float> fresh;
  const float* xp = DirectConvPaddedInput(pool, g, x, &fresh);
  const std::vector<PatchSlice> slices = PatchSlices(g, p);
  const int64_t pixels = g.n * g.oh * g.ow, size = g.kh * g.kw * g.c * g.m;
  // Units depend on the geometry and thread count only (Note [Direct Conv2D filter gradient]).
  const int64_t threads = pool->num_threads() + 1;
  const double macs = static_cast<double>(pixels) * static_cast<double>(size);
  const int64_t by_work = static_cast<int64_t>(std::min(macs / kMinUnitMacs, static_cast<double>(threads)));
  const int64_t units = std::max<int64_t>(1, std::min({threads, by_work, pixels / kChunkPixels}));
  thread_local std::vector<float> partial;
  if (static_cast<int64_t>(partial.size()) < (units - 1) * size) partial.resize((units - 1) * size);
  float* part = partial.data();
  const int64_t unit_cost = static_cast<int64_t>(std::min(2 * macs / units, static_cast<double>(int64_t{1} << 30)));
  ParallelClaims(pool, units, 1, unit_cost, [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u)
      GradPixels(g, p, slices, xp, dy, pixels * u / units, pixels * (u + 1) / units,
                 u == 0 ? dw : part + (u - 1) * size);
  });
  if (units == 1) return;
  ParallelRange(pool, size, units - 1, [&](int64_t b, int64_t e) {
    for (int64_t u = 1; u < units; ++u) {
      const float* src = part + (u - 1) * size;
      for (int64_t i = b; i < e; ++i) dw[i] += src[i];
    }
  });
}
#else
void DirectConvBackpropFilter(ThreadPool*, const ConvGeometry&, const float*, const float*, float*) {}
#endif  // TX_DIRECT_CONV

}  // namespace cpu
}  // namespace tx

#include "tensorflux/kernels/cpu/conv_direct.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "tensorflux/kernels/cpu/conv_direct_impl.h"
#include "tensorflux/kernels/cpu/conv_epilogue.h"
#include "tensorflux/kernels/cpu/kernel_util.h"

namespace tx {
namespace cpu {
namespace {

// Work items per thread the direct path aims for: small enough to rebalance, big enough for whole tiles.
constexpr int64_t kClaimsPerThread = 16;
// Bytes of one packed filter panel's K block: small enough to stay in L2 while a pixel block passes.
constexpr int64_t kPanelBlockBytes = int64_t{256} << 10;
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
// The vector types of the two instruction sets, for conv_direct_tiles.h.
#define TX_TILE_INLINE inline
namespace avx2 {  // the engine's baseline (x86-64-v3)
struct Vec {
  using V = __m256;
  static constexpr int kLanes = 8;
  static constexpr int kAccumulators = 12;  // of the 16 ymm registers: 6x2 tiles leave room for 2 loads and a broadcast
  static constexpr int kPanelVectors = 2;  // panels of 16 channels
  static V Zero() { return _mm256_setzero_ps(); }
  static V Load(const float* p) { return _mm256_loadu_ps(p); }
  static V Set1(float v) { return _mm256_set1_ps(v); }
  static V Fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static void Store(float* p, V v) { _mm256_storeu_ps(p, v); }
};
#include "tensorflux/kernels/cpu/conv_direct_tiles.h"  // NOLINT: included once per instruction set
}  // namespace avx2
#pragma GCC push_options
#pragma GCC target("avx512f")
namespace avx512 {
struct Vec {
  using V = __m512;
  static constexpr int kLanes = 16;
  static constexpr int kAccumulators = 24;  // of the 32 zmm registers (Note [Direct Conv2D])
  static constexpr int kPanelVectors = 4;  // panels of 64 channels
  static V Zero() { return _mm512_setzero_ps(); }
  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  static V Set1(float v) { return _mm512_set1_ps(v); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
};
#include "tensorflux/kernels/cpu/conv_direct_tiles.h"  // NOLINT
}  // namespace avx512
#pragma GCC pop_options
#undef TX_TILE_INLINE

bool HasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

// Whether DirectConv runs M output channels on AVX-512 (else AVX2).
bool UsesAvx512(int64_t m) { return HasAvx512() && m % 16 == 0; }

// Channels per packed panel for M output channels.
int64_t PanelWidth(int64_t m) {
  return UsesAvx512(m) ? avx512::Vec::kLanes * avx512::Vec::kPanelVectors
                       : avx2::Vec::kLanes * avx2::Vec::kPanelVectors;
}

// The patch slices cut into pieces of at most `rows` filter rows, grouped into K blocks of at most
// `rows` rows each (a block is a run of consecutive pieces); returns the blocks' piece counts.
std::vector<int64_t> KBlocks(std::vector<PatchSlice>* pieces, int64_t rows) {
  std::vector<PatchSlice> cut;
  for (const PatchSlice& s : *pieces)
    for (int64_t r = 0; r < s.len; r += rows)
      cut.push_back({s.offset + r, std::min(rows, s.len - r), s.filter_row + r});
  *pieces = std::move(cut);
  std::vector<int64_t> blocks;
  int64_t filled = rows;
  for (const PatchSlice& s : *pieces) {
    if (filled + s.len > rows) blocks.push_back(0), filled = 0;
    ++blocks.back();
    filled += s.len;
  }
  return blocks;
}
#endif  // TX_DIRECT_CONV

}  // namespace

bool DirectConvSupported(const ConvGeometry& g) {
#if TX_DIRECT_CONV
  if (g.m <= 0 || g.m % 8 != 0 || g.kh * g.kw * g.c <= 0) return false;
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

bool DirectConvFilterGradSupported(const ConvGeometry& g) {
#if TX_DIRECT_CONV
  return HasAvx512() && g.m % 16 == 0 && DirectConvSupported(g);
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
void PackDirectConvFilter(const float* w, int64_t k, int64_t m, PackedConvFilter* out) {
  out->k = k, out->m = m;
  out->data.resize(k * m);
  const int64_t width = PanelWidth(m);
  float* dst = out->data.data();
  for (int64_t j0 = 0; j0 < m; j0 += width) {
    const int64_t wj = std::min(width, m - j0);
    for (int64_t r = 0; r < k; ++r, dst += wj) std::memcpy(dst, w + r * m + j0, sizeof(float) * wj);
  }
}

void DirectConv(ThreadPool* pool, const ConvGeometry& g, const float* x, const PackedConvFilter& w, float* y,
                const ConvEpilogue* epilogue) {
  const PaddedInput p = DirectConvPadding(g);
  std::vector<float> fresh;
  const float* xp = DirectConvPaddedInput(pool, g, x, &fresh);
  const bool wide = UsesAvx512(g.m);
  const int64_t k = w.k, width = PanelWidth(g.m), panels = (g.m + width - 1) / width;
  std::vector<PatchSlice> pieces = PatchSlices(g, p);
  const std::vector<int64_t> kblocks = KBlocks(&pieces, std::max<int64_t>(1, kPanelBlockBytes / (4 * width)));
  // Pixel blocks: enough (panel, block) items for the threads to share, in whole register tiles.
  const int64_t pixels = g.n * g.oh * g.ow, tile = wide ? avx512::Vec::kAccumulators : avx2::Vec::kAccumulators;
  const int64_t threads = pool->num_threads() + 1;
  const int64_t want = std::min((kClaimsPerThread * threads + panels - 1) / panels, (pixels + tile - 1) / tile);
  const int64_t block = (pixels / std::max<int64_t>(want, 1) + tile - 1) / tile * tile;
  const int64_t blocks = (pixels + block - 1) / block;
  // ~cycles per item, saturated so the product cannot overflow (k and m fit 32 bits).
  const int64_t item_cost = std::min<int64_t>(2 * k * width * std::min<int64_t>(block, 1 << 20), int64_t{1} << 30);
  ParallelClaims(pool, panels * blocks, 1, item_cost, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t j0 = i / blocks * width, q0 = i % blocks * block, q1 = std::min(pixels, q0 + block);
      const int64_t wj = std::min(width, g.m - j0);
      const float* panel = w.data.data() + j0 * k;
      const PatchSlice* first = pieces.data();
      for (size_t b = 0; b < kblocks.size(); first += kblocks[b++]) {
        if (wide)
          avx512::Panel(wj, g, p, xp, first, kblocks[b], panel, q0, q1, b > 0, y + j0);
        else
          avx2::Panel(wj, g, p, xp, first, kblocks[b], panel, q0, q1, b > 0, y + j0);
      }
      if (epilogue != nullptr) epilogue->Apply(y, g.m, q0, q1, j0, wj);
    }
  });
}

void DirectConv(ThreadPool* pool, const ConvGeometry& g, const float* x, const float* w, float* y,
                const ConvEpilogue* epilogue) {
  thread_local PackedConvFilter packed;
  PackDirectConvFilter(w, g.kh * g.kw * g.c, g.m, &packed);
  DirectConv(pool, g, x, packed, y, epilogue);
}
#else
void PackDirectConvFilter(const float*, int64_t, int64_t, PackedConvFilter*) {}
void DirectConv(ThreadPool*, const ConvGeometry&, const float*, const PackedConvFilter&, float*, const ConvEpilogue*) {}
void DirectConv(ThreadPool*, const ConvGeometry&, const float*, const float*, float*, const ConvEpilogue*) {}
#endif  // TX_DIRECT_CONV

}  // namespace cpu
}  // namespace tx

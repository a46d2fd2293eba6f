// The register tiles of the direct float32 Conv2D (Note [Direct Conv2D] in conv_direct.h), generic
// over a vector type `Vec` (its lanes, accumulator budget, load/store/broadcast/fma). Included twice
// by conv_direct.cc, into namespaces avx2 and avx512 under the matching target, so that each copy
// is compiled for its own instruction set (no include guard, by design).

// y[R pixels, Vec::kLanes*NV channels] (+)= sum over pieces s, p < s.len of
// a[r][s.offset + p] * w[(s.filter_row + p)*ldw + ...]: a[r] points at pixel r's first tap, w at a
// packed filter panel (rows ldw apart), y's pixels are m apart; `accumulate` adds to y.
template <int R, int NV>
TX_TILE_INLINE void Tile(const PatchSlice* pieces, int64_t npieces, const float* const* a, const float* w, int64_t ldw,
                         int64_t m, bool accumulate, float* y) {
  constexpr int L = Vec::kLanes;
  typename Vec::V acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NV; ++j) acc[r][j] = accumulate ? Vec::Load(y + r * m + L * j) : Vec::Zero();
  for (int64_t s = 0; s < npieces; ++s) {
    const float* as[R];
    for (int r = 0; r < R; ++r) as[r] = a[r] + pieces[s].offset;
    const float* ws = w + pieces[s].filter_row * ldw;
    for (int64_t p = 0; p < pieces[s].len; ++p, ws += ldw) {
      typename Vec::V b[NV];
      for (int j = 0; j < NV; ++j) b[j] = Vec::Load(ws + L * j);
      for (int r = 0; r < R; ++r) {
        const typename Vec::V av = Vec::Set1(as[r][p]);
        for (int j = 0; j < NV; ++j) acc[r][j] = Vec::Fma(av, b[j], acc[r][j]);
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NV; ++j) Vec::Store(y + r * m + L * j, acc[r][j]);
}

// Tile for r pixels (1 <= r <= R).
template <int NV, int R>
TX_TILE_INLINE void TileOf(int64_t r, const PatchSlice* pieces, int64_t npieces, const float* const* a, const float* w,
                           int64_t ldw, int64_t m, bool accumulate, float* y) {
  if constexpr (R > 1) {
    if (r < R) return TileOf<NV, R - 1>(r, pieces, npieces, a, w, ldw, m, accumulate, y);
  }
  Tile<R, NV>(pieces, npieces, a, w, ldw, m, accumulate, y);
}

// Output pixels [q0, q1) of one packed panel of Vec::kLanes*NV channels (y already offset to the
// panel's first channel), over the pieces of one K block: register tiles of the widest pixel
// count the accumulator budget allows, then one narrower tile.
template <int NV>
void PanelPixels(const ConvGeometry& g, const PaddedInput& p, const float* xp, const PatchSlice* pieces,
                 int64_t npieces, const float* w, int64_t q0, int64_t q1, bool accumulate, float* y) {
  constexpr int kPixels = Vec::kAccumulators / NV;
  const float* a[kPixels];
  PixelWalker pixels(g, p, xp, q0);
  for (int64_t q = q0; q < q1; q += kPixels) {
    const int64_t r = std::min<int64_t>(kPixels, q1 - q);
    for (int64_t i = 0; i < r; ++i) a[i] = pixels.Next();
    TileOf<NV, kPixels>(r, pieces, npieces, a, w, Vec::kLanes * NV, g.m, accumulate, y + q * g.m);
  }
}

// PanelPixels for a panel `width` channels wide (a multiple of Vec::kLanes, at most kPanel).
inline void Panel(int64_t width, const ConvGeometry& g, const PaddedInput& p, const float* xp, const PatchSlice* pieces,
                  int64_t npieces, const float* w, int64_t q0, int64_t q1, bool accumulate, float* y) {
  switch (width / Vec::kLanes) {
    case 4:
      if constexpr (Vec::kPanelVectors >= 4) return PanelPixels<4>(g, p, xp, pieces, npieces, w, q0, q1, accumulate, y);
      break;
    case 3:
      if constexpr (Vec::kPanelVectors >= 3) return PanelPixels<3>(g, p, xp, pieces, npieces, w, q0, q1, accumulate, y);
      break;
    case 2: return PanelPixels<2>(g, p, xp, pieces, npieces, w, q0, q1, accumulate, y);
    case 1: return PanelPixels<1>(g, p, xp, pieces, npieces, w, q0, q1, accumulate, y);
    default: break;
  }
}

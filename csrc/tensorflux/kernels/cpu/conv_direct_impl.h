// Pieces shared by the direct float32 convolution kernels (conv_direct.cc, conv_direct_filter.cc):
// the AVX-512 target switch and the contiguous slices of a pixel's patch in the padded input.
#pragma once

#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/conv_direct.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define TX_DIRECT_CONV 1
#include <immintrin.h>
#define TX_AVX512 __attribute__((target("avx512f")))
#else
#define TX_DIRECT_CONV 0
#endif

namespace tx {
namespace cpu {

// One contiguous slice of the patch of a pixel: `len` input values starting at `offset` (relative
// to the pixel's first tap in the padded input) times filter rows starting at `filter_row`.
struct PatchSlice {
  int64_t offset, len, filter_row;
};

// The slices of one pixel's patch in order of the filter rows [KH*KW*C]: a whole filter row
// (KW*C values) each when not dilated along W, else one slice per tap.
inline std::vector<PatchSlice> PatchSlices(const ConvGeometry& g, const PaddedInput& p) {
  const int64_t c = g.c, row = p.wp * c;
  std::vector<PatchSlice> slices;
  for (int64_t kh = 0; kh < g.kh; ++kh) {
    if (g.dw == 1) {
      slices.push_back({kh * g.dh * row, g.kw * c, kh * g.kw * c});
      continue;
    }
    for (int64_t kw = 0; kw < g.kw; ++kw) slices.push_back({kh * g.dh * row + kw * g.dw * c, c, (kh * g.kw + kw) * c});
  }
  return slices;
}

// Pointer to output pixel q's (q = (n*OH + oh)*OW + ow) first tap in the padded input xp.
inline const float* PixelTaps(const ConvGeometry& g, const PaddedInput& p, const float* xp, int64_t q) {
  const int64_t ow = q % g.ow, t = q / g.ow, oh = t % g.oh, n = t / g.oh;
  return xp + ((n * p.hp + oh * g.sh) * p.wp + ow * g.sw) * g.c;
}

}  // namespace cpu
}  // namespace tx

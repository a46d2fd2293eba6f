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

// Walks output pixels q = (n*OH + oh)*OW + ow in order from `q0`, giving each one's first tap in
// the padded input xp without a division per pixel.
class PixelWalker {
 public:
  PixelWalker(const ConvGeometry& g, const PaddedInput& p, const float* xp, int64_t q0)
      : g_(g), p_(p), xp_(xp), ow_(q0 % g.ow) {
    const int64_t t = q0 / g.ow;
    oh_ = t % g.oh;
    n_ = t / g.oh;
    Row();
  }

  // The current pixel's first tap; moves on to the next pixel.
  const float* Next() {
    const float* taps = row_ + ow_ * g_.sw * g_.c;
    if (++ow_ == g_.ow) {
      ow_ = 0;
      if (++oh_ == g_.oh) oh_ = 0, ++n_;
      Row();
    }
    return taps;
  }

 private:
  // Points row_ at the current output row's first tap.
  void Row() { row_ = xp_ + (n_ * p_.hp + oh_ * g_.sh) * p_.wp * g_.c; }

  const ConvGeometry& g_;
  const PaddedInput& p_;
  const float* xp_;
  const float* row_ = nullptr;
  int64_t ow_, oh_ = 0, n_ = 0;
};

}  // namespace cpu
}  // namespace tx

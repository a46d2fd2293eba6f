// Direct float32 Conv2D for CPUs with AVX-512F: patches are read straight from a zero-padded copy
// of the input (no im2col), so each filter row (kh) is one contiguous [KW*C] slice per output pixel.
// Note [Direct Conv2D]: OpenBLAS packs every A panel it reads, so im2col + sgemm copies each
// patch twice; here a 6-pixel x 64-channel register tile (24 zmm accumulators) walks the KH
// (or KH*KW when dilated along W) contiguous slices of the padded input for 6 neighbouring
// output pixels of one output row, broadcasting one input value per FMA group, with the filter
// [KH*KW*C, M] read in place. Measured ~1.3x less CPU time than 1 MiB im2col chunks + single-threaded
// OpenBLAS sgemm on the 3x3 64->64 [16,32,32,64] benchmark (8.4 vs 11 ms per run).
#pragma once

#include <cstdint>

#include "tensorflux/kernels/cpu/conv_params.h"

namespace tx {
namespace cpu {

// Geometry of the zero-padded input the direct kernel reads: [N, hp, wp, C], image at (pt, pl).
struct PaddedInput {
  int64_t hp = 0, wp = 0;
};

// True when this CPU has AVX-512F and `g` suits the direct kernel (M a multiple of 16, K > 0, padded
// input at most a few times the size of the input and output).
bool DirectConvSupported(const ConvGeometry& g);

// The padded size needed so that every tap of every output pixel of `g` lies inside it.
PaddedInput DirectConvPadding(const ConvGeometry& g);

// Copies images [n0, n1) of x [N,H,W,C] into xp [N,hp,wp,C] (zeros around them).
void DirectConvPadImages(const ConvGeometry& g, const PaddedInput& p, const float* x, int64_t n0, int64_t n1,
                         float* xp);

// Computes output rows [r0, r1) (row = n*OH + oh) of y [N,OH,OW,M] from xp and filter w [KH,KW,C,M].
// Requires DirectConvSupported(g).
void DirectConvRows(const ConvGeometry& g, const PaddedInput& p, const float* xp, const float* w, int64_t r0,
                    int64_t r1, float* y);

}  // namespace cpu
}  // namespace tx

// Direct float32 convolution kernels for CPUs with AVX-512F: patches are read straight from a
// zero-padded copy of the input (no im2col), so each filter row (kh) is one contiguous [KW*C] slice
// per output pixel.
// Note [Direct Conv2D]: OpenBLAS packs every A panel it reads, so im2col + sgemm copies each
// patch twice; here a 6-pixel x 64-channel register tile (24 zmm accumulators) walks the KH
// (or KH*KW when dilated along W) contiguous slices of the padded input for 6 neighbouring
// output pixels of one output row, broadcasting one input value per FMA group, with the filter
// [KH*KW*C, M] read in place. Measured ~1.3x less CPU time than 1 MiB im2col chunks + single-threaded
// OpenBLAS sgemm on the 3x3 64->64 [16,32,32,64] benchmark (8.4 vs 11 ms per run). The output rows
// are split over the intra-op threads in small claimed blocks (ParallelClaims).
// Conv2DBackpropInput with stride 1 is the same kernel run on out_backprop with the flipped,
// transposed filter (Note [Direct Conv2D backprop input] in conv_backprop.cc); the filter gradient
// has its own kernel (Note [Direct Conv2D filter gradient] in conv_direct_filter.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "tensorflux/core/thread_pool.h"
#include "tensorflux/kernels/cpu/conv_params.h"

namespace tx {
namespace cpu {

// Geometry of the zero-padded input the direct kernels read: [N, hp, wp, C], image at (pt, pl).
struct PaddedInput {
  int64_t hp = 0, wp = 0;
};

// True when this CPU has AVX-512F and `g` suits the direct kernels (M a multiple of 16, K > 0, padded
// input at most a few times the size of the input and output).
bool DirectConvSupported(const ConvGeometry& g);

// The padded size needed so that every tap of every output pixel of `g` lies inside it.
PaddedInput DirectConvPadding(const ConvGeometry& g);

// Returns x [N,H,W,C] zero-padded to DirectConvPadding(g), copied on `pool`'s threads into a buffer
// kept by the calling thread (or into `fresh` when it is large), or x itself when `g` needs no
// padding. The result stays valid until this thread's next call or until `fresh` changes.
const float* DirectConvPaddedInput(ThreadPool* pool, const ConvGeometry& g, const float* x, std::vector<float>* fresh);

// y[N,OH,OW,M] = Conv2D(x[N,H,W,C], w[KH,KW,C,M]) for geometry `g`, on `pool`'s threads.
// Requires DirectConvSupported(g).
void DirectConv(ThreadPool* pool, const ConvGeometry& g, const float* x, const float* w, float* y);

// dw[KH,KW,C,M] = the gradient of Conv2D (geometry `g`) w.r.t. its filter, given the input x and
// out_backprop dy [N,OH,OW,M], on `pool`'s threads; the float sums are the same on every call with
// the same thread count. Requires DirectConvSupported(g) and N*OH*OW > 0.
void DirectConvBackpropFilter(ThreadPool* pool, const ConvGeometry& g, const float* x, const float* dy, float* dw);

}  // namespace cpu
}  // namespace tx

// Direct float32 convolution kernels for x86-64 (AVX2+FMA, and AVX-512F where the CPU has it):
// patches are read straight from a zero-padded copy of the input (no im2col), so each filter row
// (kh) is one contiguous [KW*C] slice per output pixel.
// Note [Direct Conv2D]: OpenBLAS packs every A panel it reads, so im2col + sgemm copies each
// patch twice. Here the filter [KH*KW*C, M] is packed once into panels of 16 (AVX2) or 64 (AVX-512)
// output channels, each [K, panel width] contiguous (PackDirectConvFilter; Conv2D keeps the packed
// copy of a constant filter, Note [Packed constant filters] in conv.cc). A register tile of R
// neighbouring output pixels x one panel (R*NV accumulators: 6x2 ymm on AVX2, 6x4 zmm on AVX-512)
// walks the KH (or KH*KW when dilated along W) contiguous slices of the padded input, broadcasting
// one input value per FMA group while the panel row streams sequentially. The work is a grid of
// (panel, pixel block) items claimed by the intra-op threads panel by panel, and K is cut into
// blocks whose panel slice (at most kPanelBlockBytes) stays in L2 while every pixel of the item
// passes over it: a conv with few output pixels and a large filter (ResNet50's last stages: 3x3 or
// 2x2 pixels, 2-9 MB filters) reads each filter panel once per item instead of once per pixel
// tile, and both threads work on it. The AVX-512 measurement that chose the tile (before the
// panels): ~1.3x less CPU time than 1 MiB im2col chunks + single-threaded OpenBLAS sgemm on the
// 3x3 64->64 [16,32,32,64] benchmark (8.4 vs 11 ms per run).
// Conv2DBackpropInput with stride 1 is the same kernel run on out_backprop with the flipped,
// transposed filter (Note [Direct Conv2D backprop input] in conv_backprop.cc); the filter gradient
// has its own AVX-512 kernel (Note [Direct Conv2D filter gradient] in conv_direct_filter.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "tensorflux/core/thread_pool.h"
#include "tensorflux/kernels/cpu/conv_params.h"

namespace tx {
namespace cpu {

class ConvEpilogue;

// Geometry of the zero-padded input the direct kernels read: [N, hp, wp, C], image at (pt, pl).
struct PaddedInput {
  int64_t hp = 0, wp = 0;
};

// A filter [K, M] packed into the panels of Note [Direct Conv2D] for the vectors DirectConv uses
// for M on this CPU.
struct PackedConvFilter {
  std::vector<float> data;
  int64_t k = 0, m = 0;
};

// True when this is an x86-64 build and `g` suits the direct forward kernel (M a multiple of 8,
// K > 0, padded input at most a few times the size of the input and output).
bool DirectConvSupported(const ConvGeometry& g);

// True when this CPU has AVX-512F and `g` suits the direct filter-gradient kernel (as
// DirectConvSupported, with M a multiple of 16).
bool DirectConvFilterGradSupported(const ConvGeometry& g);

// Packs w [K, M] (M a multiple of 8) into `out` for DirectConv.
void PackDirectConvFilter(const float* w, int64_t k, int64_t m, PackedConvFilter* out);

// The padded size needed so that every tap of every output pixel of `g` lies inside it.
PaddedInput DirectConvPadding(const ConvGeometry& g);

// Returns x [N,H,W,C] zero-padded to DirectConvPadding(g), copied on `pool`'s threads into a buffer
// kept by the calling thread (or into `fresh` when it is large), or x itself when `g` needs no
// padding. The result stays valid until this thread's next call or until `fresh` changes.
const float* DirectConvPaddedInput(ThreadPool* pool, const ConvGeometry& g, const float* x, std::vector<float>* fresh);

// y[N,OH,OW,M] = Conv2D(x[N,H,W,C], w) for geometry `g` and w packed from [KH,KW,C,M] with
// k = KH*KW*C and m = M, on `pool`'s threads, then `epilogue` (may be null) on each block of y as
// soon as it is complete. Requires DirectConvSupported(g).
void DirectConv(ThreadPool* pool, const ConvGeometry& g, const float* x, const PackedConvFilter& w, float* y,
                const ConvEpilogue* epilogue = nullptr);

// DirectConv with w [KH,KW,C,M] packed for this call only.
void DirectConv(ThreadPool* pool, const ConvGeometry& g, const float* x, const float* w, float* y,
                const ConvEpilogue* epilogue = nullptr);

// dw[KH,KW,C,M] = the gradient of Conv2D (geometry `g`) w.r.t. its filter, given the input x and
// out_backprop dy [N,OH,OW,M], on `pool`'s threads; the float sums are the same on every call with
// the same thread count. Requires DirectConvFilterGradSupported(g) and N*OH*OW > 0.
void DirectConvBackpropFilter(ThreadPool* pool, const ConvGeometry& g, const float* x, const float* dy, float* dw);

}  // namespace cpu
}  // namespace tx

// CPU kernels for DepthwiseConv2dNativeBackpropInput and DepthwiseConv2dNativeBackpropFilter (NHWC):
// direct window loops vectorized over the contiguous channels.
#include <algorithm>
#include <vector>
#include "tensorflux/kernels/cpu/blocked_sums.h"
#include "tensorflux/kernels/cpu/conv_backprop_util.h"
#include "tensorflux/kernels/cpu/widened_kernel.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Channels per register-resident block of the input-gradient sums.
constexpr int64_t kChannelBlock = 32;
// Output rows per tile of the multiplier-1 filter gradient.
constexpr int64_t kRowTile = 128;

// table[i * k + tap] = the output position that input position i reaches through filter tap
// `tap` in one spatial dimension, or -1 when it reaches none (computed once per call: the
// divisions would otherwise dominate the per-pixel loop).
std::vector<int64_t> OutputTable(int64_t in, int64_t k, int64_t stride, int64_t dilation, int64_t pad, int64_t out) {
  std::vector<int64_t> table(in * k, -1);
  for (int64_t i = 0; i < in; ++i)
    for (int64_t tap = 0; tap < k; ++tap) {
      const int64_t t = i + pad - tap * dilation;
      if (t >= 0 && t % stride == 0 && t / stride < out) table[i * k + tap] = t / stride;
    }
  return table;
}

// dx[N,H,W,C]: each input pixel gathers dy * filter over the outputs whose windows cover it.
template <typename T>
class DepthwiseBackpropInputOp : public ConvBackpropKernel<T> {
 public:
  explicit DepthwiseBackpropInputOp(OpKernelConstruction* c)
      : ConvBackpropKernel<T>(c, "DepthwiseConv2dNativeBackpropInput", /*filter_grad=*/false, /*depthwise=*/true) {}

 protected:
  void Backprop(OpKernelContext* ctx, const ConvGeometry& g, T* dx, int64_t) override {
    const T* w = ctx->input(1).data<T>();
    const T* dy = ctx->input(2).data<T>();
    const int64_t oc = g.c * g.m;
    const int64_t cost = std::max<int64_t>(1, g.kh * g.kw * oc / (g.sh * g.sw));
    const std::vector<int64_t> rows_for = OutputTable(g.h, g.kh, g.sh, g.dh, g.pt, g.oh);
    const std::vector<int64_t> cols_for = OutputTable(g.w, g.kw, g.sw, g.dw, g.pl, g.ow);
    ParallelItems(ctx->intra_op_pool(), g.n * g.h * g.w, cost, [&](int64_t b, int64_t e) {
      for (int64_t idx = b; idx < e; ++idx) {
        const int64_t iw = idx % g.w, t = idx / g.w, ih = t % g.h, n = t / g.h;
        // Channel blocks summed in a local array, which the compiler keeps in vector registers.
        for (int64_t c0 = 0; c0 < g.c; c0 += kChannelBlock) {
          const int64_t nc = std::min(kChannelBlock, g.c - c0);
          T acc[kChannelBlock] = {};
          for (int64_t kh = 0; kh < g.kh; ++kh) {
            const int64_t oh = rows_for[ih * g.kh + kh];
            if (oh < 0) continue;
            for (int64_t kw = 0; kw < g.kw; ++kw) {
              const int64_t ow = cols_for[iw * g.kw + kw];
              if (ow < 0) continue;
              const T* src = dy + ((n * g.oh + oh) * g.ow + ow) * oc + c0 * g.m;
              const T* wk = w + (kh * g.kw + kw) * oc + c0 * g.m;
              if (g.m == 1 && nc == kChannelBlock) {
                for (int64_t c = 0; c < kChannelBlock; ++c) acc[c] += src[c] * wk[c];
              } else {
                for (int64_t c = 0; c < nc; ++c)
                  for (int64_t q = 0; q < g.m; ++q) acc[c] += src[c * g.m + q] * wk[c * g.m + q];
              }
            }
          }
          std::copy(acc, acc + nc, dx + idx * g.c + c0);
        }
      }
    });
  }
};

// dw[KH,KW,C,M] = sum over output rows of x * dy per tap, in blocked parallel sums.
template <typename T>
class DepthwiseBackpropFilterOp : public ConvBackpropKernel<T> {
 public:
  explicit DepthwiseBackpropFilterOp(OpKernelConstruction* c)
      : ConvBackpropKernel<T>(c, "DepthwiseConv2dNativeBackpropFilter", /*filter_grad=*/true, /*depthwise=*/true) {}

 protected:
  void Backprop(OpKernelContext* ctx, const ConvGeometry& g, T* dw, int64_t fsize) override {
    const T* x = ctx->input(0).data<T>();
    const T* dy = ctx->input(2).data<T>();
    const int64_t oc = g.c * g.m, rows = g.n * g.oh * g.ow;
    const int64_t taps = g.kh * g.kw;
    BlockedSums<T>(ctx->intra_op_pool(), rows, taps * oc, fsize, dw, [&](int64_t b, int64_t e, T* acc) {
      if (g.m == 1) {  // tiles of rows whose x and dy stay in L2 while every tap passes over them
        for (int64_t t0 = b; t0 < e; t0 += kRowTile) PerTapSums(g, x, dy, t0, std::min(e, t0 + kRowTile), acc);
        return;
      }
      ForEachPatchTap(g, b, e - b, [&](int64_t tap, int64_t off) {
        if (off < 0) return;
        const T* src = x + off;
        const T* d = dy + (b + tap / taps) * oc;
        T* a = acc + (tap % taps) * oc;
        for (int64_t c = 0; c < g.c; ++c)
          for (int64_t q = 0; q < g.m; ++q) a[c * g.m + q] += src[c] * d[c * g.m + q];
      });
    });
  }

 private:
  // Multiplier 1: acc[tap, c] += sum over rows [b, e) of x * dy, one tap and channel block at a
  // time so the sums stay in vector registers.
  static void PerTapSums(const ConvGeometry& g, const T* x, const T* dy, int64_t b, int64_t e, T* acc) {
    for (int64_t kh = 0; kh < g.kh; ++kh)
      for (int64_t kw = 0; kw < g.kw; ++kw)
        for (int64_t c0 = 0; c0 < g.c; c0 += kChannelBlock) {
          const int64_t nc = std::min(kChannelBlock, g.c - c0);
          T sum[kChannelBlock] = {};
          int64_t ow = b % g.ow, oh = (b / g.ow) % g.oh, n = b / g.ow / g.oh;
          for (int64_t idx = b; idx < e; ++idx) {
            const int64_t ih = oh * g.sh - g.pt + kh * g.dh, iw = ow * g.sw - g.pl + kw * g.dw;
            if (ih >= 0 && ih < g.h && iw >= 0 && iw < g.w) {
              const T* src = x + ((n * g.h + ih) * g.w + iw) * g.c + c0;
              const T* d = dy + idx * g.c + c0;
              if (nc == kChannelBlock) {
                for (int64_t c = 0; c < kChannelBlock; ++c) sum[c] += src[c] * d[c];
              } else {
                for (int64_t c = 0; c < nc; ++c) sum[c] += src[c] * d[c];
              }
            }
            if (++ow == g.ow) {
              ow = 0;
              if (++oh == g.oh) {
                oh = 0;
                ++n;
              }
            }
          }
          T* a = acc + (kh * g.kw + kw) * g.c + c0;
          for (int64_t c = 0; c < nc; ++c) a[c] += sum[c];
        }
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("DepthwiseConv2dNativeBackpropInput").TypeConstraint<float>("T"),
                   DepthwiseBackpropInputOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("DepthwiseConv2dNativeBackpropInput").TypeConstraint<double>("T"),
                   DepthwiseBackpropInputOp<double>);
TX_REGISTER_KERNEL(KernelDefBuilder("DepthwiseConv2dNativeBackpropFilter").TypeConstraint<float>("T"),
                   DepthwiseBackpropFilterOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("DepthwiseConv2dNativeBackpropFilter").TypeConstraint<double>("T"),
                   DepthwiseBackpropFilterOp<double>);

// --- half and bfloat16: the float32 kernel on widened inputs, outputs rounded once
// (Note [Widened kernels]) ---
TX_REGISTER_WIDENED("DepthwiseConv2dNativeBackpropInput", "T");
TX_REGISTER_WIDENED("DepthwiseConv2dNativeBackpropFilter", "T");

}  // namespace
}  // namespace cpu
}  // namespace tx

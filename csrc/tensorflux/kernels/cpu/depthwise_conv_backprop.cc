// CPU kernels for DepthwiseConv2dNativeBackpropInput and DepthwiseConv2dNativeBackpropFilter (NHWC):
// direct window loops vectorized over the contiguous channels.
#include <algorithm>
#include "tensorflux/kernels/cpu/blocked_sums.h"
#include "tensorflux/kernels/cpu/conv_backprop_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// The output position hit by input position `in` through tap `k`, or -1 when no output is.
inline int64_t OutputFor(int64_t in, int64_t k, int64_t stride, int64_t dilation, int64_t pad, int64_t out_size) {
  const int64_t t = in + pad - k * dilation;
  if (t < 0 || t % stride != 0 || t / stride >= out_size) return -1;
  return t / stride;
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
    ParallelItems(ctx->intra_op_pool(), g.n * g.h * g.w, cost, [&](int64_t b, int64_t e) {
      for (int64_t idx = b; idx < e; ++idx) {
        const int64_t iw = idx % g.w, t = idx / g.w, ih = t % g.h, n = t / g.h;
        T* dst = dx + idx * g.c;
        std::fill(dst, dst + g.c, T(0));
        for (int64_t kh = 0; kh < g.kh; ++kh) {
          const int64_t oh = OutputFor(ih, kh, g.sh, g.dh, g.pt, g.oh);
          if (oh < 0) continue;
          for (int64_t kw = 0; kw < g.kw; ++kw) {
            const int64_t ow = OutputFor(iw, kw, g.sw, g.dw, g.pl, g.ow);
            if (ow < 0) continue;
            const T* src = dy + ((n * g.oh + oh) * g.ow + ow) * oc;
            const T* wk = w + (kh * g.kw + kw) * oc;
            if (g.m == 1) {
              for (int64_t c = 0; c < g.c; ++c) dst[c] += src[c] * wk[c];
            } else {
              for (int64_t c = 0; c < g.c; ++c) {
                T acc = T(0);
                for (int64_t q = 0; q < g.m; ++q) acc += src[c * g.m + q] * wk[c * g.m + q];
                dst[c] += acc;
              }
            }
          }
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
      ForEachPatchTap(g, b, e - b, [&](int64_t tap, int64_t off) {
        if (off < 0) return;
        const T* src = x + off;
        const T* d = dy + (b + tap / taps) * oc;
        T* a = acc + (tap % taps) * oc;
        if (g.m == 1) {
          for (int64_t c = 0; c < g.c; ++c) a[c] += src[c] * d[c];
        } else {
          for (int64_t c = 0; c < g.c; ++c)
            for (int64_t q = 0; q < g.m; ++q) a[c * g.m + q] += src[c] * d[c * g.m + q];
        }
      });
    });
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

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernel for DepthwiseConv2dNative (NHWC): a direct window loop vectorized over channels.
#include <algorithm>

#include "tensorflux/kernels/cpu/conv_params.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/widened_kernel.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// output[N,OH,OW,C*M][c*M + q] = sum over the window of input[..., c] * filter[kh, kw, c, q].
template <typename T>
class DepthwiseConvOp : public OpKernel {
 public:
  explicit DepthwiseConvOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(attrs_.Init(c, "DepthwiseConv2dNative"));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    const Tensor& in = ctx->input(0);
    const Tensor& f = ctx->input(1);
    ConvGeometry g;
    TX_CTX_RETURN_IF_ERROR(ctx, attrs_.Compute(in, f, /*depthwise=*/true, &g));
    const int64_t oc = g.c * g.m;
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({g.n, g.oh, g.ow, oc}), &out));
    if (out->num_elements() == 0) return;
    const T* x = in.data<T>();
    const T* w = f.data<T>();
    T* y = out->data<T>();
    const int64_t rows = g.n * g.oh * g.ow;
    ParallelItems(ctx->intra_op_pool(), rows, g.kh * g.kw * oc, [&](int64_t b, int64_t e) {
      for (int64_t idx = b; idx < e; ++idx) {
        const int64_t ow = idx % g.ow, t = idx / g.ow, oh = t % g.oh, n = t / g.oh;
        T* dst = y + idx * oc;
        std::fill(dst, dst + oc, T(0));
        for (int64_t kh = 0; kh < g.kh; ++kh) {
          const int64_t ih = oh * g.sh - g.pt + kh * g.dh;
          if (ih < 0 || ih >= g.h) continue;
          for (int64_t kw = 0; kw < g.kw; ++kw) {
            const int64_t iw = ow * g.sw - g.pl + kw * g.dw;
            if (iw < 0 || iw >= g.w) continue;
            const T* src = x + ((n * g.h + ih) * g.w + iw) * g.c;
            const T* wk = w + (kh * g.kw + kw) * oc;
            if (g.m == 1) {
              for (int64_t c = 0; c < g.c; ++c) dst[c] += src[c] * wk[c];
            } else {
              for (int64_t c = 0; c < g.c; ++c)
                for (int64_t q = 0; q < g.m; ++q) dst[c * g.m + q] += src[c] * wk[c * g.m + q];
            }
          }
        }
      }
    });
  }

 private:
  ConvAttrs attrs_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("DepthwiseConv2dNative").TypeConstraint<float>("T"), DepthwiseConvOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("DepthwiseConv2dNative").TypeConstraint<double>("T"), DepthwiseConvOp<double>);

// --- half and bfloat16: the float32 kernel on widened inputs, outputs rounded once
// (Note [Widened kernels]) ---
TX_REGISTER_WIDENED("DepthwiseConv2dNative", "T");

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernel for Conv2D (NHWC): blocked im2col + BLAS GEMM; 1x1 stride-1 convolutions are one GEMM.
// Note [Conv2D on CPU]: the output rows (n, oh, ow) are processed in chunks whose patch matrix
// [rows, KH*KW*C] stays near the L3 cache; the calling thread fills a chunk's patches, then one
// BLAS call (threaded by OpenBLAS with the intra-op thread count) multiplies it by the filter
// viewed as [KH*KW*C, M], writing straight into the output. Filling patches on the intra-op pool
// was measured 3x slower overall: OpenBLAS' worker threads keep spinning between calls and
// compete with the pool for the same cores; the copy is a small part of the work.
#include <algorithm>
#include <cstring>
#include <vector>

#include "tensorflux/kernels/cpu/blas.h"
#include "tensorflux/kernels/cpu/conv_params.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Patch bytes per chunk and BLAS thread: big enough that each thread gets a sizable share of one
// GEMM, small enough to stay near the caches.
constexpr int64_t kPatchChunkBytesPerThread = int64_t{2} << 20;
constexpr int64_t kPatchChunkBytesMax = int64_t{32} << 20;

// Writes the patch rows [row0, row0 + rows) of the im2col matrix (row = n*OH*OW + oh*OW + ow).
template <typename T>
void Im2ColRows(const ConvGeometry& g, const T* in, int64_t row0, int64_t rows, T* dst) {
  const int64_t c = g.c, rowlen = g.kw * c;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t idx = row0 + r;
    const int64_t ow = idx % g.ow, t = idx / g.ow, oh = t % g.oh, n = t / g.oh;
    const int64_t ih0 = oh * g.sh - g.pt, iw0 = ow * g.sw - g.pl;
    const T* img = in + n * g.h * g.w * c;
    for (int64_t kh = 0; kh < g.kh; ++kh, dst += rowlen) {
      const int64_t ih = ih0 + kh * g.dh;
      if (ih < 0 || ih >= g.h) {
        std::memset(dst, 0, sizeof(T) * rowlen);
        continue;
      }
      const T* src = img + ih * g.w * c;
      if (g.dw == 1 && iw0 >= 0 && iw0 + g.kw <= g.w) {
        std::memcpy(dst, src + iw0 * c, sizeof(T) * rowlen);
        continue;
      }
      for (int64_t kw = 0; kw < g.kw; ++kw) {
        const int64_t iw = iw0 + kw * g.dw;
        if (iw < 0 || iw >= g.w) std::memset(dst + kw * c, 0, sizeof(T) * c);
        else std::memcpy(dst + kw * c, src + iw * c, sizeof(T) * c);
      }
    }
  }
}

// output[N,OH,OW,M] = conv(input[N,H,W,C], filter[KH,KW,C,M]) for float and double.
template <typename T>
class Conv2DOp : public OpKernel {
 public:
  explicit Conv2DOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(attrs_.Init(c, "Conv2D")); }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    const Tensor& in = ctx->input(0);
    const Tensor& f = ctx->input(1);
    ConvGeometry g;
    TX_CTX_RETURN_IF_ERROR(ctx, attrs_.Compute(in, f, /*depthwise=*/false, &g));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({g.n, g.oh, g.ow, g.m}), &out));
    if (out->num_elements() == 0) return;
    T* y = out->data<T>();
    const int64_t k = g.kh * g.kw * g.c, rows = g.n * g.oh * g.ow;
    if (k == 0) {
      std::fill(y, y + out->num_elements(), T(0));
      return;
    }
    const T* x = in.data<T>();
    const T* w = f.data<T>();
    if (g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pl == 0 && g.oh == g.h && g.ow == g.w) {
      // 1x1, stride 1, no padding: the input already is the patch matrix [N*H*W, C].
      Gemm(ctx, rows, g.m, k, x, w, y);
      return;
    }
    const int64_t threads = std::max<int64_t>(1, ctx->intra_op_pool()->num_threads());
    const int64_t bytes = std::min(kPatchChunkBytesMax, kPatchChunkBytesPerThread * threads);
    const int64_t chunk = std::max<int64_t>(1, std::min(rows, bytes / static_cast<int64_t>(sizeof(T) * k)));
    // Per-thread scratch reused across calls: a fresh allocation each call costs page faults
    // comparable to the GEMM itself.
    thread_local std::vector<T> scratch;
    if (static_cast<int64_t>(scratch.size()) < chunk * k) scratch.assign(chunk * k, T(0));
    T* patches = scratch.data();
    for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
      const int64_t nr = std::min(chunk, rows - r0);
      Im2ColRows(g, x, r0, nr, patches);  // on this thread: see Note [Conv2D on CPU]
      Gemm(ctx, nr, g.m, k, patches, w, y + r0 * g.m);
      if (!ctx->status().ok()) return;
    }
  }

 private:
  // y[rows, m] = a[rows, k] * w[k, m], split along rows when BLAS' 32-bit sizes require it.
  static void Gemm(OpKernelContext* ctx, int64_t rows, int64_t m, int64_t k, const T* a, const T* w, T* y) {
    if (!FitsBlasInt(1, m, k, k, m, m)) {
      ctx->SetStatus(InvalidArgument("Conv2D filter of ", k, "x", m, " is too large for BLAS"));
      return;
    }
    const int64_t step = int64_t{1} << 30;
    for (int64_t r = 0; r < rows; r += step) {
      const int64_t nr = std::min(step, rows - r);
      BlasGemm(false, false, nr, m, k, a + r * k, k, w, m, y + r * m, m);
    }
  }

  ConvAttrs attrs_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("Conv2D").TypeConstraint<float>("T"), Conv2DOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("Conv2D").TypeConstraint<double>("T"), Conv2DOp<double>);

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernels for Conv2DBackpropInput and Conv2DBackpropFilter (NHWC), blocked like Conv2D.
// Note [Conv2D backprop on CPU]: viewing the forward conv as Y[rows, M] = P[rows, K] * W[K, M]
// with P the im2col patch matrix (K = KH*KW*C), the input gradient is dP = dY * W^T followed by
// a col2im scatter-add of dP into dX, and the filter gradient is dW = P^T * dY. float32 runs
// direct AVX-512 kernels where they apply (Note [Direct Conv2D backprop input] below, Note
// [Direct Conv2D filter gradient] in conv_direct_filter.cc). Otherwise both walk the output rows
// in chunks whose patch block stays in L2 (as in Note [Conv2D on CPU]), each intra-op thread
// copying its own patches and running single-threaded BLAS on them: the input gradient splits
// the images over the threads (their dX blocks are disjoint, so the scatter-adds never race),
// the filter gradient splits the rows into one fixed range per thread, each summed into its own
// [K, M] buffer and then added in order (the same sums on every run). With one thread (or one
// image, for the input gradient) the caller copies the patches for threaded BLAS calls on large
// chunks instead. 1x1 stride-1 unpadded convolutions need no patches: each gradient is one GEMM.
// The per-thread chunks measured ~10% less process CPU time than one patch-copying thread feeding
// threaded BLAS (3x3 64->40 filter gradient on [16,32,32,64]: 9.2-10.4 vs 10.6-12.1 ms; 3x3 24->64
// input gradient: 4.6-6.0 vs 5.0-6.7 ms) on a loaded 2-core machine, where wall times were too noisy to compare.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "tensorflux/kernels/cpu/blas.h"
#include "tensorflux/kernels/cpu/conv_backprop_util.h"
#include "tensorflux/kernels/cpu/conv_direct.h"
#include "tensorflux/kernels/cpu/widened_kernel.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Patch bytes per chunk and BLAS thread. Larger than Conv2D's: each chunk costs one threaded BLAS
// call, and on a busy 2-core machine 2 MiB per thread (9 calls here) measured 155 ms against 65 ms
// with 16 MiB (2 calls) for the 3x3 64->64 [16,32,32,64] backprop (tools/bench/conv_grad_bench.py).
constexpr int64_t kChunkBytesPerThread = int64_t{16} << 20;
constexpr int64_t kChunkBytesMax = int64_t{32} << 20;
// Row blocks of the patch-free paths, well inside BLAS's 32-bit sizes.
constexpr int64_t kBlasRowStep = int64_t{1} << 28;
// Patch bytes per chunk when every thread copies its own patches for single-threaded BLAS (the
// chunk stays in L2 while the GEMM reads it, as in Conv2D).
constexpr int64_t kThreadChunkBytes = int64_t{1} << 20;
// Fewer output rows per thread than this and the filter gradient uses threaded BLAS calls instead.
constexpr int64_t kMinRowsPerThread = 256;

// Rows per patch chunk of K elements each, sized by the intra-op thread count.
template <typename T>
int64_t ChunkRows(OpKernelContext* ctx, int64_t rows, int64_t k) {
  const int64_t threads = std::max<int64_t>(1, ctx->intra_op_pool()->num_threads());
  const int64_t bytes = std::min(kChunkBytesMax, kChunkBytesPerThread * threads);
  return std::max<int64_t>(1, std::min(rows, bytes / static_cast<int64_t>(sizeof(T) * k)));
}

// Rows per per-thread patch chunk of K elements each.
template <typename T>
int64_t ThreadChunkRows(int64_t rows, int64_t k) {
  return std::max<int64_t>(1, std::min(rows, kThreadChunkBytes / static_cast<int64_t>(sizeof(T) * k)));
}

// ~cycles for `rows` patch rows of a K x M product, saturated for ParallelClaims.
int64_t RowsCost(int64_t rows, int64_t k, int64_t m) {
  return static_cast<int64_t>(std::min(2.0 * rows * k * m, static_cast<double>(int64_t{1} << 30)));
}

// True for 1x1 filters with stride 1 and no padding: the input itself is the patch matrix.
bool IsPointwise(const ConvGeometry& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pl == 0 && g.oh == g.h && g.ow == g.w;
}

// Per-thread scratch reused across calls (fresh allocations cost page faults comparable to the GEMM).
template <typename T>
T* Scratch(int64_t n) {
  thread_local std::vector<T> buf;
  if (static_cast<int64_t>(buf.size()) < n) buf.assign(n, T(0));
  return buf.data();
}

// Note [Direct Conv2D backprop input]: with stride 1,
//   dx[n,h,w,c] = sum over i, j, m of dy[n, h + pt - i*dh, w + pl - j*dw, m] * W[i,j,c,m]
// (terms outside dy dropped), which is Conv2D of dy by W'[i,j,m,c] = W[KH-1-i, KW-1-j, c, m] with
// stride 1, the same dilations, top/left padding (KH-1)*dh - pt and (KW-1)*dw - pl, and output
// [N,H,W,C]. float32 runs it through the direct kernel (Note [Direct Conv2D]) when the input depth C
// is a multiple of 8 and both paddings are >= 0 (explicit padding can exceed the window): it
// writes every element of dx, so neither the zero fill nor the col2im scatter is needed.
// Measured on the 3x3 64->64 [16,32,32,64] benchmark (tools/bench/conv_grad_bench.py, 2 shared
// cores): 4.1-5.3 ms per run against 11.9 ms for threaded sgemm + col2im (TensorFlow 2.21: 5.0-6.2 ms).

// Sets `t` to the forward geometry of Note [Direct Conv2D backprop input] for backprop geometry `g`;
// false when the direct kernel cannot run it.
bool TransposedGeometry(const ConvGeometry& g, ConvGeometry* t) {
  if (g.sh != 1 || g.sw != 1) return false;
  t->n = g.n, t->h = g.oh, t->w = g.ow, t->c = g.m;
  t->kh = g.kh, t->kw = g.kw, t->m = g.c;
  t->oh = g.h, t->ow = g.w;
  t->sh = 1, t->sw = 1, t->dh = g.dh, t->dw = g.dw;
  t->pt = (g.kh - 1) * g.dh - g.pt, t->pl = (g.kw - 1) * g.dw - g.pl;
  return t->pt >= 0 && t->pl >= 0 && DirectConvSupported(*t);
}

// wt[KH,KW,M,C] = w[KH,KW,C,M] flipped in both spatial dimensions with its channels transposed.
void FlipTransposeFilter(const ConvGeometry& g, const float* w, float* wt) {
  const int64_t taps = g.kh * g.kw, cm = g.c * g.m;
  for (int64_t tap = 0; tap < taps; ++tap) {
    const float* src = w + (taps - 1 - tap) * cm;
    float* dst = wt + tap * cm;
    for (int64_t c = 0; c < g.c; ++c)
      for (int64_t m = 0; m < g.m; ++m) dst[m * g.c + c] = src[c * g.m + m];
  }
}

// dx[N,H,W,C] = the gradient of Conv2D's output w.r.t. its input, given filter and out_backprop.
template <typename T>
class Conv2DBackpropInputOp : public ConvBackpropKernel<T> {
 public:
  explicit Conv2DBackpropInputOp(OpKernelConstruction* c)
      : ConvBackpropKernel<T>(c, "Conv2DBackpropInput", /*filter_grad=*/false, /*depthwise=*/false) {}

 protected:
  void Backprop(OpKernelContext* ctx, const ConvGeometry& g, T* dx, int64_t size) override {
    const int64_t k = g.kh * g.kw * g.c, rows = g.n * g.oh * g.ow;
    if constexpr (std::is_same<T, float>::value) {
      ConvGeometry t;
      if (rows > 0 && TransposedGeometry(g, &t)) {  // Note [Direct Conv2D backprop input]
        float* wt = Scratch<float>(k * g.m);
        FlipTransposeFilter(g, ctx->input(1).data<float>(), wt);
        return DirectConv(ctx->intra_op_pool(), t, ctx->input(2).data<float>(), wt, dx);
      }
    }
    if (rows == 0 || g.m == 0) return std::fill(dx, dx + size, T(0));
    if (!FitsBlasInt(1, k, g.m, g.m, g.m, k)) {
      ctx->SetStatus(InvalidArgument(this->op_, ": filter of ", k, "x", g.m, " is too large for BLAS"));
      return;
    }
    const T* w = ctx->input(1).data<T>();
    const T* dy = ctx->input(2).data<T>();
    ThreadPool* pool = ctx->intra_op_pool();
    const int threads = pool->num_threads() + 1;
    if (IsPointwise(g)) {  // dx[rows, C] = dy[rows, M] * W[C, M]^T
      for (int64_t r = 0; r < rows; r += kBlasRowStep)
        PoolGemm(ctx->intra_op_pool(), false, true, std::min(kBlasRowStep, rows - r), g.c, g.m, dy + r * g.m, g.m, w,
                 g.m, dx + r * g.c, g.c);
      return;
    }
    const int64_t image_rows = g.oh * g.ow, image_size = g.h * g.w * g.c;
    if (threads > 1 && g.n > 1) {  // images split over the threads: Note [Conv2D backprop on CPU]
      const int64_t chunk = ThreadChunkRows<T>(rows, k);
      ParallelClaims(pool, g.n, 1, RowsCost(image_rows, k, g.m), [&](int64_t n0, int64_t n1) {
        std::fill(dx + n0 * image_size, dx + n1 * image_size, T(0));
        T* patches = Scratch<T>(chunk * k);
        for (int64_t r0 = n0 * image_rows; r0 < n1 * image_rows; r0 += chunk) {
          const int64_t nr = std::min(chunk, n1 * image_rows - r0);
          BlasGemm(false, true, nr, k, g.m, dy + r0 * g.m, g.m, w, g.m, patches, k);
          ScatterAddPatches(g, patches, r0, nr, dx);
        }
      });
      return;
    }
    std::fill(dx, dx + size, T(0));
    const int64_t chunk = ChunkRows<T>(ctx, rows, k);
    T* patches = Scratch<T>(chunk * k);
    for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
      const int64_t nr = std::min(chunk, rows - r0);
      PoolGemm(pool, false, true, nr, k, g.m, dy + r0 * g.m, g.m, w, g.m, patches, k);
      ScatterAddPatches(g, patches, r0, nr, dx);  // on this thread: see Note [Conv2D backprop on CPU]
    }
  }
};

// dw[KH,KW,C,M] = the gradient of Conv2D's output w.r.t. its filter, given input and out_backprop.
template <typename T>
class Conv2DBackpropFilterOp : public ConvBackpropKernel<T> {
 public:
  explicit Conv2DBackpropFilterOp(OpKernelConstruction* c)
      : ConvBackpropKernel<T>(c, "Conv2DBackpropFilter", /*filter_grad=*/true, /*depthwise=*/false) {}

 protected:
  void Backprop(OpKernelContext* ctx, const ConvGeometry& g, T* dw, int64_t size) override {
    const int64_t k = g.kh * g.kw * g.c, rows = g.n * g.oh * g.ow;
    if (rows == 0) {
      std::fill(dw, dw + size, T(0));
      return;
    }
    if (!FitsBlasInt(k, g.m, 1, k, g.m, g.m)) {
      ctx->SetStatus(InvalidArgument(this->op_, ": filter of ", k, "x", g.m, " is too large for BLAS"));
      return;
    }
    const T* x = ctx->input(0).data<T>();
    const T* dy = ctx->input(2).data<T>();
    if constexpr (std::is_same<T, float>::value) {
      if (DirectConvFilterGradSupported(g)) return DirectConvBackpropFilter(ctx->intra_op_pool(), g, x, dy, dw);
    }
    const bool pointwise = IsPointwise(g);
    const int threads = ctx->intra_op_pool()->num_threads() + 1;
    if (!pointwise && threads > 1 && rows >= threads * kMinRowsPerThread)
      return PerThreadGemms(ctx->intra_op_pool(), g, x, dy, threads, dw);
    const int64_t chunk = pointwise ? std::min(rows, kBlasRowStep) : ChunkRows<T>(ctx, rows, k);
    T* patches = pointwise ? nullptr : Scratch<T>(chunk * k);
    std::vector<T> partial(rows > chunk ? size : 0);
    for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
      const int64_t nr = std::min(chunk, rows - r0);
      const T* a = pointwise ? x + r0 * k : patches;
      if (!pointwise) GatherPatches(g, x, r0, nr, patches);  // on this thread: see the Note above
      T* target = r0 == 0 ? dw : partial.data();
      PoolGemm(ctx->intra_op_pool(), true, false, k, g.m, nr, a, k, dy + r0 * g.m, g.m, target, g.m);  // P^T * dY
      if (r0 == 0) continue;
      for (int64_t i = 0; i < size; ++i) dw[i] += partial[i];
    }
  }

 private:
  // The filter gradient of Note [Conv2D backprop on CPU] with one fixed row range per thread,
  // each thread gathering its own patches for single-threaded BLAS into its own [K, M] sum.
  static void PerThreadGemms(ThreadPool* pool, const ConvGeometry& g, const T* x, const T* dy, int threads, T* dw) {
    const int64_t k = g.kh * g.kw * g.c, rows = g.n * g.oh * g.ow, size = k * g.m;
    const int64_t chunk = ThreadChunkRows<T>(rows, k);
    // Range u sums into dw (u == 0) or sums[u - 1]; products of later chunks go through a scratch.
    thread_local std::vector<T> kept;  // the caller's: workers see only `sums`
    if (static_cast<int64_t>(kept.size()) < (threads - 1) * size) kept.resize((threads - 1) * size);
    T* sums = kept.data();
    ParallelClaims(pool, threads, 1, RowsCost(rows / threads, k, g.m), [&](int64_t u0, int64_t u1) {
      T* patches = Scratch<T>(chunk * k + size);
      T* product = patches + chunk * k;
      for (int64_t u = u0; u < u1; ++u) {
        T* target = u == 0 ? dw : sums + (u - 1) * size;
        const int64_t end = rows * (u + 1) / threads;
        for (int64_t r0 = rows * u / threads; r0 < end; r0 += chunk) {
          const int64_t nr = std::min(chunk, end - r0);
          const bool first = r0 == rows * u / threads;
          GatherPatches(g, x, r0, nr, patches);
          BlasGemm(true, false, k, g.m, nr, patches, k, dy + r0 * g.m, g.m, first ? target : product, g.m);
          if (!first)
            for (int64_t i = 0; i < size; ++i) target[i] += product[i];
        }
      }
    });
    ParallelRange(pool, size, threads - 1, [&](int64_t b, int64_t e) {
      for (int u = 1; u < threads; ++u) {
        const T* src = sums + (u - 1) * size;
        for (int64_t i = b; i < e; ++i) dw[i] += src[i];
      }
    });
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("Conv2DBackpropInput").TypeConstraint<float>("T"), Conv2DBackpropInputOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("Conv2DBackpropInput").TypeConstraint<double>("T"), Conv2DBackpropInputOp<double>);
TX_REGISTER_KERNEL(KernelDefBuilder("Conv2DBackpropFilter").TypeConstraint<float>("T"), Conv2DBackpropFilterOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("Conv2DBackpropFilter").TypeConstraint<double>("T"),
                   Conv2DBackpropFilterOp<double>);

// --- half and bfloat16: the float32 kernel on widened inputs, outputs rounded once
// (Note [Widened kernels]) ---
TX_REGISTER_WIDENED("Conv2DBackpropInput", "T");
TX_REGISTER_WIDENED("Conv2DBackpropFilter", "T");

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernel for Conv2D (NHWC): a direct AVX2/AVX-512 kernel for float32, else blocked im2col + BLAS GEMM
// (1x1 stride-1 convolutions as one GEMM).
// Note [Conv2D on CPU]: the output rows are cut into blocks that the intra-op threads claim one
// at a time (ParallelClaims), so a thread the OS delays on the shared cores does not hold up the
// op. float32 with M a multiple of 8 on x86-64 reads patches straight from a zero-padded input
// copy (Note [Direct Conv2D] in conv_direct.h). Otherwise each block is walked in chunks whose
// patch matrix [rows, KH*KW*C] is about 1 MiB (stays in L2): the thread fills a chunk's patches and
// multiplies them by the filter viewed as [KH*KW*C, M] with a single-threaded BLAS call, writing
// straight into the output. OpenBLAS is single-threaded (Note [Single-threaded BLAS] in blas.h):
// its own workers would spin while our threads copy patches, competing for the same cores. When
// there are too few rows to share, the caller alone runs the GEMMs. Measured on the
// 3x3 64->64 [16,32,32,64] benchmark (2 shared cores, process CPU time per run): one thread filling
// patches for threaded BLAS calls 16-22 ms, per-thread chunks + single-threaded BLAS ~11 ms, the
// direct kernel ~8.4 ms (TensorFlow 2.21 with oneDNN: ~8.0 ms).
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include "tensorflux/kernels/cpu/blas.h"
#include "tensorflux/kernels/cpu/conv_direct.h"
#include "tensorflux/kernels/cpu/conv_epilogue.h"
#include "tensorflux/kernels/cpu/conv_params.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/widened_kernel.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Patch bytes per chunk and thread: keeps the chunk in L2 while the GEMM reads it (1 MiB measured
// best among 128 KiB..2 MiB on the benchmark).
constexpr int64_t kPatchChunkBytes = int64_t{1} << 20;
// Fewer output rows per thread than this and the threads share the GEMMs through threaded BLAS instead.
constexpr int64_t kMinRowsPerThread = 32;

// Writes the patch rows [row0, row0 + rows) of the im2col matrix (row = n*OH*OW + oh*OW + ow) of
// input channels [c0, c0 + cn) (all of them by default; one group's for a grouped convolution).
template <typename T>
void Im2ColRows(const ConvGeometry& g, const T* in, int64_t row0, int64_t rows, T* dst, int64_t c0 = 0,
                int64_t cn = -1) {
  if (cn < 0) cn = g.c;
  const int64_t c = g.c, rowlen = g.kw * cn;
  in += c0;
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
      if (cn == c && g.dw == 1 && iw0 >= 0 && iw0 + g.kw <= g.w) {
        std::memcpy(dst, src + iw0 * c, sizeof(T) * rowlen);
        continue;
      }
      for (int64_t kw = 0; kw < g.kw; ++kw) {
        const int64_t iw = iw0 + kw * g.dw;
        if (iw < 0 || iw >= g.w)
          std::memset(dst + kw * cn, 0, sizeof(T) * cn);
        else
          std::memcpy(dst + kw * cn, src + iw * c, sizeof(T) * cn);
      }
    }
  }
}

// output[N,OH,OW,M] = conv(input[N,H,W,C], filter[KH,KW,C,M]) for float and double.
template <typename T>
class Conv2DOp : public OpKernel, public EpilogueConv {
 public:
  explicit Conv2DOp(OpKernelConstruction* c) : OpKernel(c), filter_is_const_(FilterIsConst(c->node())) {
    c->SetStatus(attrs_.Init(c, "Conv2D"));
  }

  void Compute(OpKernelContext* ctx) override {
    ConvGeometry g;
    TX_CTX_RETURN_IF_ERROR(ctx, Geometry(ctx, &g));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({g.n, g.oh, g.ow, g.m}), &out));
    Convolve(ctx, g, out, nullptr);
  }

  bool ComputeWithEpilogue(OpKernelContext* ctx, const std::vector<EpilogueStep>& steps,
                           const Tensor* operands) override {
    if constexpr (!std::is_same<T, float>::value) {
      return false;
    } else {
      ConvGeometry g;
      Status s = Geometry(ctx, &g);
      if (!s.ok()) return ctx->SetStatus(s), true;  // the conv's own error, as unfused
      const TensorShape shape({g.n, g.oh, g.ow, g.m});
      ConvEpilogue epilogue;
      if (!epilogue.Bind(steps, operands, shape)) return false;
      Tensor* out = nullptr;
      s = ctx->allocate_output(0, shape, &out);
      if (!s.ok()) return ctx->SetStatus(s), true;
      Convolve(ctx, g, out, &epilogue);
      return true;
    }
  }

 private:
  // Checks the inputs and sets `g` from them and the attrs.
  Status Geometry(OpKernelContext* ctx, ConvGeometry* g) const {
    TX_RETURN_IF_ERROR(CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_RETURN_IF_ERROR(CheckInput(ctx, 1, DataTypeOf<T>::value));
    return attrs_.Compute(ctx->input(0), ctx->input(1), /*depthwise=*/false, g, /*grouped_ok=*/true);
  }

  // out = Conv2D of ctx's inputs for geometry `g`, then `epilogue` (null: none; float only).
  void Convolve(OpKernelContext* ctx, const ConvGeometry& g, Tensor* out, const ConvEpilogue* epilogue) {
    if (out->num_elements() == 0) return;
    T* y = out->data<T>();
    const int64_t k = g.kh * g.kw * g.c, rows = g.n * g.oh * g.ow;
    ThreadPool* pool = ctx->intra_op_pool();
    // The epilogue over all of y, for the paths that do not apply it block by block.
    auto finish = [&] {
      if constexpr (std::is_same<T, float>::value) {
        if (epilogue != nullptr)
          ParallelRange(pool, rows, g.m, [&](int64_t b, int64_t e) { epilogue->Apply(y, g.m, b, e, 0, g.m); });
      }
    };
    if (k == 0) {
      std::fill(y, y + out->num_elements(), T(0));
      return finish();
    }
    if (!FitsBlasInt(1, g.m, k, k, g.m, g.m)) {
      ctx->SetStatus(InvalidArgument("Conv2D filter of ", k, "x", g.m, " is too large for BLAS"));
      return;
    }
    const Tensor& f = ctx->input(1);
    const T* x = ctx->input(0).data<T>();
    const T* w = f.data<T>();
    if (g.groups > 1) {  // Note [Grouped Conv2D]
      const int64_t kg = g.kh * g.kw * (g.c / g.groups);
      const int64_t chunk =
          std::max<int64_t>(1, std::min(rows, kPatchChunkBytes / static_cast<int64_t>(sizeof(T) * kg)));
      const int64_t row_cost = std::min<int64_t>(2 * k * g.m / g.groups, int64_t{1} << 20);
      ParallelClaims(pool, rows, chunk, row_cost,
                     [&](int64_t begin, int64_t end) { GroupedIm2ColGemm(g, x, w, begin, end, chunk, y); });
      return finish();
    }
    if constexpr (std::is_same<T, float>::value) {
      if (DirectConvSupported(g)) {
        if (filter_is_const_) return DirectConv(pool, g, x, *PackedConstFilter(f, k, g.m), y, epilogue);
        return DirectConv(pool, g, x, w, y, epilogue);
      }
    }
    if (g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pl == 0 && g.oh == g.h && g.ow == g.w) {
      // 1x1, stride 1, no padding: the input already is the patch matrix [N*H*W, C].
      Gemm(rows, g.m, k, x, w, y);
      return finish();
    }
    const int threads = pool->num_threads() + 1;  // the caller takes part
    const int64_t chunk = std::max<int64_t>(1, std::min(rows, kPatchChunkBytes / static_cast<int64_t>(sizeof(T) * k)));
    if (threads == 1 || rows < threads * kMinRowsPerThread) {
      Im2ColGemm(g, x, w, 0, rows, chunk, y);  // see Note [Conv2D on CPU]
      return finish();
    }
    const int64_t row_cost = std::min<int64_t>(2 * k * g.m, int64_t{1} << 20);  // capped: no overflow in the pool
    const int64_t block = std::min(chunk, (rows + threads - 1) / threads);
    ParallelClaims(pool, rows, block, row_cost,
                   [&](int64_t begin, int64_t end) { Im2ColGemm(g, x, w, begin, end, chunk, y); });
    finish();
  }

  // y rows [begin, end) = patches(x) * w, `chunk` rows at a time through a per-thread patch buffer.
  static void Im2ColGemm(const ConvGeometry& g, const T* x, const T* w, int64_t begin, int64_t end, int64_t chunk,
                         T* y) {
    const int64_t k = g.kh * g.kw * g.c;
    // Per-thread scratch reused across calls: a fresh allocation each call costs page faults
    // comparable to the GEMM itself.
    thread_local std::vector<T> scratch;
    if (static_cast<int64_t>(scratch.size()) < chunk * k) scratch.assign(chunk * k, T(0));
    T* patches = scratch.data();
    for (int64_t r0 = begin; r0 < end; r0 += chunk) {
      const int64_t nr = std::min(chunk, end - r0);
      Im2ColRows(g, x, r0, nr, patches);
      Gemm(nr, g.m, k, patches, w, y + r0 * g.m);
    }
  }

  // Note [Grouped Conv2D]: with G groups the filter is [KH, KW, C/G, M] and output channel j reads
  // the input channels of group j / (M/G). Per chunk of rows and per group, the group's patches
  // [rows, KH*KW*C/G] times the filter's columns of that group (leading dimension M) give the
  // group's output columns (leading dimension M). TensorFlow's CPU kernel runs grouped Conv2D too.
  static void GroupedIm2ColGemm(const ConvGeometry& g, const T* x, const T* w, int64_t begin, int64_t end,
                                int64_t chunk, T* y) {
    const int64_t cg = g.c / g.groups, mg = g.m / g.groups, kg = g.kh * g.kw * cg;
    thread_local std::vector<T> scratch;
    if (static_cast<int64_t>(scratch.size()) < chunk * kg) scratch.assign(chunk * kg, T(0));
    T* patches = scratch.data();
    for (int64_t r0 = begin; r0 < end; r0 += chunk) {
      const int64_t nr = std::min(chunk, end - r0);
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        Im2ColRows(g, x, r0, nr, patches, gi * cg, cg);
        BlasGemm(false, false, nr, mg, kg, patches, kg, w + gi * mg, g.m, y + r0 * g.m + gi * mg, g.m);
      }
    }
  }

  // y[rows, m] = a[rows, k] * w[k, m] (m, k fit BLAS ints), split along rows for BLAS' 32-bit sizes.
  static void Gemm(int64_t rows, int64_t m, int64_t k, const T* a, const T* w, T* y) {
    const int64_t step = int64_t{1} << 30;
    for (int64_t r = 0; r < rows; r += step) {
      const int64_t nr = std::min(step, rows - r);
      BlasGemm(false, false, nr, m, k, a + r * k, k, w, m, y + r * m, m);
    }
  }

  // Note [Packed constant filters]: a filter that a Const node produces (through Identity nodes,
  // as in frozen graphs) is packed for the direct kernel once and the packed copy is reused while
  // the filter tensor is the same engine-owned buffer, which the kernel holds a reference to: the
  // buffer cannot be freed and reused for other values meanwhile, and no kernel writes in place
  // into a buffer it does not hold alone. A fed value (even for that Const's output) arrives in
  // another buffer and is packed afresh. Costs one packed copy of each constant filter.
  static bool FilterIsConst(const Node& node) {
    if (node.num_inputs() < 2) return false;
    const Node* n = node.input(1).node;
    while (n->op_type() == "Identity" && n->num_inputs() == 1) n = n->input(0).node;
    return n->op_type() == "Const";
  }

  // The packed copy of the constant filter `f` ([k, m] floats): the one packed last time when `f`
  // is the same engine-owned buffer, else a new one (kept for later calls when `f` is engine-owned).
  // Shared, so a run still reading a copy keeps it while another run replaces it.
  std::shared_ptr<const PackedConvFilter> PackedConstFilter(const Tensor& f, int64_t k, int64_t m) {
    const bool owned = f.buffer()->owned();
    {
      std::lock_guard<std::mutex> lock(packed_mu_);
      if (owned && packed_ != nullptr && packed_from_.get() == f.buffer().get() && packed_->k == k && packed_->m == m)
        return packed_;
    }
    auto fresh = std::make_shared<PackedConvFilter>();
    PackDirectConvFilter(f.data<float>(), k, m, fresh.get());
    if (owned) {
      std::lock_guard<std::mutex> lock(packed_mu_);
      packed_from_ = f.buffer();
      packed_ = fresh;
    }
    return fresh;
  }

  ConvAttrs attrs_;
  const bool filter_is_const_;
  std::mutex packed_mu_;
  RefPtr<Buffer> packed_from_;  // guarded by packed_mu_
  std::shared_ptr<const PackedConvFilter> packed_;  // guarded by packed_mu_; packed from packed_from_
};

TX_REGISTER_KERNEL(KernelDefBuilder("Conv2D").TypeConstraint<float>("T"), Conv2DOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("Conv2D").TypeConstraint<double>("T"), Conv2DOp<double>);

// --- half and bfloat16: the float32 kernel on widened inputs, outputs rounded once
// (Note [Widened kernels]) ---
TX_REGISTER_WIDENED("Conv2D", "T");

}  // namespace
}  // namespace cpu
}  // namespace tx

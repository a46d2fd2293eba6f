// CPU kernels for MatMul and BatchMatMulV2: float/double through OpenBLAS, integers through a
// cache-blocked loop, half through OpenBLAS's float GEMM, bfloat16 through our bfloat16 GEMM or
// OpenBLAS's (Note [16-bit GEMM]).
#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "tensorflux/kernels/cpu/binary_functors.h"
#include "tensorflux/kernels/cpu/blas.h"
#include "tensorflux/kernels/cpu/convert16.h"
#include "tensorflux/kernels/cpu/gemm/gemm.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Note [Blocked GEMM]
// C[m,n] = op(A) op(B) for types BLAS lacks. op(B) is used in place when it is row-major already,
// else transposed once into a [k,n] copy. C is cut into 64-row blocks (split over the intra-op
// pool); each thread packs a 64x256 block of op(A) and, for each 256-row slice of op(B) and
// 512-column strip, updates C rows with four B rows at a time, so each pass over a C row strip
// does four multiply-adds per load and store. Integer arithmetic is done unsigned (wrap-around).
constexpr int64_t kMc = 64, kKc = 256, kNc = 512;

template <typename T>
void BlockedGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a_in, int64_t lda, const T* b_in,
                 int64_t ldb, T* c_out, ThreadPool* pool) {
  using U = UnsignedIfIntegralT<T>;
  const U* a = reinterpret_cast<const U*>(a_in);
  const U* b = reinterpret_cast<const U*>(b_in);
  U* c = reinterpret_cast<U*>(c_out);
  std::unique_ptr<U[]> bt;
  if (tb) {  // op(B) = B^T, B stored [n, k]: make a row-major [k, n] copy
    bt.reset(new U[static_cast<size_t>(k * n)]);
    for (int64_t j0 = 0; j0 < n; j0 += 32)
      for (int64_t p0 = 0; p0 < k; p0 += 32)
        for (int64_t j = j0; j < std::min(n, j0 + 32); ++j)
          for (int64_t p = p0; p < std::min(k, p0 + 32); ++p) bt[p * n + j] = b[j * ldb + p];
    b = bt.get();
    ldb = n;
  }
  const int64_t row_blocks = (m + kMc - 1) / kMc;
  ParallelItems(pool, row_blocks, kMc * n * k, [&](int64_t rb0, int64_t rb1) {
    std::unique_ptr<U[]> ap(new U[kMc * kKc]);
    for (int64_t rb = rb0; rb < rb1; ++rb) {
      const int64_t i0 = rb * kMc, mb = std::min(kMc, m - i0);
      for (int64_t i = 0; i < mb; ++i) std::fill(c + (i0 + i) * n, c + (i0 + i) * n + n, U(0));
      for (int64_t p0 = 0; p0 < k; p0 += kKc) {
        const int64_t kb = std::min(kKc, k - p0);
        for (int64_t i = 0; i < mb; ++i)  // pack op(A)[i0:i0+mb, p0:p0+kb]
          for (int64_t p = 0; p < kb; ++p)
            ap[i * kb + p] = ta ? a[(p0 + p) * lda + i0 + i] : a[(i0 + i) * lda + p0 + p];
        for (int64_t j0 = 0; j0 < n; j0 += kNc) {
          const int64_t nb = std::min(kNc, n - j0);
          for (int64_t i = 0; i < mb; ++i) {
            U* cr = c + (i0 + i) * n + j0;
            const U* ar = ap.get() + i * kb;
            int64_t p = 0;
            for (; p + 4 <= kb; p += 4) {
              const U a0 = ar[p], a1 = ar[p + 1], a2 = ar[p + 2], a3 = ar[p + 3];
              const U* b0 = b + (p0 + p) * ldb + j0;
              const U* b1 = b0 + ldb;
              const U* b2 = b1 + ldb;
              const U* b3 = b2 + ldb;
#pragma GCC ivdep
              for (int64_t j = 0; j < nb; ++j)
                cr[j] = static_cast<U>(cr[j] + a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j]);
            }
            for (; p < kb; ++p) {
              const U a0 = ar[p];
              const U* b0 = b + (p0 + p) * ldb + j0;
#pragma GCC ivdep
              for (int64_t j = 0; j < nb; ++j) cr[j] = static_cast<U>(cr[j] + a0 * b0[j]);
            }
          }
        }
      }
    }
  });
}

// Note [16-bit GEMM]
// half and bfloat16 products accumulate in float32 (as TensorFlow's CPU kernels do) into a float32
// C, and each output element is rounded once to the 16-bit type.
//  - bfloat16, where the CPU has AVX512_BF16: our Bgemm (Note [bf16 GEMM] in gemm/gemm.h) reads
//    the operands as they are, VDPBF16PS on packed pairs. It computes the same float32 sums but
//    for denormals, which VDPBF16PS reads and writes as zero. Measured on the AMD EPYC (Zen 4
//    class, one thread, GFLOP/s, machine shared with other jobs; tools/bench/gemm_kernel_bench.cc
//    --bf16), Bgemm against today's widen + OpenBLAS sgemm: square 256 199 vs 98, 1024 187 vs 95,
//    2048 194 vs 99, 128 x 784 x 512 197 vs 94, 1 x 1024 x 1024 46 vs 3-4 and 8 x 1024 x 1024
//    108-113 vs 20-24 (few rows: Bgemm reads B as stored, while widening B whole costs more than
//    the product; the bench runs sgemm where this kernel runs sgemv for one row, which saves
//    sgemm's packing but not the widening), 128 x 512 x 10 112-133 vs 51-58 and 512 x 128 x 10
//    (A^T B) 79-92 vs 57-69 (narrow C: Bgemm's 16-wide kernels). It was ahead on every shape
//    measured, so every bfloat16 product takes it there.
//  - half, and bfloat16 elsewhere: the operands are widened to float32 whole (exactly) and
//    multiplied by OpenBLAS's sgemm. The widening costs two passes over the operands and float
//    copies of them, small next to the O(mnk) product for all but tiny or very thin matrices.
//    Bgemm's widened path (float32 kernels on panels widened while packing) measured level with
//    this one (85-103 vs 94-99 GFLOP/s on the shapes above), so it does not replace it.

// Whether T's products take Bgemm (Note [16-bit GEMM]).
template <typename T>
bool UseBgemm() {
  if constexpr (std::is_same_v<T, BFloat16>)
    return gemm::BestBgemmPath() == gemm::BgemmPath::kDotBf16;
  else
    return false;
}

// c[m, n] = op(a) op(b) (rows lda, ldb, n apart) by Bgemm, split over `pool` when it is not null.
void BgemmProduct(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const BFloat16* a, int64_t lda, const BFloat16* b,
                  int64_t ldb, float* c, ThreadPool* pool) {
  gemm::BgemmArgs g;
  g.trans_a = ta, g.trans_b = tb, g.m = m, g.n = n, g.k = k;
  g.a = a, g.lda = lda, g.b = b, g.ldb = ldb, g.c = c, g.ldc = n;
  const gemm::GemmThreads threads = gemm::PoolThreads(pool);
  gemm::Bgemm(g, &threads);
}

// The float32 values of a 16-bit operand (owned by `*keep`), or the operand itself.
template <typename T>
const ComputeType<T>* Operand(const Tensor& t, ThreadPool* pool, std::unique_ptr<float[]>* keep) {
  if constexpr (kIsFloat16<T>) {
    *keep = WidenArray(t.data<T>(), t.num_elements(), pool);
    return keep->get();
  } else {
    return t.data<T>();
  }
}

// product = op(a) * op(b) for rank-2 a and b.
template <typename T>
class MatMulOp : public OpKernel {
  using C = ComputeType<T>;

 public:
  explicit MatMulOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("transpose_a", &ta_));
    c->SetStatus(c->GetAttr("transpose_b", &tb_));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    const Tensor& at = ctx->input(0);
    const Tensor& bt = ctx->input(1);
    if (at.rank() != 2 || bt.rank() != 2) {
      ctx->SetStatus(InvalidArgument("In[", at.rank() != 2 ? 0 : 1, "] is not a matrix. Instead it has shape ",
                                     (at.rank() != 2 ? at : bt).shape().ToString()));
      return;
    }
    const int64_t m = at.dim(ta_ ? 1 : 0), k = at.dim(ta_ ? 0 : 1);
    const int64_t k2 = bt.dim(tb_ ? 1 : 0), n = bt.dim(tb_ ? 0 : 1);
    if (k != k2) {
      ctx->SetStatus(InvalidArgument("Matrix size-incompatible: In[0]: ", at.shape().ToString(),
                                     ", In[1]: ", bt.shape().ToString(), " (transpose_a=", ta_ ? "true" : "false",
                                     ", transpose_b=", tb_ ? "true" : "false", ")"));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    if (m == 0 || n == 0) return;
    if (k == 0) {
      std::fill(out->data<T>(), out->data<T>() + m * n, Narrow<T>(C(0)));
      return;
    }
    ThreadPool* pool = ctx->intra_op_pool();
    const int64_t lda = at.dim(1), ldb = bt.dim(1);
    std::unique_ptr<float[]> a16, b16, c16;  // Note [16-bit GEMM]
    if constexpr (kIsFloat16<T>) c16.reset(new float[static_cast<size_t>(m * n)]);
    if constexpr (std::is_same_v<T, BFloat16>) {
      if (UseBgemm<T>()) {
        BgemmProduct(ta_, tb_, m, n, k, at.data<T>(), lda, bt.data<T>(), ldb, c16.get(), pool);
        NarrowArray(c16.get(), out->data<T>(), m * n, pool);
        return;
      }
    }
    const C* a = Operand<T>(at, pool, &a16);
    const C* b = Operand<T>(bt, pool, &b16);
    C* c;
    if constexpr (kIsFloat16<T>)
      c = c16.get();
    else
      c = out->data<T>();
    if constexpr (std::is_floating_point_v<C>) {
      if (FitsBlasInt(m, n, k, lda, ldb, n))
        PoolGemm(pool, ta_, tb_, m, n, k, a, lda, b, ldb, c, n);
      else
        BlockedGemm<C>(ta_, tb_, m, n, k, a, lda, b, ldb, c, pool);
    } else {
      BlockedGemm<C>(ta_, tb_, m, n, k, a, lda, b, ldb, c, pool);
    }
    if constexpr (kIsFloat16<T>) NarrowArray(c, out->data<T>(), m * n, pool);
  }

 private:
  bool ta_ = false, tb_ = false;
};

TX_REGISTER_KERNEL(KernelDefBuilder("MatMul").TypeConstraint<float>("T"), MatMulOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("MatMul").TypeConstraint<double>("T"), MatMulOp<double>);
TX_REGISTER_KERNEL(KernelDefBuilder("MatMul").TypeConstraint<int32_t>("T"), MatMulOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("MatMul").TypeConstraint<int64_t>("T"), MatMulOp<int64_t>);

// Note [Batch matmul]
// BatchMatMulV2 broadcasts the batch dims (all but the last two) with NumPy rules; each output
// matrix b reads the x and y matrices whose batch coordinates are b's, clamped to 0 where that
// operand's dim is 1. Each product is one GEMM (OpenBLAS for float/double, BlockedGemm otherwise,
// Bgemm or OpenBLAS for the 16-bit floats: Note [16-bit GEMM]).
template <typename T>
class BatchMatMulOp : public OpKernel {
  using C = ComputeType<T>;

 public:
  explicit BatchMatMulOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("adj_x", &adj_x_));
    c->SetStatus(c->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    const Tensor& xt = ctx->input(0);
    const Tensor& yt = ctx->input(1);
    const int rx = xt.rank(), ry = yt.rank();
    if (rx < 2 || ry < 2) {
      ctx->SetStatus(InvalidArgument("In[", rx < 2 ? 0 : 1, "] ndims must be >= 2: ", (rx < 2 ? xt : yt).rank()));
      return;
    }
    const int64_t m = xt.dim(adj_x_ ? rx - 1 : rx - 2), k = xt.dim(adj_x_ ? rx - 2 : rx - 1);
    const int64_t k2 = yt.dim(adj_y_ ? ry - 1 : ry - 2), n = yt.dim(adj_y_ ? ry - 2 : ry - 1);
    if (k != k2) {
      ctx->SetStatus(InvalidArgument("Matrix size-incompatible: In[0]: ", xt.shape().ToString(),
                                     ", In[1]: ", yt.shape().ToString()));
      return;
    }
    // Broadcast batch dims; strides (in matrices) of each operand per output batch dim.
    const int rb = std::max(rx, ry) - 2;
    std::vector<int64_t> bdims(rb), xs(rb, 0), ys(rb, 0);
    TensorShape out_shape;
    for (int i = 0; i < rb; ++i) {
      const int ix = rx - 2 - rb + i, iy = ry - 2 - rb + i;
      const int64_t dx = ix >= 0 ? xt.dim(ix) : 1, dy = iy >= 0 ? yt.dim(iy) : 1;
      if (dx != dy && dx != 1 && dy != 1) {
        ctx->SetStatus(InvalidArgument("In[0] and In[1] must have compatible batch dimensions: ", xt.shape().ToString(),
                                       " vs. ", yt.shape().ToString()));
        return;
      }
      bdims[i] = dx == 1 ? dy : dx;
      out_shape.add_dim(bdims[i]);
    }
    int64_t sx = 1, sy = 1;  // matrices per step of batch dim i, from the innermost outward
    for (int i = rb - 1; i >= 0; --i) {
      const int ix = rx - 2 - rb + i, iy = ry - 2 - rb + i;
      const int64_t dx = ix >= 0 ? xt.dim(ix) : 1, dy = iy >= 0 ? yt.dim(iy) : 1;
      xs[i] = dx == 1 ? 0 : sx;
      ys[i] = dy == 1 ? 0 : sy;
      sx *= dx;
      sy *= dy;
    }
    out_shape.add_dim(m);
    out_shape.add_dim(n);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t total = out->num_elements();
    if (total == 0) return;
    if (k == 0) {
      std::fill(out->data<T>(), out->data<T>() + total, Narrow<T>(C(0)));
      return;
    }
    const int64_t batches = total / (m * n);
    ThreadPool* pool = ctx->intra_op_pool();
    std::unique_ptr<float[]> a16, b16, c16;  // Note [16-bit GEMM]
    const bool bgemm = UseBgemm<T>();  // reads the operands as they are
    const C* a = bgemm ? nullptr : Operand<T>(xt, pool, &a16);
    const C* b = bgemm ? nullptr : Operand<T>(yt, pool, &b16);
    C* c;
    if constexpr (kIsFloat16<T>) {
      c16.reset(new float[static_cast<size_t>(total)]);
      c = c16.get();
    } else {
      c = out->data<T>();
    }
    const int64_t lda = xt.dim(rx - 1), ldb = yt.dim(ry - 1);
    const int64_t a_mat = xt.dim(rx - 2) * lda, b_mat = yt.dim(ry - 2) * ldb;
    // Batch item bi's operand offsets (broadcast batch dims: stride 0 where the operand has size 1).
    auto offsets = [&](int64_t bi, int64_t* ox, int64_t* oy) {
      *ox = *oy = 0;
      for (int i = rb - 1; i >= 0; --i) {
        const int64_t c = bi % bdims[i];
        bi /= bdims[i];
        *ox += c * xs[i];
        *oy += c * ys[i];
      }
    };
    auto one = [&](int64_t bi, bool split) {
      int64_t ox, oy;
      offsets(bi, &ox, &oy);
      if constexpr (std::is_same_v<T, BFloat16>) {
        if (bgemm) {
          return BgemmProduct(adj_x_, adj_y_, m, n, k, xt.data<T>() + ox * a_mat, lda, yt.data<T>() + oy * b_mat, ldb,
                              c + bi * m * n, split ? pool : nullptr);
        }
      }
      const C* ap = a + ox * a_mat;
      const C* bp = b + oy * b_mat;
      C* cp = c + bi * m * n;
      if constexpr (std::is_floating_point_v<C>) {
        if (FitsBlasInt(m, n, k, lda, ldb, n)) {
          if (split)
            PoolGemm(ctx->intra_op_pool(), adj_x_, adj_y_, m, n, k, ap, lda, bp, ldb, cp, n);
          else
            BlasGemm(adj_x_, adj_y_, m, n, k, ap, lda, bp, ldb, cp, n);
          return;
        }
      }
      BlockedGemm<C>(adj_x_, adj_y_, m, n, k, ap, lda, bp, ldb, cp, split ? ctx->intra_op_pool() : nullptr);
    };
    // Several items: one GEMM per pool thread at a time (Note [Single-threaded BLAS]); a single one
    // is split over the pool itself.
    if (batches == 1) {
      one(0, true);
    } else {
      const int64_t cost = std::min<int64_t>(m * n * k, int64_t{1} << 30);
      ParallelItems(pool, batches, cost, [&](int64_t b0, int64_t b1) {
        for (int64_t bi = b0; bi < b1; ++bi) one(bi, false);
      });
    }
    if constexpr (kIsFloat16<T>) NarrowArray(c, out->data<T>(), total, pool);
  }

 private:
  bool adj_x_ = false, adj_y_ = false;
};

TX_REGISTER_KERNEL(KernelDefBuilder("BatchMatMulV2").TypeConstraint<float>("T"), BatchMatMulOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("BatchMatMulV2").TypeConstraint<double>("T"), BatchMatMulOp<double>);
TX_REGISTER_KERNEL(KernelDefBuilder("BatchMatMulV2").TypeConstraint<int32_t>("T"), BatchMatMulOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("BatchMatMulV2").TypeConstraint<int64_t>("T"), BatchMatMulOp<int64_t>);

// --- half, bfloat16 (Note [16-bit GEMM]) and int16 (BatchMatMulV2 only: MatMul's OpDef has no
// int16), as TensorFlow registers them ---
#define TX_REGISTER_MATMULS(T)                                                        \
  TX_REGISTER_KERNEL(KernelDefBuilder("MatMul").TypeConstraint<T>("T"), MatMulOp<T>); \
  TX_REGISTER_KERNEL(KernelDefBuilder("BatchMatMulV2").TypeConstraint<T>("T"), BatchMatMulOp<T>)
TX_REGISTER_MATMULS(Half);
TX_REGISTER_MATMULS(BFloat16);
#undef TX_REGISTER_MATMULS
TX_REGISTER_KERNEL(KernelDefBuilder("BatchMatMulV2").TypeConstraint<int16_t>("T"), BatchMatMulOp<int16_t>);

}  // namespace
}  // namespace cpu
}  // namespace tx

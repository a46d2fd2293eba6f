// CPU kernels for MatMul (transpose attrs) and BatchMatMulV2 (adjoint attrs: conjugate transpose)
// on complex64 and complex128, through OpenBLAS cgemm/zgemm. Batch dims broadcast as in matmul.cc
// (Note [Batch matmul]).
#include <algorithm>
#include <vector>

#include "tensorflux/core/complex.h"
#include "tensorflux/kernels/cpu/blas.h"
#include "tensorflux/kernels/cpu/blas_complex.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

Status TooLarge(int64_t m, int64_t n, int64_t k) {
  return InvalidArgument("matrix dimensions ", m, "x", k, " * ", k, "x", n, " exceed what BLAS can index");
}

// MatMul (kBatch false: rank-2 operands, transpose attrs that do not conjugate) and BatchMatMulV2
// (kBatch true: broadcast batch dims, adjoint attrs that conjugate) on complex operands.
template <typename C, bool kBatch>
class ComplexMatMulOp : public OpKernel {
 public:
  explicit ComplexMatMulOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr(kBatch ? "adj_x" : "transpose_a", &flag_x_));
    c->SetStatus(c->GetAttr(kBatch ? "adj_y" : "transpose_b", &flag_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<C>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<C>::value));
    const Tensor& xt = ctx->input(0);
    const Tensor& yt = ctx->input(1);
    const int rx = xt.rank(), ry = yt.rank();
    if (!kBatch && (rx != 2 || ry != 2)) {
      ctx->SetStatus(InvalidArgument("In[", rx != 2 ? 0 : 1, "] is not a matrix. Instead it has shape ",
                                     (rx != 2 ? xt : yt).shape().ToString()));
      return;
    }
    if (rx < 2 || ry < 2) {
      ctx->SetStatus(InvalidArgument("In[", rx < 2 ? 0 : 1, "] ndims must be >= 2: ", (rx < 2 ? xt : yt).rank()));
      return;
    }
    const int64_t m = xt.dim(flag_x_ ? rx - 1 : rx - 2), k = xt.dim(flag_x_ ? rx - 2 : rx - 1);
    const int64_t k2 = yt.dim(flag_y_ ? ry - 1 : ry - 2), n = yt.dim(flag_y_ ? ry - 2 : ry - 1);
    if (k != k2) {
      ctx->SetStatus(InvalidArgument("Matrix size-incompatible: In[0]: ", xt.shape().ToString(),
                                     ", In[1]: ", yt.shape().ToString()));
      return;
    }
    // Output batch dims, innermost first, with each operand's matrix stride (0 where broadcast).
    const int rb = std::max(rx, ry) - 2;
    std::vector<int64_t> dims(rb), x_step(rb), y_step(rb);
    int64_t x_count = 1, y_count = 1;
    for (int i = 0; i < rb; ++i) {
      const int ix = rx - 3 - i, iy = ry - 3 - i;
      const int64_t dx = ix >= 0 ? xt.dim(ix) : 1, dy = iy >= 0 ? yt.dim(iy) : 1;
      if (dx != dy && dx != 1 && dy != 1) {
        ctx->SetStatus(InvalidArgument("In[0] and In[1] must have compatible batch dimensions: ", xt.shape().ToString(),
                                       " vs. ", yt.shape().ToString()));
        return;
      }
      dims[i] = dx == 1 ? dy : dx;
      x_step[i] = dx == 1 ? 0 : x_count;
      y_step[i] = dy == 1 ? 0 : y_count;
      x_count *= dx;
      y_count *= dy;
    }
    TensorShape out_shape;
    for (int i = rb - 1; i >= 0; --i) out_shape.add_dim(dims[i]);
    out_shape.add_dim(m);
    out_shape.add_dim(n);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, out_shape, &out));
    C* c = out->data<C>();
    const int64_t total = out->num_elements();
    if (total == 0) return;
    if (k == 0) {
      std::fill(c, c + total, C(0));
      return;
    }
    const int64_t lda = xt.dim(rx - 1), ldb = yt.dim(ry - 1);
    if (!FitsBlasInt(m, n, k, lda, ldb, n)) {
      ctx->SetStatus(TooLarge(m, n, k));
      return;
    }
    const int64_t a_mat = xt.dim(rx - 2) * lda, b_mat = yt.dim(ry - 2) * ldb;
    const GemmOp flagged = kBatch ? GemmOp::kAdjoint : GemmOp::kTranspose;
    const GemmOp op_a = flag_x_ ? flagged : GemmOp::kNone, op_b = flag_y_ ? flagged : GemmOp::kNone;
    const C* a = xt.data<C>();
    const C* b = yt.data<C>();
    // Product bi of the batch (one GEMM, split over `pool` when given).
    auto product = [&](int64_t bi, ThreadPool* pool) {
      int64_t ox = 0, oy = 0;
      for (int64_t i = 0, index = bi; i < rb; ++i) {
        const int64_t coord = index % dims[i];
        index /= dims[i];
        ox += coord * x_step[i];
        oy += coord * y_step[i];
      }
      PoolComplexGemm(pool, op_a, op_b, m, n, k, a + ox * a_mat, lda, b + oy * b_mat, ldb, c + bi * m * n, n);
    };
    const int64_t batches = total / (m * n);
    if (batches == 1) {
      product(0, ctx->intra_op_pool());
      return;
    }
    ParallelItems(ctx->intra_op_pool(), batches, std::min<int64_t>(m * n * k * 4, int64_t{1} << 30),
                  [&](int64_t b0, int64_t b1) {
                    for (int64_t bi = b0; bi < b1; ++bi) product(bi, nullptr);
                  });
  }

 private:
  bool flag_x_ = false, flag_y_ = false;
};

TX_REGISTER_KERNEL(KernelDefBuilder("MatMul").TypeConstraint<complex64>("T"), ComplexMatMulOp<complex64, false>);
TX_REGISTER_KERNEL(KernelDefBuilder("MatMul").TypeConstraint<complex128>("T"), ComplexMatMulOp<complex128, false>);
TX_REGISTER_KERNEL(KernelDefBuilder("BatchMatMulV2").TypeConstraint<complex64>("T"), ComplexMatMulOp<complex64, true>);
TX_REGISTER_KERNEL(KernelDefBuilder("BatchMatMulV2").TypeConstraint<complex128>("T"),
                   ComplexMatMulOp<complex128, true>);

}  // namespace
}  // namespace cpu
}  // namespace tx

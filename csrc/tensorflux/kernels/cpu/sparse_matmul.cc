// CPU kernel for SparseTensorDenseMatMul: out[m, n] = op(A)[m, k] @ op(B)[k, n] with A a 2-D
// SparseTensor; each stored A entry adds value * a row of op(B) to a row of the output. Threads
// split the output columns, so no two threads write one element.
#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/sparse_util.h"

namespace tx {
namespace cpu {
namespace {

template <typename T>
class SparseTensorDenseMatMulOp : public OpKernel {
 public:
  explicit SparseTensorDenseMatMulOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("adjoint_a", &adj_a_));
    c->SetStatus(c->GetAttr("adjoint_b", &adj_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a_ind = ctx->input(0);
    const Tensor& a_vals = ctx->input(1);
    const Tensor& a_shape = ctx->input(2);
    const Tensor& b = ctx->input(3);
    if (a_shape.rank() != 1 || a_shape.dim(0) != 2) {
      ctx->SetStatus(InvalidArgument("Tensor 'a_shape' must have 2 elements, got shape ", a_shape.shape().ToString()));
      return;
    }
    if (a_ind.rank() != 2) {
      ctx->SetStatus(InvalidArgument("Tensor 'a_indices' is not a matrix, got shape ", a_ind.shape().ToString()));
      return;
    }
    if (a_vals.rank() != 1) {
      ctx->SetStatus(InvalidArgument("Tensor 'a_values' is not a vector, got shape ", a_vals.shape().ToString()));
      return;
    }
    if (b.rank() != 2) {
      ctx->SetStatus(InvalidArgument("Tensor 'b' is not a matrix, got shape ", b.shape().ToString()));
      return;
    }
    if (a_ind.dim(0) != a_vals.dim(0)) {
      ctx->SetStatus(InvalidArgument("Number of rows of a_indices does not match number of entries in a_values: ",
                                     a_ind.dim(0), " vs. ", a_vals.dim(0)));
      return;
    }
    if (a_ind.dim(1) != 2) {
      ctx->SetStatus(InvalidArgument("Number of columns of a_indices must be 2, got ", a_ind.dim(1)));
      return;
    }
    SparseInput sp;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadSparseInput(ctx, 0, 1, 2, "a_", &sp));
    const int64_t m = sp.shape[adj_a_ ? 1 : 0], k = sp.shape[adj_a_ ? 0 : 1];
    const int64_t b_k = b.dim(adj_b_ ? 1 : 0), n = b.dim(adj_b_ ? 0 : 1);
    if (k != b_k) {
      ctx->SetStatus(InvalidArgument("Cannot multiply A and B because inner dimension does not match: ", k, " vs. ",
                                     b_k, ".  Did you forget a transpose?  Dimensions of A: [", sp.shape[0], ", ",
                                     sp.shape[1], ").  Dimensions of B: ", b.shape().ToString()));
      return;
    }
    // (row of the output, row of op(B)) per entry, checked against the bounds.
    std::vector<int64_t> rows(static_cast<size_t>(sp.nnz)), cols(static_cast<size_t>(sp.nnz));
    for (int64_t i = 0; i < sp.nnz; ++i) {
      rows[i] = sp.index(i)[adj_a_ ? 1 : 0];
      cols[i] = sp.index(i)[adj_a_ ? 0 : 1];
      if (rows[i] < 0 || rows[i] >= m) {
        ctx->SetStatus(
            InvalidArgument("m (", rows[i], ") from index[", i, ",", adj_a_ ? 1 : 0, "] out of bounds (>=", m, ")"));
        return;
      }
      if (cols[i] < 0 || cols[i] >= k) {
        ctx->SetStatus(
            InvalidArgument("k (", cols[i], ") from index[", i, ",", adj_a_ ? 0 : 1, "] out of bounds (>=", k, ")"));
        return;
      }
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    T* o = out->data<T>();
    std::fill(o, o + m * n, T(0));
    const T* bp = b.data<T>();
    const T* v = a_vals.data<T>();
    // op(B)[c, j] is bp[c * n + j], or bp[j * b_cols + c] with adjoint_b (b is [n, k]).
    const int64_t b_cols = b.dim(1);
    ParallelRange(ctx->intra_op_pool(), n, sp.nnz + 1, [&](int64_t j0, int64_t j1) {
      for (int64_t i = 0; i < sp.nnz; ++i) {
        T* orow = o + rows[i] * n;
        const T x = v[i];
        if (!adj_b_) {
          const T* brow = bp + cols[i] * n;
          for (int64_t j = j0; j < j1; ++j) orow[j] += x * brow[j];
        } else {
          for (int64_t j = j0; j < j1; ++j) orow[j] += x * bp[j * b_cols + cols[i]];
        }
      }
    });
  }

 private:
  bool adj_a_ = false, adj_b_ = false;
};

template <typename T>
void RegisterMatMul() {
  for (DataType ti : {DT_INT32, DT_INT64})
    KernelRegistry::Global()->Register(
        KernelDefBuilder("SparseTensorDenseMatMul")
            .TypeConstraint("T", DataTypeOf<T>::value)
            .TypeConstraint("Tindices", ti)
            .Build([](OpKernelConstruction* c) -> OpKernel* { return new SparseTensorDenseMatMulOp<T>(c); }));
}

const bool kRegistered = [] {
  RegisterMatMul<float>();
  RegisterMatMul<double>();
  RegisterMatMul<int32_t>();
  RegisterMatMul<int64_t>();
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernels for SparseReorder (a stable sort of the entries into row-major order, any dtype)
// and SparseReshape (each index linearized in the old shape and delinearized in the new one).
#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/sparse_util.h"
#include "tensorflux/ops/array_util.h"

namespace tx {
namespace cpu {
namespace {

class SparseReorderOp : public OpKernel {
 public:
  explicit SparseReorderOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    SparseInput sp;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadSparseInput(ctx, 0, 1, 2, "", &sp));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInBounds(sp));
    const std::vector<int64_t> perm = CanonicalOrder(sp);
    Tensor *ind = nullptr, *vals = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateSparseOutput(ctx, 0, sp.nnz, sp.rank, sp.shape, &ind, &vals, false));
    int64_t* o = ind->data<int64_t>();
    for (int64_t k = 0; k < sp.nnz; ++k) std::copy(sp.index(perm[k]), sp.index(perm[k]) + sp.rank, o + k * sp.rank);
    GatherValues(*sp.values, perm, vals);
  }
};

// Resolves new_shape (at most one -1) against `dense_size` elements (TensorFlow's messages).
Status ResolveNewShape(const std::vector<int64_t>& in_shape, int64_t dense_size, std::vector<int64_t>* shape) {
  int unknown = -1;
  int64_t product = 1;
  for (int d = 0; d < static_cast<int>(shape->size()); ++d) {
    const int64_t n = (*shape)[d];
    if (n == -1) {
      if (unknown >= 0) return InvalidArgument("only one output dimension may be -1, not both ", unknown, " and ", d);
      unknown = d;
    } else if (n < 0) {
      return InvalidArgument("size ", d, " must be non-negative, not ", n);
    } else {
      if (n != 0 && product > INT64_MAX / n)
        return InvalidArgument("The requested shape ", ShapeString(*shape), " has too many elements");
      product *= n;
    }
  }
  if (unknown >= 0) {
    if (product == 0 || dense_size % product != 0) {
      std::vector<int64_t> shown = *shape;
      shown[unknown] = 1;
      return InvalidArgument("Input to reshape is a SparseTensor with ", dense_size,
                             " dense values, but the requested shape requires a multiple of ", product,
                             ". input_shape=", ShapeString(in_shape), " output_shape=", ShapeString(shown));
    }
    (*shape)[unknown] = dense_size / product;
  } else if (product != dense_size) {
    return InvalidArgument("Input to reshape is a tensor with ", dense_size,
                           " dense values, but the requested shape has ", product,
                           ". input_shape=", ShapeString(in_shape), " output_shape=", ShapeString(*shape));
  }
  return Status::OK();
}

class SparseReshapeOp : public OpKernel {
 public:
  explicit SparseReshapeOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& in_shape_t = ctx->input(1);
    if (indices.rank() != 2) {
      ctx->SetStatus(InvalidArgument("Input must be a matrix, got shape ", indices.shape().ToString()));
      return;
    }
    if (in_shape_t.rank() != 1 || ctx->input(2).rank() != 1) {
      ctx->SetStatus(InvalidArgument("input_shape and new_shape must be vectors, got shapes ",
                                     in_shape_t.shape().ToString(), " and ", ctx->input(2).shape().ToString()));
      return;
    }
    if (indices.dim(1) != in_shape_t.dim(0)) {
      ctx->SetStatus(InvalidArgument("Input tensor rank must match input shape length: ", indices.dim(1), " vs. ",
                                     in_shape_t.dim(0)));
      return;
    }
    SparseInput sp;
    sp.nnz = indices.dim(0);
    sp.rank = static_cast<int>(indices.dim(1));
    sp.indices = indices.data<int64_t>();
    sp.shape.assign(in_shape_t.data<int64_t>(), in_shape_t.data<int64_t>() + sp.rank);
    int64_t dense_size = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::CheckedNumElements(sp.shape, &dense_size));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInBounds(sp));
    std::vector<int64_t> shape;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 2, "new_shape", 1, &shape));
    TX_CTX_RETURN_IF_ERROR(ctx, ResolveNewShape(sp.shape, dense_size, &shape));
    const int new_rank = static_cast<int>(shape.size());
    Tensor *out_ind = nullptr, *out_shape = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({sp.nnz, new_rank}), &out_ind));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, TensorShape({new_rank}), &out_shape));
    std::copy(shape.begin(), shape.end(), out_shape->data<int64_t>());
    const std::vector<int64_t> in_strides = DenseStrides(sp.shape), out_strides = DenseStrides(shape);
    int64_t* o = out_ind->data<int64_t>();
    for (int64_t i = 0; i < sp.nnz; ++i) {
      int64_t flat = 0;
      for (int d = 0; d < sp.rank; ++d) flat += sp.index(i)[d] * in_strides[d];
      for (int d = 0; d < new_rank; ++d) {
        o[i * new_rank + d] = flat / out_strides[d];
        flat %= out_strides[d];
      }
    }
  }
};

TX_REGISTER_ARRAY_KERNEL("SparseReorder", SparseReorderOp);
TX_REGISTER_KERNEL(KernelDefBuilder("SparseReshape"), SparseReshapeOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernels for SparseFillEmptyRows (entries grouped by row, stably; an entry [r, 0, ...] =
// default_value for each row without one) and its gradient SparseFillEmptyRowsGrad.
#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/sparse_util.h"

namespace tx {
namespace cpu {
namespace {

// Checks the components with TensorFlow's messages for this op, then the bounds of every index.
Status ReadFillInputs(const OpKernelContext* ctx, SparseInput* sp) {
  const Tensor& ind = ctx->input(0);
  const Tensor& vals = ctx->input(1);
  const Tensor& shape = ctx->input(2);
  if (ind.rank() != 2) return InvalidArgument("indices must be a matrix, saw: ", ind.shape().ToString());
  if (vals.rank() != 1) return InvalidArgument("values must be a vector, saw: ", vals.shape().ToString());
  if (shape.rank() != 1) return InvalidArgument("dense_shape must be a vector, saw: ", shape.shape().ToString());
  if (ctx->input(3).rank() != 0)
    return InvalidArgument("default_value must be a scalar, saw: ", ctx->input(3).shape().ToString());
  if (shape.dim(0) == 0) return InvalidArgument("Dense shape cannot be empty.");
  if (vals.dim(0) != ind.dim(0))
    return InvalidArgument("The length of `values` (", vals.dim(0), ") must match the first dimension of `indices` (",
                           ind.dim(0), ").");
  if (shape.dim(0) != ind.dim(1))
    return InvalidArgument("The length of `dense_shape` (", shape.dim(0),
                           ") must match the second dimension of `indices` (", ind.dim(1), ").");
  TX_RETURN_IF_ERROR(ReadSparseInput(ctx, 0, 1, 2, "", sp));
  for (int64_t i = 0; i < sp->nnz; ++i) {
    const int64_t row = sp->index(i)[0];
    if (row < 0) return InvalidArgument("indices(", i, ", 0) is invalid: ", row, " < 0");
    if (row >= sp->shape[0]) return InvalidArgument("indices(", i, ", 0) is invalid: ", row, " >= ", sp->shape[0]);
  }
  return CheckInBounds(*sp);
}

class SparseFillEmptyRowsOp : public OpKernel {
 public:
  explicit SparseFillEmptyRowsOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    SparseInput sp;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadFillInputs(ctx, &sp));
    const int64_t rows = sp.shape[0];
    // Counting sort by row: start[r] is where row r's entries begin in the output.
    std::vector<int64_t> count(static_cast<size_t>(rows), 0);
    for (int64_t i = 0; i < sp.nnz; ++i) ++count[sp.index(i)[0]];
    std::vector<int64_t> start(static_cast<size_t>(rows), 0);
    int64_t total = 0;
    for (int64_t r = 0; r < rows; ++r) {
      start[r] = total;
      total += count[r] == 0 ? 1 : count[r];
    }
    Tensor *ind = nullptr, *vals = nullptr, *empty = nullptr, *reverse = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateSparseOutput(ctx, 0, total, sp.rank, {}, &ind, &vals, false));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(2, TensorShape({rows}), &empty));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(3, TensorShape({sp.nnz}), &reverse));
    int64_t* o = ind->data<int64_t>();
    std::vector<int64_t> source(static_cast<size_t>(total), -1);  // -1: the default value
    std::vector<int64_t> next = start;
    for (int64_t i = 0; i < sp.nnz; ++i) {
      const int64_t k = next[sp.index(i)[0]]++;
      std::copy(sp.index(i), sp.index(i) + sp.rank, o + k * sp.rank);
      source[k] = i;
      reverse->data<int64_t>()[i] = k;
    }
    for (int64_t r = 0; r < rows; ++r) {
      empty->data<bool>()[r] = count[r] == 0;
      if (count[r] != 0) continue;
      int64_t* row = o + start[r] * sp.rank;
      std::fill(row, row + sp.rank, int64_t{0});
      row[0] = r;
    }
    GatherValues(*sp.values, source, vals, ctx->input(3).raw_data());
  }
};

// d_values[i] = grad_values[reverse_index_map[i]]; d_default_value sums the other grad_values.
template <typename T>
class SparseFillEmptyRowsGradOp : public OpKernel {
 public:
  explicit SparseFillEmptyRowsGradOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& map = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    if (map.rank() != 1 || grad.rank() != 1) {
      ctx->SetStatus(InvalidArgument("reverse_index_map and grad_values must be vectors, got shapes ",
                                     map.shape().ToString(), " and ", grad.shape().ToString()));
      return;
    }
    const int64_t n = map.dim(0), m = grad.dim(0);
    Tensor *dv = nullptr, *dd = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({n}), &dv));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, TensorShape({}), &dd));
    std::vector<bool> used(static_cast<size_t>(m), false);
    const int64_t* r = map.data<int64_t>();
    const T* g = grad.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      if (r[i] < 0 || r[i] >= m) {
        ctx->SetStatus(InvalidArgument("Elements in reverse index must be in [0, ", m, ") but got ", r[i]));
        return;
      }
      dv->data<T>()[i] = g[r[i]];
      used[r[i]] = true;
    }
    T rest = T(0);
    for (int64_t k = 0; k < m; ++k)
      if (!used[k]) rest += g[k];
    dd->data<T>()[0] = rest;
  }
};

TX_REGISTER_ARRAY_KERNEL("SparseFillEmptyRows", SparseFillEmptyRowsOp);
TX_REGISTER_KERNEL(KernelDefBuilder("SparseFillEmptyRowsGrad").TypeConstraint<float>("T"),
                   SparseFillEmptyRowsGradOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("SparseFillEmptyRowsGrad").TypeConstraint<double>("T"),
                   SparseFillEmptyRowsGradOp<double>);
TX_REGISTER_KERNEL(KernelDefBuilder("SparseFillEmptyRowsGrad").TypeConstraint<int32_t>("T"),
                   SparseFillEmptyRowsGradOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("SparseFillEmptyRowsGrad").TypeConstraint<int64_t>("T"),
                   SparseFillEmptyRowsGradOp<int64_t>);

}  // namespace
}  // namespace cpu
}  // namespace tx

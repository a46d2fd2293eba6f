// CPU kernels for the sparse slicing ops: SparseSlice (the entries in a box, in input order),
// SparseSliceGrad, SparseConcat (the output in canonical order) and SparseSplit (the entries of
// each part in input order). Values of any dtype move through GatherValues.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tensorflux/core/object_types.h"
#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/sparse_util.h"
#include "tensorflux/ops/array_util.h"

namespace tx {
namespace cpu {
namespace {

// Copies the entries `rows` of `sp` into a SparseTensor output at `first`, subtracting `offset`
// from their coordinates (offset may be empty: no shift).
Status EmitEntries(OpKernelContext* ctx, int first, const SparseInput& sp, const std::vector<int64_t>& rows,
                   const std::vector<int64_t>& offset, const std::vector<int64_t>& shape) {
  Tensor *ind = nullptr, *vals = nullptr;
  TX_RETURN_IF_ERROR(AllocateSparseOutput(ctx, first, static_cast<int64_t>(rows.size()), sp.rank, shape, &ind, &vals));
  int64_t* o = ind->data<int64_t>();
  for (size_t k = 0; k < rows.size(); ++k)
    for (int d = 0; d < sp.rank; ++d) o[k * sp.rank + d] = sp.index(rows[k])[d] - (offset.empty() ? 0 : offset[d]);
  GatherValues(*sp.values, rows, vals);
  return Status::OK();
}

class SparseSliceOp : public OpKernel {
 public:
  explicit SparseSliceOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    SparseInput sp;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadSparseInput(ctx, 0, 1, 2, "", &sp));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInBounds(sp));
    std::vector<int64_t> start, size;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 3, "start", 1, &start));
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 4, "size", 1, &size));
    for (const auto* v : {&start, &size}) {
      const char* what = v == &start ? "start" : "size";
      if (static_cast<int>(v->size()) != sp.rank) {
        ctx->SetStatus(
            InvalidArgument("Expected ", what, " to be a vector of length ", sp.rank, " but got length ", v->size()));
        return;
      }
      for (int d = 0; d < sp.rank; ++d)
        if ((*v)[d] < 0) {
          ctx->SetStatus(InvalidArgument(what, "[", d, "] = ", (*v)[d], " must be non-negative"));
          return;
        }
    }
    std::vector<int64_t> out_shape(static_cast<size_t>(sp.rank));
    for (int d = 0; d < sp.rank; ++d) out_shape[d] = std::max<int64_t>(0, std::min(sp.shape[d] - start[d], size[d]));
    std::vector<int64_t> rows;
    for (int64_t i = 0; i < sp.nnz; ++i) {
      bool inside = true;
      for (int d = 0; d < sp.rank && inside; ++d) {
        const int64_t x = sp.index(i)[d] - start[d];
        inside = x >= 0 && x < out_shape[d];
      }
      if (inside) rows.push_back(i);
    }
    TX_CTX_RETURN_IF_ERROR(ctx, EmitEntries(ctx, 0, sp, rows, start, out_shape));
  }
};

// val_grad[i] = backprop_val_grad[j] where input entry i became output entry j (both orders
// agree, as SparseSlice keeps the input order), else 0.
template <typename T>
class SparseSliceGradOp : public OpKernel {
 public:
  explicit SparseSliceGradOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& in_ind = ctx->input(1);
    const Tensor& start_t = ctx->input(2);
    const Tensor& out_ind = ctx->input(3);
    if (grad.rank() != 1 || in_ind.rank() != 2 || start_t.rank() != 1 || out_ind.rank() != 2 ||
        in_ind.dim(1) != start_t.dim(0) || out_ind.dim(1) != in_ind.dim(1) || out_ind.dim(0) != grad.dim(0)) {
      ctx->SetStatus(InvalidArgument(
          "SparseSliceGrad expects backprop_val_grad [n], input_indices [nnz, rank], input_start [rank] and "
          "output_indices [n, rank], got ",
          grad.shape().ToString(), ", ", in_ind.shape().ToString(), ", ", start_t.shape().ToString(), " and ",
          out_ind.shape().ToString()));
      return;
    }
    const int rank = static_cast<int>(in_ind.dim(1));
    const int64_t nnz = in_ind.dim(0), n = out_ind.dim(0);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({nnz}), &out));
    T* o = out->data<T>();
    const int64_t *in = in_ind.data<int64_t>(), *sliced = out_ind.data<int64_t>(), *start = start_t.data<int64_t>();
    int64_t j = 0;
    for (int64_t i = 0; i < nnz; ++i) {
      bool match = j < n;
      for (int d = 0; d < rank && match; ++d) match = in[i * rank + d] == sliced[j * rank + d] + start[d];
      o[i] = match ? grad.data<T>()[j++] : T(0);
    }
    if (j != n)
      ctx->SetStatus(Internal("Elements of backprop_val_grad aren't all propagated. Num elements:", n, ", used: ", j));
  }
};

class SparseConcatOp : public OpKernel {
 public:
  explicit SparseConcatOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("concat_dim", &concat_dim_));
    c->SetStatus(c->GetAttr("N", &n_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = static_cast<int>(n_);
    std::vector<SparseInput> in(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      TX_CTX_RETURN_IF_ERROR(ctx, ReadSparseInput(ctx, i, n + i, 2 * n + i, "", &in[i]));
      TX_CTX_RETURN_IF_ERROR(ctx, CheckInBounds(in[i]));
    }
    const int rank = in[0].rank;
    int dim = 0;
    if (concat_dim_ < -rank || concat_dim_ >= rank) {
      ctx->SetStatus(InvalidArgument("Concat dimension must be in range [", -rank, ", ", rank, "), got ", concat_dim_));
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::CanonicalAxis(concat_dim_, rank, "concat_dim", &dim));
    std::vector<int64_t> shape = in[0].shape;
    std::vector<int64_t> offsets(static_cast<size_t>(n), 0);
    int64_t total = in[0].nnz;
    for (int i = 1; i < n; ++i) {
      if (in[i].rank != rank) {
        ctx->SetStatus(InvalidArgument("Ranks of all input tensors must match: expected ", rank, " but got ",
                                       in[i].rank, " at position ", i));
        return;
      }
      for (int d = 0; d < rank; ++d)
        if (d != dim && in[i].shape[d] != shape[d]) {
          ctx->SetStatus(InvalidArgument("Input shapes must match: expected ", shape[d], " for dimension ", d,
                                         " but got ", in[i].shape[d], " at position ", i));
          return;
        }
      offsets[i] = shape[dim];
      shape[dim] += in[i].shape[dim];
      total += in[i].nnz;
    }
    // The concatenated entries, then sorted stably into row-major order.
    std::vector<int64_t> idx(static_cast<size_t>(total * rank));
    std::vector<std::pair<int, int64_t>> source;  // (input, row) per entry
    source.reserve(static_cast<size_t>(total));
    for (int i = 0; i < n; ++i)
      for (int64_t r = 0; r < in[i].nnz; ++r) {
        int64_t* dst = idx.data() + source.size() * rank;
        std::copy(in[i].index(r), in[i].index(r) + rank, dst);
        dst[dim] += offsets[i];
        source.emplace_back(i, r);
      }
    SparseInput all;
    all.nnz = total;
    all.rank = rank;
    all.indices = idx.data();
    const std::vector<int64_t> perm = CanonicalOrder(all);
    Tensor *ind = nullptr, *vals = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateSparseOutput(ctx, 0, total, rank, shape, &ind, &vals));
    int64_t* o = ind->data<int64_t>();
    for (int64_t k = 0; k < total; ++k) std::copy(all.index(perm[k]), all.index(perm[k]) + rank, o + k * rank);
    // Values: gathered per input into their output positions.
    const DataType dt = in[0].values->dtype();
    const size_t esize = DataTypeSize(dt);
    for (int64_t k = 0; k < total; ++k) {
      const auto [i, r] = source[static_cast<size_t>(perm[k])];
      CopyElements(dt, static_cast<const char*>(in[i].values->raw_data()) + r * esize,
                   static_cast<char*>(vals->raw_data()) + k * esize, 1);
    }
  }

 private:
  int64_t concat_dim_ = 0, n_ = 0;
};

class SparseSplitOp : public OpKernel {
 public:
  explicit SparseSplitOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("num_split", &num_split_)); }

  void Compute(OpKernelContext* ctx) override {
    int64_t axis = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::ReadScalarInt(ctx->input(0), "split_dim", &axis));
    SparseInput sp;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadSparseInput(ctx, 1, 2, 3, "", &sp));
    if (axis < -sp.rank || axis >= sp.rank) {
      ctx->SetStatus(InvalidArgument("Input axis should be in range [", -sp.rank, ", ", sp.rank, "), got ", axis));
      return;
    }
    const int dim = static_cast<int>(axis < 0 ? axis + sp.rank : axis);
    const int64_t size = sp.shape[dim];
    if (num_split_ < 1 || num_split_ > size) {
      ctx->SetStatus(InvalidArgument("Input num_split should be between 1 and the splitting dimension size (", size,
                                     "), got ", num_split_));
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInBounds(sp));
    // Parts 0 .. residual-1 have base + 1 slices, the rest base.
    const int64_t base = size / num_split_, residual = size % num_split_;
    const int64_t big = residual * (base + 1);
    std::vector<std::vector<int64_t>> rows(static_cast<size_t>(num_split_));
    for (int64_t i = 0; i < sp.nnz; ++i) {
      const int64_t x = sp.index(i)[dim];
      rows[x < big ? x / (base + 1) : residual + (x - big) / base].push_back(i);
    }
    const int n = static_cast<int>(num_split_);
    for (int p = 0; p < n; ++p) {
      std::vector<int64_t> offset(static_cast<size_t>(sp.rank), 0), shape = sp.shape;
      offset[dim] = p < residual ? p * (base + 1) : big + (p - residual) * base;
      shape[dim] = p < residual ? base + 1 : base;
      Tensor *ind = nullptr, *vals = nullptr, *shp = nullptr;
      const int64_t m = static_cast<int64_t>(rows[p].size());
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(p, TensorShape({m, sp.rank}), &ind));
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(n + p, TensorShape({m}), &vals));
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(2 * n + p, TensorShape({sp.rank}), &shp));
      std::copy(shape.begin(), shape.end(), shp->data<int64_t>());
      int64_t* o = ind->data<int64_t>();
      for (int64_t k = 0; k < m; ++k)
        for (int d = 0; d < sp.rank; ++d) o[k * sp.rank + d] = sp.index(rows[p][k])[d] - offset[d];
      GatherValues(*sp.values, rows[p], vals);
    }
  }

 private:
  int64_t num_split_ = 1;
};

TX_REGISTER_ARRAY_KERNEL("SparseSlice", SparseSliceOp);
TX_REGISTER_ARRAY_KERNEL("SparseConcat", SparseConcatOp);
TX_REGISTER_ARRAY_KERNEL("SparseSplit", SparseSplitOp);
TX_REGISTER_KERNEL(KernelDefBuilder("SparseSliceGrad").TypeConstraint<float>("T"), SparseSliceGradOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("SparseSliceGrad").TypeConstraint<double>("T"), SparseSliceGradOp<double>);
TX_REGISTER_KERNEL(KernelDefBuilder("SparseSliceGrad").TypeConstraint<int32_t>("T"), SparseSliceGradOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("SparseSliceGrad").TypeConstraint<int64_t>("T"), SparseSliceGradOp<int64_t>);

}  // namespace
}  // namespace cpu
}  // namespace tx

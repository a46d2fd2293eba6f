#include "tensorflux/kernels/cpu/sparse_util.h"

#include <algorithm>
#include <numeric>

#include "tensorflux/core/object_types.h"

namespace tx {
namespace cpu {

Status ReadSparseInput(const OpKernelContext* ctx, int ind, int val, int shp, const std::string& what,
                       SparseInput* out) {
  const Tensor& indices = ctx->input(ind);
  const Tensor& values = ctx->input(val);
  const Tensor& shape = ctx->input(shp);
  if (indices.rank() != 2)
    return InvalidArgument("Sparse ", what, "indices must be rank 2 but is rank ", indices.rank(), " (shape ",
                           indices.shape().ToString(), ")");
  if (values.rank() != 1)
    return InvalidArgument("Sparse ", what, "values must be rank 1 but is rank ", values.rank(), " (shape ",
                           values.shape().ToString(), ")");
  if (shape.rank() != 1)
    return InvalidArgument("Sparse ", what, "shape must be rank 1 but is rank ", shape.rank(), " (shape ",
                           shape.shape().ToString(), ")");
  if (indices.dim(0) != values.dim(0))
    return InvalidArgument("Number of elements in ", what, "indices (", indices.dim(0), ") and ", what, "values (",
                           values.dim(0), ") do not match");
  if (indices.dim(1) != shape.dim(0))
    return InvalidArgument("Index rank (", indices.dim(1), ") and shape rank (", shape.dim(0), ") of ", what,
                           "indices and ", what, "shape do not match");
  if (shape.dtype() != DT_INT64 && shape.dtype() != DT_INT32)
    return InvalidArgument("Sparse ", what, "shape must be int32 or int64, got ", DataTypeString(shape.dtype()));
  out->nnz = indices.dim(0);
  out->rank = static_cast<int>(indices.dim(1));
  out->values = &values;
  out->shape.resize(static_cast<size_t>(out->rank));
  for (int d = 0; d < out->rank; ++d) {
    const int64_t n = shape.dtype() == DT_INT64 ? shape.data<int64_t>()[d] : shape.data<int32_t>()[d];
    if (n < 0) return InvalidArgument("Sparse ", what, "shape has a negative dimension: ", ShapeString(out->shape));
    out->shape[d] = n;
  }
  if (indices.dtype() == DT_INT64) {
    out->indices = indices.data<int64_t>();
  } else if (indices.dtype() == DT_INT32) {
    const int32_t* p = indices.data<int32_t>();
    out->owned.assign(p, p + indices.num_elements());
    out->indices = out->owned.data();
  } else {
    return InvalidArgument("Sparse ", what, "indices must be int32 or int64, got ", DataTypeString(indices.dtype()));
  }
  return Status::OK();
}

std::string IndexString(const SparseInput& sp, int64_t i) {
  std::string s = "[";
  for (int d = 0; d < sp.rank; ++d) s += (d ? "," : "") + std::to_string(sp.index(i)[d]);
  return s + "]";
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t d = 0; d < shape.size(); ++d) s += (d ? "," : "") + std::to_string(shape[d]);
  return s + "]";
}

Status CheckInBounds(const SparseInput& sp) {
  for (int64_t i = 0; i < sp.nnz; ++i) {
    const int64_t* idx = sp.index(i);
    for (int d = 0; d < sp.rank; ++d)
      if (idx[d] < 0 || idx[d] >= sp.shape[d])
        return InvalidArgument("indices[", i, "] = ", IndexString(sp, i), " is out of bounds: need 0 <= index < ",
                               ShapeString(sp.shape));
  }
  return Status::OK();
}

Status CheckCanonical(const SparseInput& sp) {
  TX_RETURN_IF_ERROR(CheckInBounds(sp));
  for (int64_t i = 1; i < sp.nnz; ++i) {
    const int c = CompareIndices(sp.index(i - 1), sp.index(i), sp.rank);
    if (c > 0)
      return InvalidArgument("indices[", i, "] = ", IndexString(sp, i),
                             " is out of order. Many sparse ops require sorted indices.\n"
                             "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n");
    if (c == 0) return InvalidArgument("indices[", i, "] = ", IndexString(sp, i), " is repeated");
  }
  return Status::OK();
}

int CompareIndices(const int64_t* a, const int64_t* b, int rank) {
  for (int d = 0; d < rank; ++d) {
    if (a[d] < b[d]) return -1;
    if (a[d] > b[d]) return 1;
  }
  return 0;
}

std::vector<int64_t> CanonicalOrder(const SparseInput& sp) {
  std::vector<int64_t> perm(static_cast<size_t>(sp.nnz));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  bool sorted = true;
  for (int64_t i = 1; i < sp.nnz && sorted; ++i) sorted = CompareIndices(sp.index(i - 1), sp.index(i), sp.rank) <= 0;
  if (!sorted)
    std::stable_sort(perm.begin(), perm.end(),
                     [&](int64_t a, int64_t b) { return CompareIndices(sp.index(a), sp.index(b), sp.rank) < 0; });
  return perm;
}

Status AllocateSparseOutput(OpKernelContext* ctx, int first, int64_t nnz, int rank, const std::vector<int64_t>& shape,
                            Tensor** indices, Tensor** values, bool shape_output) {
  TX_RETURN_IF_ERROR(ctx->allocate_output(first, TensorShape({nnz, rank}), indices));
  TX_RETURN_IF_ERROR(ctx->allocate_output(first + 1, TensorShape({nnz}), values));
  if (!shape_output) return Status::OK();
  Tensor* s = nullptr;
  TX_RETURN_IF_ERROR(ctx->allocate_output(first + 2, TensorShape({static_cast<int64_t>(shape.size())}), &s));
  std::copy(shape.begin(), shape.end(), s->data<int64_t>());
  return Status::OK();
}

void GatherValues(const Tensor& values, const std::vector<int64_t>& perm, Tensor* out, const void* pad) {
  if (perm.empty()) return;
  GatherElements(values.dtype(), values.raw_data(), perm.data(), static_cast<int64_t>(perm.size()), out->raw_data(),
                 pad);
}

std::vector<int64_t> DenseStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) s[d] = s[d + 1] * shape[d + 1];
  return s;
}

}  // namespace cpu
}  // namespace tx

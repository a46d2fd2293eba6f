// What the sparse kernels share: reading a SparseTensor's three input components with
// TensorFlow's checks, index validation (bounds, canonical order), canonical ordering, and
// writing a SparseTensor's components as outputs (Note [SparseTensor components], ops/sparse_util.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// A SparseTensor's components as a kernel reads them (indices always as int64).
struct SparseInput {
  const int64_t* indices = nullptr;  // [nnz, rank], row-major
  const Tensor* values = nullptr;  // [nnz]
  std::vector<int64_t> shape;  // the dense shape, [rank]
  int64_t nnz = 0;
  int rank = 0;
  std::vector<int64_t> owned;  // int32 indices converted to int64

  const int64_t* index(int64_t i) const { return indices + i * rank; }
};

// Reads inputs `ind`, `val` and `shp` of `ctx` as one SparseTensor: indices a matrix (int32 or
// int64), values a vector and the shape a vector (non-negative), with agreeing nnz and rank.
// `what` prefixes the component names in messages ("" or "a_").
Status ReadSparseInput(const OpKernelContext* ctx, int ind, int val, int shp, const std::string& what,
                       SparseInput* out);

// "[1,2]": index row `i` of `sp`.
std::string IndexString(const SparseInput& sp, int64_t i);
// "[3,4]": a dense shape.
std::string ShapeString(const std::vector<int64_t>& shape);

// InvalidArgument "indices[i] = [..] is out of bounds: need 0 <= index < [..]" for the first
// index row outside the dense shape (TensorFlow's SparseTensor::IndicesValid text).
Status CheckInBounds(const SparseInput& sp);
// CheckInBounds, then InvalidArgument for the first row that is not strictly after the one
// before in row-major order ("... is out of order" / "... is repeated", TensorFlow's text).
Status CheckCanonical(const SparseInput& sp);

// -1, 0 or 1 as index row a sorts before, with or after b (row-major, `rank` coordinates).
int CompareIndices(const int64_t* a, const int64_t* b, int rank);

// The stable permutation that sorts the rows of `sp` into row-major order (perm[k] = old row).
std::vector<int64_t> CanonicalOrder(const SparseInput& sp);

// Allocates the three outputs of a SparseTensor with `nnz` entries of `rank` at outputs first,
// first + 1 and first + 2 (values of `dtype`); the shape output is filled from `shape`.
// `shape_output` false: only indices and values (SparseReorder, SparseSparseMaximum).
Status AllocateSparseOutput(OpKernelContext* ctx, int first, int64_t nnz, int rank, const std::vector<int64_t>& shape,
                            Tensor** indices, Tensor** values, bool shape_output = true);

// Writes values[perm[k]] (perm[k] < 0: *pad, or a default element when pad is null) to out[k]:
// type-generic, strings included.
void GatherValues(const Tensor& values, const std::vector<int64_t>& perm, Tensor* out, const void* pad = nullptr);

// Row-major strides of a dense shape, as int64.
std::vector<int64_t> DenseStrides(const std::vector<int64_t>& shape);

}  // namespace cpu
}  // namespace tx

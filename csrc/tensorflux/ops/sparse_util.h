// Shape-function helpers shared by the sparse op families (sparse_ops.cc, sparse_math_ops.cc):
// a SparseTensor enters an op as three inputs, indices [nnz, rank] int64, values [nnz] and
// dense_shape [rank] int64 (Note [SparseTensor components]).
#pragma once

#include <cstdint>
#include <vector>

#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace sparse_util {

// Note [SparseTensor components]
// TensorFlow's SparseTensor is not a tensor but three: `indices` (int64 [nnz, rank], one row of
// coordinates per stored value), `values` ([nnz], any dtype) and `dense_shape` (int64 [rank]).
// Every sparse op takes and returns these components, so graphs, the C API and Go see plain
// tensors; tx.SparseTensor (Python) only bundles them. Ops that merge or group entries (SparseAdd,
// SparseSparseMaximum, SparseToDense with validate_indices) need the canonical row-major order
// and say so when it is broken; the others accept any order. Every kernel checks that indices are
// within dense_shape (TensorFlow's kernels skip that check in several ops; here bad indices are
// always an error rather than a wrong answer).

// What the shape function knows of one SparseTensor: nnz and rank (-1 when unknown).
struct SparseDims {
  int64_t nnz = -1;
  int64_t rank = -1;
};

// Checks the ranks of inputs `indices`, `values` and `shape` of `c` (2, 1 and 1) and that their
// nnz and rank dimensions agree; `what` names the operand in messages ("a", "input").
Status ReadSparseDims(InferenceContext* c, int indices, int values, int shape, const char* what, SparseDims* out);

// The constant value of 1-D integer input `i` (a dense shape), or false when it is not constant.
bool ConstantVector(InferenceContext* c, int i, std::vector<int64_t>* out);

// A [nnz, rank] indices shape.
inline PartialShape IndicesShape(int64_t nnz, int64_t rank) { return PartialShape({nnz, rank}); }

}  // namespace sparse_util
}  // namespace tx

// Helpers shared by the LAPACK-backed linear-algebra kernels: shape checks and a parallel loop
// over the batch of matrices that reports the first per-matrix failure.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/lapack.h"

namespace tx {
namespace cpu {

// Checks that `t` is a (batch of) square matrix, naming `op` and the shape otherwise.
inline Status CheckSquareMatrices(const Tensor& t, const std::string& op) {
  if (t.rank() < 2) return InvalidArgument(op, ": input must have rank >= 2, got shape ", t.shape().ToString());
  if (t.dim(t.rank() - 1) != t.dim(t.rank() - 2))
    return InvalidArgument(op, ": input must be a square matrix (or batch of them), got shape ", t.shape().ToString());
  if (!lapack::FitsInt(t.dim(t.rank() - 1)))
    return InvalidArgument(op, ": matrix too large for LAPACK: ", t.shape().ToString());
  return Status::OK();
}

// Checks that `t` has rank >= 2 and LAPACK-sized matrices.
inline Status CheckMatrices(const Tensor& t, const std::string& op, const char* what) {
  if (t.rank() < 2) return InvalidArgument(op, ": ", what, " must have rank >= 2, got shape ", t.shape().ToString());
  if (!lapack::FitsInt(t.dim(t.rank() - 1)) || !lapack::FitsInt(t.dim(t.rank() - 2)))
    return InvalidArgument(op, ": matrix too large for LAPACK: ", t.shape().ToString());
  return Status::OK();
}

// The shape `s` with its last `n` dims replaced by `tail`.
inline TensorShape ReplaceTail(const TensorShape& s, int n, std::vector<int64_t> tail) {
  std::vector<int64_t> d(s.dims().begin(), s.dims().end() - n);
  d.insert(d.end(), tail.begin(), tail.end());
  return TensorShape(std::move(d));
}

// Number of matrices in a tensor whose last two dims are the matrix.
inline int64_t NumMatrices(const Tensor& t) {
  int64_t n = 1;
  for (int i = 0; i < t.rank() - 2; ++i) n *= t.dim(i);
  return n;
}

// Calls fn(b) for every matrix b in [0, n) (over the intra-op pool when `cost` per matrix is
// large enough); fn returns a Status and the first failure is returned.
template <typename F>
Status ForEachMatrix(OpKernelContext* ctx, int64_t n, int64_t cost, const F& fn) {
  std::mutex mu;
  Status first;
  ParallelItems(ctx->intra_op_pool(), n, cost, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      Status s = fn(b);
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        if (first.ok()) first = s;
        return;
      }
    }
  });
  return first;
}

// Copies the row-major r x c matrix `src` transposed into `dst` (c x r).
template <typename T>
void TransposeMatrix(const T* src, int64_t r, int64_t c, T* dst) {
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) dst[j * r + i] = src[i * c + j];
}

}  // namespace cpu
}  // namespace tx

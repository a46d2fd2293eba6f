// Complex GEMM through OpenBLAS (cgemm/zgemm from scipy-openblas32), row-major, with each
// operand used as is, transposed, or conjugate-transposed (adjoint).
#pragma once

#include <cstdint>

#include "tensorflux/core/complex.h"

namespace tx {

class ThreadPool;

// How a GEMM operand enters the product.
enum class GemmOp { kNone, kTranspose, kAdjoint };

// C[m,n] = op_a(A)[m,k] * op_b(B)[k,n], overwriting C. Requires FitsBlasInt(m, n, k, lda, ldb,
// ldc) (blas.h); lda/ldb/ldc are row strides of the stored matrices. Runs on the calling thread.
void ComplexGemm(GemmOp op_a, GemmOp op_b, int64_t m, int64_t n, int64_t k, const complex64* a, int64_t lda,
                 const complex64* b, int64_t ldb, complex64* c, int64_t ldc);
void ComplexGemm(GemmOp op_a, GemmOp op_b, int64_t m, int64_t n, int64_t k, const complex128* a, int64_t lda,
                 const complex128* b, int64_t ldb, complex128* c, int64_t ldc);

// ComplexGemm with C's rows (or columns, when C is short and wide) split over `pool` (nullable)
// and the caller, one single-threaded BLAS call per block (Note [Single-threaded BLAS]).
template <typename C>
void PoolComplexGemm(ThreadPool* pool, GemmOp op_a, GemmOp op_b, int64_t m, int64_t n, int64_t k, const C* a,
                     int64_t lda, const C* b, int64_t ldb, C* c, int64_t ldc);

}  // namespace tx

// BLAS entry points the engine uses (OpenBLAS from scipy-openblas32, symbols prefixed scipy_).
#pragma once

#include <cstdint>

namespace tx {

class ThreadPool;

// Makes OpenBLAS single-threaded for the whole process (Note [Single-threaded BLAS]); idempotent.
void UseSingleThreadedBlas();

// True when every dimension and leading dimension fits BLAS's 32-bit integer arguments.
bool FitsBlasInt(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc);

// Row-major C[m,n] = op(A)[m,k] * op(B)[k,n], overwriting C; op transposes when trans_* is set.
// Requires FitsBlasInt(m, n, k, lda, ldb, ldc); lda/ldb/ldc are row strides of the stored matrices.
void BlasGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
              int64_t ldb, float* c, int64_t ldc);
void BlasGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
              const double* b, int64_t ldb, double* c, int64_t ldc);

// BlasGemm with C's rows (or columns, when C is short and wide) split over `pool`'s threads plus
// the caller, each block one single-threaded BLAS call. OpenBLAS's own workers spin-wait for one
// another and collapse when other work competes for the cores; our pool's threads block instead.
void PoolGemm(ThreadPool* pool, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
              int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc);
void PoolGemm(ThreadPool* pool, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a,
              int64_t lda, const double* b, int64_t ldb, double* c, int64_t ldc);

}  // namespace tx

// Note [Single-threaded BLAS]
// Every BLAS call runs on the thread that makes it: GEMMs big enough to share are split over the
// intra-op pool by PoolGemm (blocks of C, one single-threaded BLAS call per block), and batched or
// per-chunk GEMMs run one per pool thread. OpenBLAS's own workers spin while they wait for work;
// on a machine whose cores the intra-op pool already uses they competed with it (measured: 2-5%
// of a train step in blas_thread_server), and switching OpenBLAS between 1 and N threads around
// each parallel region (the previous scheme) woke them on every call.

// BLAS entry points the engine uses (OpenBLAS from scipy-openblas32, symbols prefixed scipy_).
#pragma once

#include <cstdint>

namespace tx {

class ThreadPool;

// Sets the number of threads OpenBLAS may use for one call (the session passes its intra-op
// thread count, so BLAS and the intra-op pool never oversubscribe the cores); n < 1 means 1.
void SetBlasThreads(int n);

// While an instance is alive, BLAS calls run on their calling thread only, so intra-op threads can
// each run their own GEMM without OpenBLAS' workers competing for the same cores; when the last
// live instance ends, BLAS goes back to `restore_threads` threads (the session's intra-op count).
class SingleThreadedBlasScope {
 public:
  explicit SingleThreadedBlasScope(int restore_threads);
  ~SingleThreadedBlasScope();
  SingleThreadedBlasScope(const SingleThreadedBlasScope&) = delete;
  SingleThreadedBlasScope& operator=(const SingleThreadedBlasScope&) = delete;

 private:
  int restore_threads_;
};

// True when every dimension and leading dimension fits BLAS's 32-bit integer arguments.
bool FitsBlasInt(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc);

// Row-major C[m,n] = op(A)[m,k] * op(B)[k,n], overwriting C; op transposes when trans_* is set.
// Requires FitsBlasInt(m, n, k, lda, ldb, ldc); lda/ldb/ldc are row strides of the stored matrices.
void BlasGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
              const float* b, int64_t ldb, float* c, int64_t ldc);
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

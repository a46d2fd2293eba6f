#include "tensorflux/kernels/cpu/blas.h"

#include <cblas.h>

#include <algorithm>
#include <limits>
#include <mutex>

#include "tensorflux/core/thread_pool.h"

namespace tx {

void UseSingleThreadedBlas() {
  static std::once_flag once;
  std::call_once(once, [] { scipy_openblas_set_num_threads(1); });
}

bool FitsBlasInt(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc) {
  const int64_t kMax = std::numeric_limits<blasint>::max();
  return std::max({m, n, k, lda, ldb, ldc}) <= kMax;
}

void BlasGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
              const float* b, int64_t ldb, float* c, int64_t ldc) {
  scipy_cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                    static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), 1.0f, a,
                    static_cast<blasint>(lda), b, static_cast<blasint>(ldb), 0.0f, c, static_cast<blasint>(ldc));
}

void BlasGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
              const double* b, int64_t ldb, double* c, int64_t ldc) {
  scipy_cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                    static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), 1.0, a,
                    static_cast<blasint>(lda), b, static_cast<blasint>(ldb), 0.0, c, static_cast<blasint>(ldc));
}

namespace {

// Below this many multiply-adds one BLAS call on the calling thread is cheapest.
constexpr int64_t kPoolGemmMinWork = int64_t{1} << 20;

template <typename T>
void PoolGemmImpl(ThreadPool* pool, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                  const T* b, int64_t ldb, T* c, int64_t ldc) {
  const int threads = pool->num_threads() + 1;
  if (threads == 1 || m * n * k < kPoolGemmMinWork) {
    BlasGemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
    return;
  }
  // Split the longer side of C into `threads` blocks (rows in multiples of 4, columns of 16).
  const bool by_rows = m >= n;
  const int64_t len = by_rows ? m : n, align = by_rows ? 4 : 16;
  const int64_t block = std::max<int64_t>(align, (len / threads + align - 1) / align * align);
  const int64_t parts = (len + block - 1) / block;
  pool->ParallelFor(parts, m * n * k / parts, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t lo = p * block, hi = std::min(len, lo + block);
      if (by_rows) {
        // Rows lo..hi of op(A): stored rows when A is not transposed, stored columns otherwise.
        BlasGemm(ta, tb, hi - lo, n, k, a + (ta ? lo : lo * lda), lda, b, ldb, c + lo * ldc, ldc);
      } else {
        BlasGemm(ta, tb, m, hi - lo, k, a, lda, b + (tb ? lo * ldb : lo), ldb, c + lo, ldc);
      }
    }
  });
}

}  // namespace

void PoolGemm(ThreadPool* pool, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
              int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  PoolGemmImpl(pool, trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc);
}

void PoolGemm(ThreadPool* pool, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a,
              int64_t lda, const double* b, int64_t ldb, double* c, int64_t ldc) {
  PoolGemmImpl(pool, trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc);
}

}  // namespace tx

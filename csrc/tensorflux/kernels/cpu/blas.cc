#include "tensorflux/kernels/cpu/blas.h"

#include <cblas.h>

#include <algorithm>
#include <limits>
#include <mutex>

namespace tx {

void SetBlasThreads(int n) { scipy_openblas_set_num_threads(std::max(1, n)); }

namespace {
std::mutex single_threaded_mu;
int single_threaded_live = 0;  // guarded by single_threaded_mu
}  // namespace

SingleThreadedBlasScope::SingleThreadedBlasScope(int restore_threads) : restore_threads_(restore_threads) {
  std::lock_guard<std::mutex> l(single_threaded_mu);
  if (single_threaded_live++ == 0) SetBlasThreads(1);
}

SingleThreadedBlasScope::~SingleThreadedBlasScope() {
  std::lock_guard<std::mutex> l(single_threaded_mu);
  if (--single_threaded_live == 0) SetBlasThreads(restore_threads_);
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

}  // namespace tx

#include "tensorflux/kernels/cpu/blas_complex.h"

#include <cblas.h>

#include <algorithm>

#include "tensorflux/core/thread_pool.h"

namespace tx {
namespace {

CBLAS_TRANSPOSE Trans(GemmOp op) {
  return op == GemmOp::kNone ? CblasNoTrans : op == GemmOp::kTranspose ? CblasTrans : CblasConjTrans;
}

// Below this many complex multiply-adds one BLAS call on the calling thread is cheapest.
constexpr int64_t kPoolMinWork = int64_t{1} << 18;

}  // namespace

void ComplexGemm(GemmOp op_a, GemmOp op_b, int64_t m, int64_t n, int64_t k, const complex64* a, int64_t lda,
                 const complex64* b, int64_t ldb, complex64* c, int64_t ldc) {
  const complex64 one(1), zero(0);
  scipy_cblas_cgemm(CblasRowMajor, Trans(op_a), Trans(op_b), static_cast<blasint>(m), static_cast<blasint>(n),
                    static_cast<blasint>(k), &one, a, static_cast<blasint>(lda), b, static_cast<blasint>(ldb), &zero, c,
                    static_cast<blasint>(ldc));
}

void ComplexGemm(GemmOp op_a, GemmOp op_b, int64_t m, int64_t n, int64_t k, const complex128* a, int64_t lda,
                 const complex128* b, int64_t ldb, complex128* c, int64_t ldc) {
  const complex128 one(1), zero(0);
  scipy_cblas_zgemm(CblasRowMajor, Trans(op_a), Trans(op_b), static_cast<blasint>(m), static_cast<blasint>(n),
                    static_cast<blasint>(k), &one, a, static_cast<blasint>(lda), b, static_cast<blasint>(ldb), &zero, c,
                    static_cast<blasint>(ldc));
}

template <typename C>
void PoolComplexGemm(ThreadPool* pool, GemmOp op_a, GemmOp op_b, int64_t m, int64_t n, int64_t k, const C* a,
                     int64_t lda, const C* b, int64_t ldb, C* c, int64_t ldc) {
  const int threads = pool == nullptr ? 1 : pool->num_threads() + 1;
  if (threads == 1 || m * n * k < kPoolMinWork) {
    ComplexGemm(op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc);
    return;
  }
  const bool by_rows = m >= n;
  const int64_t len = by_rows ? m : n, align = by_rows ? 4 : 8;
  const int64_t block = std::max<int64_t>(align, (len / threads + align - 1) / align * align);
  const int64_t parts = (len + block - 1) / block;
  const bool a_stored_by_rows = op_a == GemmOp::kNone, b_stored_by_rows = op_b == GemmOp::kNone;
  pool->ParallelFor(parts, m * n * k / parts, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t lo = p * block, hi = std::min(len, lo + block);
      if (by_rows)  // rows lo..hi of op(A): stored rows, or stored columns when A enters transposed
        ComplexGemm(op_a, op_b, hi - lo, n, k, a + (a_stored_by_rows ? lo * lda : lo), lda, b, ldb, c + lo * ldc, ldc);
      else
        ComplexGemm(op_a, op_b, m, hi - lo, k, a, lda, b + (b_stored_by_rows ? lo : lo * ldb), ldb, c + lo, ldc);
    }
  });
}

template void PoolComplexGemm<complex64>(ThreadPool*, GemmOp, GemmOp, int64_t, int64_t, int64_t, const complex64*,
                                         int64_t, const complex64*, int64_t, complex64*, int64_t);
template void PoolComplexGemm<complex128>(ThreadPool*, GemmOp, GemmOp, int64_t, int64_t, int64_t, const complex128*,
                                          int64_t, const complex128*, int64_t, complex128*, int64_t);

}  // namespace tx

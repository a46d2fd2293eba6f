#include "tensorflux/kernels/cpu/blas.h"

#include <cblas.h>

#include <algorithm>
#include <limits>
#include <mutex>

#include "tensorflux/core/thread_pool.h"
#include "tensorflux/kernels/cpu/gemm/gemm.h"

namespace tx {

void UseSingleThreadedBlas() {
  static std::once_flag once;
  std::call_once(once, [] { scipy_openblas_set_num_threads(1); });
}

bool FitsBlasInt(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc) {
  const int64_t kMax = std::numeric_limits<blasint>::max();
  return std::max({m, n, k, lda, ldb, ldc}) <= kMax;
}

// Note [Matrix-vector products]
// A product with one row (batch-1 serving: m == 1) or one column (n == 1) is a matrix-vector
// product. OpenBLAS's sgemm packs the whole of B for it (a 4 MiB copy for 1x1024 @ 1024x1024,
// 4x the time of the product), so such products go to gemv, which streams the matrix once:
//   m == 1: c[0, :] = op(B)^T op(A)[0, :]   (B as stored: Trans when B is [k, n], NoTrans when [n, k])
//   n == 1: c[:, 0] = op(A) op(B)[:, 0]     (A as stored: NoTrans when A is [m, k], Trans when [k, m])
// An empty sum (k == 0) stays with gemm, which writes the zeros gemv's quick return would skip.
namespace {

// BlasGemm on the cblas `gemm` and `gemv` of T (Note [Matrix-vector products]).
template <typename T, typename Gemm, typename Gemv>
void GemmOrGemv(Gemm gemm, Gemv gemv, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                const T* b, int64_t ldb, T* c, int64_t ldc) {
  auto i = [](int64_t v) { return static_cast<blasint>(v); };
  if (k > 0 && m == 1 && n > 0)
    return gemv(CblasRowMajor, tb ? CblasNoTrans : CblasTrans, i(tb ? n : k), i(tb ? k : n), T(1), b, i(ldb), a,
                i(ta ? lda : 1), T(0), c, 1);
  if (k > 0 && n == 1 && m > 0)
    return gemv(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, i(ta ? k : m), i(ta ? m : k), T(1), a, i(lda), b,
                i(tb ? 1 : ldb), T(0), c, i(ldc));
  gemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, i(m), i(n), i(k), T(1), a, i(lda),
       b, i(ldb), T(0), c, i(ldc));
}

}  // namespace

// Note [Routing float products]
// Our GEMM (Note [Own GEMM]) takes the float products where it measured faster than OpenBLAS on
// one thread (AMD EPYC Zen 3, AVX2, loaded; Session.run of x @ constant against the same product
// with x stored transposed, which stays on OpenBLAS): 2 to 6 rows of C with neither operand
// transposed, where its small-M path packs nothing (2x512 @ 512x512 40 vs 135 us, 4x1024 @
// 1024x1024 254-297 vs 385-412 us, 6x784 @ 784x512 175 vs 292 us). At 8 rows it was level or
// behind (8x1024 @ 1024x1024 700-745 vs 465-625 us), and on large packed shapes 5-15% behind
// (tools/bench/gemm_kernel_bench.cc), so OpenBLAS keeps those.
constexpr int64_t kOwnGemmMaxRows = 6;

void BlasGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
              int64_t ldb, float* c, int64_t ldc) {
  if (m >= 2 && m <= kOwnGemmMaxRows && !trans_a && !trans_b) {
    cpu::gemm::GemmArgs g;
    g.m = m, g.n = n, g.k = k, g.a = a, g.lda = lda, g.b = b, g.ldb = ldb, g.c = c, g.ldc = ldc;
    return cpu::gemm::Sgemm(g);
  }
  GemmOrGemv(scipy_cblas_sgemm, scipy_cblas_sgemv, trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc);
}

void BlasGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
              const double* b, int64_t ldb, double* c, int64_t ldc) {
  GemmOrGemv(scipy_cblas_dgemm, scipy_cblas_dgemv, trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc);
}

namespace {

// Below this many multiply-adds one BLAS call on the calling thread is cheapest.
constexpr int64_t kPoolGemmMinWork = int64_t{1} << 20;
// The same for matrix-vector products, which stream their matrix once and are bound by memory:
// 1x1024 @ 1024x1024 took 74 us on one thread and 125 us split over two (AMD EPYC, 2 cores).
constexpr int64_t kPoolGemvMinWork = int64_t{1} << 24;

template <typename T>
void PoolGemmImpl(ThreadPool* pool, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                  const T* b, int64_t ldb, T* c, int64_t ldc) {
  const int threads = pool->num_threads() + 1;
  const bool gemv = m == 1 || n == 1;  // Note [Matrix-vector products]
  if (threads == 1 || m * n * k < (gemv ? kPoolGemvMinWork : kPoolGemmMinWork)) {
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

// Typed LAPACK wrappers over OpenBLAS's LAPACKE (row-major layout).
#include "tensorflux/kernels/cpu/lapack.h"

#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <limits>
#include <vector>

namespace tx {
namespace lapack {
namespace {

constexpr int kRow = LAPACK_ROW_MAJOR;
constexpr int kCol = LAPACK_COL_MAJOR;

lapack_int I(int64_t v) { return static_cast<lapack_int>(v); }

}  // namespace

bool FitsInt(int64_t n) { return n <= std::numeric_limits<lapack_int>::max() / 2; }

int Getrf(int64_t n, float* a, int32_t* ipiv) { return scipy_LAPACKE_sgetrf(kRow, I(n), I(n), a, I(n), ipiv); }
int Getrf(int64_t n, double* a, int32_t* ipiv) { return scipy_LAPACKE_dgetrf(kRow, I(n), I(n), a, I(n), ipiv); }

int GetrfT(int64_t n, float* a, int32_t* ipiv) { return scipy_LAPACKE_sgetrf(kCol, I(n), I(n), a, I(n), ipiv); }
int GetrfT(int64_t n, double* a, int32_t* ipiv) { return scipy_LAPACKE_dgetrf(kCol, I(n), I(n), a, I(n), ipiv); }

namespace {
// The factors are of a^T: a x = b is (a^T)^T x = b (LAPACK trans 'T'); a^T x = b is trans 'N'.
// Column-major b is b^T of the row-major buffer: one column needs no copy.
template <typename T, typename F>
int GetrsTImpl(bool adjoint, int64_t n, int64_t nrhs, const T* lu_t, const int32_t* ipiv, T* b, F getrs) {
  const char trans = adjoint ? 'N' : 'T';
  if (nrhs == 1) return getrs(kCol, trans, I(n), 1, lu_t, I(n), ipiv, b, I(n));
  std::vector<T> cm(static_cast<size_t>(n * nrhs));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < nrhs; ++j) cm[j * n + i] = b[i * nrhs + j];
  const int info = getrs(kCol, trans, I(n), I(nrhs), lu_t, I(n), ipiv, cm.data(), I(n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < nrhs; ++j) b[i * nrhs + j] = cm[j * n + i];
  return info;
}
}  // namespace

int GetrsT(bool adjoint, int64_t n, int64_t nrhs, const float* lu_t, const int32_t* ipiv, float* b) {
  return GetrsTImpl(adjoint, n, nrhs, lu_t, ipiv, b, scipy_LAPACKE_sgetrs);
}
int GetrsT(bool adjoint, int64_t n, int64_t nrhs, const double* lu_t, const int32_t* ipiv, double* b) {
  return GetrsTImpl(adjoint, n, nrhs, lu_t, ipiv, b, scipy_LAPACKE_dgetrs);
}

// (a^T)^-1 in column-major order is a^-1 in row-major order.
int GetriT(int64_t n, float* lu_t, const int32_t* ipiv) { return scipy_LAPACKE_sgetri(kCol, I(n), lu_t, I(n), ipiv); }
int GetriT(int64_t n, double* lu_t, const int32_t* ipiv) { return scipy_LAPACKE_dgetri(kCol, I(n), lu_t, I(n), ipiv); }

// Row-major lower triangle = column-major upper triangle: potrf 'U' on the same buffer, no copies.
int PotrfLower(int64_t n, float* a) { return scipy_LAPACKE_spotrf(kCol, 'U', I(n), a, I(n)); }
int PotrfLower(int64_t n, double* a) { return scipy_LAPACKE_dpotrf(kCol, 'U', I(n), a, I(n)); }

int Geqrf(int64_t m, int64_t n, float* a, float* tau) { return scipy_LAPACKE_sgeqrf(kRow, I(m), I(n), a, I(n), tau); }
int Geqrf(int64_t m, int64_t n, double* a, double* tau) { return scipy_LAPACKE_dgeqrf(kRow, I(m), I(n), a, I(n), tau); }

int Orgqr(int64_t m, int64_t n, int64_t k, float* a, const float* tau) {
  return scipy_LAPACKE_sorgqr(kRow, I(m), I(n), I(k), a, I(n), tau);
}
int Orgqr(int64_t m, int64_t n, int64_t k, double* a, const double* tau) {
  return scipy_LAPACKE_dorgqr(kRow, I(m), I(n), I(k), a, I(n), tau);
}

namespace {
void SvdDims(char job, int64_t m, int64_t n, lapack_int* ldu, lapack_int* ldvt) {
  const int64_t p = std::min(m, n);
  *ldu = I(std::max<int64_t>(1, job == 'A' ? m : p));
  *ldvt = I(std::max<int64_t>(1, n));
}
}  // namespace

int Gesdd(char job, int64_t m, int64_t n, float* a, float* s, float* u, float* vt) {
  lapack_int ldu, ldvt;
  SvdDims(job, m, n, &ldu, &ldvt);
  return scipy_LAPACKE_sgesdd(kRow, job, I(m), I(n), a, I(std::max<int64_t>(1, n)), s, u, ldu, vt, ldvt);
}
int Gesdd(char job, int64_t m, int64_t n, double* a, double* s, double* u, double* vt) {
  lapack_int ldu, ldvt;
  SvdDims(job, m, n, &ldu, &ldvt);
  return scipy_LAPACKE_dgesdd(kRow, job, I(m), I(n), a, I(std::max<int64_t>(1, n)), s, u, ldu, vt, ldvt);
}

int Syevd(bool vectors, int64_t n, float* a, float* w) {
  return scipy_LAPACKE_ssyevd(kRow, vectors ? 'V' : 'N', 'L', I(n), a, I(std::max<int64_t>(1, n)), w);
}
int Syevd(bool vectors, int64_t n, double* a, double* w) {
  return scipy_LAPACKE_dsyevd(kRow, vectors ? 'V' : 'N', 'L', I(n), a, I(std::max<int64_t>(1, n)), w);
}

int Gelsd(int64_t m, int64_t n, int64_t nrhs, float* a, float* b) {
  std::vector<float> s(static_cast<size_t>(std::max<int64_t>(1, std::min(m, n))));
  lapack_int rank = 0;
  return scipy_LAPACKE_sgelsd(kRow, I(m), I(n), I(nrhs), a, I(n), b, I(nrhs), s.data(), -1.0f, &rank);
}
int Gelsd(int64_t m, int64_t n, int64_t nrhs, double* a, double* b) {
  std::vector<double> s(static_cast<size_t>(std::max<int64_t>(1, std::min(m, n))));
  lapack_int rank = 0;
  return scipy_LAPACKE_dgelsd(kRow, I(m), I(n), I(nrhs), a, I(n), b, I(nrhs), s.data(), -1.0, &rank);
}

void Trsm(bool lower, bool trans, int64_t n, int64_t nrhs, const float* a, float* b) {
  scipy_cblas_strsm(CblasRowMajor, CblasLeft, lower ? CblasLower : CblasUpper, trans ? CblasTrans : CblasNoTrans,
                    CblasNonUnit, I(n), I(nrhs), 1.0f, a, I(n), b, I(nrhs));
}
void Trsm(bool lower, bool trans, int64_t n, int64_t nrhs, const double* a, double* b) {
  scipy_cblas_dtrsm(CblasRowMajor, CblasLeft, lower ? CblasLower : CblasUpper, trans ? CblasTrans : CblasNoTrans,
                    CblasNonUnit, I(n), I(nrhs), 1.0, a, I(n), b, I(nrhs));
}

}  // namespace lapack
}  // namespace tx

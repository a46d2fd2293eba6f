// LAPACK entry points the linear-algebra kernels use (OpenBLAS's LAPACK from scipy-openblas32),
// as overloads for float and double on row-major matrices. Each returns LAPACK's info: 0 on
// success, < 0 for a bad argument (a bug here), > 0 for a numerical failure the caller reports.
#pragma once

#include <cstdint>

namespace tx {
namespace lapack {

// True when n fits LAPACK's 32-bit integer arguments.
bool FitsInt(int64_t n);

// LU with partial pivoting of the n x n matrix a (in place); ipiv gets n 1-based pivots.
int Getrf(int64_t n, float* a, int32_t* ipiv);
int Getrf(int64_t n, double* a, int32_t* ipiv);
// Note [Transposed LU]: LU of a^T in place, which is LAPACK's column-major LU of the row-major
// buffer (no copies); its pivots' parity and U's diagonal give det(a), and the factors solve
// with a or a^T through GetrsT and invert through GetriT.
int GetrfT(int64_t n, float* a, int32_t* ipiv);
int GetrfT(int64_t n, double* a, int32_t* ipiv);
// Solves a x = b (or a^T x = b when `adjoint`) from GetrfT's factors of a; b is row-major
// n x nrhs, overwritten.
int GetrsT(bool adjoint, int64_t n, int64_t nrhs, const float* lu_t, const int32_t* ipiv, float* b);
int GetrsT(bool adjoint, int64_t n, int64_t nrhs, const double* lu_t, const int32_t* ipiv, double* b);
// a^-1 (row-major) in place from GetrfT's factors of a.
int GetriT(int64_t n, float* lu_t, const int32_t* ipiv);
int GetriT(int64_t n, double* lu_t, const int32_t* ipiv);
// Cholesky: overwrites the lower triangle of a with L (a = L L^T), reading only the lower one.
int PotrfLower(int64_t n, float* a);
int PotrfLower(int64_t n, double* a);
// Householder QR of the m x n matrix a (in place, tau has min(m, n) entries).
int Geqrf(int64_t m, int64_t n, float* a, float* tau);
int Geqrf(int64_t m, int64_t n, double* a, double* tau);
// Forms the m x n matrix Q (n <= m columns) from k reflectors in a (row stride n).
int Orgqr(int64_t m, int64_t n, int64_t k, float* a, const float* tau);
int Orgqr(int64_t m, int64_t n, int64_t k, double* a, const double* tau);
// SVD (divide and conquer) of the m x n matrix a (destroyed): job 'A' full, 'S' thin, 'N' none.
// u is m x (m or min(m,n)), vt (n or min(m,n)) x n.
int Gesdd(char job, int64_t m, int64_t n, float* a, float* s, float* u, float* vt);
int Gesdd(char job, int64_t m, int64_t n, double* a, double* s, double* u, double* vt);
// Eigen-decomposition of the symmetric n x n matrix a (lower triangle read): w ascending; with
// `vectors`, a is overwritten by the eigenvectors (columns).
int Syevd(bool vectors, int64_t n, float* a, float* w);
int Syevd(bool vectors, int64_t n, double* a, double* w);
// Minimum-norm least squares (SVD based) of a x = b, a m x n, b max(m,n) x nrhs (in place).
int Gelsd(int64_t m, int64_t n, int64_t nrhs, float* a, float* b);
int Gelsd(int64_t m, int64_t n, int64_t nrhs, double* a, double* b);
// Triangular solve op(a) x = b in place; a is n x n (lower or upper), b n x nrhs.
void Trsm(bool lower, bool trans, int64_t n, int64_t nrhs, const float* a, float* b);
void Trsm(bool lower, bool trans, int64_t n, int64_t nrhs, const double* a, double* b);

}  // namespace lapack
}  // namespace tx

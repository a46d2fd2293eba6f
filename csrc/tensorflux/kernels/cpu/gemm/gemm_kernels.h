// The kernels of one instruction-set level as a table of plain function pointers, so the driver
// (gemm.cc) is compiled once for the baseline and only the kernels per level (Note [Own GEMM]).
#pragma once

#include <cstdint>

namespace tx {
namespace cpu {
namespace gemm {

// Most rows of C the unpacked small-M kernels (rows, dots) take.
inline constexpr int kSmallM = 4;

struct KernelSet {
  const char* name;
  int mr, nr;  // register tile: mr rows of C by nr columns
  // The first `rows` x `cols` of an mr x nr tile (rows <= mr, cols <= nr):
  // c = alpha * sum_p a[p * mr + i] * b[p * nr + j] + beta * c, over p < kc. a and b are packed
  // panels (zero-padded to mr and nr); c has rows ldc apart and is not read when beta == 0.
  void (*tile)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float alpha, float beta, int rows,
               int cols);
  // c[m, n] = alpha * a[m, k] b[k, n] + beta * c, nothing packed: a(i, p) = a[i * a_rs + p * a_cs],
  // rows of b ldb apart, rows of c ldc apart; 1 <= m <= kSmallM.
  void (*rows)(int m, int64_t n, int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs, const float* b,
               int64_t ldb, float beta, float* c, int64_t ldc);
  // c[m, n] = alpha * a[m, k] b[n, k]^T + beta * c (dot products of rows), nothing packed;
  // 1 <= m <= kSmallM.
  void (*dots)(int m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
               float beta, float* c, int64_t ldc);
};

// The kernels of each level; null where the build has none (AVX levels off x86).
const KernelSet* Avx512Kernels();
const KernelSet* Avx2Kernels();
const KernelSet* GenericKernels();

}  // namespace gemm
}  // namespace cpu
}  // namespace tx

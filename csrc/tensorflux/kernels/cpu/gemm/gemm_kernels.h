// The kernels of one instruction-set level as a table of plain function pointers, so the driver
// (gemm.cc) is compiled once for the baseline and only the kernels per level (Note [Own GEMM]).
#pragma once

#include <cstdint>

namespace tx {
namespace cpu {
namespace gemm {

// Most rows of C the unpacked small-M kernels (rows, dots) take in one call.
inline constexpr int kRowsPerPass = 4;

// dst[p * width + i] = src[i * ld + p] for i < count, p < kc, and zero for count <= i < width,
// where width is the kernels' mr (gather_a) or nr (gather_b): `count` rows of a stored matrix
// become the columns of a packed panel.
using GatherFn = void (*)(const float* src, int64_t ld, int count, int64_t kc, float* dst);

// The first `rows` x `cols` of an mr x nr tile (rows <= mr, cols <= nr):
// c = alpha * sum_p op(A)(i, p) * b[p * nr + j] + beta * c over p < kc, where b is a packed B
// panel (zero-padded to nr) and c has rows ldc apart and is not read when beta == 0.
using TileFn = void (*)(int64_t kc, const float* a, int64_t a_step, const float* b, float* c, int64_t ldc, float alpha,
                        float beta, int rows, int cols);

struct KernelSet {
  const char* name;
  int mr, nr;  // register tile: mr rows of C by nr columns
  // TileFn with op(A)(i, p) = a[i + p * a_step]: a packed A panel (a_step = mr) or A stored
  // transposed and read in place (a_step = lda).
  TileFn tile;
  // TileFn with op(A)(i, p) = a[i * a_step + p]: A stored row-major, read in place (a_step = lda).
  TileFn tile_row_major_a;
  // c[m, n] = alpha * a[m, k] b[k, n] + beta * c, nothing packed: a(i, p) = a[i * a_rs + p * a_cs],
  // rows of b ldb apart, rows of c ldc apart; 1 <= m <= kRowsPerPass.
  void (*rows)(int m, int64_t n, int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs, const float* b,
               int64_t ldb, float beta, float* c, int64_t ldc);
  // c[m, n] = alpha * a[m, k] b[n, k]^T + beta * c (dot products of rows), nothing packed;
  // 1 <= m <= kRowsPerPass.
  void (*dots)(int m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
               float beta, float* c, int64_t ldc);
  GatherFn gather_a;
  // GatherFn's layout from a transposed source: dst[p * mr + i] = src[p * ld + i] (zero past count).
  GatherFn copy_a;
  GatherFn gather_b;
  // Copies rows [0, kc) and columns [0, cols) of src (rows ld apart) into ceil(cols / nr) panels
  // nr wide, panel q at dst + q * kc * nr, zero past cols.
  void (*copy_b)(const float* src, int64_t ld, int64_t cols, int64_t kc, float* dst);
};

// The kernels of each level; null where the build has none (AVX levels off x86).
const KernelSet* Avx512Kernels();
const KernelSet* Avx2Kernels();
const KernelSet* GenericKernels();
// AVX2 kernels with the AVX-512 kernels' tile (14 x 32) and packers, for tests on CPUs without
// AVX-512; null off x86.
const KernelSet* Avx512ShapedAvx2Kernels();

struct GemmArgs;
struct GemmThreads;
// Sgemm on `kernels` (tests).
void SgemmWithKernels(const KernelSet& kernels, const GemmArgs& args, const GemmThreads* threads);

}  // namespace gemm
}  // namespace cpu
}  // namespace tx

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

// Packs `count` (<= width) stored rows, rows ld apart, kc values each, into the bfloat16 pairs of a
// panel `width` lanes wide: dst[q * 2 width + 2 i + t] = src[i * ld + 2 q + t] for q < ceil(kc / 2),
// zero where i >= count or 2 q + t >= kc (Note [bf16 GEMM]). The rows of A, or of B stored [n, k].
using PairGatherFn = void (*)(const uint16_t* src, int64_t ld, int count, int64_t kc, uint16_t* dst);
// PairGatherFn's layout from the other orientation: dst[q * 2 width + 2 j + t] = src[(2 q + t) * ld + j]
// for j < count, zero past count and kc. A stored [k, m], or B stored [k, n].
using PairInterleaveFn = void (*)(const uint16_t* src, int64_t ld, int count, int64_t kc, uint16_t* dst);

// The VDPBF16PS kernels (Note [bf16 GEMM]): tiles of mr x nr float32 sums over panels of bfloat16
// pairs along K.
struct Bf16KernelSet {
  const char* name;
  int mr, nr;
  // The first `rows` x `cols` of an mr x nr tile (rows <= mr, cols <= nr): c = alpha * sum over
  // q < ceil(kc / 2), t < 2 of a[q * 2 mr + 2 i + t] * b[q * 2 nr + 2 j + t] + beta * c, where a
  // and b are packed panels and c has rows ldc apart and is not read when beta == 0.
  void (*tile)(int64_t kc, const uint16_t* a, const uint16_t* b, float* c, int64_t ldc, float alpha, float beta,
               int rows, int cols);
  PairGatherFn gather_a, gather_b;  // width mr, nr
  PairInterleaveFn interleave_a, interleave_b;
  // Few rows (Note [bf16 GEMM]), B stored [k, n] read in place: c[m, n] = alpha * sum over
  // q < ceil(k / 2), t < 2 of a_pairs[q * m + i] (half t) * b[(2 q + t) * ldb + j] + beta * c,
  // with b's row k taken as zeros; 1 <= m <= kRowsPerPass, c not read when beta == 0.
  void (*rows)(int m, int64_t n, int64_t k, const int32_t* a_pairs, const uint16_t* b, int64_t ldb, float* c,
               int64_t ldc, float alpha, float beta);
  // Few rows, B stored [n, k]: c[m, n] = alpha * a[m, k] b[n, k]^T + beta * c, rows lda, ldb,
  // ldc apart, nothing packed; 1 <= m <= kRowsPerPass.
  void (*dots)(int m, int64_t n, int64_t k, const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb, float* c,
               int64_t ldc, float alpha, float beta);
  // Narrow C (Note [bf16 GEMM]): the first `rows` (<= narrow_mr) x `cols` (<= 16) of c =
  // alpha * sum over q of pair (i, q) of A * b[q * 32 + 2 j + t] + beta * c, where b is a panel
  // 16 pairs wide of ceil(k / 2) pairs, A's pair (i, q) is the 32 bits at a + i * a_rs + q * a_qs,
  // and with tail16 (k odd) A's last pair is its 16-bit value at q = k / 2 with a zero.
  void (*narrow)(int rows, int64_t k, const uint16_t* a, int64_t a_rs, int64_t a_qs, bool tail16, const uint16_t* b,
                 float* c, int64_t ldc, float alpha, float beta, int cols);
  int narrow_mr;  // 16, the width of a narrow panel: a block of rows of C is one panel of A's pairs
  PairGatherFn gather16;  // width 16: panels of the narrow kernel
  // PairInterleaveFn into ceil(count / 16) panels 16 wide (count may pass 16), panel b at
  // dst + b * 16 * (kc rounded up to even).
  PairInterleaveFn interleave16;
};

// The VDPBF16PS kernels; null where the build has none (off x86).
const Bf16KernelSet* Avx512Bf16Kernels();

struct GemmArgs;
struct BgemmArgs;
struct GemmThreads;
// Sgemm on `kernels` (tests).
void SgemmWithKernels(const KernelSet& kernels, const GemmArgs& args, const GemmThreads* threads);
// Bgemm's widened path (BgemmPath::kWidened) on the float32 `kernels` (tests).
void BgemmWidenedWithKernels(const KernelSet& kernels, const BgemmArgs& args, const GemmThreads* threads);

}  // namespace gemm
}  // namespace cpu
}  // namespace tx

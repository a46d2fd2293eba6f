// Packing of GEMM operands into the zero-padded panels the tile kernels read (Note [Own GEMM] in
// gemm.h). Transposes are absorbed here: a panel is filled by copying rows or gathering columns.
#pragma once

#include <cstdint>

#include "tensorflux/kernels/cpu/gemm/gemm_kernels.h"

namespace tx {
namespace cpu {
namespace gemm {

// Packs rows [i0, i0 + rows) and columns [k0, k0 + kc) of op(A) (A stored [m, k], or [k, m] when
// trans_a, rows lda apart) into panels of ks.mr rows: panel q holds dst[q * kc * mr + p * mr + i] =
// op(A)(i0 + q * mr + i, k0 + p), zero for rows past i0 + rows.
void PackA(const KernelSet& ks, bool trans_a, const float* a, int64_t lda, int64_t i0, int64_t rows, int64_t k0,
           int64_t kc, float* dst);

// Packs rows [k0, k0 + kc) and columns [j0, j0 + cols) of op(B) (B stored [k, n], or [n, k] when
// trans_b, rows ldb apart) into ceil(cols / nr) panels of ks.nr columns: panel q holds
// dst[q * kc * nr + p * nr + j] = op(B)(k0 + p, j0 + q * nr + j), zero for columns past j0 + cols.
void PackB(const KernelSet& ks, bool trans_b, const float* b, int64_t ldb, int64_t k0, int64_t kc, int64_t j0,
           int64_t cols, float* dst);

}  // namespace gemm
}  // namespace cpu
}  // namespace tx

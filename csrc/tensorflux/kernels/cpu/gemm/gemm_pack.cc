#include "tensorflux/kernels/cpu/gemm/gemm_pack.h"

#include <algorithm>

namespace tx {
namespace cpu {
namespace gemm {

void PackA(const KernelSet& ks, bool trans_a, const float* a, int64_t lda, int64_t i0, int64_t rows, int64_t k0,
           int64_t kc, float* dst) {
  for (int64_t r = 0; r < rows; r += ks.mr, dst += kc * ks.mr) {
    const int count = static_cast<int>(std::min<int64_t>(ks.mr, rows - r));
    // op(A)'s rows are A's columns (copied), or A's rows (gathered into the panel's columns).
    if (trans_a)
      ks.copy_a(a + k0 * lda + i0 + r, lda, count, kc, dst);
    else
      ks.gather_a(a + (i0 + r) * lda + k0, lda, count, kc, dst);
  }
}

void PackB(const KernelSet& ks, bool trans_b, const float* b, int64_t ldb, int64_t k0, int64_t kc, int64_t j0,
           int64_t cols, float* dst) {
  const int64_t nr = ks.nr;
  if (trans_b) {  // op(B)'s columns are B's rows: gathered
    for (int64_t q = 0; q * nr < cols; ++q)
      ks.gather_b(b + (j0 + q * nr) * ldb + k0, ldb, static_cast<int>(std::min(nr, cols - q * nr)), kc,
                  dst + q * kc * nr);
    return;
  }
  ks.copy_b(b + k0 * ldb + j0, ldb, cols, kc, dst);
}

}  // namespace gemm
}  // namespace cpu
}  // namespace tx

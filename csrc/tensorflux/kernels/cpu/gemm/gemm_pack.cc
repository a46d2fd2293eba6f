#include "tensorflux/kernels/cpu/gemm/gemm_pack.h"

#include <algorithm>
#include <cstring>

namespace tx {
namespace cpu {
namespace gemm {
namespace {

// dst[p * width + i] = src[i * ld + p] for i < count, p < kc; zero for count <= i < width: the
// rows of a stored matrix become the columns of a panel. kWidth is the width, or 0 for `width`.
template <int kWidth>
void Gather(const float* src, int64_t ld, int count, int64_t kc, int width, float* dst) {
  const int w = kWidth > 0 ? kWidth : width;
  // Eight steps of K at a time: each row is read contiguously, the writes stay in the panel.
  int64_t p = 0;
  for (; p + 8 <= kc; p += 8) {
    for (int i = 0; i < count; ++i) {
      const float* s = src + i * ld + p;
#pragma GCC unroll 8
      for (int q = 0; q < 8; ++q) dst[(p + q) * w + i] = s[q];
    }
    for (int i = count; i < w; ++i)
#pragma GCC unroll 8
      for (int q = 0; q < 8; ++q) dst[(p + q) * w + i] = 0.0f;
  }
  for (; p < kc; ++p) {
    for (int i = 0; i < count; ++i) dst[p * w + i] = src[i * ld + p];
    for (int i = count; i < w; ++i) dst[p * w + i] = 0.0f;
  }
}

// dst[p * width + j] = src[p * ld + j] for j < count, p < kc; zero for count <= j < width.
template <int kWidth>
void Copy(const float* src, int64_t ld, int count, int64_t kc, int width, float* dst) {
  const int w = kWidth > 0 ? kWidth : width;
  if (count == w) {
    for (int64_t p = 0; p < kc; ++p) std::memcpy(dst + p * w, src + p * ld, sizeof(float) * w);
    return;
  }
  for (int64_t p = 0; p < kc; ++p) {
    std::memcpy(dst + p * w, src + p * ld, sizeof(float) * count);
    std::memset(dst + p * w + count, 0, sizeof(float) * (w - count));
  }
}

using PackFn = void (*)(const float*, int64_t, int, int64_t, int, float*);

// Gather (or Copy) for a panel `width` floats wide, unrolled for the kernels' mr and nr.
PackFn PanelPacker(bool gather, int width) {
  switch (width) {
    case 6: return gather ? &Gather<6> : &Copy<6>;
    case 8: return gather ? &Gather<8> : &Copy<8>;
    case 14: return gather ? &Gather<14> : &Copy<14>;
    case 16: return gather ? &Gather<16> : &Copy<16>;
    case 32: return gather ? &Gather<32> : &Copy<32>;
    default: return gather ? &Gather<0> : &Copy<0>;
  }
}

}  // namespace

void PackA(bool trans_a, const float* a, int64_t lda, int64_t i0, int64_t rows, int64_t k0, int64_t kc, int mr,
           float* dst) {
  const PackFn pack = PanelPacker(!trans_a, mr);
  for (int64_t r = 0; r < rows; r += mr, dst += kc * mr) {
    const int count = static_cast<int>(std::min<int64_t>(mr, rows - r));
    // op(A)'s rows are A's rows (gathered into columns of the panel), or A's columns (copied).
    const float* src = trans_a ? a + k0 * lda + i0 + r : a + (i0 + r) * lda + k0;
    pack(src, lda, count, kc, mr, dst);
  }
}

void PackB(bool trans_b, const float* b, int64_t ldb, int64_t k0, int64_t kc, int64_t j0, int cols, int nr,
           float* dst) {
  const PackFn pack = PanelPacker(trans_b, nr);
  pack(trans_b ? b + j0 * ldb + k0 : b + k0 * ldb + j0, ldb, cols, kc, nr, dst);
}

}  // namespace gemm
}  // namespace cpu
}  // namespace tx

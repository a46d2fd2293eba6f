// The AVX2+FMA (6 x 16 tiles) and AVX-512 (14 x 32 tiles) GEMM kernels: gemm_tiles.h compiled
// twice, each copy in its own namespace under its level's `#pragma GCC target`, so the file needs
// no compiler flags and each copy runs only where BestIsa (gemm.cc) found the level.
#include "tensorflux/kernels/cpu/gemm/gemm_kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

// Vector arguments change the calling convention between AVX levels; every call here stays
// inside one level (Note [Vector float32] in vec_math.h).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace tx {
namespace cpu {
namespace gemm {

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
namespace {
struct Vec {
  using V = __m256;
  static constexpr int kLanes = 8;
  static V Zero() { return _mm256_setzero_ps(); }
  static V Load(const float* p) { return _mm256_loadu_ps(p); }
  static void Store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V Set1(float x) { return _mm256_set1_ps(x); }
  static V Bcast(const float* p) { return _mm256_broadcast_ss(p); }
  static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V Fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static float Sum(V v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
};
#include "tensorflux/kernels/cpu/gemm/gemm_tiles.h"  // NOLINT: included once per instruction set
// 12 accumulators of the 16 ymm registers, two B vectors and a broadcast.
constexpr KernelSet kKernels = MakeKernelSet<6, 2>("avx2");
}  // namespace
}  // namespace avx2
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f")
namespace avx512 {
namespace {
struct Vec {
  using V = __m512;
  static constexpr int kLanes = 16;
  static V Zero() { return _mm512_setzero_ps(); }
  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  static void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V Set1(float x) { return _mm512_set1_ps(x); }
  static V Bcast(const float* p) { return _mm512_set1_ps(*p); }
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static float Sum(V v) {
    // Through memory: GCC 12 warns that the _mm256_undefined_pd inside every 512-bit extract
    // intrinsic is uninitialized. Sum runs once per dot product, so the store costs little.
    alignas(64) float t[16];
    _mm512_store_ps(t, v);
    __m256 h = _mm256_add_ps(_mm256_load_ps(t), _mm256_load_ps(t + 8));
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
};
#include "tensorflux/kernels/cpu/gemm/gemm_tiles.h"  // NOLINT
// 28 accumulators of the 32 zmm registers, two B vectors and a broadcast.
constexpr KernelSet kKernels = MakeKernelSet<14, 2>("avx512");
}  // namespace
}  // namespace avx512
#pragma GCC pop_options

const KernelSet* Avx2Kernels() { return &avx2::kKernels; }
const KernelSet* Avx512Kernels() { return &avx512::kKernels; }

}  // namespace gemm
}  // namespace cpu
}  // namespace tx

#else

const tx::cpu::gemm::KernelSet* tx::cpu::gemm::Avx2Kernels() { return nullptr; }
const tx::cpu::gemm::KernelSet* tx::cpu::gemm::Avx512Kernels() { return nullptr; }

#endif

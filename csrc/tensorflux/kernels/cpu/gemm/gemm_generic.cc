// The portable GEMM kernels: gemm_tiles.h on 4-float GCC vectors (SSE on x86, NEON on ARM), with
// 6 x 8 tiles (12 accumulators of 16 registers), for CPUs without AVX2+FMA.
#include "tensorflux/kernels/cpu/gemm/gemm_kernels.h"

namespace tx {
namespace cpu {
namespace gemm {
namespace generic {
namespace {
struct Vec {
  typedef float V __attribute__((vector_size(16)));
  static constexpr int kLanes = 4;
  static V Zero() { return V{}; }
  static V Load(const float* p) {
    V v;
    __builtin_memcpy(&v, p, sizeof(v));
    return v;
  }
  static void Store(float* p, V v) { __builtin_memcpy(p, &v, sizeof(v)); }
  static V Set1(float x) { return V{} + x; }
  static V Bcast(const float* p) { return V{} + *p; }
  static V Mul(V a, V b) { return a * b; }
  static V Fma(V a, V b, V c) { return a * b + c; }
  static float Sum(V v) { return (v[0] + v[2]) + (v[1] + v[3]); }
};
#include "tensorflux/kernels/cpu/gemm/gemm_tiles.h"  // NOLINT: included once per instruction set
constexpr KernelSet kKernels = MakeKernelSet<6, 2>("generic", &GatherScalar<6>, &GatherScalar<8>);
}  // namespace
}  // namespace generic

const KernelSet* GenericKernels() { return &generic::kKernels; }

}  // namespace gemm
}  // namespace cpu
}  // namespace tx

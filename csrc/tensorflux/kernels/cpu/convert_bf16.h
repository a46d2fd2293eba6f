// bfloat16 <-> float32 array conversions on the widest vectors the CPU has, rounding as TensorFlow
// does (Note [bfloat16 conversion]).
#pragma once

#include <cstdint>

#include "tensorflux/core/float16.h"

namespace tx {
namespace cpu {

// Note [bfloat16 conversion]
// Widening is exact: the 16 bits become the high half of a float32. Narrowing rounds to nearest
// even with integer arithmetic on the float's bits, (v + 0x7fff + ((v >> 16) & 1)) >> 16, which is
// what TensorFlow's Cast (Eigen's float_to_bfloat16_rtne) computes: denormal floats round like any
// other (no flush to zero), a value past the largest bfloat16 rounds to infinity, and a NaN becomes
// the quiet NaN 0x7fc0 with its sign. Truncating (Cast's Truncate=true) drops the low 16 bits, NaN
// again becoming 0x7fc0 with its sign. VCVTNEPS2BF16 (AVX512_BF16) is not used: it reads denormal
// inputs as zero, so it would not give TensorFlow's bits. Two levels, chosen once by CPUID:
//  - portable: plain loops; with the engine's -march=x86-64-v3, gcc vectorizes them on 8 lanes
//    (the narrowing packs with VPACKUSDW and a lane permute);
//  - avx512 (AVX512F/BW/VL): 16 lanes, VPMOVDW to narrow, masked loads and stores for the tail,
//    so no scalar loop remains.
// Cast between float32 and bfloat16 calls these directly (one pass, no float staging buffer), and
// so do the 16-bit kernels that widen blocks (convert16.h's ToFloat/FromFloat).

// The instruction-set levels of the conversions.
enum class ConvertIsa { kPortable, kAvx512 };

// "portable" or "avx512".
const char* ConvertIsaName(ConvertIsa isa);
// Whether this build and CPU run `isa` (kPortable always does).
bool ConvertIsaSupported(ConvertIsa isa);
// The level the conversions use: the widest supported one.
ConvertIsa BestConvertIsa();

// y[i] = float(x[i]) for i < n (exact).
void BFloat16ToFloat(const BFloat16* x, float* y, int64_t n);
// y[i] = x[i] rounded to bfloat16 for i < n: to nearest even, or toward zero when `truncate`
// (Note [bfloat16 conversion]). x and y must not overlap.
void FloatToBFloat16(const float* x, BFloat16* y, int64_t n, bool truncate = false);

// The same on `isa`, which must be supported (tests and benchmarks of each level).
void BFloat16ToFloatWithIsa(ConvertIsa isa, const BFloat16* x, float* y, int64_t n);
void FloatToBFloat16WithIsa(ConvertIsa isa, const float* x, BFloat16* y, int64_t n, bool truncate);

}  // namespace cpu
}  // namespace tx

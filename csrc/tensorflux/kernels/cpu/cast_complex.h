// Cast's conversions with a complex side (cast_complex.cc), for the Cast kernel in cast.cc.
#pragma once

#include <cstdint>

#include "tensorflux/core/dtype.h"

namespace tx {
namespace cpu {

// Converts elements [begin, end) of `in` (SrcT) into `out` (DstT); `truncate` (Cast's Truncate
// attr) only matters for bfloat16 outputs, which are not complex casts, so these ignore it.
using ComplexCastFn = void (*)(const void* in, void* out, int64_t begin, int64_t end, bool truncate);

// The conversion for (src, dst) when either is complex64 or complex128 and the other is a complex
// type, bool, or an integer or floating type other than half and bfloat16; nullptr otherwise.
ComplexCastFn PickComplexCast(DataType src, DataType dst);

// The types converted to and from complex64 and complex128.
inline constexpr DataType kComplexCastTypes[] = {DT_FLOAT, DT_DOUBLE,    DT_INT8,      DT_INT16,  DT_INT32,
                                                 DT_INT64, DT_UINT8,     DT_UINT16,    DT_UINT32, DT_UINT64,
                                                 DT_BOOL,  DT_COMPLEX64, DT_COMPLEX128};

}  // namespace cpu
}  // namespace tx

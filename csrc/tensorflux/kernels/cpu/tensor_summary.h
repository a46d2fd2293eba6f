// TensorFlow's text summaries of tensor values (Tensor::SummarizeValue), shared by Assert, Print
// and StringFormat so their messages read exactly as TensorFlow's.
#pragma once

#include <cstdint>
#include <string>

#include "tensorflux/core/tensor.h"

namespace tx {
namespace cpu {

// Note [Tensor summaries]
// Two layouts, as in TensorFlow. The classic one (Assert, Print) writes the first
// `max_entries` elements in row-major order, nesting "[...]" for every dimension but the first
// ("1 2 3", "[1 2][3 4]") and "..." where elements were left out. The print_v2 one (StringFormat,
// tf.print) shows the first and last `max_entries` entries of every dimension with "..." between,
// brackets for every dimension and newlines between rows. Elements: floats in the shortest of
// %.6g / %.9g (%.15g / %.17g for doubles) that reads back exactly, bools as 1 and 0, complex
// numbers as "?", strings with C escapes (quoted in print_v2). max_entries < 0 shows everything.
std::string SummarizeValue(const Tensor& t, int64_t max_entries, bool print_v2);

}  // namespace cpu
}  // namespace tx

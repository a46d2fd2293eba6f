// Shape logic shared by the FFT ops' shape functions and their CPU kernels: which axes an op
// transforms, to which lengths, and the output shape (one source of shape logic per op).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/core/status.h"

namespace tx {
namespace fft_util {

// What an FFT op computes along its axes.
enum class Kind {
  kComplex,  // FFT*, IFFT*: complex to complex, same lengths
  kRealForward,  // RFFT*: n reals to n/2 + 1 complex values on the last transformed axis
  kRealBackward,  // IRFFT*: n/2 + 1 complex values to n reals on the last transformed axis
};

// The family facts of one FFT op name ("FFT", "IRFFT2D", "RFFTND", ...).
struct OpInfo {
  Kind kind = Kind::kComplex;
  bool inverse = false;  // IFFT*, IRFFT*
  int fixed_rank = 0;  // 1, 2 or 3 innermost axes; 0 for the ND ops (axes input)
  bool has_length = false;  // takes an fft_length input
};
// InvalidArgument (Internal) for a name that is not an FFT op.
Status Info(const std::string& op, OpInfo* out);

// The resolved transform: axes in [0, rank), in the op's order, and their lengths (-1 unknown).
struct Spec {
  std::vector<int> axes;
  std::vector<int64_t> lengths;
};

// Resolves the spec from the input's rank and dims (-1 unknown) and, when the op takes them,
// fft_length and axes values (nullptr: not known statically; an ND op with unknown axes resolves
// to an empty spec). Ops without fft_length take the input's dims. Errors name what is wrong: input
// rank below the op's, fft_length of the wrong size or with negative entries, axes out of range
// or repeated.
Status Resolve(const OpInfo& info, const std::vector<int64_t>& input_dims, const std::vector<int64_t>* fft_length,
               const std::vector<int64_t>* axes, Spec* spec);

// The input cropped or zero-padded to what the transform reads: the lengths on the axes (for
// kRealBackward the last axis holds length / 2 + 1 values).
std::vector<int64_t> WorkDims(const OpInfo& info, const std::vector<int64_t>& input_dims, const Spec& spec);
// The output dims: WorkDims, except kRealForward's last axis is length / 2 + 1 and
// kRealBackward's is length.
std::vector<int64_t> OutputDims(const OpInfo& info, const std::vector<int64_t>& input_dims, const Spec& spec);

}  // namespace fft_util
}  // namespace tx

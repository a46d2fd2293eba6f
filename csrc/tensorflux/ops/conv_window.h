// Sliding-window geometry shared by the convolution and pooling shape functions and kernels.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/core/status.h"

namespace tx {

// Padding scheme of a windowed op, parsed from its "padding" attr.
enum class Padding { kValid, kSame, kExplicit };

// Parses "VALID"/"SAME"/"EXPLICIT"; InvalidArgument for anything else.
inline Status ParsePadding(const std::string& s, Padding* out) {
  if (s == "VALID")
    *out = Padding::kValid;
  else if (s == "SAME")
    *out = Padding::kSame;
  else if (s == "EXPLICIT")
    *out = Padding::kExplicit;
  else
    return InvalidArgument("Unknown padding '", s, "'");
  return Status::OK();
}

// The layout a data_format attr names: channels first (NCHW, NCDHW) or last (NHWC, NDHWC), with
// 2 or 3 spatial dimensions.
struct DataFormat {
  bool channels_first = false;
  int spatial_dims = 2;
  int rank() const { return spatial_dims + 2; }
  // The channel dimension of a tensor of rank `rank` in this layout.
  int channel_dim(int rank) const { return channels_first ? 1 : rank - 1; }
};

// Parses a data_format attr of op `op`: NHWC, NCHW, NDHWC or NCDHW. Unimplemented for NCHW_VECT_C
// (which some OpDefs allow and no CPU kernel supports) and InvalidArgument for anything else.
inline Status ParseDataFormat(const char* op, const std::string& s, DataFormat* out) {
  if (s == "NHWC" || s == "NCHW")
    *out = DataFormat{s == "NCHW", 2};
  else if (s == "NDHWC" || s == "NCDHW")
    *out = DataFormat{s == "NCDHW", 3};
  else if (s == "NCHW_VECT_C")
    return Unimplemented(op, ": data_format NCHW_VECT_C is not supported on CPU");
  else
    return InvalidArgument(op, ": unknown data_format '", s, "' (NHWC, NCHW, NDHWC or NCDHW)");
  return Status::OK();
}

// Output length and leading padding of one spatial dimension of size `in` (>= 0) for a window of
// `k` taps `dilation` apart moved by `stride`; explicit pads are used for Padding::kExplicit.
inline Status WindowedOutputSize(int64_t in, int64_t k, int64_t dilation, int64_t stride, Padding p, int64_t pad_lo,
                                 int64_t pad_hi, int64_t* out, int64_t* pad_before) {
  if (stride <= 0) return InvalidArgument("Stride must be > 0, but got ", stride);
  if (dilation <= 0) return InvalidArgument("Dilation rate must be >= 1, but got ", dilation);
  if (k <= 0) return InvalidArgument("Window (filter) size must be > 0, but got ", k);
  const int64_t eff = (k - 1) * dilation + 1;
  switch (p) {
    case Padding::kValid:
      *out = (in - eff + stride) / stride;  // may be 0 or negative, as in TensorFlow
      *pad_before = 0;
      break;
    case Padding::kSame: {
      *out = (in + stride - 1) / stride;
      const int64_t need = std::max<int64_t>(0, (*out - 1) * stride + eff - in);
      *pad_before = need / 2;
      break;
    }
    case Padding::kExplicit:
      if (pad_lo < 0 || pad_hi < 0)
        return InvalidArgument("Explicit paddings must be >= 0, got ", pad_lo, ", ", pad_hi);
      *out = (in + pad_lo + pad_hi - eff + stride) / stride;
      *pad_before = pad_lo;
      break;
  }
  if (*out < 0)
    return InvalidArgument("Computed output size would be negative: input size ", in, ", effective window size ", eff,
                           ", stride ", stride);
  return Status::OK();
}

}  // namespace tx

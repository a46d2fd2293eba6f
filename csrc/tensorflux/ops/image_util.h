// Shape logic shared by the image ops' shape functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace image_util {

// Input `index` is a 1-D int32 pair (height, width) such as a resize's `size` or a crop size:
// checks its static shape and, when it is a constant, reads it into *h and *w (else -1) and
// requires both to be positive. `op` and `what` name the op and the input in messages.
Status SizePair(InferenceContext* c, int index, const char* op, const char* what, int64_t* h, int64_t* w);

// `shape` with rank `rank` or unknown; InvalidArgument naming `op` and `what` otherwise (e.g.
// "AdjustHue: images must be at least rank 3").
Status WithRankAtLeast(InferenceContext* c, int index, int rank, const char* op, const char* what, PartialShape* out);

// Requires input `index` to be a scalar (when its rank is known).
Status Scalar(InferenceContext* c, int index, const char* op, const char* what);

// The output grid of ExtractImagePatches over an image of `rows` x `cols` (-1 when unknown):
// patch size, stride and dilation per spatial dimension from the 4-element attr lists, the
// output size and the leading padding of each dimension (-1 when the input size is unknown).
struct PatchGeometry {
  int64_t k_rows = 0, k_cols = 0, stride_rows = 0, stride_cols = 0, rate_rows = 0, rate_cols = 0;
  int64_t out_rows = -1, out_cols = -1, pad_top = -1, pad_left = -1;
};
Status ExtractPatchesGeometry(const char* op, int64_t rows, int64_t cols, const std::vector<int64_t>& ksizes,
                              const std::vector<int64_t>& strides, const std::vector<int64_t>& rates,
                              const std::string& padding, PatchGeometry* g);

}  // namespace image_util
}  // namespace tx

// Shape logic shared by the image ops' shape functions.
#pragma once

#include <cstdint>

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
Status WithRankAtLeast(InferenceContext* c, int index, int rank, const char* op, const char* what,
                       PartialShape* out);

// Requires input `index` to be a scalar (when its rank is known).
Status Scalar(InferenceContext* c, int index, const char* op, const char* what);

}  // namespace image_util
}  // namespace tx

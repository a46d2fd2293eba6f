// Shape logic shared by the array ops' shape functions and their CPU kernels, so that static
// inference and run-time checks agree (one source of shape logic per op).
#pragma once

#include <cstdint>
#include <vector>

#include "tensorflux/core/shape.h"
#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"

namespace tx {
namespace array_util {

// Reads an int8/int16/int32/int64 tensor's elements (any rank) as int64; InvalidArgument for
// other dtypes or a tensor without data. `what` names the input in messages.
Status ReadInts(const Tensor& t, const char* what, std::vector<int64_t>* out);

// Reads a scalar (or one-element) integer tensor.
Status ReadScalarInt(const Tensor& t, const char* what, int64_t* out);

// Maps `axis` in [-rank, rank) to [0, rank); InvalidArgument naming `what` otherwise.
Status CanonicalAxis(int64_t axis, int rank, const char* what, int* out);

// Bitcast's output shape for `input` (dims may be -1; unknown rank gives unknown rank): the same
// when `from` and `to` have one size, a last dimension of size(from) / size(to) added when `from`
// is wider, the last dimension (which must be size(to) / size(from)) removed when narrower.
Status BitcastShape(const PartialShape& input, DataType from, DataType to, PartialShape* out);

// Product of `dims` with overflow checking; InvalidArgument when the count does not fit int64.
Status CheckedNumElements(const std::vector<int64_t>& dims, int64_t* out);

// The resolved form of one StridedSlice: per input dimension a begin, a stride and an output
// length, plus the final output shape (new axes inserted, shrunk axes removed).
struct StridedSliceInfo {
  std::vector<int64_t> begin;  // per input dim: first index read
  std::vector<int64_t> stride;  // per input dim: step (never 0)
  std::vector<int64_t> length;  // per input dim: elements read (1 for a shrunk dim)
  std::vector<int64_t> final_dims;  // output shape; -1 where unknown (static inference only)
  bool identity = false;  // reads the whole input in order (output is a reshape of it)
};

// Resolves StridedSlice's begin/end/strides and masks against `input` (dims may be -1 when
// unknown: the matching output dims are then -1). Errors: zero strides, spec length mismatch,
// several ellipses, shrunk indices out of range.
Status ResolveStridedSlice(const PartialShape& input, const std::vector<int64_t>& begin,
                           const std::vector<int64_t>& end, const std::vector<int64_t>& strides, int64_t begin_mask,
                           int64_t end_mask, int64_t ellipsis_mask, int64_t new_axis_mask, int64_t shrink_axis_mask,
                           StridedSliceInfo* out);

// Resolves Slice's begin and size (-1: to the end) against `input`; writes the output dims
// (-1 where the input dim is unknown and size is -1). Errors name the offending dimension.
Status ResolveSlice(const PartialShape& input, const std::vector<int64_t>& begin, const std::vector<int64_t>& size,
                    std::vector<int64_t>* out_dims);

// Checks a [rank, 2] paddings matrix (flattened) against `input` for Pad (mode 0), MirrorPad
// REFLECT (mode 1) or SYMMETRIC (mode 2) and writes the padded dims (-1 stays unknown).
Status ResolvePad(const PartialShape& input, const std::vector<int64_t>& paddings, int mode,
                  std::vector<int64_t>* out_dims);

// Output dims of BroadcastTo: `target` must be reachable from `input` by NumPy broadcasting.
Status ResolveBroadcastTo(const PartialShape& input, const std::vector<int64_t>& target);

// Resolves SplitV's sizes (at most one -1) against the split dimension's size `dim` (-1 unknown).
Status ResolveSplitSizes(std::vector<int64_t>* sizes, int64_t dim);

}  // namespace array_util
}  // namespace tx

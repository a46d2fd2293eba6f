// Shape and index logic of the gradient-support ops (BroadcastGradientArgs, InvertPermutation,
// ConcatOffset, UnsortedSegmentSum, MirrorPadGrad, TensorScatterAdd), shared by their shape
// functions and CPU kernels so that static inference and run-time checks agree.
#pragma once

#include <cstdint>
#include <vector>

#include "tensorflux/core/shape.h"
#include "tensorflux/core/status.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace grad_util {

// Reads constant input `i` of a shape function as integers into *v; *known is false (and the
// status OK) when the input is not a constant.
Status ConstInts(const InferenceContext* c, int i, const char* what, std::vector<int64_t>* v, bool* known);

// The reduction axes of each side of a NumPy broadcast of shapes s0 and s1, as TensorFlow's
// BroadcastGradientArgs gives them: none when s0 == s1; otherwise every output axis where a
// side (1-extended on the left) has size 1. InvalidArgument when the shapes do not broadcast
// (dims are compared as given, like TensorFlow: -1 vs 1 broadcasts, -2 vs 2 does not).
Status BroadcastGradientAxes(const std::vector<int64_t>& s0, const std::vector<int64_t>& s1, std::vector<int64_t>* r0,
                             std::vector<int64_t>* r1);

// Writes the inverse of permutation x[0..n) into y (y[x[i]] = i); InvalidArgument naming the
// first value out of [0, n) or duplicated. y must not alias x.
template <typename T>
Status InvertPermutation(const T* x, int64_t n, T* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = T(-1);
  for (int64_t i = 0; i < n; ++i) {
    const T d = x[i];
    if (d < 0 || static_cast<int64_t>(d) >= n) return InvalidArgument(d, " is not between 0 and ", n);
    if (y[d] != T(-1)) return InvalidArgument(d, " is duplicated in the input.");
    y[d] = static_cast<T>(i);
  }
  return Status::OK();
}

// The offset of each of `shapes` (all of one rank) in their concatenation along `concat_dim`
// (negative counts from the end): zeros except the running sum of the sizes before it on that
// axis. InvalidArgument for an axis out of range or shapes that differ off the axis.
Status ConcatOffsets(int64_t concat_dim, const std::vector<std::vector<int64_t>>& shapes,
                     std::vector<std::vector<int64_t>>* offsets);

// Output dims of an unsorted segment reduction: [num_segments] + data[rank(segment_ids):]
// (num_segments -1: unknown). InvalidArgument when data's shape does not start with
// segment_ids' shape or num_segments is negative.
Status SegmentReductionDims(const PartialShape& data, const PartialShape& segment_ids, int64_t num_segments,
                            std::vector<int64_t>* out_dims);

// InvalidArgument "segment_ids[i,j] = v is out of range [0, num_segments)" for flat element
// `flat` of a segment_ids tensor of dims `ids_dims`.
Status SegmentIdOutOfRange(const std::vector<int64_t>& ids_dims, int64_t flat, int64_t id, int64_t num_segments);

// Checks ids[0..n) (a segment_ids tensor of dims `ids_dims`) against num_segments: the first id
// >= num_segments is an error; negative ids are allowed (the reduction drops them).
template <typename I>
Status CheckSegmentIds(const I* ids, const std::vector<int64_t>& ids_dims, int64_t n, int64_t num_segments) {
  for (int64_t i = 0; i < n; ++i)
    if (static_cast<int64_t>(ids[i]) >= num_segments) return SegmentIdOutOfRange(ids_dims, i, ids[i], num_segments);
  return Status::OK();
}

// Output dims of MirrorPadGrad: each input dim less its [before, after] paddings (a flattened
// [rank, 2] matrix); mode 1 REFLECT (paddings < output dim), 2 SYMMETRIC (<= output dim).
// Unknown input dims (-1) stay unknown.
Status ResolveMirrorPadGrad(const PartialShape& input, const std::vector<int64_t>& paddings, int mode,
                            std::vector<int64_t>* out_dims);

// Checks TensorScatterAdd's operands: indices and updates of rank >= 1, at most rank(tensor)
// coordinates per tuple, updates.shape == indices.shape[:-1] + tensor.shape[n:], and no
// updates into an empty tensor. Unknown dims (-1) pass.
Status CheckTensorScatter(const PartialShape& tensor, const PartialShape& indices, const PartialShape& updates);

}  // namespace grad_util
}  // namespace tx

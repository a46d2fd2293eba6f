// Helpers the array kernels share with their gradient kernels: StridedSlice's mask attrs
// (StridedSlice, StridedSliceGrad) and reading a paddings matrix (Pad, MirrorPad, MirrorPadGrad).
#pragma once

#include <cstdint>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/ops/array_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// The five *_mask attrs of a StridedSlice-like node.
struct StridedSliceMasks {
  // Reads the attrs; a missing one is recorded as the construction's status.
  explicit StridedSliceMasks(OpKernelConstruction* c) {
    c->SetStatus(c->GetAttr("begin_mask", &begin));
    c->SetStatus(c->GetAttr("end_mask", &end));
    c->SetStatus(c->GetAttr("ellipsis_mask", &ellipsis));
    c->SetStatus(c->GetAttr("new_axis_mask", &new_axis));
    c->SetStatus(c->GetAttr("shrink_axis_mask", &shrink_axis));
  }

  // array_util::ResolveStridedSlice of the spec (b, e, s) with these masks against `input`.
  Status Resolve(const PartialShape& input, const std::vector<int64_t>& b, const std::vector<int64_t>& e,
                 const std::vector<int64_t>& s, array_util::StridedSliceInfo* info) const {
    return array_util::ResolveStridedSlice(input, b, e, s, begin, end, ellipsis, new_axis, shrink_axis, info);
  }

  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink_axis = 0;
};

// Reads input `i`, a [rank, 2] integer paddings matrix, flattened row by row into *pads.
inline Status ReadPaddings(const OpKernelContext* ctx, int i, int rank, std::vector<int64_t>* pads) {
  const Tensor& p = ctx->input(i);
  if (p.rank() != 2 || p.dim(1) != 2 || p.dim(0) != rank)
    return InvalidArgument("paddings must have shape [", rank, ", 2] for an input of rank ", rank, ", got ",
                           p.shape().ToString());
  return array_util::ReadInts(p, "paddings", pads);
}

}  // namespace cpu
}  // namespace tx

// Shared axis handling for the CPU reduction kernels: validates reduction_indices and collapses
// the input into alternating (size, reduced) groups.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"

namespace tx {
namespace cpu {

// The result of ParseReduction: the output shape and the collapsed group list.
struct ReductionPlan {
  TensorShape out_shape;
  // Neighbouring dims merged when all reduced or all kept; size-1 dims dropped.
  std::vector<std::pair<int64_t, bool>> groups;
  bool any_reduced() const {
    for (const auto& g : groups)
      if (g.second) return true;
    return false;
  }
};

// Validates `axes` (int32/int64, in [-rank, rank), no duplicates) against `in` and fills *plan.
inline Status ParseReduction(const Tensor& in, const Tensor& axes, bool keep_dims, ReductionPlan* plan) {
  if (axes.dtype() != DT_INT32 && axes.dtype() != DT_INT64)
    return InvalidArgument("reduction_indices must be int32 or int64, got ", DataTypeString(axes.dtype()));
  if (axes.rank() > 1)
    return InvalidArgument("reduction_indices must be at most rank 1, got shape ", axes.shape().ToString());
  const int rank = in.rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t i = 0; i < axes.num_elements(); ++i) {
    const int64_t a = axes.dtype() == DT_INT32 ? axes.data<int32_t>()[i] : axes.data<int64_t>()[i];
    if (a < -rank || a >= rank)
      return InvalidArgument("Invalid reduction dimension ", a, " for input with ", rank, " dimension(s)");
    const int64_t d = a < 0 ? a + rank : a;
    if (reduced[d]) return InvalidArgument("Invalid reduction arguments: Axes contains duplicate dimension: ", d);
    reduced[d] = true;
  }
  plan->out_shape = TensorShape();
  plan->groups.clear();
  for (int d = 0; d < rank; ++d) {
    const int64_t size = in.dim(d);
    if (!reduced[d])
      plan->out_shape.add_dim(size);
    else if (keep_dims)
      plan->out_shape.add_dim(1);
    if (size == 1) continue;
    if (!plan->groups.empty() && plan->groups.back().second == reduced[d])
      plan->groups.back().first *= size;
    else
      plan->groups.emplace_back(size, reduced[d]);
  }
  return Status::OK();
}

}  // namespace cpu
}  // namespace tx

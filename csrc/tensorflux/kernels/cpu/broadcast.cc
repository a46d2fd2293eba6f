#include "tensorflux/kernels/cpu/broadcast.h"

// Note [Broadcast plan]
// Shapes are right-aligned and padded with 1s. Output dims of size 1 carry no data and are dropped.
// Each remaining dim broadcasts x, y or neither (never both: its size exceeds 1 and comes from an
// input); neighbouring dims with the same pattern merge into one, so [N,H,W,C] + [C] becomes
// [N*H*W, C] with y's outer stride 0. The loops then run long contiguous inner rows: vector-vector,
// scalar-vector or vector-scalar, plus a tiling trick for short rows (RunTiled2D).

namespace tx {
namespace cpu {

Status MakeBroadcastPlan(const TensorShape& x, const TensorShape& y, BroadcastPlan* plan) {
  const int r = std::max(x.rank(), y.rank());
  std::vector<int64_t> out(r);
  // Groups of merged dims: size and whether x / y broadcast along them.
  std::vector<int64_t> sizes;
  std::vector<bool> bx, by;
  for (int k = 0; k < r; ++k) {
    const int ix = k - (r - x.rank()), iy = k - (r - y.rank());
    const int64_t dx = ix >= 0 ? x.dim(ix) : 1, dy = iy >= 0 ? y.dim(iy) : 1;
    if (dx == dy || dy == 1)
      out[k] = dx;
    else if (dx == 1)
      out[k] = dy;
    else
      return InvalidArgument("Incompatible shapes: ", x.ToString(), " vs. ", y.ToString());
    if (out[k] == 1) continue;
    const bool gx = dx == 1, gy = dy == 1;
    if (!sizes.empty() && bx.back() == gx && by.back() == gy) {
      sizes.back() *= out[k];
    } else {
      sizes.push_back(out[k]);
      bx.push_back(gx);
      by.push_back(gy);
    }
  }
  plan->out_shape = TensorShape(std::move(out));
  if (sizes.empty()) {
    sizes.push_back(1);
    bx.push_back(true);
    by.push_back(true);
  }
  const size_t g = sizes.size();
  plan->dims = sizes;
  plan->x_strides.assign(g, 0);
  plan->y_strides.assign(g, 0);
  int64_t sxa = 1, sya = 1;
  for (size_t k = g; k-- > 0;) {
    if (!bx[k]) {
      plan->x_strides[k] = sxa;
      sxa *= sizes[k];
    }
    if (!by[k]) {
      plan->y_strides[k] = sya;
      sya *= sizes[k];
    }
  }
  return Status::OK();
}

}  // namespace cpu
}  // namespace tx

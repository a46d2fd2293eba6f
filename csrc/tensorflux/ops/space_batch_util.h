// Shape logic shared by SpaceToBatchND, BatchToSpaceND, SpaceToDepth and DepthToSpace's shape
// functions and CPU kernels, so static inference and run-time checks agree.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/ops/conv_window.h"

namespace tx {
namespace space_batch {

// Bound on paddings, crops and the block product, so the size arithmetic cannot overflow.
constexpr int64_t kMaxSize = int64_t{1} << 40;

// Output dims of SpaceToBatchND (`to_batch`) or BatchToSpaceND for input dims `in` (-1 where
// unknown), `block` [M] and `pads` (paddings or crops, [M, 2] flattened); errors name the op.
inline Status Resolve(const char* op, const std::vector<int64_t>& in, const std::vector<int64_t>& block,
                      const std::vector<int64_t>& pads, bool to_batch, std::vector<int64_t>* out) {
  const int64_t m = static_cast<int64_t>(block.size());
  const char* pad_name = to_batch ? "paddings" : "crops";
  if (m < 1) return InvalidArgument(op, ": block_shape must have at least one element, got 0");
  if (static_cast<int64_t>(pads.size()) != 2 * m)
    return InvalidArgument(op, ": ", pad_name, " must have shape [", m, ", 2] to match block_shape, got ", pads.size(),
                           " values");
  if (static_cast<int64_t>(in.size()) < 1 + m)
    return InvalidArgument(op, ": input rank should be >= ", 1 + m, " (1 + the length of block_shape), got ",
                           in.size());
  int64_t prod = 1;
  for (int64_t i = 0; i < m; ++i) {
    if (block[i] < 1) return InvalidArgument(op, ": block_shape[", i, "] must be >= 1, got ", block[i]);
    if (pads[2 * i] < 0 || pads[2 * i + 1] < 0)
      return InvalidArgument(op, ": ", pad_name, " must be non-negative, got [", pads[2 * i], ", ", pads[2 * i + 1],
                             "] for dimension ", i);
    if (pads[2 * i] > kMaxSize || pads[2 * i + 1] > kMaxSize)
      return InvalidArgument(op, ": ", pad_name, " [", pads[2 * i], ", ", pads[2 * i + 1], "] for dimension ", i,
                             " are too large");
    if (prod > kMaxSize / block[i]) return InvalidArgument(op, ": block_shape product is too large");
    prod *= block[i];
  }
  *out = in;
  if (to_batch) {
    if (in[0] > std::numeric_limits<int64_t>::max() / prod)
      return InvalidArgument(op, ": batch ", in[0], " times the block_shape product ", prod, " is too large");
    if (in[0] >= 0) (*out)[0] = in[0] * prod;
    for (int64_t i = 0; i < m; ++i) {
      const int64_t d = in[1 + i];
      if (d < 0) continue;
      const int64_t padded = d + pads[2 * i] + pads[2 * i + 1];
      if (padded % block[i] != 0)
        return InvalidArgument(op, ": padded input dimension ", i + 1, " (", d, " + ", pads[2 * i], " + ",
                               pads[2 * i + 1], " = ", padded, ") is not divisible by block_shape[", i,
                               "] = ", block[i]);
      (*out)[1 + i] = padded / block[i];
    }
  } else {
    if (in[0] >= 0) {
      if (in[0] % prod != 0)
        return InvalidArgument(op, ": input batch dimension (", in[0], ") is not divisible by the product of ",
                               "block_shape (", prod, ")");
      (*out)[0] = in[0] / prod;
    }
    for (int64_t i = 0; i < m; ++i) {
      const int64_t d = in[1 + i];
      if (d < 0) continue;
      if (d > kMaxSize / block[i])
        return InvalidArgument(op, ": input dimension ", i + 1, " (", d, ") times block_shape[", i, "] is too large");
      const int64_t full = d * block[i];
      if (pads[2 * i] + pads[2 * i + 1] > full)
        return InvalidArgument(op, ": crops [", pads[2 * i], ", ", pads[2 * i + 1], "] for dimension ", i + 1,
                               " exceed its size ", full);
      (*out)[1 + i] = full - pads[2 * i] - pads[2 * i + 1];
    }
  }
  return Status::OK();
}

// Output dims of SpaceToDepth (`to_depth`) or DepthToSpace for a rank-4 input `in` (-1 where
// unknown) in `format` ("NHWC" or "NCHW"); errors name the op.
inline Status ResolveDepth(const char* op, const std::vector<int64_t>& in, int64_t block, const std::string& format,
                           bool to_depth, std::vector<int64_t>* out) {
  DataFormat f;
  TX_RETURN_IF_ERROR(ParseDataFormat(op, format, &f));
  if (f.spatial_dims != 2) return InvalidArgument(op, ": data_format must be NHWC or NCHW, got ", format);
  if (in.size() != 4) return InvalidArgument(op, ": input must be 4-dimensional, got rank ", in.size());
  if (block < 2) return InvalidArgument(op, ": block_size must be >= 2, got ", block);
  if (block > (int64_t{1} << 20)) return InvalidArgument(op, ": block_size ", block, " is too large");
  for (int64_t d : in)
    if (d > kMaxSize) return InvalidArgument(op, ": input dimension ", d, " is too large");
  const bool nchw = f.channels_first;
  const int hd = nchw ? 2 : 1, wd = nchw ? 3 : 2, cd = nchw ? 1 : 3;
  *out = in;
  if (to_depth) {
    for (int d : {hd, wd}) {
      if (in[d] >= 0 && in[d] % block != 0)
        return InvalidArgument(op, ": image dimensions (", in[hd], ", ", in[wd], ") must be divisible by block_size ",
                               block);
      if (in[d] >= 0) (*out)[d] = in[d] / block;
    }
    if (in[cd] >= 0) (*out)[cd] = in[cd] * block * block;
  } else {
    if (in[cd] >= 0 && in[cd] % (block * block) != 0)
      return InvalidArgument(op, ": input depth ", in[cd],
                             " must be divisible by block_size * block_size = ", block * block);
    if (in[cd] >= 0) (*out)[cd] = in[cd] / (block * block);
    for (int d : {hd, wd})
      if (in[d] >= 0) (*out)[d] = in[d] * block;
  }
  return Status::OK();
}

}  // namespace space_batch
}  // namespace tx

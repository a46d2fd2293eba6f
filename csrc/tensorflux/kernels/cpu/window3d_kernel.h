// Helpers shared by the 3-D convolution and pooling CPU kernels: attr reading and element
// strides of 5-D tensors in NDHWC or NCDHW layout (window3d.h holds the geometry).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/ops/window3d.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// The attrs of a 3-D windowed op, read and checked at kernel construction.
struct Window3dAttrs {
  std::vector<int64_t> strides, dilations = {1, 1, 1, 1, 1}, ksize;
  std::string padding;
  window3d::Layout layout;

  // Reads strides, padding, data_format, and dilations (`conv`) or ksize (pooling).
  Status Read(OpKernelConstruction* c, const char* op, bool conv) {
    std::string format;
    TX_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
    TX_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
    TX_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
    TX_RETURN_IF_ERROR(window3d::ParseLayout(op, format, &layout));
    TX_RETURN_IF_ERROR(window3d::CheckAttr5(op, "strides", strides, layout));
    if (conv) {
      TX_RETURN_IF_ERROR(c->GetAttr("dilations", &dilations));
      TX_RETURN_IF_ERROR(window3d::CheckAttr5(op, "dilations", dilations, layout));
    } else {
      TX_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
      TX_RETURN_IF_ERROR(window3d::CheckAttr5(op, "ksize", ksize, layout));
    }
    return Status::OK();
  }
};

// Element strides of a 5-D tensor of `dims` by role: batch, channel, and the 3 spatial dims.
struct Strides5 {
  int64_t n, c, sp[3];
  Strides5(const std::vector<int64_t>& dims, const window3d::Layout& l) {
    int64_t s[5];
    s[4] = 1;
    for (int d = 3; d >= 0; --d) s[d] = s[d + 1] * dims[d + 1];
    n = s[l.n];
    c = s[l.c];
    for (int i = 0; i < 3; ++i) sp[i] = s[l.sp[i]];
  }
};

// Checks that `t` is 5-D; the message names the op and the input.
inline Status CheckRank5(const Tensor& t, const char* op, const char* what) {
  if (t.rank() != 5) return InvalidArgument(op, ": ", what, " must be 5-dimensional, got shape ", t.shape().ToString());
  return Status::OK();
}

// Input position of output index `o` and window tap `k` along spatial dim i, or -1 when padded.
inline int64_t InputPos(const window3d::Geometry& g, int i, int64_t o, int64_t k) {
  const int64_t p = o * g.stride[i] - g.pad[i] + k * g.dil[i];
  return p >= 0 && p < g.in[i] ? p : -1;
}

}  // namespace cpu
}  // namespace tx

// Geometry of the 3-D windowed ops (Conv3D and its backprops, MaxPool3D, AvgPool3D and their
// gradients), shared by their shape functions and CPU kernels. NDHWC or NCDHW layouts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/ops/conv_window.h"

namespace tx {
namespace window3d {

// Where the batch, spatial and channel dims sit for one data_format.
struct Layout {
  bool ncdhw = false;
  int n = 0, c = 4, sp[3] = {1, 2, 3};
};

inline Status ParseLayout(const char* op, const std::string& format, Layout* l) {
  DataFormat f;
  TX_RETURN_IF_ERROR(ParseDataFormat(op, format, &f));
  if (f.spatial_dims != 3) return InvalidArgument(op, ": data_format must be NDHWC or NCDHW, got ", format);
  *l = f.channels_first ? Layout{true, 0, 1, {2, 3, 4}} : Layout{};
  return Status::OK();
}

// Checks a 5-element per-dimension attr (strides, ksize, dilations): all >= 1, batch and
// channel entries 1.
inline Status CheckAttr5(const char* op, const char* name, const std::vector<int64_t>& v, const Layout& l) {
  if (v.size() != 5) return InvalidArgument(op, ": ", name, " must have 5 elements, got ", v.size());
  for (int64_t x : v) {
    if (x < 1) return InvalidArgument(op, ": ", name, " must all be >= 1, got ", x);
    if (x > (int64_t{1} << 31)) return InvalidArgument(op, ": ", name, " value ", x, " is too large");
  }
  if (v[l.n] != 1 || v[l.c] != 1)
    return Unimplemented(op, ": ", name, " in the batch and depth dimensions must be 1, got ", v[l.n], " and ", v[l.c]);
  return Status::OK();
}

// Resolved geometry: per spatial dim the input size, window taps, dilation, stride, output
// size and leading padding.
struct Geometry {
  int64_t in[3], k[3], dil[3], stride[3], out[3], pad[3];
};

// Output sizes for spatial input sizes `in` (>= 0) and window sizes `k` under `padding`.
inline Status Resolve(const char* op, const int64_t in[3], const int64_t k[3], const std::vector<int64_t>& strides,
                      const std::vector<int64_t>& dil, const std::string& padding, const Layout& l, Geometry* g) {
  Padding p;
  TX_RETURN_IF_ERROR(ParsePadding(padding, &p));
  if (p == Padding::kExplicit) return InvalidArgument(op, ": padding must be SAME or VALID");
  for (int i = 0; i < 3; ++i) {
    g->in[i] = in[i];
    g->k[i] = k[i];
    g->dil[i] = dil[l.sp[i]];
    g->stride[i] = strides[l.sp[i]];
    Status s = WindowedOutputSize(in[i], k[i], g->dil[i], g->stride[i], p, 0, 0, &g->out[i], &g->pad[i]);
    if (!s.ok()) return InvalidArgument(op, ": ", s.message());
  }
  return Status::OK();
}

// The dims of a 5-D tensor with batch `n`, spatial sizes `sp` and `c` channels in layout `l`.
inline std::vector<int64_t> Dims(const Layout& l, int64_t n, const int64_t sp[3], int64_t c) {
  std::vector<int64_t> d(5);
  d[l.n] = n;
  d[l.c] = c;
  for (int i = 0; i < 3; ++i) d[l.sp[i]] = sp[i];
  return d;
}

}  // namespace window3d
}  // namespace tx

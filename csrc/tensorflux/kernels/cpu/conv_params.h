// Attr parsing and run-time geometry shared by the CPU Conv2D and DepthwiseConv2dNative kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/ops/conv_window.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// NHWC geometry of one 2-D convolution call, validated against the actual input shapes.
struct ConvGeometry {
  int64_t n = 0, h = 0, w = 0, c = 0;  // input
  int64_t kh = 0, kw = 0, m = 0;  // filter height, width, out depth (multiplier for depthwise)
  int64_t oh = 0, ow = 0;  // output spatial size
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;  // strides, dilations
  int64_t pt = 0, pl = 0;  // top/left padding
  int64_t groups = 1;  // Conv2D's filter depth is c / groups (grouped convolution)
};

// The attrs of a convolution node, read once at kernel construction.
struct ConvAttrs {
  std::vector<int64_t> strides, dilations, explicit_paddings;
  Padding padding = Padding::kValid;
  bool nchw = false;

  // Reads and checks the attrs; NCHW is reported as Unimplemented on CPU (as TensorFlow does).
  Status Init(OpKernelConstruction* c, const char* op) {
    std::string pad, format;
    TX_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
    TX_RETURN_IF_ERROR(c->GetAttr("padding", &pad));
    TX_RETURN_IF_ERROR(ParsePadding(pad, &padding));
    TX_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
    Status s = c->GetAttr("dilations", &dilations);
    if (!s.ok()) dilations = {1, 1, 1, 1};
    s = c->GetAttr("explicit_paddings", &explicit_paddings);
    if (!s.ok()) explicit_paddings.clear();
    DataFormat f;
    TX_RETURN_IF_ERROR(ParseDataFormat(op, format, &f));
    if (f.channels_first) return Unimplemented("The ", op, " op currently only supports the NHWC tensor format on CPU");
    if (strides.size() != 4 || dilations.size() != 4)
      return InvalidArgument("strides and dilations must have 4 values, got ", strides.size(), " and ",
                             dilations.size());
    if (strides[0] != 1 || strides[3] != 1 || dilations[0] != 1 || dilations[3] != 1)
      return Unimplemented(
          "Current implementation does not yet support strides or dilations in the batch and depth "
          "dimensions.");
    if (padding == Padding::kExplicit) {
      if (explicit_paddings.size() != 8)
        return InvalidArgument("explicit_paddings must have 8 values for EXPLICIT padding, got ",
                               explicit_paddings.size());
      if (explicit_paddings[0] || explicit_paddings[1] || explicit_paddings[6] || explicit_paddings[7])
        return InvalidArgument("Nonzero explicit padding in the batch or depth dimensions is not supported");
    }
    return Status::OK();
  }

  // Fills `g` from input [N,H,W,C] and filter [KH,KW,C',M]; checks ranks and depths. C' must be C
  // unless `grouped_ok` (Conv2D's forward kernel): then C' may divide C, with M a multiple of C / C'.
  Status Compute(const Tensor& in, const Tensor& f, bool depthwise, ConvGeometry* g, bool grouped_ok = false) const {
    if (in.rank() != 4) return InvalidArgument("input must be 4-dimensional, got shape ", in.shape().ToString());
    if (f.rank() != 4) return InvalidArgument("filter must be 4-dimensional, got shape ", f.shape().ToString());
    g->n = in.dim(0);
    g->h = in.dim(1);
    g->w = in.dim(2);
    g->c = in.dim(3);
    g->kh = f.dim(0);
    g->kw = f.dim(1);
    g->m = f.dim(3);
    g->groups = 1;
    if (grouped_ok && !depthwise && f.dim(2) > 0 && f.dim(2) != g->c && g->c % f.dim(2) == 0) {
      g->groups = g->c / f.dim(2);
      if (g->m % g->groups != 0)
        return InvalidArgument("Depth of output (", g->m, ") is not a multiple of the number of groups (", g->groups,
                               ")");
    } else if (f.dim(2) != g->c)
      return depthwise
          ? InvalidArgument("input and filter must have the same depth: ", g->c, " vs ", f.dim(2))
          : (f.dim(2) > 0 && g->c % f.dim(2) == 0
                 ? Unimplemented("Grouped convolution (input depth ", g->c, ", filter depth ", f.dim(2),
                                 ") is not supported on CPU")
                 : InvalidArgument("input depth must be evenly divisible by filter depth: ", g->c, " vs ", f.dim(2)));
    g->sh = strides[1];
    g->sw = strides[2];
    g->dh = dilations[1];
    g->dw = dilations[2];
    const bool ex = padding == Padding::kExplicit;
    TX_RETURN_IF_ERROR(WindowedOutputSize(g->h, g->kh, g->dh, g->sh, padding, ex ? explicit_paddings[2] : 0,
                                          ex ? explicit_paddings[3] : 0, &g->oh, &g->pt));
    TX_RETURN_IF_ERROR(WindowedOutputSize(g->w, g->kw, g->dw, g->sw, padding, ex ? explicit_paddings[4] : 0,
                                          ex ? explicit_paddings[5] : 0, &g->ow, &g->pl));
    const int64_t out_c = depthwise ? g->c * g->m : g->m;
    if (g->n > 0 && g->oh > 0 && g->ow > 0 && out_c > 0 && g->n > (int64_t{1} << 40) / g->oh / g->ow / out_c)
      return InvalidArgument("Convolution output of ", g->n, "x", g->oh, "x", g->ow, "x", out_c,
                             " elements is too large");
    return Status::OK();
  }
};

}  // namespace cpu
}  // namespace tx

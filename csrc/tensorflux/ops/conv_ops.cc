// Windowed NN ops: Conv2D, DepthwiseConv2dNative, MaxPool, AvgPool (signatures identical to TensorFlow's).
#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/conv_window.h"

namespace tx {
namespace {

// Reads a 4-element per-dimension attr (strides, ksize, dilations) and checks N and C entries are 1.
Status Get4(InferenceContext* c, const char* name, bool nchw, std::vector<int64_t>* v, const char* what) {
  TX_RETURN_IF_ERROR(c->GetAttr(name, v));
  if (v->size() != 4) return InvalidArgument(name, " attr must specify 4 dimensions, but has ", v->size());
  const int cdim = nchw ? 1 : 3;
  if ((*v)[0] != 1 || (*v)[cdim] != 1)
    return Unimplemented("Current implementation does not yet support ", what, " in the batch and depth dimensions.");
  for (int64_t x : *v)
    if (x <= 0) return InvalidArgument(name, " must all be >= 1, got ", x);
  return Status::OK();
}

// Output spatial sizes for an [N, H, W, C] (or NCHW) input; dims stay -1 when unknown.
Status SpatialOut(InferenceContext* c, const PartialShape& in, bool nchw, int64_t kh, int64_t kw,
                  const std::vector<int64_t>& strides, const std::vector<int64_t>& dil, bool allow_explicit,
                  int64_t* oh, int64_t* ow) {
  std::string pad_s;
  TX_RETURN_IF_ERROR(c->GetAttr("padding", &pad_s));
  Padding pad;
  TX_RETURN_IF_ERROR(ParsePadding(pad_s, &pad));
  std::vector<int64_t> ep;
  if (allow_explicit) TX_RETURN_IF_ERROR(c->GetAttr("explicit_paddings", &ep));
  if (pad == Padding::kExplicit) {
    if (ep.size() != 8)
      return InvalidArgument("explicit_paddings attr must contain 8 values (a pair per dimension) when padding is ",
                             "EXPLICIT, but has ", ep.size());
    const int cdim = nchw ? 1 : 3;
    if (ep[0] != 0 || ep[1] != 0 || ep[2 * cdim] != 0 || ep[2 * cdim + 1] != 0)
      return InvalidArgument("Nonzero explicit padding in the batch or depth dimensions is not supported");
  } else if (!ep.empty()) {
    return InvalidArgument("explicit_paddings must be empty unless padding is EXPLICIT, but has ", ep.size(),
                           " values");
  }
  const int hd = nchw ? 2 : 1, wd = nchw ? 3 : 2;
  int64_t before = 0;
  *oh = *ow = -1;
  if (in.dim(hd) >= 0 && kh >= 0)
    TX_RETURN_IF_ERROR(WindowedOutputSize(in.dim(hd), kh, dil[hd], strides[hd], pad, ep.empty() ? 0 : ep[2 * hd],
                                          ep.empty() ? 0 : ep[2 * hd + 1], oh, &before));
  if (in.dim(wd) >= 0 && kw >= 0)
    TX_RETURN_IF_ERROR(WindowedOutputSize(in.dim(wd), kw, dil[wd], strides[wd], pad, ep.empty() ? 0 : ep[2 * wd],
                                          ep.empty() ? 0 : ep[2 * wd + 1], ow, &before));
  return Status::OK();
}

PartialShape MakeOut(bool nchw, int64_t n, int64_t h, int64_t w, int64_t ch) {
  return nchw ? PartialShape({n, ch, h, w}) : PartialShape({n, h, w, ch});
}

// Conv2D and DepthwiseConv2dNative: input [N,H,W,C], filter [KH,KW,C,M] (Conv2D: C may be a
// multiple of filter's in-depth; output depth M) (depthwise: output depth C*M).
Status ConvShape(InferenceContext* c, bool depthwise) {
  PartialShape in, f;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "Input 'input'", &in));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, "Input 'filter'", &f));
  std::string format;
  TX_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  DataFormat layout;
  TX_RETURN_IF_ERROR(ParseDataFormat(c->op_def().name.c_str(), format, &layout));
  const bool nchw = layout.channels_first;
  std::vector<int64_t> strides, dil;
  TX_RETURN_IF_ERROR(Get4(c, "strides", nchw, &strides, "strides"));
  TX_RETURN_IF_ERROR(Get4(c, "dilations", nchw, &dil, "dilations"));
  const int64_t n = in.known_rank() ? in.dim(0) : -1;
  const int64_t in_c = in.known_rank() ? in.dim(nchw ? 1 : 3) : -1;
  const int64_t kh = f.known_rank() ? f.dim(0) : -1, kw = f.known_rank() ? f.dim(1) : -1;
  const int64_t f_in = f.known_rank() ? f.dim(2) : -1, f_out = f.known_rank() ? f.dim(3) : -1;
  int64_t out_c = -1;
  if (depthwise) {
    if (in_c >= 0 && f_in >= 0 && in_c != f_in)
      return InvalidArgument("input and filter must have the same depth: ", in_c, " vs ", f_in, " (shapes ",
                             in.ToString(), ", ", f.ToString(), ")");
    const int64_t ic = in_c >= 0 ? in_c : f_in;
    if (ic >= 0 && f_out >= 0) out_c = ic * f_out;
  } else {
    if (in_c >= 0 && f_in >= 0 && (f_in == 0 || in_c % f_in != 0))
      return InvalidArgument("Depth of input must be a multiple of depth of filter: ", in_c, " vs ", f_in, " (shapes ",
                             in.ToString(), ", ", f.ToString(), ")");
    if (in_c > 0 && f_in > 0 && f_out >= 0 && f_out % (in_c / f_in) != 0)
      return InvalidArgument("Depth of output (", f_out, ") is not a multiple of the number of groups (", in_c / f_in,
                             ") (shapes ", in.ToString(), ", ", f.ToString(), ")");
    out_c = f_out;
  }
  if (!in.known_rank()) {
    c->set_output(0, MakeOut(nchw, -1, -1, -1, out_c));
    return Status::OK();
  }
  int64_t oh, ow;
  TX_RETURN_IF_ERROR(SpatialOut(c, in, nchw, kh, kw, strides, dil, true, &oh, &ow));
  c->set_output(0, MakeOut(nchw, n, oh, ow, out_c));
  return Status::OK();
}

Status Conv2DShape(InferenceContext* c) { return ConvShape(c, false); }
Status DepthwiseShape(InferenceContext* c) { return ConvShape(c, true); }

// MaxPool / AvgPool: input [N,H,W,C] (or NCHW), ksize and strides of length 4.
Status PoolShape(InferenceContext* c, bool allow_explicit) {
  PartialShape in;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "Input 'input'", &in));
  std::string format;
  TX_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  DataFormat f;
  TX_RETURN_IF_ERROR(ParseDataFormat(c->op_def().name.c_str(), format, &f));
  const bool nchw = f.channels_first;
  std::vector<int64_t> ksize, strides;
  TX_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
  TX_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  if (ksize.size() != 4 || strides.size() != 4)
    return InvalidArgument("Pooling requires ksize and strides of 4 values, got ", ksize.size(), " and ",
                           strides.size());
  const int cdim = nchw ? 1 : 3;
  if (ksize[0] != 1 || strides[0] != 1) return Unimplemented("Pooling is not yet supported on the batch dimension.");
  if (ksize[cdim] != 1 || strides[cdim] != 1) return Unimplemented("Pooling over the depth dimension is not supported");
  for (int i = 0; i < 4; ++i)
    if (ksize[i] <= 0 || strides[i] <= 0)
      return InvalidArgument("Sliding window ksize and strides must be > 0, got ksize ", ksize[i], ", stride ",
                             strides[i]);
  if (!in.known_rank()) {
    c->set_output(0, PartialShape::UnknownDims(4));
    return Status::OK();
  }
  const std::vector<int64_t> dil = {1, 1, 1, 1};
  const int hd = nchw ? 2 : 1, wd = nchw ? 3 : 2;
  int64_t oh, ow;
  TX_RETURN_IF_ERROR(SpatialOut(c, in, nchw, ksize[hd], ksize[wd], strides, dil, allow_explicit, &oh, &ow));
  c->set_output(0, MakeOut(nchw, in.dim(0), oh, ow, in.dim(cdim)));
  return Status::OK();
}

Status MaxPoolShape(InferenceContext* c) { return PoolShape(c, true); }
Status AvgPoolShape(InferenceContext* c) { return PoolShape(c, false); }

}  // namespace

TX_REGISTER_OP("Conv2D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(Conv2DShape)
    .Summary("2-D convolution of a 4-D input with a [height, width, in_depth, out_depth] filter.");

TX_REGISTER_OP("DepthwiseConv2dNative")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(DepthwiseShape)
    .Summary("Convolves each input channel with its own set of channel_multiplier filters.");

TX_REGISTER_OP("MaxPool")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8} = DT_FLOAT")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn(MaxPoolShape)
    .Summary("Maximum over sliding windows of a 4-D input.");

TX_REGISTER_OP("AvgPool")
    .Input("value: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(AvgPoolShape)
    .Summary("Mean over sliding windows of a 4-D input; padded positions are not counted.");

}  // namespace tx

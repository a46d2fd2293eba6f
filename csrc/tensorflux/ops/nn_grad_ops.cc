// Gradient ops of the windowed NN ops: Conv2DBackpropInput/Filter, DepthwiseConv2dNativeBackpropInput/Filter,
// MaxPoolGrad, AvgPoolGrad (signatures identical to TensorFlow's).
#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/conv_window.h"

namespace tx {
namespace {

// The layout of a 4-D data_format: positions of the batch, height, width and channel dimensions.
struct Layout {
  int n = 0, h = 1, w = 2, c = 3;
};

Status ReadLayout(InferenceContext* c, Layout* l) {
  std::string format;
  TX_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  DataFormat f;
  TX_RETURN_IF_ERROR(ParseDataFormat(c->op_def().name.c_str(), format, &f));
  if (f.channels_first) *l = Layout{0, 2, 3, 1};
  return Status::OK();
}

// Reads a strides/dilations attr: 4 positive values, 1 in the batch and channel dimensions.
Status WindowAttr(InferenceContext* c, const char* name, const Layout& l, std::vector<int64_t>* v) {
  TX_RETURN_IF_ERROR(c->GetAttr(name, v));
  if (v->size() != 4) return InvalidArgument(name, " attr must have 4 values, but has ", v->size());
  for (int64_t x : *v)
    if (x <= 0) return InvalidArgument(name, " must all be >= 1, got ", x);
  if ((*v)[l.n] != 1 || (*v)[l.c] != 1)
    return Unimplemented("Current implementation does not yet support ", name, " in the batch and depth dimensions.");
  return Status::OK();
}

// The padding attrs; `ep` gets 8 values (zeros unless EXPLICIT), checked like Conv2D's.
Status ReadPadding(InferenceContext* c, const Layout& l, Padding* pad, std::vector<int64_t>* ep) {
  std::string pad_s;
  TX_RETURN_IF_ERROR(c->GetAttr("padding", &pad_s));
  TX_RETURN_IF_ERROR(ParsePadding(pad_s, pad));
  TX_RETURN_IF_ERROR(c->GetAttr("explicit_paddings", ep));
  if (*pad != Padding::kExplicit) {
    if (!ep->empty())
      return InvalidArgument("explicit_paddings must be empty unless padding is EXPLICIT, but has ", ep->size());
    ep->assign(8, 0);
    return Status::OK();
  }
  if (ep->size() != 8)
    return InvalidArgument("explicit_paddings attr must contain 8 values when padding is EXPLICIT, but has ",
                           ep->size());
  if ((*ep)[2 * l.n] || (*ep)[2 * l.n + 1] || (*ep)[2 * l.c] || (*ep)[2 * l.c + 1])
    return InvalidArgument("Nonzero explicit padding in the batch or depth dimensions is not supported");
  return Status::OK();
}

// Checks out_backprop `dy` against the forward output of input `in` and filter `f` where they are known.
Status CheckOutBackprop(InferenceContext* c, const Layout& l, const PartialShape& in, const PartialShape& f,
                        const PartialShape& dy, bool depthwise) {
  std::vector<int64_t> strides, dil, ep;
  TX_RETURN_IF_ERROR(WindowAttr(c, "strides", l, &strides));
  TX_RETURN_IF_ERROR(WindowAttr(c, "dilations", l, &dil));
  Padding pad = Padding::kValid;
  TX_RETURN_IF_ERROR(ReadPadding(c, l, &pad, &ep));
  if (!in.known_rank() || !f.known_rank() || !dy.known_rank()) return Status::OK();
  const int64_t in_c = in.dim(l.c), f_in = f.dim(2), f_out = f.dim(3);
  if (in_c >= 0 && f_in >= 0) {
    if (depthwise ? in_c != f_in : (f_in == 0 || in_c % f_in != 0))
      return InvalidArgument(depthwise ? "input and filter must have the same depth: "
                                       : "input depth must be evenly divisible by filter depth: ",
                             in_c, " vs ", f_in, " (input ", in.ToString(), ", filter ", f.ToString(), ")");
  }
  std::vector<int64_t> want(4, -1);
  want[l.n] = in.dim(l.n);
  want[l.c] = depthwise ? (in_c >= 0 && f_out >= 0 ? in_c * f_out : -1) : f_out;
  int64_t before = 0;
  const int sp[2] = {l.h, l.w};
  for (int i = 0; i < 2; ++i) {
    const int d = sp[i];
    if (in.dim(d) >= 0 && f.dim(i) >= 0)
      TX_RETURN_IF_ERROR(WindowedOutputSize(in.dim(d), f.dim(i), dil[d], strides[d], pad, ep[2 * d], ep[2 * d + 1],
                                            &want[d], &before));
  }
  if (!dy.IsCompatibleWith(PartialShape(want)))
    return InvalidArgument("out_backprop must have the forward output's shape ", PartialShape(want).ToString(),
                           " for input ", in.ToString(), " and filter ", f.ToString(), ", got ", dy.ToString());
  return Status::OK();
}

// Conv2DBackprop{Input,Filter} and their depthwise forms: the output is the shape held by the
// sizes input (input_sizes may give just [H, W] for Conv2DBackpropInput).
Status ConvBackpropShape(InferenceContext* c, bool filter_grad, bool depthwise) {
  Layout l;
  TX_RETURN_IF_ERROR(ReadLayout(c, &l));
  const int sizes_index = filter_grad ? 1 : 0;
  const char* sizes_name = filter_grad ? "Input 'filter_sizes'" : "Input 'input_sizes'";
  PartialShape vec, other, dy, sizes;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(sizes_index), 1, sizes_name, &vec));
  TX_RETURN_IF_ERROR(
      c->WithRank(c->input(filter_grad ? 0 : 1), 4, filter_grad ? "Input 'input'" : "Input 'filter'", &other));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 4, "Input 'out_backprop'", &dy));
  TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(sizes_index, &sizes));
  if (!filter_grad && !depthwise && sizes.known_rank() && sizes.rank() == 2) {
    std::vector<int64_t> dims(4, -1);
    dims[l.n] = dy.known_rank() ? dy.dim(l.n) : -1;
    dims[l.c] = other.known_rank() ? other.dim(2) : -1;
    dims[l.h] = sizes.dim(0);
    dims[l.w] = sizes.dim(1);
    sizes = PartialShape(std::move(dims));
  }
  TX_RETURN_IF_ERROR(c->WithRank(sizes, 4, sizes_name, &sizes));
  TX_RETURN_IF_ERROR(CheckOutBackprop(c, l, filter_grad ? other : sizes, filter_grad ? sizes : other, dy, depthwise));
  c->set_output(0, sizes);
  return Status::OK();
}

Status Conv2DBackpropInputShape(InferenceContext* c) { return ConvBackpropShape(c, false, false); }
Status Conv2DBackpropFilterShape(InferenceContext* c) { return ConvBackpropShape(c, true, false); }
Status DepthwiseBackpropInputShape(InferenceContext* c) { return ConvBackpropShape(c, false, true); }
Status DepthwiseBackpropFilterShape(InferenceContext* c) { return ConvBackpropShape(c, true, true); }

// MaxPoolGrad: dx has orig_input's shape; orig_output and grad are 4-D and of equal shape.
Status MaxPoolGradShape(InferenceContext* c) {
  PartialShape in, out, grad, merged;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "Input 'orig_input'", &in));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, "Input 'orig_output'", &out));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 4, "Input 'grad'", &grad));
  if (!out.IsCompatibleWith(grad))
    return InvalidArgument("orig_output and grad must have the same shape, got ", out.ToString(), " and ",
                           grad.ToString());
  c->set_output(0, in);
  return Status::OK();
}

// AvgPoolGrad: dx has the shape held by orig_input_shape; grad is 4-D.
Status AvgPoolGradShape(InferenceContext* c) {
  PartialShape vec, shape, grad;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "Input 'orig_input_shape'", &vec));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, "Input 'grad'", &grad));
  TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &shape));
  TX_RETURN_IF_ERROR(c->WithRank(shape, 4, "Input 'orig_input_shape'", &shape));
  c->set_output(0, shape);
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("Conv2DBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(Conv2DBackpropInputShape)
    .Summary("Gradient of Conv2D with respect to its input, of shape input_sizes.");

TX_REGISTER_OP("Conv2DBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(Conv2DBackpropFilterShape)
    .Summary("Gradient of Conv2D with respect to its filter, of shape filter_sizes.");

TX_REGISTER_OP("DepthwiseConv2dNativeBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(DepthwiseBackpropInputShape)
    .Summary("Gradient of DepthwiseConv2dNative with respect to its input, of shape input_sizes.");

TX_REGISTER_OP("DepthwiseConv2dNativeBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(DepthwiseBackpropFilterShape)
    .Summary("Gradient of DepthwiseConv2dNative with respect to its filter, of shape filter_sizes.");

TX_REGISTER_OP("MaxPoolGrad")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("T: realnumbertype = DT_FLOAT")
    .SetShapeFn(MaxPoolGradShape)
    .Summary("Gradient of MaxPool: each window's gradient goes to the first maximum of orig_input in it.");

TX_REGISTER_OP("AvgPoolGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(AvgPoolGradShape)
    .Summary("Gradient of AvgPool: each window's gradient is spread evenly over its in-bounds elements.");

}  // namespace tx

// 3-D windowed ops: Conv3D, Conv3DBackpropInputV2, Conv3DBackpropFilterV2, MaxPool3D,
// MaxPool3DGrad, AvgPool3D, AvgPool3DGrad (signatures identical to TensorFlow's).
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/window3d.h"

namespace tx {
namespace {

// Reads data_format and the checked strides plus dilations (`conv`) or ksize.
Status ReadAttrs(InferenceContext* c, const char* op, bool conv, window3d::Layout* l, std::vector<int64_t>* strides,
                 std::vector<int64_t>* second) {
  std::string format;
  TX_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  TX_RETURN_IF_ERROR(window3d::ParseLayout(op, format, l));
  TX_RETURN_IF_ERROR(c->GetAttr("strides", strides));
  TX_RETURN_IF_ERROR(window3d::CheckAttr5(op, "strides", *strides, *l));
  const char* name = conv ? "dilations" : "ksize";
  TX_RETURN_IF_ERROR(c->GetAttr(name, second));
  return window3d::CheckAttr5(op, name, *second, *l);
}

// Output shape of a 3-D window op over `in` (rank 5 or unknown) with window sizes `k` (-1
// unknown) and `out_c` output channels (-1 unknown).
Status WindowOut(InferenceContext* c, const char* op, const PartialShape& in, const int64_t k[3],
                 const std::vector<int64_t>& strides, const std::vector<int64_t>& dil, const window3d::Layout& l,
                 int64_t out_c, PartialShape* out) {
  std::string padding;
  TX_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  int64_t sp[3] = {-1, -1, -1};
  const int64_t n = in.known_rank() ? in.dim(l.n) : -1;
  for (int i = 0; i < 3; ++i) {
    const int64_t d = in.known_rank() ? in.dim(l.sp[i]) : -1;
    if (d < 0 || k[i] < 0) continue;
    const int64_t one_in[3] = {d, 1, 1}, one_k[3] = {k[i], 1, 1};
    std::vector<int64_t> s5(5, 1), d5(5, 1);
    s5[l.sp[0]] = strides[l.sp[i]];
    d5[l.sp[0]] = dil[l.sp[i]];
    window3d::Geometry g;
    TX_RETURN_IF_ERROR(window3d::Resolve(op, one_in, one_k, s5, d5, padding, l, &g));
    sp[i] = g.out[0];
  }
  *out = PartialShape(window3d::Dims(l, n, sp, out_c));
  return Status::OK();
}

Status Conv3DShape(InferenceContext* c) {
  PartialShape in, f;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 5, "Input 'input'", &in));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 5, "Input 'filter'", &f));
  window3d::Layout l;
  std::vector<int64_t> strides, dil;
  TX_RETURN_IF_ERROR(ReadAttrs(c, "Conv3D", true, &l, &strides, &dil));
  const int64_t in_c = in.known_rank() ? in.dim(l.c) : -1, f_in = f.known_rank() ? f.dim(3) : -1;
  if (in_c >= 0 && f_in >= 0 && (f_in == 0 || in_c % f_in != 0))
    return InvalidArgument("Conv3D: input depth ", in_c, " must be evenly divisible by filter depth ", f_in);
  const int64_t k[3] = {f.known_rank() ? f.dim(0) : -1, f.known_rank() ? f.dim(1) : -1, f.known_rank() ? f.dim(2) : -1};
  PartialShape out;
  TX_RETURN_IF_ERROR(WindowOut(c, "Conv3D", in, k, strides, dil, l, f.known_rank() ? f.dim(4) : -1, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status Pool3DShape(InferenceContext* c, const char* op) {
  PartialShape in;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 5, "Input 'input'", &in));
  window3d::Layout l;
  std::vector<int64_t> strides, ksize;
  TX_RETURN_IF_ERROR(ReadAttrs(c, op, false, &l, &strides, &ksize));
  const int64_t k[3] = {ksize[l.sp[0]], ksize[l.sp[1]], ksize[l.sp[2]]};
  PartialShape out;
  TX_RETURN_IF_ERROR(WindowOut(c, op, in, k, strides, {1, 1, 1, 1, 1}, l, in.known_rank() ? in.dim(l.c) : -1, &out));
  c->set_output(0, out);
  return Status::OK();
}
Status MaxPool3DShape(InferenceContext* c) { return Pool3DShape(c, "MaxPool3D"); }
Status AvgPool3DShape(InferenceContext* c) { return Pool3DShape(c, "AvgPool3D"); }

// The gradient ops' output is the shape given by a size vector input, or an input's shape.
Status ShapeFromSizes(InferenceContext* c, int index, const char* what) {
  PartialShape vec, s;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(index), 1, what, &vec));
  TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(index, &s));
  TX_RETURN_IF_ERROR(c->WithRank(s, 5, what, &s));
  c->set_output(0, s);
  return Status::OK();
}
Status Conv3DBackpropInputShape(InferenceContext* c) { return ShapeFromSizes(c, 0, "Input 'input_sizes'"); }
Status Conv3DBackpropFilterShape(InferenceContext* c) { return ShapeFromSizes(c, 1, "Input 'filter_sizes'"); }
Status AvgPool3DGradShape(InferenceContext* c) { return ShapeFromSizes(c, 0, "Input 'orig_input_shape'"); }
Status MaxPool3DGradShape(InferenceContext* c) {
  PartialShape in;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 5, "Input 'orig_input'", &in));
  c->set_output(0, in);
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("Conv3D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
    .SetShapeFn(Conv3DShape)
    .Summary("3-D convolution of a 5-D input with a [depth, height, width, in_depth, out_depth] filter.");

TX_REGISTER_OP("Conv3DBackpropInputV2")
    .Input("input_sizes: Tshape")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(Conv3DBackpropInputShape)
    .Summary("Gradient of Conv3D with respect to its input.");

TX_REGISTER_OP("Conv3DBackpropFilterV2")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
    .SetShapeFn(Conv3DBackpropFilterShape)
    .Summary("Gradient of Conv3D with respect to its filter.");

TX_REGISTER_OP("MaxPool3D")
    .Input("input: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("T: {half, bfloat16, float}")
    .SetShapeFn(MaxPool3DShape)
    .Summary("Maximum over sliding 3-D windows of a 5-D input.");

TX_REGISTER_OP("MaxPool3DGrad")
    .Input("orig_input: TInput")
    .Input("orig_output: TInput")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("T: {half, bfloat16, float} = DT_FLOAT")
    .Attr("TInput: {half, bfloat16, float} = DT_FLOAT")
    .SetShapeFn(MaxPool3DGradShape)
    .Summary("Gradient of MaxPool3D with respect to its input.");

TX_REGISTER_OP("AvgPool3D")
    .Input("input: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(AvgPool3DShape)
    .Summary("Mean over sliding 3-D windows of a 5-D input; padded positions are not counted.");

TX_REGISTER_OP("AvgPool3DGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(AvgPool3DGradShape)
    .Summary("Gradient of AvgPool3D with respect to its input.");

}  // namespace tx

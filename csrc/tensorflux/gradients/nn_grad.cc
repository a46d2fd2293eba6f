// Gradients of the neural-network ops: BiasAdd, (log-)softmax, the softmax cross-entropies
// (with their second-order term), L2Loss, convolutions, pooling and batch normalization. The
// heavy ones run through dedicated gradient kernels (Conv2DBackpropInput, MaxPoolGrad, ...).
#include "tensorflux/gradients/carry_attrs.h"
#include "tensorflux/gradients/gradient_registry.h"
#include "tensorflux/ops/conv_window.h"

namespace tx {
namespace {

Status BiasAddGrad(GradContext& g) {
  GValue dz = g.grad(0);
  g.set_grad(0, dz);
  if (g.needs_grad(1)) g.set_grad(1, g.ops().Op1("BiasAddGrad", {dz}, CarryAttrs(g, "BiasAddGrad")));
  return Status::OK();
}

// y = softmax(x): dx = (dz - sum(dz * y, -1)) * y.
Status SoftmaxGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue y = g.output(0), dz = g.grad(0);
  GValue dot = o.Sum(o.Mul(dz, y), o.Int(-1), /*keep_dims=*/true);
  g.set_grad(0, o.Mul(o.Sub(dz, dot), y));
  return Status::OK();
}

// y = log_softmax(x): dx = dz - sum(dz, -1) * exp(y).
Status LogSoftmaxGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue y = g.output(0), dz = g.grad(0);
  g.set_grad(0, o.Sub(dz, o.Mul(o.Sum(dz, o.Int(-1), true), o.Op1("Exp", {y}))));
  return Status::OK();
}

// Shared by both cross-entropies: d logits = dloss[:, None] * backprop, plus, when a gradient
// reaches the backprop output (second order), (gb - sum(gb * p, -1)) * p with p = softmax(logits).
GValue XentLogitsGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue grad = o.Mul(o.ExpandDims(g.grad(0), -1), g.output(1));
  if (g.has_grad(1)) {
    GValue gb = g.grad(1), p = o.Op1("Softmax", {g.input(0)});
    grad = o.Add(grad, o.Mul(o.Sub(gb, o.Sum(o.Mul(gb, p), o.Int(-1), true)), p));
  }
  return grad;
}

Status SoftmaxXentGrad(GradContext& g) {
  GradScope& o = g.ops();
  if (g.needs_grad(0)) g.set_grad(0, o.SumToShapeOf(XentLogitsGrad(g), g.input(0)));
  if (g.needs_grad(1)) {
    // loss = -sum(labels * log p) and backprop = p - labels.
    GValue neg_log_p = o.Neg(o.Op1("LogSoftmax", {g.input(0)}));
    GValue grad = o.Mul(o.ExpandDims(g.grad(0), -1), neg_log_p);
    if (g.has_grad(1)) grad = o.Sub(grad, g.grad(1));
    g.set_grad(1, o.SumToShapeOf(grad, g.input(1)));
  }
  return Status::OK();
}

Status SparseSoftmaxXentGrad(GradContext& g) {
  g.set_grad(0, XentLogitsGrad(g));
  return Status::OK();
}

// L2Loss = sum(x^2) / 2: dx = x * dz.
Status L2LossGrad(GradContext& g) {
  g.set_grad(0, g.ops().Mul(g.input(0), g.grad(0)));
  return Status::OK();
}

Status Conv2DGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), w = g.input(1), dz = g.grad(0);
  if (g.needs_grad(0))
    g.set_grad(0, o.Op1("Conv2DBackpropInput", {o.ShapeOf(x), w, dz}, CarryAttrs(g, "Conv2DBackpropInput")));
  if (g.needs_grad(1))
    g.set_grad(1, o.Op1("Conv2DBackpropFilter", {x, o.ShapeOf(w), dz}, CarryAttrs(g, "Conv2DBackpropFilter")));
  return Status::OK();
}

Status DepthwiseConv2dGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), w = g.input(1), dz = g.grad(0);
  constexpr char kInput[] = "DepthwiseConv2dNativeBackpropInput", kFilter[] = "DepthwiseConv2dNativeBackpropFilter";
  if (g.needs_grad(0)) g.set_grad(0, o.Op1(kInput, {o.ShapeOf(x), w, dz}, CarryAttrs(g, kInput)));
  if (g.needs_grad(1)) g.set_grad(1, o.Op1(kFilter, {x, o.ShapeOf(w), dz}, CarryAttrs(g, kFilter)));
  return Status::OK();
}

Status MaxPoolGrad(GradContext& g) {
  g.set_grad(0, g.ops().Op1("MaxPoolGrad", {g.input(0), g.output(0), g.grad(0)}, CarryAttrs(g, "MaxPoolGrad")));
  return Status::OK();
}

Status AvgPoolGrad(GradContext& g) {
  GradScope& o = g.ops();
  g.set_grad(0, o.Op1("AvgPoolGrad", {o.ShapeOf(g.input(0)), g.grad(0)}, CarryAttrs(g, "AvgPoolGrad")));
  return Status::OK();
}

// FusedBatchNormV3(x, scale, offset, mean, variance): gradients for x, scale and offset from
// FusedBatchNormGradV3. Training mode reads the batch statistics the forward op saved in its
// reserve spaces; inference mode reads the population statistics it was given (as TensorFlow).
Status FusedBatchNormGrad(GradContext& g) {
  GradScope& o = g.ops();
  const bool training = g.attr_bool("is_training");
  GValue r1 = training ? g.output(3) : g.input(3), r2 = training ? g.output(4) : g.input(4);
  std::vector<GValue> out =
      o.Op("FusedBatchNormGradV3", {{g.grad(0)}, {g.input(0)}, {g.input(1)}, {r1}, {r2}, {g.output(5)}},
           CarryAttrs(g, "FusedBatchNormGradV3"));
  if (out.size() < 3) return Status::OK();
  g.set_grad(0, out[0]);
  g.set_grad(1, out[1]);
  g.set_grad(2, out[2]);
  return Status::OK();
}

// ---- Gradients of the gradient ops (second order).

// BiasAddGrad sums out_backprop over all but the channel axis: its gradient broadcasts back.
Status BiasAddGradGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dy = g.input(0), grad = g.grad(0);
  const int rank = o.Rank(dy);
  DataFormat f;
  TX_RETURN_IF_ERROR(ParseDataFormat("BiasAddGrad", g.attr_string("data_format"), &f));
  const bool nchw = f.channels_first;
  GValue shape;  // 1 everywhere but -1 at the channel axis
  if (rank >= 0) {
    std::vector<int64_t> dims(rank, 1);
    dims[nchw ? 1 : rank - 1] = -1;
    shape = o.Ints(dims);
  } else {
    GValue ones = o.Op1("Fill", {o.ExpandDims(o.Sub(o.Op1("Rank", {dy}), o.Int(nchw ? 2 : 1)), 0), o.Int(1)});
    std::vector<GValue> parts =
        nchw ? std::vector<GValue>{o.Ints({1, -1}), ones} : std::vector<GValue>{ones, o.Ints({-1})};
    std::vector<GValue> cat = o.Op("ConcatV2", {parts, {o.Int(0)}});
    if (cat.empty()) return Status::OK();  // the scope holds the error
    shape = cat[0];
  }
  g.set_grad(0, o.Op1("BroadcastTo", {o.Reshape(grad, shape), o.ShapeOf(dy)}));
  return Status::OK();
}

// Conv2DBackpropInput(sizes, w, dy) is linear in w and in dy.
template <const char* kForward, const char* kFilterGrad>
Status ConvBackpropInputGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue w = g.input(1), dy = g.input(2), grad = g.grad(0);
  if (g.needs_grad(1)) g.set_grad(1, o.Op1(kFilterGrad, {grad, o.ShapeOf(w), dy}, CarryAttrs(g, kFilterGrad)));
  if (g.needs_grad(2)) g.set_grad(2, o.Op1(kForward, {grad, w}, CarryAttrs(g, kForward)));
  return Status::OK();
}
// Conv2DBackpropFilter(x, sizes, dy) is linear in x and in dy.
template <const char* kForward, const char* kInputGrad>
Status ConvBackpropFilterGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), dy = g.input(2), grad = g.grad(0);
  if (g.needs_grad(0)) g.set_grad(0, o.Op1(kInputGrad, {o.ShapeOf(x), grad, dy}, CarryAttrs(g, kInputGrad)));
  if (g.needs_grad(2)) g.set_grad(2, o.Op1(kForward, {x, grad}, CarryAttrs(g, kForward)));
  return Status::OK();
}
constexpr char kConv2D[] = "Conv2D";
constexpr char kConvInput[] = "Conv2DBackpropInput";
constexpr char kConvFilter[] = "Conv2DBackpropFilter";
constexpr char kDepthwise[] = "DepthwiseConv2dNative";
constexpr char kDepthwiseInput[] = "DepthwiseConv2dNativeBackpropInput";
constexpr char kDepthwiseFilter[] = "DepthwiseConv2dNativeBackpropFilter";
Status Conv2DBackpropInputGrad(GradContext& g) { return ConvBackpropInputGrad<kConv2D, kConvFilter>(g); }
Status Conv2DBackpropFilterGrad(GradContext& g) { return ConvBackpropFilterGrad<kConv2D, kConvInput>(g); }
Status DepthwiseBackpropInputGrad(GradContext& g) { return ConvBackpropInputGrad<kDepthwise, kDepthwiseFilter>(g); }
Status DepthwiseBackpropFilterGrad(GradContext& g) { return ConvBackpropFilterGrad<kDepthwise, kDepthwiseInput>(g); }

// AvgPoolGrad is linear in its gradient input: its gradient is the forward pooling.
Status AvgPoolGradGrad(GradContext& g) {
  g.set_grad(1, g.ops().Op1("AvgPool", {g.grad(0)}, CarryAttrs(g, "AvgPool")));
  return Status::OK();
}

// Not implemented yet; an explicit error instead of a wrong or silent None.
Status MaxPoolGradGrad(GradContext& g) {
  return Unimplemented("the second derivative of MaxPool (MaxPoolGradGrad) is not implemented yet");
}
Status FusedBatchNormGradGrad(GradContext& g) {
  return Unimplemented(
      "the second derivative of FusedBatchNormV3 is not implemented yet; build batch "
      "normalization from tx.nn.moments and tx.nn.batch_normalization to differentiate twice");
}

}  // namespace

TX_REGISTER_GRADIENT("BiasAdd", BiasAddGrad);
TX_REGISTER_GRADIENT("Softmax", SoftmaxGrad);
TX_REGISTER_GRADIENT("LogSoftmax", LogSoftmaxGrad);
TX_REGISTER_GRADIENT("SoftmaxCrossEntropyWithLogits", SoftmaxXentGrad);
TX_REGISTER_GRADIENT("SparseSoftmaxCrossEntropyWithLogits", SparseSoftmaxXentGrad);
TX_REGISTER_GRADIENT("L2Loss", L2LossGrad);
TX_REGISTER_GRADIENT("Conv2D", Conv2DGrad);
TX_REGISTER_GRADIENT("DepthwiseConv2dNative", DepthwiseConv2dGrad);
TX_REGISTER_GRADIENT("MaxPool", MaxPoolGrad);
TX_REGISTER_GRADIENT("AvgPool", AvgPoolGrad);
TX_REGISTER_GRADIENT("FusedBatchNormV3", FusedBatchNormGrad);
TX_REGISTER_GRADIENT("BiasAddGrad", BiasAddGradGrad);
TX_REGISTER_GRADIENT("Conv2DBackpropInput", Conv2DBackpropInputGrad);
TX_REGISTER_GRADIENT("Conv2DBackpropFilter", Conv2DBackpropFilterGrad);
TX_REGISTER_GRADIENT("DepthwiseConv2dNativeBackpropInput", DepthwiseBackpropInputGrad);
TX_REGISTER_GRADIENT("DepthwiseConv2dNativeBackpropFilter", DepthwiseBackpropFilterGrad);
TX_REGISTER_GRADIENT("AvgPoolGrad", AvgPoolGradGrad);
TX_REGISTER_GRADIENT("MaxPoolGrad", MaxPoolGradGrad);
TX_REGISTER_GRADIENT("FusedBatchNormGradV3", FusedBatchNormGradGrad);

}  // namespace tx

// Gradients of the block rearrangements (each one's gradient is its inverse rearrangement), of
// LRN (through the LRNGrad kernel) and of the 3-D convolution and pooling ops.
#include "tensorflux/gradients/carry_attrs.h"
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

// SpaceToBatchND(x, block, paddings) -> BatchToSpaceND(dy, block, paddings), and the reverse;
// block_shape and paddings/crops are integer and get no gradient.
template <const char* kInverse>
Status SpaceBatchGrad(GradContext& g) {
  g.set_grad(0, g.ops().Op1(kInverse, {g.grad(0), g.input(1), g.input(2)}));
  return Status::OK();
}
template <const char* kInverse>
Status DepthGrad(GradContext& g) {
  g.set_grad(0, g.ops().Op1(kInverse, {g.grad(0)}, CarryAttrs(g, kInverse)));
  return Status::OK();
}
constexpr char kSpaceToBatchND[] = "SpaceToBatchND";
constexpr char kBatchToSpaceND[] = "BatchToSpaceND";
constexpr char kSpaceToDepth[] = "SpaceToDepth";
constexpr char kDepthToSpace[] = "DepthToSpace";

Status LrnGrad(GradContext& g) {
  g.set_grad(0, g.ops().Op1("LRNGrad", {g.grad(0), g.input(0), g.output(0)}, CarryAttrs(g, "LRNGrad")));
  return Status::OK();
}

// TensorFlow defines no second derivative of LRN either; an explicit error instead of None.
Status LrnGradGrad(GradContext& g) {
  return Unimplemented("the second derivative of LRN (the gradient of LRNGrad) is not implemented");
}

constexpr char kConv3D[] = "Conv3D";
constexpr char kConv3DInput[] = "Conv3DBackpropInputV2";
constexpr char kConv3DFilter[] = "Conv3DBackpropFilterV2";

Status Conv3DGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), w = g.input(1), dz = g.grad(0);
  if (g.needs_grad(0)) g.set_grad(0, o.Op1(kConv3DInput, {o.ShapeOf(x), w, dz}, CarryAttrs(g, kConv3DInput)));
  if (g.needs_grad(1)) g.set_grad(1, o.Op1(kConv3DFilter, {x, o.ShapeOf(w), dz}, CarryAttrs(g, kConv3DFilter)));
  return Status::OK();
}
// Conv3DBackpropInputV2(sizes, w, dy) is linear in w and in dy.
Status Conv3DBackpropInputGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue w = g.input(1), dy = g.input(2), grad = g.grad(0);
  if (g.needs_grad(1)) g.set_grad(1, o.Op1(kConv3DFilter, {grad, o.ShapeOf(w), dy}, CarryAttrs(g, kConv3DFilter)));
  if (g.needs_grad(2)) g.set_grad(2, o.Op1(kConv3D, {grad, w}, CarryAttrs(g, kConv3D)));
  return Status::OK();
}
// Conv3DBackpropFilterV2(x, sizes, dy) is linear in x and in dy.
Status Conv3DBackpropFilterGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), dy = g.input(2), grad = g.grad(0);
  if (g.needs_grad(0)) g.set_grad(0, o.Op1(kConv3DInput, {o.ShapeOf(x), grad, dy}, CarryAttrs(g, kConv3DInput)));
  if (g.needs_grad(2)) g.set_grad(2, o.Op1(kConv3D, {x, grad}, CarryAttrs(g, kConv3D)));
  return Status::OK();
}

Status MaxPool3DGradFn(GradContext& g) {
  g.set_grad(0, g.ops().Op1("MaxPool3DGrad", {g.input(0), g.output(0), g.grad(0)}, CarryAttrs(g, "MaxPool3DGrad")));
  return Status::OK();
}
Status AvgPool3DGradFn(GradContext& g) {
  GradScope& o = g.ops();
  g.set_grad(0, o.Op1("AvgPool3DGrad", {o.ShapeOf(g.input(0)), g.grad(0)}, CarryAttrs(g, "AvgPool3DGrad")));
  return Status::OK();
}
// AvgPool3DGrad is linear in its gradient input: its gradient is the forward pooling.
Status AvgPool3DGradGrad(GradContext& g) {
  g.set_grad(1, g.ops().Op1("AvgPool3D", {g.grad(0)}, CarryAttrs(g, "AvgPool3D")));
  return Status::OK();
}
// Not implemented (TensorFlow has a MaxPool3DGradGrad op); an explicit error instead of None.
Status MaxPool3DGradGrad(GradContext& g) {
  return Unimplemented("the second derivative of MaxPool3D (MaxPool3DGradGrad) is not implemented");
}

// CTCLoss: d inputs = dloss[None, :, None] * gradient (the op's second output), which carries
// no gradient itself (TensorFlow's message); the label and length inputs get none.
Status CtcLossGrad(GradContext& g) {
  GradScope& o = g.ops();
  AttrMap attrs;
  attrs["message"] = AttrValue::String(
      "Currently there is no way to take the second derivative of ctc_loss due to the fused implementation's "
      "interaction with tf.gradients()");
  GValue grad = o.Op1("PreventGradient", {g.output(1)}, attrs);
  g.set_grad(0, o.Mul(o.Reshape(g.grad(0), o.Ints({1, -1, 1})), grad));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("CTCLoss", CtcLossGrad);
TX_REGISTER_GRADIENT("Conv3D", Conv3DGrad);
TX_REGISTER_GRADIENT("Conv3DBackpropInputV2", Conv3DBackpropInputGrad);
TX_REGISTER_GRADIENT("Conv3DBackpropFilterV2", Conv3DBackpropFilterGrad);
TX_REGISTER_GRADIENT("MaxPool3D", MaxPool3DGradFn);
TX_REGISTER_GRADIENT("MaxPool3DGrad", MaxPool3DGradGrad);
TX_REGISTER_GRADIENT("AvgPool3D", AvgPool3DGradFn);
TX_REGISTER_GRADIENT("AvgPool3DGrad", AvgPool3DGradGrad);
TX_REGISTER_GRADIENT("SpaceToBatchND", SpaceBatchGrad<kBatchToSpaceND>);
TX_REGISTER_GRADIENT("BatchToSpaceND", SpaceBatchGrad<kSpaceToBatchND>);
TX_REGISTER_GRADIENT("SpaceToDepth", DepthGrad<kDepthToSpace>);
TX_REGISTER_GRADIENT("DepthToSpace", DepthGrad<kSpaceToDepth>);
TX_REGISTER_GRADIENT("LRN", LrnGrad);
TX_REGISTER_GRADIENT("LRNGrad", LrnGradGrad);

}  // namespace tx

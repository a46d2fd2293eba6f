// Gradients of the image resize ops (through their gradient ops, as TensorFlow's) and of those
// gradient ops: each is linear in its incoming gradient, so its own gradient is the forward
// resize (second derivatives TensorFlow does not define).
#include "tensorflux/gradients/carry_attrs.h"
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

bool IsFloating(DataType dt) { return dt == DT_FLOAT || dt == DT_DOUBLE; }

// [height, width] of a [batch, height, width, channels] value, as int32 (a constant when static).
GValue HeightWidth(GradScope& o, GValue x) {
  PartialShape s = o.shape(x);
  if (s.known_rank() && s.rank() == 4 && s.dim(1) >= 0 && s.dim(2) >= 0) return o.Ints({s.dim(1), s.dim(2)});
  return o.Op1("Slice", {o.ShapeOf(x), o.Ints({1}), o.Ints({2})});
}

// ResizeBilinear / ResizeBicubic: the gradient op reads the original image for its shape and
// type; integer images get no gradient (TensorFlow's rule).
template <const char* kGradOp>
Status InterpolationGrad(GradContext& g) {
  GradScope& o = g.ops();
  if (IsFloating(o.dtype(g.input(0)))) g.set_grad(0, o.Op1(kGradOp, {g.grad(0), g.input(0)}, CarryAttrs(g, kGradOp)));
  return Status::OK();
}
constexpr char kResizeBilinearGrad[] = "ResizeBilinearGrad";
constexpr char kResizeBicubicGrad[] = "ResizeBicubicGrad";

Status ResizeNearestNeighborGradFn(GradContext& g) {
  GradScope& o = g.ops();
  g.set_grad(0,
             o.Op1("ResizeNearestNeighborGrad", {g.grad(0), HeightWidth(o, g.input(0))},
                   CarryAttrs(g, "ResizeNearestNeighborGrad")));
  return Status::OK();
}

// TensorFlow's ScaleAndTranslateGrad has a float32 kernel only: float64 images take their
// gradient through a float32 copy.
Status ScaleAndTranslateGradFn(GradContext& g) {
  GradScope& o = g.ops();
  const DataType dt = o.dtype(g.input(0));
  if (!IsFloating(dt)) return Status::OK();
  GValue grad = o.Op1("ScaleAndTranslateGrad", {g.grad(0), o.Cast(g.input(0), DT_FLOAT), g.input(2), g.input(3)},
                      CarryAttrs(g, "ScaleAndTranslateGrad"));
  g.set_grad(0, o.Cast(grad, dt));
  return Status::OK();
}

// TensorFlow defines no gradient for ResizeArea; an explicit error rather than None.
Status ResizeAreaGrad(GradContext& g) {
  return Unimplemented(
      "the gradient of ResizeArea is not implemented (TensorFlow defines none either); "
      "resize with method 'bilinear' or antialias=True to differentiate");
}

// ResizeBilinearGrad(grads, original_image) is linear in grads: its gradient resizes back to the
// shape of grads. ResizeBicubicGrad alike.
template <const char* kForwardOp>
Status InterpolationGradGrad(GradContext& g) {
  GradScope& o = g.ops();
  if (g.needs_grad(0))
    g.set_grad(0,
               o.Op1(kForwardOp, {o.Cast(g.grad(0), DT_FLOAT), HeightWidth(o, g.input(0))}, CarryAttrs(g, kForwardOp)));
  return Status::OK();
}
constexpr char kResizeBilinear[] = "ResizeBilinear";
constexpr char kResizeBicubic[] = "ResizeBicubic";

Status ResizeNearestNeighborGradGrad(GradContext& g) {
  GradScope& o = g.ops();
  if (g.needs_grad(0))
    g.set_grad(0,
               o.Op1("ResizeNearestNeighbor", {g.grad(0), HeightWidth(o, g.input(0))},
                     CarryAttrs(g, "ResizeNearestNeighbor")));
  return Status::OK();
}

Status ScaleAndTranslateGradGrad(GradContext& g) {
  GradScope& o = g.ops();
  if (g.needs_grad(0))
    g.set_grad(0,
               o.Op1("ScaleAndTranslate", {g.grad(0), HeightWidth(o, g.input(0)), g.input(2), g.input(3)},
                     CarryAttrs(g, "ScaleAndTranslate")));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("ResizeBilinear", InterpolationGrad<kResizeBilinearGrad>);
TX_REGISTER_GRADIENT("ResizeBicubic", InterpolationGrad<kResizeBicubicGrad>);
TX_REGISTER_GRADIENT("ResizeNearestNeighbor", ResizeNearestNeighborGradFn);
TX_REGISTER_GRADIENT("ScaleAndTranslate", ScaleAndTranslateGradFn);
TX_REGISTER_GRADIENT("ResizeArea", ResizeAreaGrad);
TX_REGISTER_GRADIENT("ResizeBilinearGrad", InterpolationGradGrad<kResizeBilinear>);
TX_REGISTER_GRADIENT("ResizeBicubicGrad", InterpolationGradGrad<kResizeBicubic>);
TX_REGISTER_GRADIENT("ResizeNearestNeighborGrad", ResizeNearestNeighborGradGrad);
TX_REGISTER_GRADIENT("ScaleAndTranslateGrad", ScaleAndTranslateGradGrad);

}  // namespace tx

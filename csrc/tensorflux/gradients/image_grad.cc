// Gradients of the image ops beside resizing: CropAndResize (through its gradient ops),
// RGBToHSV and AdjustContrastv2 (composites of element-wise ops), ExtractImagePatches (a
// scatter-add of patch positions, as TensorFlow's), and the ops with no gradient.
#include <vector>

#include "tensorflux/gradients/array_grad_util.h"
#include "tensorflux/gradients/carry_attrs.h"
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

bool IsFloating(DataType dt) { return dt == DT_FLOAT || dt == DT_DOUBLE; }

// CropAndResize(image, boxes, box_ind, crop_size): the image gradient for floating images (as
// TensorFlow) and the boxes gradient; none for the integer inputs.
Status CropAndResizeGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue image = g.input(0), boxes = g.input(1), ind = g.input(2), dz = g.grad(0);
  const DataType dt = o.dtype(image);
  if (g.needs_grad(0) && IsFloating(dt)) {
    AttrMap attrs = CarryAttrs(g, "CropAndResizeGradImage");
    attrs["T"] = TypeAttr(dt);
    g.set_grad(0, o.Op1("CropAndResizeGradImage", {dz, boxes, ind, o.ShapeOf(image)}, attrs));
  }
  if (g.needs_grad(1)) g.set_grad(1, o.Op1("CropAndResizeGradBoxes", {dz, image, boxes, ind}));
  return Status::OK();
}

// CropAndResizeGradImage is linear in its incoming gradient: that gradient's gradient is the
// forward crop. Through the boxes it is not implemented (TensorFlow defines neither).
Status CropAndResizeGradImageGrad(GradContext& g) {
  GradScope& o = g.ops();
  if (g.needs_grad(1))
    return Unimplemented("the second derivative of CropAndResize with respect to the boxes is not implemented");
  if (!g.needs_grad(0)) return Status::OK();
  GValue grads = g.input(0);
  PartialShape s = o.shape(grads);
  GValue crop = s.known_rank() && s.dim(1) >= 0 && s.dim(2) >= 0
      ? o.Ints({s.dim(1), s.dim(2)})
      : o.Op1("Slice", {o.ShapeOf(grads), o.Ints({1}), o.Ints({2})});
  g.set_grad(0,
             o.Op1("CropAndResize", {o.Cast(g.grad(0), DT_FLOAT), g.input(1), g.input(2), crop},
                   CarryAttrs(g, "CropAndResize")));
  return Status::OK();
}

Status CropAndResizeGradBoxesGrad(GradContext& g) {
  return Unimplemented(
      "the second derivative of CropAndResize with respect to the boxes (the gradient of "
      "CropAndResizeGradBoxes) is not implemented");
}

// TensorFlow defines no gradient for AdjustHue and AdjustSaturation; an explicit error.
Status AdjustHsvGrad(GradContext& g) {
  return Unimplemented("the gradient of ", g.op_type(), " is not implemented (TensorFlow defines none either)");
}

// output = m + f * (x - m), m the mean of x over height and width: dx = f * dz + (1 - f) *
// mean(dz), df = sum(dz * (x - m)).
Status AdjustContrastv2Grad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), f = g.input(1), dz = g.grad(0);
  GValue axes = o.Ints({-3, -2});
  AttrMap keep;
  keep["keep_dims"] = BoolAttr(true);
  if (g.needs_grad(0)) {
    GValue mean_dz = o.Op1("Mean", {dz, axes}, keep);
    GValue one = o.Scalar(1.0, DT_FLOAT);
    g.set_grad(0, o.Add(o.Mul(f, dz), o.Mul(o.Sub(one, f), mean_dz)));
  }
  if (g.needs_grad(1)) g.set_grad(1, SumAll(o, o.Mul(dz, o.Sub(x, o.Op1("Mean", {x, axes}, keep)))));
  return Status::OK();
}

// The three channels of `v` (last dimension 3), each [..., 1].
std::vector<GValue> Channels(GradScope& o, GValue v) {
  std::vector<GValue> out = o.Op("Split", {{o.Int(-1)}, {v}}, {{"num_split", IntAttr(3)}});
  if (out.size() != 3) out.assign(3, GValue());
  return out;
}

// RGBToHSV: the derivative of h, s and v with respect to r, g and b, piecewise by which channel
// is the largest (ties as the kernel: red, then green, then blue) and which the smallest (ties:
// blue, then green, then red). With d = max - min: v = max; s = d / max; h = num / (6 d) + k / 3
// where num is g - b, b - r or r - g. Undefined ratios (d = 0 or max = 0) give zero.
Status RGBToHSVGrad(GradContext& g) {
  GradScope& o = g.ops();
  const DataType dt = o.dtype(g.input(0));
  std::vector<GValue> rgb = Channels(o, g.input(0)), hsv = Channels(o, g.output(0)), dz = Channels(o, g.grad(0));
  GValue r = rgb[0], gr = rgb[1], b = rgb[2], v = hsv[2];
  auto is = [&](GValue cond) { return o.Cast(cond, dt); };
  auto eq = [&](GValue a, GValue c) { return o.Op1("Equal", {a, c}); };
  auto and_not = [&](GValue a, GValue c) { return o.Op1("LogicalAnd", {a, o.Op1("LogicalNot", {c})}); };
  auto ratio = [&](GValue a, GValue c) { return o.Op1("DivNoNan", {a, c}); };
  GValue one = o.Scalar(1.0, dt);
  GValue r_max = is(eq(r, v)), g_max = is(and_not(eq(gr, v), eq(r, v)));
  GValue b_max = o.Sub(o.Sub(one, r_max), g_max);
  GValue mn = o.Op1("Minimum", {r, o.Op1("Minimum", {gr, b})});
  GValue b_min = is(eq(b, mn)), g_min = is(and_not(eq(gr, mn), eq(b, mn)));
  GValue r_min = o.Sub(o.Sub(one, b_min), g_min);
  GValue d = o.Sub(v, mn);
  GValue num = o.AddN({o.Mul(r_max, o.Sub(gr, b)), o.Mul(g_max, o.Sub(b, r)), o.Mul(b_max, o.Sub(r, gr))});
  GValue six_d2 = o.Mul(o.Scalar(6.0, dt), o.Square(d));
  const GValue is_max[3] = {r_max, g_max, b_max}, is_min[3] = {r_min, g_min, b_min};
  const GValue dnum[3] = {o.Sub(b_max, g_max), o.Sub(r_max, b_max), o.Sub(g_max, r_max)};
  std::vector<GValue> dx(3);
  for (int c = 0; c < 3; ++c) {
    GValue dh = ratio(o.Sub(o.Mul(dnum[c], d), o.Mul(num, o.Sub(is_max[c], is_min[c]))), six_d2);
    GValue ds = o.Sub(ratio(o.Mul(is_max[c], mn), o.Square(v)), ratio(is_min[c], v));
    dx[c] = o.AddN({o.Mul(dz[0], dh), o.Mul(dz[1], ds), o.Mul(dz[2], is_max[c])});
  }
  std::vector<GValue> out = o.Op("ConcatV2", {dx, {o.Int(-1)}});
  if (!out.empty()) g.set_grad(0, out[0]);
  return Status::OK();
}

// ExtractImagePatches: each input pixel's gradient is the sum of the patch entries that copied
// it. The patches of an image holding each pixel's index + 1 (0 in the padding) name the
// entries; one UnsortedSegmentSum adds them up (the padding's -1 ids are dropped).
Status ExtractImagePatchesGrad(GradContext& g) {
  GradScope& o = g.ops();
  constexpr DataType kIdx = DT_INT64;
  GValue x = g.input(0), y = g.output(0), dz = g.grad(0);
  const std::vector<int64_t>& ksizes = g.attr("ksizes").list.i;
  if (ksizes.size() != 4) return InvalidArgument("ExtractImagePatches: ksizes must have 4 entries");
  auto dim = [&](GValue v, int i) -> SInt {
    PartialShape s = o.shape(v);
    if (s.known_rank() && s.dim(i) >= 0) return SInt::Of(s.dim(i));
    return SInt::Dyn(ElementOf(o, o.ShapeOf(v, kIdx), o.Int(i, kIdx)));
  };
  auto mul = [&](SInt a, SInt b) {
    return a.is_known() && b.is_known() ? SInt::Of(a.known * b.known)
                                        : SInt::Dyn(o.Mul(a.Get(o, kIdx), b.Get(o, kIdx)));
  };
  const SInt batch = dim(x, 0), rows = dim(x, 1), cols = dim(x, 2), depth = dim(x, 3);
  const SInt out_rows = dim(y, 1), out_cols = dim(y, 2), pixels = mul(rows, cols);
  GValue ids = o.Op1("Range", {o.Int(1, kIdx), o.Add(pixels.Get(o, kIdx), o.Int(1, kIdx)), o.Int(1, kIdx)});
  ids = o.Reshape(ids, ShapeVector(o, {SInt::Of(1), rows, cols, SInt::Of(1)}, kIdx));
  GValue patch_ids = o.Op1("ExtractImagePatches", {ids}, CarryAttrs(g, "ExtractImagePatches"));
  GValue segments = o.Sub(o.Reshape(patch_ids, o.Ints({-1}, kIdx)), o.Int(1, kIdx));
  GValue dz6 =
      o.Reshape(dz, ShapeVector(o, {batch, out_rows, out_cols, SInt::Of(ksizes[1]), SInt::Of(ksizes[2]), depth}, kIdx));
  const SInt entries = mul(mul(out_rows, out_cols), SInt::Of(ksizes[1] * ksizes[2]));
  GValue flat =
      o.Reshape(o.Transpose(dz6, o.Ints({1, 2, 3, 4, 0, 5})), ShapeVector(o, {entries, mul(batch, depth)}, kIdx));
  GValue sums = o.Op1("UnsortedSegmentSum", {flat, segments, pixels.Get(o, kIdx)});
  GValue grid = o.Reshape(sums, ShapeVector(o, {rows, cols, batch, depth}, kIdx));
  g.set_grad(0, o.Transpose(grid, o.Ints({2, 0, 1, 3})));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("CropAndResize", CropAndResizeGrad);
TX_REGISTER_GRADIENT("CropAndResizeGradImage", CropAndResizeGradImageGrad);
TX_REGISTER_GRADIENT("CropAndResizeGradBoxes", CropAndResizeGradBoxesGrad);
TX_REGISTER_GRADIENT("AdjustContrastv2", AdjustContrastv2Grad);
TX_REGISTER_GRADIENT("AdjustHue", AdjustHsvGrad);
TX_REGISTER_GRADIENT("AdjustSaturation", AdjustHsvGrad);
TX_REGISTER_GRADIENT("RGBToHSV", RGBToHSVGrad);
TX_REGISTER_GRADIENT("ExtractImagePatches", ExtractImagePatchesGrad);
// Indices and drawings: TensorFlow declares these not differentiable (or defines no gradient);
// HSVToRGB too.
TX_REGISTER_NO_GRADIENT("NonMaxSuppressionV3");
TX_REGISTER_NO_GRADIENT("NonMaxSuppressionV4");
TX_REGISTER_NO_GRADIENT("NonMaxSuppressionV5");
TX_REGISTER_NO_GRADIENT("NonMaxSuppressionWithOverlaps");
TX_REGISTER_NO_GRADIENT("CombinedNonMaxSuppression");
TX_REGISTER_NO_GRADIENT("SampleDistortedBoundingBoxV2");
TX_REGISTER_NO_GRADIENT("StatelessSampleDistortedBoundingBox");
TX_REGISTER_NO_GRADIENT("HSVToRGB");
TX_REGISTER_NO_GRADIENT("DrawBoundingBoxes");
TX_REGISTER_NO_GRADIENT("DrawBoundingBoxesV2");

}  // namespace tx

// Gradients of array transforms: reshapes, transposes, concatenation and splitting, slicing,
// padding, tiling, packing, reversal and the identity-like ops. Shape arithmetic folds into
// constants when shapes and the shape-like inputs (perm, axis, paddings, ...) are static.
#include <string>

#include "tensorflux/gradients/array_grad_util.h"
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

// Reshape, ExpandDims, Squeeze: the gradient is dz reshaped back to the input's shape.
Status ReshapeGrad(GradContext& g) {
  g.set_grad(0, g.ops().ReshapeLike(g.grad(0), g.input(0)));
  return Status::OK();
}

// Transpose(x, perm): dx = Transpose(dz, inverse(perm)); the inverse is a constant when perm is.
Status TransposeGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue perm = g.input(1);
  std::vector<int64_t> p;
  GValue inverse;
  if (ConstInts(o, perm, &p)) {
    std::vector<int64_t> inv(p.size());
    for (size_t i = 0; i < p.size(); ++i) inv[p[i]] = static_cast<int64_t>(i);
    inverse = o.Ints(inv, o.dtype(perm));
  } else {
    inverse = o.Op1("InvertPermutation", {perm});
  }
  g.set_grad(0, o.Transpose(g.grad(0), inverse));
  return Status::OK();
}

// ConcatV2(values..., axis): each input gets its piece of dz. With a constant axis and static
// sizes along it, one SplitV with constant sizes; otherwise ConcatOffset + Slice per input.
Status ConcatV2Grad(GradContext& g) {
  GradScope& o = g.ops();
  const int n = g.num_inputs() - 1;
  GValue axis = g.input(n), dz = g.grad(0);
  std::vector<int64_t> a;
  int rank = o.Rank(dz);
  for (int i = 0; i < n && rank < 0; ++i) rank = o.Rank(g.input(i));
  if (ConstInts(o, axis, &a) && a.size() == 1 && rank > 0) {
    const int64_t ax = a[0] < 0 ? a[0] + rank : a[0];
    std::vector<int64_t> sizes;
    for (int i = 0; i < n; ++i) {
      const PartialShape s = o.shape(g.input(i));
      if (ax < 0 || s.rank() <= ax || s.dim(static_cast<int>(ax)) < 0) break;
      sizes.push_back(s.dim(static_cast<int>(ax)));
    }
    if (static_cast<int>(sizes.size()) == n) {
      std::vector<GValue> pieces = o.Op("SplitV", {{dz}, {o.Ints(sizes)}, {o.Int(ax)}}, {{"num_split", IntAttr(n)}});
      for (int i = 0; i < n && i < static_cast<int>(pieces.size()); ++i)
        if (g.needs_grad(i)) g.set_grad(i, pieces[i]);
      return Status::OK();
    }
  }
  GValue dim = o.Op1("FloorMod", {o.Cast(axis, DT_INT32), o.Op1("Rank", {dz})});
  std::vector<GValue> shapes;
  for (int i = 0; i < n; ++i) shapes.push_back(o.ShapeOf(g.input(i)));
  std::vector<GValue> offsets = o.Op("ConcatOffset", {{dim}, shapes});
  for (int i = 0; i < n && i < static_cast<int>(offsets.size()); ++i)
    if (g.needs_grad(i)) g.set_grad(i, o.Op1("Slice", {dz, offsets[i], shapes[i]}));
  return Status::OK();
}

// Concatenates the gradients of every output along `axis` (Split, SplitV, Unpack's inverse).
GValue ConcatGrads(GradContext& g, GValue axis) {
  std::vector<GValue> grads;
  for (int i = 0; i < g.num_outputs(); ++i) grads.push_back(g.grad(i));
  if (grads.size() == 1) return grads[0];
  std::vector<GValue> out = g.ops().Op("ConcatV2", {grads, {axis}});
  return out.empty() ? GValue() : out[0];
}

// Split(split_dim, value): dvalue = concat of the output gradients.
Status SplitGrad(GradContext& g) {
  g.set_grad(1, ConcatGrads(g, g.input(0)));
  return Status::OK();
}

// SplitV(value, size_splits, split_dim).
Status SplitVGrad(GradContext& g) {
  g.set_grad(0, ConcatGrads(g, g.input(2)));
  return Status::OK();
}

// Slice(input, begin, size): dz padded back with `begin` before and the rest after.
Status SliceGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), begin = g.input(1), dz = g.grad(0);
  const DataType dt = o.dtype(begin);
  const PartialShape sx = o.shape(x), sz = o.shape(g.output(0));
  std::vector<int64_t> b;
  GValue paddings;
  if (ConstInts(o, begin, &b) && sx.fully_defined() && sz.fully_defined() && sz.rank() == sx.rank()) {
    std::vector<int64_t> values;
    for (int i = 0; i < sx.rank(); ++i) {
      values.push_back(b[i]);
      values.push_back(sx.dim(i) - b[i] - sz.dim(i));
    }
    paddings = IntTensor(o, {sx.rank(), 2}, values, dt);
  } else {
    GValue column = o.Ints({-1, 1});
    GValue after = o.Sub(o.Sub(o.ShapeOf(x, dt), begin), o.ShapeOf(g.output(0), dt));
    std::vector<GValue> out = o.Op("ConcatV2", {{o.Reshape(begin, column), o.Reshape(after, column)}, {o.Int(1)}});
    if (out.empty()) return Status::OK();
    paddings = out[0];
  }
  g.set_grad(0, o.Op1("Pad", {dz, paddings}));
  return Status::OK();
}

// The interior of a padded gradient: dz sliced at paddings[:, 0] with the input's shape.
GValue Unpad(GradScope& o, GValue dz, GValue x, GValue paddings) {
  std::vector<int64_t> p;
  const PartialShape sx = o.shape(x);
  if (ConstInts(o, paddings, &p) && sx.fully_defined()) {
    std::vector<int64_t> begin;
    for (int i = 0; i < sx.rank(); ++i) begin.push_back(p[2 * i]);
    return o.Op1("Slice", {dz, o.Ints(begin, DT_INT64), o.Ints(sx.dims(), DT_INT64)});
  }
  GValue begin = o.Reshape(o.Op1("Slice", {paddings, o.Ints({0, 0}), o.Ints({-1, 1})}), o.Ints({-1}));
  return o.Op1("Slice", {dz, begin, o.ShapeOf(x, o.dtype(paddings))});
}

// Pad(input, paddings) and PadV2(input, paddings, constant_values): the input gets the interior
// of dz; the padding value gets the sum of dz outside it.
Status PadGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dz = g.grad(0);
  GValue dx = Unpad(o, dz, g.input(0), g.input(1));
  g.set_grad(0, dx);
  if (g.num_inputs() > 2 && g.needs_grad(2)) g.set_grad(2, o.Sub(SumAll(o, dz), SumAll(o, dx)));
  return Status::OK();
}

// MirrorPad: the mirrored border is folded back onto the interior by MirrorPadGrad.
Status MirrorPadGradFn(GradContext& g) {
  g.set_grad(0, g.ops().Op1("MirrorPadGrad", {g.grad(0), g.input(1)}, {{"mode", StringAttr(g.attr_string("mode"))}}));
  return Status::OK();
}

// Tile(input, multiples): dz viewed as [m0, d0, m1, d1, ...] summed over the multiples' axes.
Status TileGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), multiples = g.input(1), dz = g.grad(0);
  const PartialShape sx = o.shape(x);
  std::vector<int64_t> m;
  if (ConstInts(o, multiples, &m) && sx.fully_defined()) {
    std::vector<int64_t> split, axes;
    for (int i = 0; i < sx.rank(); ++i) {
      axes.push_back(2 * i);
      split.push_back(m[i]);
      split.push_back(sx.dim(i));
    }
    GValue summed = axes.empty() ? dz : o.Sum(o.Reshape(dz, o.Ints(split, DT_INT64)), axes);
    g.set_grad(0, o.ReshapeLike(summed, x));
    return Status::OK();
  }
  GValue shape = o.ShapeOf(x, o.dtype(multiples));
  std::vector<GValue> pairs = o.Op("Pack", {{multiples, shape}}, {{"axis", IntAttr(1)}});
  if (pairs.empty()) return Status::OK();
  GValue split = o.Reshape(pairs[0], o.Ints({-1}));
  GValue axes = o.Op1("Range", {o.Int(0), o.SizeOf(split), o.Int(2)});
  g.set_grad(0, o.Reshape(o.Sum(o.Reshape(dz, split), axes), shape));
  return Status::OK();
}

// Pack(values, axis): each input gets its slice of dz (Unpack along the same axis).
Status PackGrad(GradContext& g) {
  const int n = g.num_inputs();
  std::vector<GValue> pieces =
      g.ops().Op("Unpack", {{g.grad(0)}}, {{"num", IntAttr(n)}, {"axis", IntAttr(g.attr_int("axis"))}});
  for (int i = 0; i < n && i < static_cast<int>(pieces.size()); ++i)
    if (g.needs_grad(i)) g.set_grad(i, pieces[i]);
  return Status::OK();
}

// Unpack(value, num, axis): the output gradients packed back along the axis.
Status UnpackGrad(GradContext& g) {
  std::vector<GValue> grads;
  for (int i = 0; i < g.num_outputs(); ++i) grads.push_back(g.grad(i));
  std::vector<GValue> out = g.ops().Op("Pack", {grads}, {{"axis", IntAttr(g.attr_int("axis"))}});
  if (!out.empty()) g.set_grad(0, out[0]);
  return Status::OK();
}

// BroadcastTo(input, shape): dz summed over the broadcast dimensions.
Status BroadcastToGrad(GradContext& g) {
  g.set_grad(0, g.ops().SumToShapeOf(g.grad(0), g.input(0)));
  return Status::OK();
}

// ReverseV2(tensor, axis): the gradient is reversed along the same axes.
Status ReverseV2Grad(GradContext& g) {
  g.set_grad(0, g.ops().Op1("ReverseV2", {g.grad(0), g.input(1)}));
  return Status::OK();
}

// IdentityN: each input gets its output's gradient.
Status IdentityNGrad(GradContext& g) {
  for (int i = 0; i < g.num_inputs(); ++i)
    if (g.needs_grad(i)) g.set_grad(i, g.grad(i));
  return Status::OK();
}

// CheckNumerics: the gradient passes through a CheckNumerics of its own.
Status CheckNumericsGrad(GradContext& g) {
  const std::string message =
      "Not a number (NaN) or infinity (Inf) values detected in gradient. " + g.attr_string("message");
  g.set_grad(0, g.ops().Op1("CheckNumerics", {g.grad(0)}, {{"message", StringAttr(message)}}));
  return Status::OK();
}

// Fill(dims, value): every output element is `value`, so it gets the sum of dz.
Status FillGrad(GradContext& g) {
  if (g.needs_grad(1)) g.set_grad(1, SumAll(g.ops(), g.grad(0)));
  return Status::OK();
}

// MirrorPadGrad(dz, paddings) is linear in dz: its gradient mirror-pads the incoming gradient.
Status MirrorPadGradGrad(GradContext& g) {
  g.set_grad(0, g.ops().Op1("MirrorPad", {g.grad(0), g.input(1)}, {{"mode", StringAttr(g.attr_string("mode"))}}));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("MirrorPadGrad", MirrorPadGradGrad);
TX_REGISTER_GRADIENT("Reshape", ReshapeGrad);
TX_REGISTER_NO_GRADIENT("Bitcast");  // as in TensorFlow
TX_REGISTER_GRADIENT("ExpandDims", ReshapeGrad);
TX_REGISTER_GRADIENT("Squeeze", ReshapeGrad);
TX_REGISTER_GRADIENT("Transpose", TransposeGrad);
TX_REGISTER_GRADIENT("ConcatV2", ConcatV2Grad);
TX_REGISTER_GRADIENT("Split", SplitGrad);
TX_REGISTER_GRADIENT("SplitV", SplitVGrad);
TX_REGISTER_GRADIENT("Slice", SliceGrad);
TX_REGISTER_GRADIENT("Pad", PadGrad);
TX_REGISTER_GRADIENT("PadV2", PadGrad);
TX_REGISTER_GRADIENT("MirrorPad", MirrorPadGradFn);
TX_REGISTER_GRADIENT("Tile", TileGrad);
TX_REGISTER_GRADIENT("Pack", PackGrad);
TX_REGISTER_GRADIENT("Unpack", UnpackGrad);
TX_REGISTER_GRADIENT("BroadcastTo", BroadcastToGrad);
TX_REGISTER_GRADIENT("ReverseV2", ReverseV2Grad);
TX_REGISTER_GRADIENT("IdentityN", IdentityNGrad);
TX_REGISTER_GRADIENT("CheckNumerics", CheckNumericsGrad);
TX_REGISTER_GRADIENT("Fill", FillGrad);

}  // namespace tx

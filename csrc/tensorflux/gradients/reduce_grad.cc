// Gradients of reductions (the output gradient is broadcast back over the reduced axes), of
// Cumsum/Cumprod and of UnsortedSegmentSum.
#include "tensorflux/gradients/array_grad_util.h"
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

// dz of a reduction of x over `axes`, broadcast back to x's shape.
GValue BroadcastToInput(GradScope& o, GValue x, GValue axes, GValue dz) {
  GValue shaped = dz;
  const PartialShape sx = o.shape(x), sz = o.shape(dz);
  if (!(sz.fully_defined() && sx.fully_defined() && sz.num_elements() == sx.num_elements() && sz.rank() == sx.rank()))
    shaped = o.Reshape(dz, o.ReducedShape(x, axes));
  if (sx.fully_defined() && o.shape(shaped) == sx) return shaped;
  return o.Op1("BroadcastTo", {shaped, o.ShapeOf(x)});
}

Status SumGrad(GradContext& g) {
  g.set_grad(0, BroadcastToInput(g.ops(), g.input(0), g.input(1), g.grad(0)));
  return Status::OK();
}

// Mean = Sum / n with n = size(x) / size(z).
Status MeanGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), dz = g.grad(0);
  GValue sum_grad = BroadcastToInput(o, x, g.input(1), dz);
  const PartialShape sx = o.shape(x), sz = o.shape(g.output(0));
  GValue n;
  if (sx.fully_defined() && sz.fully_defined()) {
    const int64_t out = sz.num_elements();
    n = o.Scalar(static_cast<double>(sx.num_elements()) / static_cast<double>(out > 0 ? out : 1), o.dtype(x));
  } else {
    GValue out = o.Op1("Maximum", {o.SizeOf(g.output(0)), o.Int(1)});
    n = o.Cast(o.Op1("FloorDiv", {o.SizeOf(x), out}), o.dtype(x));
  }
  g.set_grad(0, o.Div(sum_grad, n));
  return Status::OK();
}

// Max and Min: dz is split evenly among the elements equal to the extremum (TensorFlow's rule).
Status ReduceExtremumGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), axes = g.input(1), y = g.output(0), dz = g.grad(0);
  if (!g.attr_bool("keep_dims")) {
    GValue kept = o.ReducedShape(x, axes);
    y = o.Reshape(y, kept);
    dz = o.Reshape(dz, kept);
  }
  GValue hits = o.Cast(o.Op1("Equal", {y, x}), o.dtype(x));
  GValue count = o.Sum(hits, axes, /*keep_dims=*/true);
  g.set_grad(0, o.Mul(o.Div(hits, count), dz));
  return Status::OK();
}

// How Prod's gradient lays x out: `perm` moves the reduced axes first, `inverse` undoes it, and
// `matrix` is the [reduced count, other count] shape of the transposed x.
struct ProdLayout {
  GValue perm, inverse, matrix;
  bool identity = false;
};

// The layout from a static rank and constant axes; false when either is unknown.
bool StaticProdLayout(GradScope& o, GValue x, GValue axes, ProdLayout* l) {
  const PartialShape sx = o.shape(x);
  std::vector<int64_t> a;
  if (!sx.known_rank() || !ConstInts(o, axes, &a)) return false;
  const int rank = sx.rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : a) {
    const int64_t k = axis < 0 ? axis + rank : axis;
    if (k < 0 || k >= rank) {
      o.Fail(InvalidArgument("Prod gradient: reduction axis ", axis, " is out of range for rank ", rank));
      return true;
    }
    reduced[k] = true;
  }
  std::vector<int64_t> perm, inverse(rank), dims[2] = {{}, {}};
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < rank; ++i)
      if (reduced[i] == (pass == 0)) {
        inverse[i] = static_cast<int64_t>(perm.size());
        perm.push_back(i);
        dims[pass].push_back(i);
      }
  l->identity = true;
  for (int i = 0; i < rank; ++i) l->identity = l->identity && perm[i] == i;
  l->perm = o.Ints(perm);
  l->inverse = o.Ints(inverse);
  GValue count[2];
  if (sx.fully_defined()) {
    int64_t n[2] = {1, 1};
    for (int pass = 0; pass < 2; ++pass)
      for (int64_t i : dims[pass]) n[pass] *= sx.dim(static_cast<int>(i));
    l->matrix = o.Ints({n[0], n[1]});
    return true;
  }
  GValue shape = o.ShapeOf(x);
  for (int pass = 0; pass < 2; ++pass)
    count[pass] = o.Op1("Prod", {o.Op1("GatherV2", {shape, o.Ints(dims[pass]), o.Int(0)}), o.Int(0)});
  std::vector<GValue> m = o.Op("Pack", {{count[0], count[1]}}, {{"axis", IntAttr(0)}});
  if (!m.empty()) l->matrix = m[0];
  return true;
}

// The layout computed by the graph (unknown rank or axes): the reduced axes are marked in a
// mask and listed with Where.
ProdLayout DynamicProdLayout(GradScope& o, GValue x, GValue axes) {
  ProdLayout l;
  GValue rank = o.Op1("Rank", {x}), shape = o.ShapeOf(x);
  GValue pos = o.Op1("FloorMod", {o.Reshape(o.Cast(axes, DT_INT32), o.Ints({-1})), rank});
  GValue mask = o.Op1("Greater", {o.Op1("UnsortedSegmentSum", {o.OnesLike(pos), pos, rank}), o.Int(0)});
  GValue lists[2] = {mask, o.Op1("LogicalNot", {mask})}, count[2];
  for (int pass = 0; pass < 2; ++pass) {
    lists[pass] = o.Cast(o.Reshape(o.Op1("Where", {lists[pass]}), o.Ints({-1})), DT_INT32);
    count[pass] = o.Op1("Prod", {o.Op1("GatherV2", {shape, lists[pass], o.Int(0)}), o.Int(0)});
  }
  std::vector<GValue> perm = o.Op("ConcatV2", {{lists[0], lists[1]}, {o.Int(0)}});
  std::vector<GValue> m = o.Op("Pack", {{count[0], count[1]}}, {{"axis", IntAttr(0)}});
  if (perm.empty() || m.empty()) return l;
  l.perm = perm[0];
  l.inverse = o.Op1("InvertPermutation", {l.perm});
  l.matrix = m[0];
  return l;
}

// Prod: d/dx_i of a product is the product of the other factors, computed without division as
// exclusive cumulative products from both ends (so zeros are handled), TensorFlow's method.
Status ProdGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), axes = g.input(1);
  GValue grad = BroadcastToInput(o, x, axes, g.grad(0));
  ProdLayout l;
  if (!StaticProdLayout(o, x, axes, &l)) l = DynamicProdLayout(o, x, axes);
  if (!o.ok()) return Status::OK();
  GValue permuted = l.identity ? x : o.Transpose(x, l.perm);
  GValue rows = o.Reshape(permuted, l.matrix);
  AttrMap before = {{"exclusive", BoolAttr(true)}, {"reverse", BoolAttr(false)}};
  AttrMap after = {{"exclusive", BoolAttr(true)}, {"reverse", BoolAttr(true)}};
  // For complex x the gradient is in the conjugate direction (TensorFlow's _ProdGrad).
  GValue others = o.Conj(o.Mul(o.Op1("Cumprod", {rows, o.Int(0)}, before), o.Op1("Cumprod", {rows, o.Int(0)}, after)));
  others = o.Reshape(others, o.ShapeOf(permuted));
  g.set_grad(0, o.Mul(grad, l.identity ? others : o.Transpose(others, l.inverse)));
  return Status::OK();
}

// Cumsum: the gradient is the cumulative sum of dz in the other direction.
Status CumsumGrad(GradContext& g) {
  g.set_grad(
      0,
      g.ops().Op1("Cumsum", {g.grad(0), g.input(1)},
                  {{"exclusive", BoolAttr(g.attr_bool("exclusive"))}, {"reverse", BoolAttr(!g.attr_bool("reverse"))}}));
  return Status::OK();
}

// Cumprod (TensorFlow's formula): dx = Cumsum(Cumprod(x) * dz in the other direction) / x;
// like TensorFlow's, it is undefined where x is zero.
Status CumprodGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), axis = g.input(1);
  const bool exclusive = g.attr_bool("exclusive"), reverse = g.attr_bool("reverse");
  GValue prod = o.Op1("Cumprod", {x, axis}, {{"exclusive", BoolAttr(exclusive)}, {"reverse", BoolAttr(reverse)}});
  GValue out = o.Op1("Cumsum", {o.Mul(prod, g.grad(0)), axis},
                     {{"exclusive", BoolAttr(exclusive)}, {"reverse", BoolAttr(!reverse)}});
  g.set_grad(0, o.Div(out, x));
  return Status::OK();
}

// UnsortedSegmentSum(data, segment_ids, num_segments): each data row gets the gradient of its
// segment; rows with a negative id were dropped and get zeros.
Status UnsortedSegmentSumGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dz = g.grad(0), ids = o.Cast(g.input(1), DT_INT64);  // int16 ids have no compare kernels
  GValue zero = o.Int(0, DT_INT64);
  GValue kept = o.Op1("GreaterEqual", {ids, zero});
  GValue rows = o.Op1("GatherV2", {dz, o.Op1("Maximum", {ids, zero}), o.Int(0)});
  // The mask shaped ids.shape + [1] * (rank(dz) - 1), so it broadcasts over each row.
  GValue mask_shape;
  const PartialShape si = o.shape(ids);
  const int rz = o.Rank(dz);
  if (si.fully_defined() && rz >= 1) {
    std::vector<int64_t> dims = si.dims();
    dims.resize(dims.size() + rz - 1, 1);
    mask_shape = o.Ints(dims);
  } else {
    GValue ones = o.Op1("Fill", {o.Reshape(o.Sub(o.Op1("Rank", {dz}), o.Int(1)), o.Ints({1})), o.Int(1)});
    std::vector<GValue> c = o.Op("ConcatV2", {{o.ShapeOf(ids), ones}, {o.Int(0)}});
    if (c.empty()) return Status::OK();
    mask_shape = c[0];
  }
  g.set_grad(0, o.Select(o.Reshape(kept, mask_shape), rows, o.ZerosLike(rows)));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("Cumprod", CumprodGrad);
TX_REGISTER_GRADIENT("UnsortedSegmentSum", UnsortedSegmentSumGrad);
TX_REGISTER_GRADIENT("Sum", SumGrad);
TX_REGISTER_GRADIENT("Mean", MeanGrad);
TX_REGISTER_GRADIENT("Max", ReduceExtremumGrad);
TX_REGISTER_GRADIENT("Min", ReduceExtremumGrad);
TX_REGISTER_GRADIENT("Prod", ProdGrad);
TX_REGISTER_GRADIENT("Cumsum", CumsumGrad);

}  // namespace tx

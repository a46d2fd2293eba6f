// Gradients of indexing ops: StridedSlice (and StridedSliceGrad), Gather/GatherV2, GatherNd,
// ScatterNd, TensorScatterAdd and TopKV2.
//
// Note [Dense gather gradients]
// Tensorflux has no IndexedSlices, so the gradient of a gather is a dense tensor of the params'
// shape. It is built with one scatter-add kernel: UnsortedSegmentSum for Gather/GatherV2 (dz
// viewed as [batch, outer, indices, inner] rows summed into [batch * N, outer, inner] segments)
// and ScatterNd for GatherNd. That is O(size of dz) work plus one zero-filled params-shaped
// buffer, not a one-hot matmul (O(size of dz * N)) and not a per-index loop of ops.
#include "tensorflux/gradients/array_grad_util.h"
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

constexpr DataType kIdx = DT_INT64;  // the type of dynamic size arithmetic here

SInt SMul(GradScope& o, SInt a, SInt b) {
  if (a.is_known() && b.is_known()) return SInt::Of(a.known * b.known);
  return SInt::Dyn(o.Mul(a.Get(o, kIdx), b.Get(o, kIdx)));
}

SInt SAdd(GradScope& o, SInt a, int64_t k) {
  if (a.is_known()) return SInt::Of(a.known + k);
  return SInt::Dyn(o.Add(a.value, o.Int(k, kIdx)));
}

// Sizes read from the shape of one value: folded when static, else from one (cached) Shape op.
class Dims {
 public:
  Dims(GradScope& o, GValue x) : o_(o), x_(x), s_(o.shape(x)) {}

  // The product of dims [begin, end) (to the last dim when `to_end`).
  SInt Prod(SInt begin, SInt end, bool to_end = false) {
    if (begin.is_known() && (to_end ? s_.known_rank() : end.is_known())) {
      const int64_t stop = to_end ? s_.rank() : end.known;
      int64_t p = 1;
      bool known = begin.known <= stop && stop <= s_.rank();
      for (int64_t i = begin.known; known && i < stop; ++i) {
        if (s_.dim(static_cast<int>(i)) < 0)
          known = false;
        else
          p *= s_.dim(static_cast<int>(i));
      }
      if (known) return SInt::Of(p);
    }
    GValue b = begin.Get(o_, kIdx);
    GValue size = to_end ? o_.Int(-1, kIdx) : o_.Sub(end.Get(o_, kIdx), b);
    GValue one = o_.Ints({1});
    GValue part = o_.Op1("Slice", {shape(), o_.Reshape(b, one), o_.Reshape(size, one)});
    return SInt::Dyn(o_.Op1("Prod", {part, o_.Int(0)}));
  }
  // Dim `i`.
  SInt At(SInt i) {
    if (i.is_known() && s_.known_rank() && i.known < s_.rank() && s_.dim(static_cast<int>(i.known)) >= 0)
      return SInt::Of(s_.dim(static_cast<int>(i.known)));
    return SInt::Dyn(ElementOf(o_, shape(), i.Get(o_, kIdx)));
  }

 private:
  GValue shape() {
    if (!shape_.valid()) shape_ = o_.ShapeOf(x_, kIdx);
    return shape_;
  }
  GradScope& o_;
  GValue x_;
  PartialShape s_;
  GValue shape_;
};

}  // namespace

// d params of GatherV2(params, indices, axis, batch_dims) given dz (Note [Dense gather
// gradients]). params is viewed as [B, O, N, I] (batch dims, dims before the axis, the axis,
// dims after it) and dz as [B, O, Ni, I] with Ni the gathered index count per batch.
GValue GatherParamsGrad(GradScope& o, GValue params, GValue indices, GValue axis, int64_t batch_dims, GValue dz) {
  const int rp = o.Rank(params), ri = o.Rank(indices);
  if (batch_dims < 0) {
    if (ri < 0) {
      o.Fail(Unimplemented("the gradient of GatherV2 with negative batch_dims needs indices of known rank"));
      return GValue();
    }
    batch_dims += ri;
  }
  std::vector<int64_t> av;
  SInt a;
  if (ConstInts(o, axis, &av) && av.size() == 1 && (av[0] >= 0 || rp >= 0)) {
    a = SInt::Of(av[0] < 0 ? av[0] + rp : av[0]);
  } else {
    a = SInt::Dyn(o.Op1("FloorMod", {o.Cast(axis, kIdx), o.Cast(o.Op1("Rank", {params}), kIdx)}));
  }
  const SInt b = SInt::Of(batch_dims);
  Dims p(o, params), q(o, indices);
  const SInt batch = p.Prod(SInt::Of(0), b), outer = p.Prod(b, a), n = p.At(a);
  const SInt inner = p.Prod(SAdd(o, a, 1), SInt(), true), count = q.Prod(b, SInt(), true);
  const bool plain = outer.is_known() && outer.known == 1;
  GValue data = plain
      ? o.Reshape(dz, ShapeVector(o, {batch, count, inner}, kIdx))
      : o.Transpose(o.Reshape(dz, ShapeVector(o, {batch, outer, count, inner}, kIdx)), o.Ints({0, 2, 1, 3}));
  GValue ids;
  if (batch_dims == 0) {
    ids = o.Reshape(indices, ShapeVector(o, {SInt::Of(1), count}, kIdx));
  } else {
    GValue offsets;
    if (batch.is_known() && n.is_known()) {
      std::vector<int64_t> values(batch.known);
      for (int64_t i = 0; i < batch.known; ++i) values[i] = i * n.known;
      offsets = IntTensor(o, {batch.known, 1}, values, kIdx);
    } else {
      GValue rows = o.Op1("Range", {o.Int(0, kIdx), batch.Get(o, kIdx), o.Int(1, kIdx)});
      offsets = o.Reshape(o.Mul(rows, n.Get(o, kIdx)), o.Ints({-1, 1}));
    }
    ids = o.Add(o.Reshape(o.Cast(indices, kIdx), ShapeVector(o, {batch, count}, kIdx)), offsets);
  }
  GValue seg = o.Op1("UnsortedSegmentSum", {data, ids, SMul(o, batch, n).Get(o, kIdx)});
  if (!plain) seg = o.Transpose(o.Reshape(seg, ShapeVector(o, {batch, n, outer, inner}, kIdx)), o.Ints({0, 2, 1, 3}));
  return o.ReshapeLike(seg, params);
}

namespace {

// Gather(params, indices): GatherV2 along axis 0.
Status GatherGrad(GradContext& g) {
  GradScope& o = g.ops();
  g.set_grad(0, GatherParamsGrad(o, g.input(0), g.input(1), o.Int(0), 0, g.grad(0)));
  return Status::OK();
}

Status GatherV2Grad(GradContext& g) {
  g.set_grad(0, GatherParamsGrad(g.ops(), g.input(0), g.input(1), g.input(2), g.attr_int("batch_dims"), g.grad(0)));
  return Status::OK();
}

// GatherNd(params, indices): dz scattered (added) into a zero params-shaped tensor.
Status GatherNdGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue indices = g.input(1);
  g.set_grad(0,
             o.Op1("ScatterNd", {indices, g.grad(0), o.ShapeOf(g.input(0), o.dtype(indices))},
                   {{"bad_indices_policy", StringAttr(g.attr_string("bad_indices_policy"))}}));
  return Status::OK();
}

// ScatterNd(indices, updates, shape): each update gets the gradient at its target.
Status ScatterNdGrad(GradContext& g) {
  if (g.needs_grad(1))
    g.set_grad(1,
               g.ops().Op1("GatherNd", {g.grad(0), g.input(0)},
                           {{"bad_indices_policy", StringAttr(g.attr_string("bad_indices_policy"))}}));
  return Status::OK();
}

// StridedSlice: StridedSliceGrad writes dz into zeros of the input's shape.
Status StridedSliceGradFn(GradContext& g) {
  GradScope& o = g.ops();
  GValue begin = g.input(1);
  AttrMap attrs;
  for (const char* mask : {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"})
    attrs[mask] = IntAttr(g.attr_int(mask));
  g.set_grad(0,
             o.Op1("StridedSliceGrad",
                   {o.ShapeOf(g.input(0), o.dtype(begin)), begin, g.input(2), g.input(3), g.grad(0)}, attrs));
  return Status::OK();
}

// TopKV2(input, k): the value gradients go to the positions their indices name in each row.
Status TopKV2Grad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x = g.input(0), indices = g.output(1), dz = g.grad(0);
  const PartialShape sx = o.shape(x);
  Dims in(o, x), out(o, indices);
  const SInt last =
      sx.known_rank() ? SInt::Of(sx.rank() - 1) : SInt::Dyn(o.Sub(o.Cast(o.Op1("Rank", {x}), kIdx), o.Int(1, kIdx)));
  const SInt n = in.At(last), k = out.Prod(last, SInt(), true);
  const SInt total = in.Prod(SInt::Of(0), SInt(), true);
  GValue offsets;  // [rows, 1]: the flat position of each row's first element
  if (n.is_known() && total.is_known()) {
    const int64_t step = n.known > 0 ? n.known : 1, rows = total.known / step;
    std::vector<int64_t> values(rows);
    for (int64_t r = 0; r < rows; ++r) values[r] = r * step;
    offsets = IntTensor(o, {rows, 1}, values, kIdx);
  } else {
    GValue step = o.Op1("Maximum", {n.Get(o, kIdx), o.Int(1, kIdx)});
    offsets = o.Reshape(o.Op1("Range", {o.Int(0, kIdx), total.Get(o, kIdx), step}), o.Ints({-1, 1}));
  }
  GValue rows_by_k;
  if (k.is_known() && k.known > 0) {
    rows_by_k = o.Ints({-1, k.known}, kIdx);
  } else {  // -1 cannot be inferred for empty rows
    std::vector<GValue> shape = o.Op("Pack", {{o.Reshape(o.SizeOf(offsets, kIdx), o.Ints({})), k.Get(o, kIdx)}});
    if (shape.empty()) return Status::OK();
    rows_by_k = shape[0];
  }
  GValue flat = o.Add(o.Reshape(o.Cast(indices, kIdx), rows_by_k), offsets);
  GValue scattered = o.Op1(
      "ScatterNd", {o.Reshape(flat, o.Ints({-1, 1})), o.Reshape(dz, o.Ints({-1})), ShapeVector(o, {total}, kIdx)});
  g.set_grad(0, o.ReshapeLike(scattered, x));
  return Status::OK();
}

// StridedSliceGrad(shape, begin, end, strides, dy) is linear in dy: its gradient is the slice.
Status StridedSliceGradGrad(GradContext& g) {
  AttrMap attrs;
  for (const char* mask : {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"})
    attrs[mask] = IntAttr(g.attr_int(mask));
  g.set_grad(4, g.ops().Op1("StridedSlice", {g.grad(0), g.input(1), g.input(2), g.input(3)}, attrs));
  return Status::OK();
}

// TensorScatterAdd(tensor, indices, updates): tensor gets dz; each update its target's gradient.
Status TensorScatterAddGrad(GradContext& g) {
  GValue dz = g.grad(0);
  g.set_grad(0, dz);
  if (g.needs_grad(2)) g.set_grad(2, g.ops().Op1("GatherNd", {dz, g.input(1)}));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("StridedSliceGrad", StridedSliceGradGrad);
TX_REGISTER_GRADIENT("TensorScatterAdd", TensorScatterAddGrad);
TX_REGISTER_NO_GRADIENT("BroadcastGradientArgs");
TX_REGISTER_NO_GRADIENT("ConcatOffset");
TX_REGISTER_NO_GRADIENT("InvertPermutation");
TX_REGISTER_GRADIENT("Gather", GatherGrad);
TX_REGISTER_GRADIENT("GatherV2", GatherV2Grad);
TX_REGISTER_GRADIENT("GatherNd", GatherNdGrad);
TX_REGISTER_GRADIENT("ScatterNd", ScatterNdGrad);
TX_REGISTER_GRADIENT("StridedSlice", StridedSliceGradFn);
TX_REGISTER_GRADIENT("TopKV2", TopKV2Grad);

}  // namespace tx

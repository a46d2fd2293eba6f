// Gradients of the sorted segment reductions and the sparse segment reductions (TensorFlow's
// formulas): each data row gets its segment's output gradient, gathered by segment id, times
// d output / d row. Indices and segment ids get none.
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

// Rows of x picked by the segment ids: x[ids[i]].
GValue GatherBySegment(GradContext& g, GValue x) { return g.ops().Op1("GatherV2", {x, g.input(1), g.ops().Int(0)}); }

Status SegmentSumGrad(GradContext& g) {
  g.set_grad(0, GatherBySegment(g, g.grad(0)));
  return Status::OK();
}

// Each row gets its segment's gradient divided by the segment's row count.
Status SegmentMeanGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue counts = o.Op1("SegmentSum", {o.OnesLike(g.input(0)), g.input(1)});
  g.set_grad(0, GatherBySegment(g, o.Div(g.grad(0), counts)));
  return Status::OK();
}

// The rows equal to their segment's max (min) share its gradient equally; the others get 0.
Status SegmentMinOrMaxGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue data = g.input(0);
  const DataType t = o.dtype(data);
  GValue selected = o.Op1("Equal", {data, GatherBySegment(g, g.output(0))});
  GValue num_selected = o.Op1("SegmentSum", {o.Cast(selected, t), g.input(1)});
  GValue shared = GatherBySegment(g, o.Div(g.grad(0), num_selected));
  g.set_grad(0, o.Select(selected, shared, o.ZerosLike(data)));
  return Status::OK();
}

// d prod / d x_i = prod of the segment's other rows: prod / x_i where x_i != 0; where x_i is the
// segment's only zero, the product of its non-zero rows; 0 when the segment has two zeros or more.
Status SegmentProdGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue data = g.input(0), ids = g.input(1);
  const DataType t = o.dtype(data);
  GValue is_zero = o.Op1("Equal", {data, o.Scalar(0.0, t)});
  GValue num_zeros = o.Op1("SegmentSum", {o.Cast(is_zero, t), ids});
  GValue grad = o.Select(o.Op1("Greater", {num_zeros, o.Scalar(1.0, t)}), o.ZerosLike(g.grad(0)), g.grad(0));
  GValue non_zero_data = o.Select(is_zero, o.OnesLike(data), data);
  GValue non_zero_prod = o.Op1("SegmentProd", {non_zero_data, ids});
  GValue by_element = o.Div(GatherBySegment(g, g.output(0)), non_zero_data);
  GValue partial = o.Select(is_zero, GatherBySegment(g, non_zero_prod), by_element);
  g.set_grad(0, o.Mul(GatherBySegment(g, grad), partial));
  return Status::OK();
}

// SparseSegment{Sum,Mean,SqrtN}(data, indices, segment_ids): row indices[k] of data gets the
// gradient of output row segment_ids[k] (divided by the segment's count, or its square root),
// summed over k by UnsortedSegmentSum into data's rows.
template <int kScale>  // 0: sum, 1: mean, 2: sqrt_n
Status SparseSegmentGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue data = g.input(0), indices = g.input(1), ids = g.input(2);
  GValue dz = g.grad(0);
  if (kScale != 0) {
    // Per-element counts in the output's shape: SparseSegmentSum of ones.
    GValue counts = o.Op1("SparseSegmentSum", {o.OnesLike(data), indices, ids});
    dz = o.Div(dz, kScale == 1 ? counts : o.Op1("Sqrt", {counts}));
  }
  GValue rows = o.Op1("GatherV2", {dz, ids, o.Int(0)});
  GValue n = o.Op1("GatherV2", {o.ShapeOf(data), o.Int(0), o.Int(0)});
  g.set_grad(0, o.Op1("UnsortedSegmentSum", {rows, indices, n}));
  return Status::OK();
}

// Note [Unsorted segment gradients]
// Rows with a negative segment id were dropped by the forward op: they gather row 0 (ids clipped
// at 0) and are then masked to zero by `kept`, shaped ids.shape + [1, ...] so that SelectV2
// broadcasts it over the row (TensorFlow's _GatherDropNegatives).
struct Gathered {
  GValue rows;  // x[max(ids, 0)]
  GValue kept;  // ids >= 0, broadcastable against rows
};
Gathered GatherDropNegatives(GradContext& g, GValue x) {
  GradScope& o = g.ops();
  GValue ids = g.input(1);
  const DataType it = o.dtype(ids);
  GValue rows = o.Op1("GatherV2", {x, o.Op1("Maximum", {ids, o.Scalar(0.0, it)}), o.Int(0)});
  GValue extra = o.Sub(o.Op1("Rank", {rows}), o.Op1("Rank", {ids}));
  GValue ones = o.Op1("Fill", {o.ExpandDims(extra, 0), o.Int(1)});
  GValue shape = o.Op("ConcatV2", {{o.ShapeOf(ids), ones}, {o.Int(0)}})[0];
  GValue kept = o.Reshape(o.Op1("GreaterEqual", {ids, o.Scalar(0.0, it)}), shape);
  return {o.Select(kept, rows, o.ZerosLike(rows)), kept};
}

// UnsortedSegmentMax / Min: the rows equal to their segment's result share its gradient equally.
Status UnsortedSegmentMinOrMaxGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue data = g.input(0);
  const DataType t = o.dtype(data);
  Gathered out = GatherDropNegatives(g, g.output(0));
  GValue selected = o.Op1("LogicalAnd", {o.Op1("Equal", {data, out.rows}), out.kept});
  GValue num_selected = o.Op1("UnsortedSegmentSum", {o.Cast(selected, t), g.input(1), g.input(2)});
  Gathered shared = GatherDropNegatives(g, o.Div(g.grad(0), num_selected));
  g.set_grad(0, o.Select(selected, shared.rows, o.ZerosLike(shared.rows)));
  return Status::OK();
}

// UnsortedSegmentProd: as SegmentProd's gradient (zeros handled apart), with dropped rows.
Status UnsortedSegmentProdGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue data = g.input(0), ids = g.input(1), n = g.input(2);
  const DataType t = o.dtype(data);
  GValue is_zero = o.Op1("Equal", {data, o.Scalar(0.0, t)});
  GValue num_zeros = o.Op1("UnsortedSegmentSum", {o.Cast(is_zero, t), ids, n});
  GValue grad = o.Select(o.Op1("Greater", {num_zeros, o.Scalar(1.0, t)}), o.ZerosLike(g.grad(0)), g.grad(0));
  GValue non_zero_data = o.Select(is_zero, o.OnesLike(data), data);
  GValue non_zero_prod = o.Op1("UnsortedSegmentProd", {non_zero_data, ids, n});
  GValue by_element = o.Div(GatherDropNegatives(g, g.output(0)).rows, non_zero_data);
  GValue partial = o.Select(is_zero, GatherDropNegatives(g, non_zero_prod).rows, by_element);
  g.set_grad(0, o.Mul(GatherDropNegatives(g, grad).rows, partial));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("UnsortedSegmentMax", UnsortedSegmentMinOrMaxGrad);
TX_REGISTER_GRADIENT("UnsortedSegmentMin", UnsortedSegmentMinOrMaxGrad);
TX_REGISTER_GRADIENT("UnsortedSegmentProd", UnsortedSegmentProdGrad);
TX_REGISTER_GRADIENT("SparseSegmentSum", SparseSegmentGrad<0>);
TX_REGISTER_GRADIENT("SparseSegmentMean", SparseSegmentGrad<1>);
TX_REGISTER_GRADIENT("SparseSegmentSqrtN", SparseSegmentGrad<2>);
TX_REGISTER_GRADIENT("SegmentSum", SegmentSumGrad);
TX_REGISTER_GRADIENT("SegmentMean", SegmentMeanGrad);
TX_REGISTER_GRADIENT("SegmentMax", SegmentMinOrMaxGrad);
TX_REGISTER_GRADIENT("SegmentMin", SegmentMinOrMaxGrad);
TX_REGISTER_GRADIENT("SegmentProd", SegmentProdGrad);

}  // namespace tx

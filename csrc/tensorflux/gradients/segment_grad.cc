// Gradients of the sorted segment reductions (TensorFlow's formulas): each data row gets its
// segment's output gradient, gathered by segment id, times d output / d row. segment_ids get none.
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

}  // namespace

TX_REGISTER_GRADIENT("SegmentSum", SegmentSumGrad);
TX_REGISTER_GRADIENT("SegmentMean", SegmentMeanGrad);
TX_REGISTER_GRADIENT("SegmentMax", SegmentMinOrMaxGrad);
TX_REGISTER_GRADIENT("SegmentMin", SegmentMinOrMaxGrad);
TX_REGISTER_GRADIENT("SegmentProd", SegmentProdGrad);

}  // namespace tx

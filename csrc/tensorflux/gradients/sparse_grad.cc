// Gradients of the sparse ops (TensorFlow's formulas, sparse_grad.py): only the values of a
// SparseTensor (and dense operands) get gradients; indices and shapes get none. Where TensorFlow
// defines no gradient, the gradient is an explicit Unimplemented error naming the op.
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

constexpr DataType kIdx = DT_INT64;

// SparseReorder permutes the values: the gradient applies the inverse permutation, found by
// reordering the entry numbers 0..nnz-1.
Status SparseReorderGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue nnz = o.Op1("GatherV2", {o.ShapeOf(g.input(0), kIdx), o.Int(0), o.Int(0)});
  GValue ids = o.Op1("Range", {o.Int(0, kIdx), nnz, o.Int(1, kIdx)});
  GValue perm = o.Op("SparseReorder", {{g.input(0)}, {ids}, {g.input(2)}})[1];
  g.set_grad(1, o.Op1("GatherV2", {g.grad(1), o.Op1("InvertPermutation", {perm}), o.Int(0)}));
  return Status::OK();
}

// SparseToDense: each value gets the gradient at its index (summed when sparse_values is a
// broadcast scalar); the default gets the rest of the gradient.
Status SparseToDenseGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue indices = g.input(0);
  if (o.Rank(indices) != 2) indices = o.Reshape(indices, o.Ints({-1, 1}));  // scalar or vector: 1-D output
  GValue grad = g.grad(0);
  GValue at = o.Op1("GatherNd", {grad, indices});
  g.set_grad(2, o.SumToShapeOf(at, g.input(2)));
  const PartialShape all = o.shape(grad);
  std::vector<int64_t> axes;
  if (all.known_rank()) {
    for (int d = 0; d < all.rank(); ++d) axes.push_back(d);
    g.set_grad(3, o.Sub(o.Sum(grad, axes), o.Sum(at, std::vector<int64_t>{0})));
  } else {
    GValue every = o.Op1("Range", {o.Int(0), o.Op1("Rank", {grad}), o.Int(1)});
    g.set_grad(3, o.Sub(o.Sum(grad, every), o.Sum(at, std::vector<int64_t>{0})));
  }
  return Status::OK();
}

Status SparseAddGradFn(GradContext& g) {
  GradScope& o = g.ops();
  std::vector<GValue> d = o.Op("SparseAddGrad", {{g.grad(1)}, {g.input(0)}, {g.input(3)}, {g.output(0)}});
  if (d.size() == 2) {
    g.set_grad(1, d[0]);
    g.set_grad(4, d[1]);
  }
  return Status::OK();
}

Status SparseSliceGradFn(GradContext& g) {
  g.set_grad(1, g.ops().Op1("SparseSliceGrad", {g.grad(1), g.input(0), g.input(3), g.output(0)}));
  return Status::OK();
}

Status SparseFillEmptyRowsGradFn(GradContext& g) {
  std::vector<GValue> d = g.ops().Op("SparseFillEmptyRowsGrad", {{g.output(3)}, {g.grad(1)}});
  if (d.size() == 2) {
    g.set_grad(1, d[0]);
    g.set_grad(3, d[1]);
  }
  return Status::OK();
}

Status SparseTensorDenseAddGrad(GradContext& g) {
  g.set_grad(1, g.ops().Op1("GatherNd", {g.grad(0), g.input(0)}));
  g.set_grad(3, g.grad(0));
  return Status::OK();
}

// out = op(A) @ op(B): dB = op(A)^T @ grad (transposed back for adjoint_b); the value of A at
// (r, c) gets the dot product of the matching rows of grad and op(B)^T (real dtypes).
Status SparseTensorDenseMatMulGrad(GradContext& g) {
  GradScope& o = g.ops();
  const bool adj_a = g.attr_bool("adjoint_a"), adj_b = g.attr_bool("adjoint_b");
  GValue ind = g.input(0), vals = g.input(1), shape = g.input(2), b = g.input(3), grad = g.grad(0);
  GValue db = o.Op1("SparseTensorDenseMatMul", {ind, vals, shape, grad},
                    {{"adjoint_a", BoolAttr(!adj_a)}, {"adjoint_b", BoolAttr(false)}});
  g.set_grad(3, adj_b ? o.Transpose(db, o.Ints({1, 0})) : db);
  GValue rows = o.Op1("GatherV2", {ind, o.Int(0), o.Int(1)});
  GValue cols = o.Op1("GatherV2", {ind, o.Int(1), o.Int(1)});
  GValue parts_a = o.Op1("GatherV2", {grad, adj_a ? cols : rows, o.Int(0)});
  GValue op_b = adj_b ? o.Transpose(b, o.Ints({1, 0})) : b;
  GValue parts_b = o.Op1("GatherV2", {op_b, adj_a ? rows : cols, o.Int(0)});
  g.set_grad(1, o.Sum(o.Mul(parts_a, parts_b), std::vector<int64_t>{1}));
  return Status::OK();
}

// The reduced gradient (reshaped to keep_dims form) read at each entry's kept coordinates: an
// int64 mask over the dimensions (0 where reduced) zeroes the reduced coordinates.
Status SparseReduceSumGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue ind = g.input(0), shape = g.input(2);
  GValue axes = o.Op1("FloorMod", {o.Reshape(g.input(3), o.Ints({-1})), o.SizeOf(shape)});
  GValue hot = o.Op1("OneHot", {axes, o.SizeOf(shape), o.Int(1, kIdx), o.Int(0, kIdx)});
  GValue reduced = o.Op1("Minimum", {o.Sum(hot, std::vector<int64_t>{0}), o.Int(1, kIdx)});
  GValue mask = o.Sub(o.Int(1, kIdx), reduced);
  GValue kept_shape = o.Add(o.Mul(shape, mask), reduced);
  GValue grad = o.Reshape(g.grad(0), kept_shape);
  g.set_grad(1, o.Op1("GatherNd", {grad, o.Mul(ind, mask)}));
  return Status::OK();
}

// SparseDenseCwise{Mul,Div,Add}(x, y): the entries' coordinates in y (broadcast dims read 0,
// leading dims dropped) address y; dy sums the per-entry gradients there (ScatterNd adds
// duplicates).
template <int kOp>  // 0 mul, 1 div, 2 add
Status SparseDenseCwiseGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue x_ind = g.input(0), x_vals = g.input(1), x_shape = g.input(2), y = g.input(3), grad = g.grad(0);
  GValue y_shape = o.ShapeOf(y, kIdx);
  GValue added = o.Sub(o.SizeOf(x_shape), o.SizeOf(y_shape));
  GValue ones = o.Op1("Fill", {o.ExpandDims(added, 0), o.Int(1, kIdx)});
  GValue aug = o.Op("ConcatV2", {{ones, y_shape}, {o.Int(0)}})[0];
  GValue one = o.Int(1, kIdx);
  GValue scaling = o.Op1("Maximum", {o.Op1("FloorDiv", {x_shape, o.Op1("Maximum", {aug, one})}), one});
  GValue scaled = o.Op1("FloorDiv", {x_ind, scaling});
  GValue begin = o.Op("ConcatV2", {{o.Ints({0}), o.ExpandDims(added, 0)}, {o.Int(0)}})[0];
  scaled = o.Op1("Slice", {scaled, begin, o.Ints({-1, -1})});
  GValue dense_vals = kOp == 2 ? GValue() : o.Op1("GatherNd", {y, scaled});
  GValue dx, dy_vals;
  if (kOp == 0) {
    dx = o.Mul(grad, dense_vals);
    dy_vals = o.Mul(grad, x_vals);
  } else if (kOp == 1) {
    dx = o.Div(grad, dense_vals);
    dy_vals = o.Mul(grad, o.Div(o.Neg(x_vals), o.Square(dense_vals)));
  } else {
    dx = grad;
    dy_vals = grad;
  }
  g.set_grad(1, dx);
  g.set_grad(3, o.Op1("ScatterNd", {scaled, dy_vals, y_shape}));
  return Status::OK();
}

// As SoftmaxGrad over each row's stored values: (grad - sum_row(grad * out)) * out.
Status SparseSoftmaxGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue ind = g.input(0), shape = g.input(2), out = g.output(0), grad = g.grad(0);
  GValue row_sums =
      o.Op1("SparseReduceSum", {ind, o.Mul(out, grad), shape, o.Ints({-1})}, {{"keep_dims", BoolAttr(true)}});
  GValue shifted = o.Op1("SparseDenseCwiseAdd", {ind, grad, shape, o.Neg(row_sums)});
  g.set_grad(1, o.Mul(shifted, out));
  return Status::OK();
}

// Ops for which TensorFlow defines no gradient: an explicit error rather than None.
template <const char* kOp>
Status NotImplementedGrad(GradContext&) {
  return Unimplemented("the gradient of ", kOp, " is not implemented (TensorFlow defines none either)");
}
constexpr char kSparseSparseMaximum[] = "SparseSparseMaximum";
constexpr char kSparseSparseMinimum[] = "SparseSparseMinimum";
constexpr char kSparseReduceMax[] = "SparseReduceMax";
constexpr char kSparseReduceMaxSparse[] = "SparseReduceMaxSparse";
constexpr char kSparseReduceSumSparse[] = "SparseReduceSumSparse";
constexpr char kSparseSplit[] = "SparseSplit";
constexpr char kSparseSliceGrad[] = "SparseSliceGrad";
constexpr char kSparseFillEmptyRowsGrad[] = "SparseFillEmptyRowsGrad";

}  // namespace

TX_REGISTER_GRADIENT("SparseReorder", SparseReorderGrad);
TX_REGISTER_GRADIENT("SparseToDense", SparseToDenseGrad);
TX_REGISTER_GRADIENT("SparseAdd", SparseAddGradFn);
TX_REGISTER_GRADIENT("SparseSlice", SparseSliceGradFn);
TX_REGISTER_GRADIENT("SparseFillEmptyRows", SparseFillEmptyRowsGradFn);
TX_REGISTER_GRADIENT("SparseTensorDenseAdd", SparseTensorDenseAddGrad);
TX_REGISTER_GRADIENT("SparseTensorDenseMatMul", SparseTensorDenseMatMulGrad);
TX_REGISTER_GRADIENT("SparseReduceSum", SparseReduceSumGrad);
TX_REGISTER_GRADIENT("SparseDenseCwiseMul", SparseDenseCwiseGrad<0>);
TX_REGISTER_GRADIENT("SparseDenseCwiseDiv", SparseDenseCwiseGrad<1>);
TX_REGISTER_GRADIENT("SparseDenseCwiseAdd", SparseDenseCwiseGrad<2>);
TX_REGISTER_GRADIENT("SparseSoftmax", SparseSoftmaxGrad);
TX_REGISTER_GRADIENT("SparseSparseMaximum", NotImplementedGrad<kSparseSparseMaximum>);
TX_REGISTER_GRADIENT("SparseSparseMinimum", NotImplementedGrad<kSparseSparseMinimum>);
TX_REGISTER_GRADIENT("SparseReduceMax", NotImplementedGrad<kSparseReduceMax>);
TX_REGISTER_GRADIENT("SparseReduceMaxSparse", NotImplementedGrad<kSparseReduceMaxSparse>);
TX_REGISTER_GRADIENT("SparseReduceSumSparse", NotImplementedGrad<kSparseReduceSumSparse>);
TX_REGISTER_GRADIENT("SparseSplit", NotImplementedGrad<kSparseSplit>);
TX_REGISTER_GRADIENT("SparseSliceGrad", NotImplementedGrad<kSparseSliceGrad>);
TX_REGISTER_GRADIENT("SparseFillEmptyRowsGrad", NotImplementedGrad<kSparseFillEmptyRowsGrad>);
// Not differentiable in TensorFlow (NotDifferentiable): no gradient flows.
TX_REGISTER_NO_GRADIENT("SparseConcat");
TX_REGISTER_NO_GRADIENT("SparseAddGrad");
TX_REGISTER_NO_GRADIENT("SparseReshape");

}  // namespace tx

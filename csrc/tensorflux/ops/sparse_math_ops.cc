// Sparse arithmetic ops (signatures identical to TensorFlow's): SparseTensorDenseMatMul,
// SparseAdd(+Grad), SparseReduceSum/Max (dense and sparse results), SparseSoftmax,
// SparseDenseCwiseMul/Div/Add and SparseSparseMaximum/Minimum (Note [SparseTensor components]).
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/array_util.h"
#include "tensorflux/ops/sparse_util.h"

namespace tx {
namespace {

using sparse_util::IndicesShape;
using sparse_util::ReadSparseDims;
using sparse_util::SparseDims;

// (a_indices, a_values, a_shape [2], b [k, n]) -> [m, n] (with the adjoints applied).
Status SparseTensorDenseMatMulShape(InferenceContext* c) {
  SparseDims d;
  TX_RETURN_IF_ERROR(ReadSparseDims(c, 0, 1, 2, "a", &d));
  if (d.rank >= 0 && d.rank != 2) return InvalidArgument("Tensor 'a_shape' must have 2 elements, got ", d.rank);
  PartialShape b;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(3), 2, "Input 'b'", &b));
  bool adj_a = false, adj_b = false;
  TX_RETURN_IF_ERROR(c->GetAttr("adjoint_a", &adj_a));
  TX_RETURN_IF_ERROR(c->GetAttr("adjoint_b", &adj_b));
  std::vector<int64_t> a_dims;
  if (!sparse_util::ConstantVector(c, 2, &a_dims) || a_dims.size() != 2) a_dims = {-1, -1};
  if (adj_a) std::swap(a_dims[0], a_dims[1]);
  int64_t b_inner = -1, n = -1;
  if (b.known_rank()) {
    b_inner = adj_b ? b.dim(1) : b.dim(0);
    n = adj_b ? b.dim(0) : b.dim(1);
  }
  if (a_dims[1] >= 0 && b_inner >= 0 && a_dims[1] != b_inner)
    return InvalidArgument("Cannot multiply A and B because inner dimension does not match: ", a_dims[1], " vs. ",
                           b_inner, ".  Did you forget a transpose?");
  c->set_output(0, PartialShape({a_dims[0], n}));
  return Status::OK();
}

// Two SparseTensors of one rank -> a SparseTensor [?, rank], [?] (and [rank] for SparseAdd).
Status SparseBinaryShape(InferenceContext* c) {
  SparseDims a, b;
  TX_RETURN_IF_ERROR(ReadSparseDims(c, 0, 1, 2, "a", &a));
  TX_RETURN_IF_ERROR(ReadSparseDims(c, 3, 4, 5, "b", &b));
  if (a.rank >= 0 && b.rank >= 0 && a.rank != b.rank)
    return InvalidArgument("Operands do not have the same ranks; got shapes: ", a.rank, " and ", b.rank);
  const int64_t rank = a.rank >= 0 ? a.rank : b.rank;
  c->set_output(0, IndicesShape(-1, rank));
  c->set_output(1, PartialShape({-1}));
  if (c->num_outputs() > 2) c->set_output(2, PartialShape({rank}));
  return Status::OK();
}

Status SparseAddShape(InferenceContext* c) {
  PartialShape thresh;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(6), 0, "Input 'thresh'", &thresh));
  return SparseBinaryShape(c);
}

// (backprop_val_grad, a_indices, b_indices, sum_indices) -> [a nnz], [b nnz].
Status SparseAddGradShape(InferenceContext* c) {
  PartialShape grad, a, b, sum;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "Input 'backprop_val_grad'", &grad));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, "Input 'a_indices'", &a));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 2, "Input 'b_indices'", &b));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(3), 2, "Input 'sum_indices'", &sum));
  c->set_output(0, PartialShape({a.known_rank() ? a.dim(0) : -1}));
  c->set_output(1, PartialShape({b.known_rank() ? b.dim(0) : -1}));
  return Status::OK();
}

// The dense result's shape when the input shape and the axes are constants (else unknown rank,
// or the input's rank with keep_dims); the same reading as the kernel (sparse_reduce.cc).
Status SparseReduceShape(InferenceContext* c) {
  SparseDims d;
  TX_RETURN_IF_ERROR(ReadSparseDims(c, 0, 1, 2, "input", &d));
  PartialShape axes_shape;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(3), 0, "Input 'reduction_axes'", &axes_shape));
  if (axes_shape.rank() > 1) return InvalidArgument("reduction_axes must be a scalar or vector");
  bool keep_dims = false;
  TX_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));
  std::vector<int64_t> shape, axes;
  const Tensor* axes_t = c->input_tensor(3);
  if (!sparse_util::ConstantVector(c, 2, &shape) || axes_t == nullptr ||
      !array_util::ReadInts(*axes_t, "reduction_axes", &axes).ok()) {
    c->set_output(
        0, keep_dims && d.rank >= 0 ? PartialShape::UnknownDims(static_cast<int>(d.rank)) : PartialShape::Unknown());
    return Status::OK();
  }
  const int rank = static_cast<int>(shape.size());
  std::set<int> reduced;
  for (int64_t a : axes) {
    int axis = 0;
    if (a < -rank || a >= rank)
      return InvalidArgument("Invalid reduction dimension ", a, ", for input with ", rank, " dimensions.");
    TX_RETURN_IF_ERROR(array_util::CanonicalAxis(a, rank, "reduction_axes", &axis));
    reduced.insert(axis);
  }
  std::vector<int64_t> out;
  for (int i = 0; i < rank; ++i) {
    if (!reduced.count(i))
      out.push_back(shape[i]);
    else if (keep_dims)
      out.push_back(1);
  }
  c->set_output(0, PartialShape(out));
  return Status::OK();
}

// The sparse result's rank depends on the axes' values: [?, ?], [?], [?].
Status SparseReduceSparseShape(InferenceContext* c) {
  SparseDims d;
  TX_RETURN_IF_ERROR(ReadSparseDims(c, 0, 1, 2, "input", &d));
  c->set_output(0, PartialShape({-1, -1}));
  c->set_output(1, PartialShape({-1}));
  c->set_output(2, PartialShape({-1}));
  return Status::OK();
}

// (sp_indices, sp_values, sp_shape, ...) -> [nnz], the values' shape.
Status SparseValuesShape(InferenceContext* c) {
  SparseDims d;
  TX_RETURN_IF_ERROR(ReadSparseDims(c, 0, 1, 2, "sp", &d));
  c->set_output(0, PartialShape({d.nnz}));
  return Status::OK();
}

Status SparseSoftmaxShape(InferenceContext* c) {
  SparseDims d;
  TX_RETURN_IF_ERROR(ReadSparseDims(c, 0, 1, 2, "sp", &d));
  if (d.rank >= 0 && d.rank < 2) return InvalidArgument("Input should have rank >= 2, but received rank ", d.rank);
  c->set_output(0, PartialShape({d.nnz}));
  return Status::OK();
}

// The dense operand broadcasts to the sparse operand's shape only (never the other way).
Status SparseDenseCwiseShape(InferenceContext* c) {
  SparseDims d;
  TX_RETURN_IF_ERROR(ReadSparseDims(c, 0, 1, 2, "sp", &d));
  const PartialShape& dense = c->input(3);
  if (dense.known_rank() && d.rank >= 0 && dense.rank() > d.rank)
    return InvalidArgument("SparseDenseBinaryOpShared broadcasts dense to sparse only; the dense operand's shape ",
                           dense.ToString(), " has more dimensions than the sparse operand's ", d.rank);
  c->set_output(0, PartialShape({d.nnz}));
  return Status::OK();
}

OpDefBuilder SparseReduce(const char* name, bool sparse_output, const char* types, const char* summary) {
  OpDefBuilder b(name);
  b.Input("input_indices: int64").Input("input_values: T").Input("input_shape: int64").Input("reduction_axes: int32");
  if (sparse_output) {
    b.Output("output_indices: int64").Output("output_values: T").Output("output_shape: int64");
  } else {
    b.Output("output: T");
  }
  return b.Attr("keep_dims: bool = false")
      .Attr(std::string("T: ") + types)
      .SetShapeFn(sparse_output ? SparseReduceSparseShape : SparseReduceShape)
      .Summary(summary);
}

OpDefBuilder SparseDenseCwise(const char* name, const char* summary) {
  return OpDefBuilder(name)
      .Input("sp_indices: int64")
      .Input("sp_values: T")
      .Input("sp_shape: int64")
      .Input("dense: T")
      .Output("output: T")
      .Attr("T: numbertype")
      .SetShapeFn(SparseDenseCwiseShape)
      .Summary(summary);
}

OpDefBuilder SparseSparseMinOrMax(const char* name, const char* types, const char* summary) {
  return OpDefBuilder(name)
      .Input("a_indices: int64")
      .Input("a_values: T")
      .Input("a_shape: int64")
      .Input("b_indices: int64")
      .Input("b_values: T")
      .Input("b_shape: int64")
      .Output("output_indices: int64")
      .Output("output_values: T")
      .Attr(std::string("T: ") + types)
      .SetShapeFn(SparseBinaryShape)
      .Summary(summary);
}

}  // namespace

TX_REGISTER_OP("SparseTensorDenseMatMul")
    .Input("a_indices: Tindices")
    .Input("a_values: T")
    .Input("a_shape: int64")
    .Input("b: T")
    .Output("product: T")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64} = DT_INT64")
    .Attr("adjoint_a: bool = false")
    .Attr("adjoint_b: bool = false")
    .SetShapeFn(SparseTensorDenseMatMulShape)
    .Summary("The product of a 2-D SparseTensor and a dense matrix (either adjointed), as a dense matrix.");

TX_REGISTER_OP("SparseAdd")
    .Input("a_indices: int64")
    .Input("a_values: T")
    .Input("a_shape: int64")
    .Input("b_indices: int64")
    .Input("b_values: T")
    .Input("b_shape: int64")
    .Input("thresh: Treal")
    .Output("sum_indices: int64")
    .Output("sum_values: T")
    .Output("sum_shape: int64")
    .Attr("T: numbertype")
    .Attr("Treal: realnumbertype")
    .SetShapeFn(SparseAddShape)
    .Summary("The sum of two SparseTensors; sums with |value| < thresh are dropped.");

TX_REGISTER_OP("SparseAddGrad")
    .Input("backprop_val_grad: T")
    .Input("a_indices: int64")
    .Input("b_indices: int64")
    .Input("sum_indices: int64")
    .Output("a_val_grad: T")
    .Output("b_val_grad: T")
    .Attr("T: numbertype")
    .SetShapeFn(SparseAddGradShape)
    .Summary("The gradients of SparseAdd's operand values from the gradient of its sum values.");

TX_REGISTER_OP_FROM(SparseReduce("SparseReduceSum", false, "numbertype",
                                 "Sums a SparseTensor's values over reduction_axes into a dense tensor."));
TX_REGISTER_OP_FROM(SparseReduce("SparseReduceSumSparse", true, "numbertype",
                                 "Sums a SparseTensor's values over reduction_axes into a SparseTensor."));
TX_REGISTER_OP_FROM(SparseReduce("SparseReduceMax", false, "realnumbertype",
                                 "The max of a SparseTensor's stored values over reduction_axes, as a dense tensor "
                                 "(0 where nothing is stored)."));
TX_REGISTER_OP_FROM(SparseReduce("SparseReduceMaxSparse", true, "realnumbertype",
                                 "The max of a SparseTensor's stored values over reduction_axes, as a SparseTensor."));

TX_REGISTER_OP("SparseSoftmax")
    .Input("sp_indices: int64")
    .Input("sp_values: T")
    .Input("sp_shape: int64")
    .Output("output: T")
    .Attr("T: {half, float, double}")
    .SetShapeFn(SparseSoftmaxShape)
    .Summary("Softmax over the stored values of each innermost row of a SparseTensor (missing entries excluded).");

TX_REGISTER_OP_FROM(SparseDenseCwise("SparseDenseCwiseMul",
                                     "sp * dense at the sparse operand's entries (dense broadcasts to sp's shape)."));
TX_REGISTER_OP_FROM(SparseDenseCwise("SparseDenseCwiseDiv",
                                     "sp / dense at the sparse operand's entries (dense broadcasts to sp's shape)."));
TX_REGISTER_OP_FROM(SparseDenseCwise("SparseDenseCwiseAdd",
                                     "sp + dense at the sparse operand's entries (dense broadcasts to sp's shape)."));

TX_REGISTER_OP_FROM(SparseSparseMinOrMax("SparseSparseMaximum", "realnumbertype",
                                         "The element-wise max of two SparseTensors (missing entries are 0)."));
TX_REGISTER_OP_FROM(SparseSparseMinOrMax("SparseSparseMinimum", "numbertype",
                                         "The element-wise min of two SparseTensors (missing entries are 0)."));

}  // namespace tx

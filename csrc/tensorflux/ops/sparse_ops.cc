// Sparse data-movement ops (signatures identical to TensorFlow's): SparseToDense, SparseReorder,
// SparseReshape, SparseSlice(+Grad), SparseConcat, SparseSplit, SparseFillEmptyRows(+Grad) and
// SparseTensorDenseAdd. A SparseTensor is three inputs (Note [SparseTensor components]).
#include <cstdint>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/sparse_util.h"

namespace tx {
namespace {

using sparse_util::IndicesShape;
using sparse_util::ReadSparseDims;
using sparse_util::SparseDims;

// sparse_indices (rank <= 2), output_shape [rank], sparse_values (scalar or [nnz]), default scalar.
Status SparseToDenseShape(InferenceContext* c) {
  PartialShape ind, shape, vals, def;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "Input 'output_shape'", &shape));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, "Input 'default_value'", &def));
  if (c->input(0).known_rank() && c->input(0).rank() > 2)
    return InvalidArgument("sparse_indices should be a scalar, vector, or matrix, got shape ", c->input(0).ToString());
  if (c->input(2).known_rank() && c->input(2).rank() > 1)
    return InvalidArgument("sparse_values should be a scalar or a vector, got shape ", c->input(2).ToString());
  PartialShape out;
  TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(1, &out));
  c->set_output(0, out);
  return Status::OK();
}

// (input_indices, input_values, input_shape) -> the same indices and values shapes.
Status SparseReorderShape(InferenceContext* c) {
  SparseDims d;
  TX_RETURN_IF_ERROR(ReadSparseDims(c, 0, 1, 2, "input", &d));
  c->set_output(0, IndicesShape(d.nnz, d.rank));
  c->set_output(1, PartialShape({d.nnz}));
  return Status::OK();
}

// (input_indices, input_shape, new_shape) -> [nnz, new_rank], [new_rank].
Status SparseReshapeShape(InferenceContext* c) {
  PartialShape ind, in_shape, new_shape;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, "Input 'input_indices'", &ind));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "Input 'input_shape'", &in_shape));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, "Input 'new_shape'", &new_shape));
  const int64_t nnz = ind.known_rank() ? ind.dim(0) : -1;
  const int64_t rank = new_shape.known_rank() ? new_shape.dim(0) : -1;
  c->set_output(0, IndicesShape(nnz, rank));
  c->set_output(1, PartialShape({rank}));
  return Status::OK();
}

// Outputs [?, rank], [?], [rank]: a SparseTensor of unknown nnz with the input's rank.
Status SparseOutput(InferenceContext* c, int64_t rank, int first_output = 0) {
  c->set_output(first_output, IndicesShape(-1, rank));
  c->set_output(first_output + 1, PartialShape({-1}));
  c->set_output(first_output + 2, PartialShape({rank}));
  return Status::OK();
}

Status SparseSliceShape(InferenceContext* c) {
  SparseDims d;
  TX_RETURN_IF_ERROR(ReadSparseDims(c, 0, 1, 2, "input", &d));
  PartialShape start, size;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(3), 1, "Input 'start'", &start));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(4), 1, "Input 'size'", &size));
  for (const PartialShape* s : {&start, &size})
    if (s->known_rank() && s->dim(0) >= 0 && d.rank >= 0 && s->dim(0) != d.rank)
      return InvalidArgument("Expected ", s == &start ? "start" : "size", " to be a vector of length ", d.rank,
                             " but got length ", s->dim(0));
  return SparseOutput(c, d.rank);
}

// (backprop_val_grad, input_indices, input_start, output_indices) -> [input nnz].
Status SparseSliceGradShape(InferenceContext* c) {
  PartialShape grad, ind, start, out_ind;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "Input 'backprop_val_grad'", &grad));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, "Input 'input_indices'", &ind));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, "Input 'input_start'", &start));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(3), 2, "Input 'output_indices'", &out_ind));
  c->set_output(0, PartialShape({ind.known_rank() ? ind.dim(0) : -1}));
  return Status::OK();
}

// N SparseTensors of one rank -> one SparseTensor of that rank.
Status SparseConcatShape(InferenceContext* c) {
  int64_t n = 0;
  TX_RETURN_IF_ERROR(c->GetAttr("N", &n));
  int64_t rank = -1;
  for (int64_t i = 0; i < n; ++i) {
    SparseDims d;
    TX_RETURN_IF_ERROR(
        ReadSparseDims(c, static_cast<int>(i), static_cast<int>(n + i), static_cast<int>(2 * n + i), "input", &d));
    if (d.rank >= 0 && rank >= 0 && d.rank != rank)
      return InvalidArgument("Input ", i, " has rank ", d.rank, " but input 0 has rank ", rank);
    if (d.rank >= 0) rank = d.rank;
  }
  int64_t dim = 0;
  TX_RETURN_IF_ERROR(c->GetAttr("concat_dim", &dim));
  if (rank >= 0 && (dim < -rank || dim >= rank))
    return InvalidArgument("Concat dimension must be in range [", -rank, ", ", rank, "), got ", dim);
  return SparseOutput(c, rank);
}

// (split_dim, indices, values, shape) -> num_split SparseTensors of the input's rank.
Status SparseSplitShape(InferenceContext* c) {
  PartialShape dim;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, "Input 'split_dim'", &dim));
  SparseDims d;
  TX_RETURN_IF_ERROR(ReadSparseDims(c, 1, 2, 3, "input", &d));
  int64_t n = 0;
  TX_RETURN_IF_ERROR(c->GetAttr("num_split", &n));
  for (int64_t i = 0; i < n; ++i) {
    c->set_output(static_cast<int>(i), IndicesShape(-1, d.rank));
    c->set_output(static_cast<int>(n + i), PartialShape({-1}));
    c->set_output(static_cast<int>(2 * n + i), PartialShape({d.rank}));
  }
  return Status::OK();
}

Status SparseFillEmptyRowsShape(InferenceContext* c) {
  SparseDims d;
  TX_RETURN_IF_ERROR(ReadSparseDims(c, 0, 1, 2, "input", &d));
  PartialShape def;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, "Input 'default_value'", &def));
  std::vector<int64_t> shape;
  const int64_t rows = sparse_util::ConstantVector(c, 2, &shape) && !shape.empty() ? shape[0] : -1;
  c->set_output(0, IndicesShape(-1, d.rank));
  c->set_output(1, PartialShape({-1}));
  c->set_output(2, PartialShape({rows}));
  c->set_output(3, PartialShape({d.nnz}));
  return Status::OK();
}

// (reverse_index_map [nnz], grad_values [n]) -> d_values [nnz], d_default_value [].
Status SparseFillEmptyRowsGradShape(InferenceContext* c) {
  PartialShape map, grad;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "Input 'reverse_index_map'", &map));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "Input 'grad_values'", &grad));
  c->set_output(0, map);
  c->set_output(1, PartialShape::Scalar());
  return Status::OK();
}

// (a_indices, a_values, a_shape, b) -> b's shape.
Status SparseTensorDenseAddShape(InferenceContext* c) {
  SparseDims d;
  TX_RETURN_IF_ERROR(ReadSparseDims(c, 0, 1, 2, "a", &d));
  const PartialShape& b = c->input(3);
  if (b.known_rank() && d.rank >= 0 && b.rank() != d.rank)
    return InvalidArgument("Dimensions must be equal: the sparse operand has rank ", d.rank,
                           " but the dense operand has shape ", b.ToString());
  c->set_output(0, b);
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("SparseToDense")
    .Input("sparse_indices: Tindices")
    .Input("output_shape: Tindices")
    .Input("sparse_values: T")
    .Input("default_value: T")
    .Output("dense: T")
    .Attr("validate_indices: bool = true")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64}")
    .SetShapeFn(SparseToDenseShape)
    .Summary("A dense tensor of output_shape holding sparse_values at sparse_indices and default_value elsewhere.");

TX_REGISTER_OP("SparseReorder")
    .Input("input_indices: int64")
    .Input("input_values: T")
    .Input("input_shape: int64")
    .Output("output_indices: int64")
    .Output("output_values: T")
    .Attr("T: type")
    .SetShapeFn(SparseReorderShape)
    .Summary("Sorts a SparseTensor's entries into the canonical row-major order.");

TX_REGISTER_OP("SparseReshape")
    .Input("input_indices: int64")
    .Input("input_shape: int64")
    .Input("new_shape: int64")
    .Output("output_indices: int64")
    .Output("output_shape: int64")
    .SetShapeFn(SparseReshapeShape)
    .Summary("Reshapes a SparseTensor (one new_shape entry may be -1); values keep their order.");

TX_REGISTER_OP("SparseSlice")
    .Input("indices: int64")
    .Input("values: T")
    .Input("shape: int64")
    .Input("start: int64")
    .Input("size: int64")
    .Output("output_indices: int64")
    .Output("output_values: T")
    .Output("output_shape: int64")
    .Attr("T: type")
    .SetShapeFn(SparseSliceShape)
    .Summary("The entries of a SparseTensor inside the box [start, start + size), shifted by -start.");

TX_REGISTER_OP("SparseSliceGrad")
    .Input("backprop_val_grad: T")
    .Input("input_indices: int64")
    .Input("input_start: int64")
    .Input("output_indices: int64")
    .Output("val_grad: T")
    .Attr("T: numbertype")
    .SetShapeFn(SparseSliceGradShape)
    .Summary("Routes the gradient of SparseSlice's output values back to its input values (0 elsewhere).");

TX_REGISTER_OP("SparseConcat")
    .Input("indices: N * int64")
    .Input("values: N * T")
    .Input("shapes: N * int64")
    .Output("output_indices: int64")
    .Output("output_values: T")
    .Output("output_shape: int64")
    .Attr("concat_dim: int")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .SetShapeFn(SparseConcatShape)
    .Summary("Concatenates SparseTensors along concat_dim; the output is in canonical order.");

TX_REGISTER_OP("SparseSplit")
    .Input("split_dim: int64")
    .Input("indices: int64")
    .Input("values: T")
    .Input("shape: int64")
    .Output("output_indices: num_split * int64")
    .Output("output_values: num_split * T")
    .Output("output_shape: num_split * int64")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .SetShapeFn(SparseSplitShape)
    .Summary("Splits a SparseTensor into num_split parts along split_dim (the first size % num_split one larger).");

TX_REGISTER_OP("SparseFillEmptyRows")
    .Input("indices: int64")
    .Input("values: T")
    .Input("dense_shape: int64")
    .Input("default_value: T")
    .Output("output_indices: int64")
    .Output("output_values: T")
    .Output("empty_row_indicator: bool")
    .Output("reverse_index_map: int64")
    .Attr("T: type")
    .SetShapeFn(SparseFillEmptyRowsShape)
    .Summary("Adds an entry [row, 0, ...] = default_value for every row without entries.");

TX_REGISTER_OP("SparseFillEmptyRowsGrad")
    .Input("reverse_index_map: int64")
    .Input("grad_values: T")
    .Output("d_values: T")
    .Output("d_default_value: T")
    .Attr("T: type")
    .SetShapeFn(SparseFillEmptyRowsGradShape)
    .Summary("The gradient of SparseFillEmptyRows: grad_values at reverse_index_map, and the rest summed.");

TX_REGISTER_OP("SparseTensorDenseAdd")
    .Input("a_indices: Tindices")
    .Input("a_values: T")
    .Input("a_shape: Tindices")
    .Input("b: T")
    .Output("output: T")
    .Attr("T: numbertype")
    .Attr("Tindices: {int32, int64}")
    .SetShapeFn(SparseTensorDenseAddShape)
    .Summary("Adds a SparseTensor to a dense tensor of the same shape; the result is dense.");

}  // namespace tx

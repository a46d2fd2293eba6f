// Reduction ops beyond Sum/Mean: Prod, Max, Min, All, Any, ArgMax, ArgMin, and the scans Cumsum
// and Cumprod (signatures identical to TensorFlow's).
#include <cstdint>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Reads element i of a constant int32/int64 tensor.
Status ConstIndex(const Tensor& t, int64_t i, const char* what, int64_t* out) {
  if (t.dtype() == DT_INT32)
    *out = t.data<int32_t>()[i];
  else if (t.dtype() == DT_INT64)
    *out = t.data<int64_t>()[i];
  else
    return InvalidArgument(what, " must be int32 or int64, got ", DataTypeString(t.dtype()));
  return Status::OK();
}

// ArgMax/ArgMin: the input without the (scalar, possibly constant) `dimension`.
Status ArgOpShape(InferenceContext* c) {
  PartialShape dim_shape;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "Input 'dimension'", &dim_shape));
  const PartialShape& in = c->input(0);
  if (!in.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int rank = in.rank();
  if (rank == 0) return InvalidArgument("Expected an input of rank at least 1 for ArgMax/ArgMin, got a scalar");
  const Tensor* dim = c->input_tensor(1);
  if (dim == nullptr) {
    c->set_output(0, PartialShape::UnknownDims(rank - 1));
    return Status::OK();
  }
  int64_t d;
  TX_RETURN_IF_ERROR(ConstIndex(*dim, 0, "dimension", &d));
  if (d < -rank || d >= rank)
    return InvalidArgument("Expected dimension in the range [", -rank, ", ", rank, "), but got ", d);
  if (d < 0) d += rank;
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i)
    if (i != d) dims.push_back(in.dim(i));
  c->set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

// Cumsum, Cumprod: the input's shape; the axis must be a scalar inside the input's rank.
Status ScanShape(InferenceContext* c) {
  PartialShape axis_shape;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "Input 'axis'", &axis_shape));
  const PartialShape& in = c->input(0);
  const Tensor* axis = c->input_tensor(1);
  if (axis != nullptr && in.known_rank()) {
    int64_t a;
    TX_RETURN_IF_ERROR(ConstIndex(*axis, 0, "axis", &a));
    const int rank = in.rank();
    if (a < -rank || a >= rank)
      return InvalidArgument("Expected scan axis in the range [", -rank, ", ", rank, "), but got ", a);
  }
  c->set_output(0, in);
  return Status::OK();
}

}  // namespace

#define TX_MINMAX_TYPES                                                                                       \
  "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64, qint8, quint8, " \
  "qint32, qint16, quint16"

TX_REGISTER_OP("Prod")
    .Input("input: T")
    .Input("reduction_indices: Tidx")
    .Output("output: T")
    .Attr("keep_dims: bool = false")
    .Attr("T: numbertype")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_fns::ReductionShape)
    .Summary("Multiplies the elements of a tensor along the given axes (empty products are 1).");

TX_REGISTER_OP("Max")
    .Input("input: T")
    .Input("reduction_indices: Tidx")
    .Output("output: T")
    .Attr("keep_dims: bool = false")
    .Attr("T: " TX_MINMAX_TYPES "}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_fns::ReductionShape)
    .Summary("The largest element along the given axes (NaN wins; empty reductions give the lowest value).");

TX_REGISTER_OP("Min")
    .Input("input: T")
    .Input("reduction_indices: Tidx")
    .Output("output: T")
    .Attr("keep_dims: bool = false")
    .Attr("T: " TX_MINMAX_TYPES "}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_fns::ReductionShape)
    .Summary("The smallest element along the given axes (NaN wins; empty reductions give the highest value).");

TX_REGISTER_OP("All")
    .Input("input: bool")
    .Input("reduction_indices: Tidx")
    .Output("output: bool")
    .Attr("keep_dims: bool = false")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_fns::ReductionShape)
    .Summary("Logical AND of the elements along the given axes (true when empty).");

TX_REGISTER_OP("Any")
    .Input("input: bool")
    .Input("reduction_indices: Tidx")
    .Output("output: bool")
    .Attr("keep_dims: bool = false")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_fns::ReductionShape)
    .Summary("Logical OR of the elements along the given axes (false when empty).");

TX_REGISTER_OP("ArgMax")
    .Input("input: T")
    .Input("dimension: Tidx")
    .Output("output: output_type")
    .Attr("T: " TX_MINMAX_TYPES ", bool}")
    .Attr("Tidx: {int16, int32, int64} = DT_INT32")
    .Attr("output_type: {int16, uint16, int32, int64} = DT_INT64")
    .SetShapeFn(ArgOpShape)
    .Summary("Index of the largest element along one axis (the first one on ties; NaNs are skipped).");

TX_REGISTER_OP("ArgMin")
    .Input("input: T")
    .Input("dimension: Tidx")
    .Output("output: output_type")
    .Attr("T: " TX_MINMAX_TYPES ", bool}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("output_type: {int32, int64} = DT_INT64")
    .SetShapeFn(ArgOpShape)
    .Summary("Index of the smallest element along one axis (the first one on ties; NaNs are skipped).");

TX_REGISTER_OP("Cumsum")
    .Input("x: T")
    .Input("axis: Tidx")
    .Output("out: T")
    .Attr("exclusive: bool = false")
    .Attr("reverse: bool = false")
    .Attr("T: numbertype")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(ScanShape)
    .Summary("Running sums along one axis, optionally exclusive (shifted by one) and/or from the end.");

TX_REGISTER_OP("Cumprod")
    .Input("x: T")
    .Input("axis: Tidx")
    .Output("out: T")
    .Attr("exclusive: bool = false")
    .Attr("reverse: bool = false")
    .Attr("T: numbertype")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(ScanShape)
    .Summary("Running products along one axis, optionally exclusive (shifted by one) and/or from the end.");

#undef TX_MINMAX_TYPES

}  // namespace tx

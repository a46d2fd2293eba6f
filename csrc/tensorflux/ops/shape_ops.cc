// Shape and utility ops: Fill, ZerosLike, OnesLike, Range, Shape, Size, Rank, IdentityN,
// StopGradient, PreventGradient, Snapshot, CheckNumerics (signatures identical to TensorFlow's).
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Fill: `dims` is a 1-D shape (constant entries must be >= 0) and `value` a scalar.
Status FillShape(InferenceContext* c) {
  PartialShape dims_shape, value_shape;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "Input 'dims'", &dims_shape));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "Input 'value'", &value_shape));
  if (const Tensor* dims = c->input_tensor(0)) {
    for (int64_t i = 0; i < dims->num_elements(); ++i) {
      const int64_t d = dims->dtype() == DT_INT32 ? dims->data<int32_t>()[i] : dims->data<int64_t>()[i];
      if (d < 0) return InvalidArgument("Fill dimensions must be >= 0, got dims ", i, " = ", d);
    }
  }
  PartialShape out;
  TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return Status::OK();
}

// Reads scalar constant input i as a double; false when it is not a constant of a known type.
bool ConstScalar(InferenceContext* c, int i, double* out) {
  const Tensor* t = c->input_tensor(i);
  if (t == nullptr || t->num_elements() != 1) return false;
  switch (t->dtype()) {
    case DT_FLOAT: *out = t->data<float>()[0]; return true;
    case DT_DOUBLE: *out = t->data<double>()[0]; return true;
    case DT_INT32: *out = t->data<int32_t>()[0]; return true;
    case DT_INT64: *out = static_cast<double>(t->data<int64_t>()[0]); return true;
    default: return false;
  }
}

// Range: scalar start, limit, delta; with all three constant the length is exact (Note [Range size]).
// Note [Range size]
// The length is ceil(|limit - start| / |delta|) for integers and ceil(|(limit - start) / delta|)
// for floats; delta must be nonzero and point from start toward limit (or start == limit).
Status RangeShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, "Input 'start'", &s));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "Input 'limit'", &s));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, "Input 'delta'", &s));
  double start, limit, delta;
  if (!ConstScalar(c, 0, &start) || !ConstScalar(c, 1, &limit) || !ConstScalar(c, 2, &delta)) {
    c->set_output(0, PartialShape({-1}));
    return Status::OK();
  }
  if (delta == 0) return InvalidArgument("Requires delta != 0: ", delta);
  if (delta > 0 && start > limit) return InvalidArgument("Requires start <= limit when delta > 0: ", start, "/", limit);
  if (delta < 0 && start < limit) return InvalidArgument("Requires start >= limit when delta < 0: ", start, "/", limit);
  const bool is_int = c->input_tensor(0)->dtype() == DT_INT32 || c->input_tensor(0)->dtype() == DT_INT64;
  const double size =
      is_int ? std::ceil(std::abs(limit - start) / std::abs(delta)) : std::ceil(std::abs((limit - start) / delta));
  if (!(size <= static_cast<double>(std::numeric_limits<int64_t>::max() / 16)))
    return InvalidArgument("Range of ", size, " elements is too large");
  c->set_output(0, PartialShape({static_cast<int64_t>(size)}));
  return Status::OK();
}

// Shape: a vector with one entry per input dimension.
Status ShapeShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  c->set_output(0, in.known_rank() ? PartialShape({in.rank()}) : PartialShape({-1}));
  return Status::OK();
}

// IdentityN: output i has input i's shape.
Status IdentityNShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs() && i < c->num_inputs(); ++i) {
    c->set_output(i, c->input(i));
    if (const InferenceContext::HandleData* h = c->input_handle_data(i)) c->set_output_handle_data(i, *h);
  }
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("Fill")
    .Input("dims: index_type")
    .Input("value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index_type: {int32, int64} = DT_INT32")
    .SetShapeFn(FillShape)
    .Summary("A tensor of shape `dims` whose every element is the scalar `value`.");

TX_REGISTER_OP("ZerosLike")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("A tensor of zeros (false for bool) with the shape and type of `x`.");

TX_REGISTER_OP("OnesLike")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64, complex64, "
        "complex128, bool}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("A tensor of ones (true for bool) with the shape and type of `x`.");

TX_REGISTER_OP("Range")
    .Input("start: Tidx")
    .Input("limit: Tidx")
    .Input("delta: Tidx")
    .Output("output: Tidx")
    .Attr("Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32, uint64} = DT_INT32")
    .SetShapeFn(RangeShape)
    .Summary("The sequence start, start + delta, ... up to but excluding limit.");

TX_REGISTER_OP("Shape")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ShapeShape)
    .Summary("The dimensions of the input as a 1-D tensor.");

TX_REGISTER_OP("Size")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_fns::ScalarShape)
    .Summary("The number of elements of the input, as a scalar.");

TX_REGISTER_OP("Rank")
    .Input("input: T")
    .Output("output: int32")
    .Attr("T: type")
    .SetShapeFn(shape_fns::ScalarShape)
    .Summary("The number of dimensions of the input, as a scalar.");

TX_REGISTER_OP("IdentityN")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 1")
    .SetShapeFn(IdentityNShape)
    .Summary("Returns each of its inputs unchanged, sharing their buffers.");

TX_REGISTER_OP("StopGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Returns its input unchanged; gradients do not flow through it.");

TX_REGISTER_OP("PreventGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("message: string = ''")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Returns its input unchanged; asking for its gradient is an error carrying `message`.");

TX_REGISTER_OP("Snapshot")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Returns a copy of its input in a buffer of its own.");

TX_REGISTER_OP("CheckNumerics")
    .Input("tensor: T")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("message: string")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Returns its input unchanged, failing with `message` if any element is Inf or NaN.");

}  // namespace tx

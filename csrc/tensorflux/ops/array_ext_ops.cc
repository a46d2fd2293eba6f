// Roll, LinSpace, LowerBound and UpperBound (signatures identical to TensorFlow's).
#include <cstdint>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/array_util.h"

namespace tx {
namespace {

// Roll: output has input's shape (rank >= 1); shift and axis are scalars or vectors of one length.
Status RollShape(InferenceContext* c) {
  PartialShape in;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, "Input 'input' (input must be 1-D or higher)", &in));
  const PartialShape& shift = c->input(1);
  const PartialShape& axis = c->input(2);
  if (shift.known_rank() && shift.rank() > 1) return InvalidArgument("shift must be a scalar or a 1-D vector");
  if (axis.known_rank() && axis.rank() > 1) return InvalidArgument("axis must be a scalar or a 1-D vector");
  if (shift.known_rank() && axis.known_rank() && shift.rank() == 1 && axis.rank() == 1 && shift.dim(0) >= 0 &&
      axis.dim(0) >= 0 && shift.dim(0) != axis.dim(0))
    return InvalidArgument("shift and axis must have the same size, got ", shift.dim(0), " and ", axis.dim(0));
  c->set_output(0, c->input(0));
  return Status::OK();
}

// LinSpace: scalar start, stop and num -> [num].
Status LinSpaceShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, "Input 'start'", &s));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "Input 'stop'", &s));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, "Input 'num'", &s));
  int64_t num = -1;
  if (const Tensor* t = c->input_tensor(2)) {
    TX_RETURN_IF_ERROR(array_util::ReadScalarInt(*t, "num", &num));
    if (num <= 0) return InvalidArgument("Requires num > 0: ", num);
  }
  c->set_output(0, PartialShape({num}));
  return Status::OK();
}

// LowerBound / UpperBound: sorted_inputs [b, n], values [b, m] -> [b, m].
Status BoundShape(InferenceContext* c) {
  PartialShape sorted, values;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, "Input 'sorted_inputs'", &sorted));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, "Input 'values'", &values));
  if (sorted.dim(0) >= 0 && values.dim(0) >= 0 && sorted.dim(0) != values.dim(0))
    return InvalidArgument("Leading dim_size of both tensors must match: ", sorted.dim(0), " vs. ", values.dim(0));
  c->set_output(0, PartialShape({sorted.dim(0) >= 0 ? sorted.dim(0) : values.dim(0), values.dim(1)}));
  return Status::OK();
}

OpDefBuilder Bound(const char* name, const char* summary) {
  return OpDefBuilder(name)
      .Input("sorted_inputs: T")
      .Input("values: T")
      .Output("output: out_type")
      .Attr("T: type")
      .Attr("out_type: {int32, int64} = DT_INT32")
      .SetShapeFn(BoundShape)
      .Summary(summary);
}

}  // namespace

TX_REGISTER_OP("Roll")
    .Input("input: T")
    .Input("shift: Tshift")
    .Input("axis: Taxis")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshift: {int32, int64}")
    .Attr("Taxis: {int32, int64}")
    .SetShapeFn(RollShape)
    .Summary("Shifts elements along each axis by shift, wrapping around (repeated axes add their shifts).");

TX_REGISTER_OP("LinSpace")
    .Input("start: T")
    .Input("stop: T")
    .Input("num: Tidx")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(LinSpaceShape)
    .Summary("num evenly spaced values from start to stop inclusive.");

TX_REGISTER_OP_FROM(Bound("LowerBound",
                          "For each row, the first index of sorted_inputs whose element is not less than each value."));
TX_REGISTER_OP_FROM(Bound("UpperBound",
                          "For each row, the first index of sorted_inputs whose element is greater than each value."));

}  // namespace tx

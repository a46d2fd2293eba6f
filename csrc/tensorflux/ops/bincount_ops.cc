// Bincount and DenseBincount (signatures identical to TensorFlow's): counts (or summed weights)
// of each integer value in [0, size) of the input; values at or above size are dropped.
#include <cstdint>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/array_util.h"

namespace tx {
namespace {

// The static value of the scalar `size` input (input 1), or -1 when unknown; an error when known
// and negative.
Status StaticSize(InferenceContext* c, int64_t* size) {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "Input 'size'", &s));
  *size = -1;
  if (const Tensor* t = c->input_tensor(1)) {
    TX_RETURN_IF_ERROR(array_util::ReadScalarInt(*t, "size", size));
    if (*size < 0) return InvalidArgument("size (", *size, ") must be non-negative");
  }
  return Status::OK();
}

// Bincount: arr (any shape), size scalar, weights -> bins [size].
Status BincountShape(InferenceContext* c) {
  int64_t size;
  TX_RETURN_IF_ERROR(StaticSize(c, &size));
  c->set_output(0, PartialShape({size}));
  return Status::OK();
}

// DenseBincount: input [n] -> [size]; input [b, n] -> [b, size].
Status DenseBincountShape(InferenceContext* c) {
  int64_t size;
  TX_RETURN_IF_ERROR(StaticSize(c, &size));
  const PartialShape& in = c->input(0);
  if (!in.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  if (in.rank() == 1) {
    c->set_output(0, PartialShape({size}));
  } else if (in.rank() == 2) {
    c->set_output(0, PartialShape({in.dim(0), size}));
  } else {
    return InvalidArgument("input must be 1 or 2-dimensional, got shape ", in.ToString());
  }
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("Bincount")
    .Input("arr: int32")
    .Input("size: int32")
    .Input("weights: T")
    .Output("bins: T")
    .Attr("T: {int32, int64, float, double}")
    .SetShapeFn(BincountShape)
    .Summary("Counts each value of arr in [0, size), or sums its weights (weights empty: counts).");

TX_REGISTER_OP("DenseBincount")
    .Input("input: Tidx")
    .Input("size: Tidx")
    .Input("weights: T")
    .Output("output: T")
    .Attr("Tidx: {int32, int64}")
    .Attr("T: {int32, int64, float, double}")
    .Attr("binary_output: bool = false")
    .SetShapeFn(DenseBincountShape)
    .Summary("Bincount of a 1-D input or of each row of a 2-D input; binary_output gives 1 for present values.");

}  // namespace tx

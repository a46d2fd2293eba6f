// Assert (signature identical to TensorFlow's): fails the step when its condition is false.
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// No outputs; a condition of known shape must be a scalar.
Status AssertShape(InferenceContext* c) {
  PartialShape unused;
  return c->WithRank(c->input(0), 0, "condition", &unused);
}

}  // namespace

TX_REGISTER_OP("Assert")
    .Input("condition: bool")
    .Input("data: T")
    .Attr("T: list(type) >= 1")
    .Attr("summarize: int = 3")
    .SetIsStateful()
    .SetShapeFn(AssertShape)
    .Summary("Fails with the first `summarize` entries of each `data` tensor when `condition` is false.");

}  // namespace tx

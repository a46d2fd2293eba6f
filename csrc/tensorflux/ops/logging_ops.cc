// Assert, Print, PrintV2 and StringFormat (signatures identical to TensorFlow's): checks and
// text output of tensor values.
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// No outputs; a condition of known shape must be a scalar.
Status AssertShape(InferenceContext* c) {
  PartialShape unused;
  return c->WithRank(c->input(0), 0, "condition", &unused);
}

// PrintV2 takes one scalar string and has no outputs.
Status PrintV2Shape(InferenceContext* c) {
  PartialShape unused;
  return c->WithRank(c->input(0), 0, "input", &unused);
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

TX_REGISTER_OP("Print")
    .Input("input: T")
    .Input("data: U")
    .Output("output: T")
    .Attr("T: type")
    .Attr("U: list(type) >= 0")
    .Attr("message: string = ''")
    .Attr("first_n: int = -1")
    .Attr("summarize: int = 3")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Passes `input` through, printing `message` and `data` to stderr (the first `first_n` runs).");

TX_REGISTER_OP("PrintV2")
    .Input("input: string")
    .Attr("output_stream: string = 'stderr'")
    .Attr("end: string = '\n'")
    .SetIsStateful()
    .SetShapeFn(PrintV2Shape)
    .Summary("Prints a string scalar to 'stderr', 'stdout', 'log(info)'... or 'file://<path>', then `end`.");

TX_REGISTER_OP("StringFormat")
    .Input("inputs: T")
    .Output("output: string")
    .Attr("T: list(type) >= 0")
    .Attr("template: string = '%s'")
    .Attr("placeholder: string = '%s'")
    .Attr("summarize: int = 3")
    .SetShapeFn(shape_fns::ScalarShape)
    .Summary("Formats `template`, replacing each `placeholder` by the next input tensor's summary.");

}  // namespace tx

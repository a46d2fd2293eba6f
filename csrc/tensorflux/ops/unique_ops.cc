// Unique and UniqueWithCounts (signatures identical to TensorFlow's): the distinct values of a
// 1-D tensor in order of first appearance, each element's index into them, and their counts.
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// x: [n] -> y: [?], idx: [n] (and count: [?] when `with_counts`).
template <bool with_counts>
Status UniqueShape(InferenceContext* c) {
  PartialShape x;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "Input 'x' (unique expects a 1D vector)", &x));
  c->set_output(0, PartialShape({-1}));
  c->set_output(1, x);
  if (with_counts) c->set_output(2, PartialShape({-1}));
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("Unique")
    .Input("x: T")
    .Output("y: T")
    .Output("idx: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(UniqueShape<false>)
    .Summary("The distinct values of a 1-D x in order of first appearance, and x's index into them.");

TX_REGISTER_OP("UniqueWithCounts")
    .Input("x: T")
    .Output("y: T")
    .Output("idx: out_idx")
    .Output("count: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(UniqueShape<true>)
    .Summary("Unique, plus how many times each distinct value occurs in x.");

}  // namespace tx

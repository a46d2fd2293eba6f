// String ops (signatures identical to TensorFlow's): joining, splitting, measuring, slicing,
// stripping and case-mapping byte strings.
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Non-scalar inputs must agree; the output has their shape (a scalar when every input is one).
Status StringJoinShape(InferenceContext* c) {
  bool all_scalar = true;
  for (int i = 0; i < c->num_inputs(); ++i)
    all_scalar = all_scalar && c->input(i).known_rank() && c->input(i).rank() == 0;
  if (all_scalar) {
    c->set_output(0, PartialShape::Scalar());
    return Status::OK();
  }
  PartialShape out = PartialShape::Unknown();
  for (int i = 0; i < c->num_inputs(); ++i) {
    const PartialShape& s = c->input(i);
    if (!s.known_rank() || s.rank() == 0) continue;
    TX_RETURN_IF_ERROR(out.Merge(s, &out).WithPrefix("Input shapes do not match: "));
  }
  c->set_output(0, out);
  return Status::OK();
}

// input: [n], sep: [] -> indices [?, 2], values [?], shape [2].
Status StringSplitShape(InferenceContext* c) {
  PartialShape unused;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "input", &unused));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "sep", &unused));
  c->set_output(0, PartialShape({-1, 2}));
  c->set_output(1, PartialShape({-1}));
  c->set_output(2, PartialShape({2}));
  return Status::OK();
}

// pos and len have one shape; the output broadcasts input with it.
Status SubstrShape(InferenceContext* c) {
  const PartialShape& pos = c->input(1);
  const PartialShape& len = c->input(2);
  if (pos.known_rank() && len.known_rank()) {
    bool same = pos.rank() == len.rank();
    for (int i = 0; same && i < pos.rank(); ++i) same = pos.dim(i) == len.dim(i);
    if (!same) return InvalidArgument("pos and len shapes must match: ", pos.ToString(), " vs. ", len.ToString());
  }
  return shape_fns::BroadcastBinaryOp(c);
}

}  // namespace

TX_REGISTER_OP("StringJoin")
    .Input("inputs: N * string")
    .Output("output: string")
    .Attr("N: int >= 0")
    .Attr("separator: string = ''")
    .SetShapeFn(StringJoinShape)
    .Summary("Joins the strings of the inputs elementwise with `separator`; scalars broadcast.");

TX_REGISTER_OP("StringSplitV2")
    .Input("input: string")
    .Input("sep: string")
    .Output("indices: int64")
    .Output("values: string")
    .Output("shape: int64")
    .Attr("maxsplit: int = -1")
    .SetShapeFn(StringSplitShape)
    .Summary("Splits each string of a vector at `sep` (runs of whitespace when empty) into a sparse matrix.");

TX_REGISTER_OP("StringLength")
    .Input("input: string")
    .Output("output: int32")
    .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("The length of each string in bytes or in UTF-8 characters.");

TX_REGISTER_OP("Substr")
    .Input("input: string")
    .Input("pos: T")
    .Input("len: T")
    .Output("output: string")
    .Attr("T: {int32, int64}")
    .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'")
    .SetShapeFn(SubstrShape)
    .Summary("The substrings of `len` units starting at `pos` (from the end when negative).");

TX_REGISTER_OP("StringStrip")
    .Input("input: string")
    .Output("output: string")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Removes leading and trailing ASCII whitespace from each string.");

TX_REGISTER_OP("StringLower")
    .Input("input: string")
    .Output("output: string")
    .Attr("encoding: string = ''")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Lowercases each string (ASCII letters, or letters of UTF-8 text when encoding is 'utf-8').");

TX_REGISTER_OP("StringUpper")
    .Input("input: string")
    .Output("output: string")
    .Attr("encoding: string = ''")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Uppercases each string (ASCII letters, or letters of UTF-8 text when encoding is 'utf-8').");

TX_REGISTER_OP("ReduceJoin")
    .Input("inputs: string")
    .Input("reduction_indices: int32")
    .Output("output: string")
    .Attr("keep_dims: bool = false")
    .Attr("separator: string = ''")
    .SetShapeFn(shape_fns::ReductionShape)
    .Summary("Joins the strings along the given dimensions, the first listed varying fastest.");

}  // namespace tx

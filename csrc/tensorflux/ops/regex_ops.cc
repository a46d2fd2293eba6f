// Regular-expression ops (signatures identical to TensorFlow's), over the engine's own RE2-syntax
// engine (Note [Regex engine] in lib/regex.h).
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Output 0 has input 0's shape; inputs 1 and up are scalars (a pattern, a rewrite).
Status ScalarArgsShape(InferenceContext* c) {
  static const char* const kNames[] = {"input", "pattern", "rewrite"};
  PartialShape unused;
  for (int i = 1; i < c->num_inputs(); ++i) TX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, kNames[i], &unused));
  c->set_output(0, c->input(0));
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("RegexReplace")
    .Input("input: string")
    .Input("pattern: string")
    .Input("rewrite: string")
    .Output("output: string")
    .Attr("replace_global: bool = true")
    .SetShapeFn(ScalarArgsShape)
    .Summary("Replaces matches of `pattern` by `rewrite` (\\0-\\9 insert groups), every match or the first.");

TX_REGISTER_OP("StaticRegexReplace")
    .Input("input: string")
    .Output("output: string")
    .Attr("pattern: string")
    .Attr("rewrite: string")
    .Attr("replace_global: bool = true")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("RegexReplace with the pattern and rewrite as attrs, compiled once per kernel.");

TX_REGISTER_OP("RegexFullMatch")
    .Input("input: string")
    .Input("pattern: string")
    .Output("output: bool")
    .SetShapeFn(ScalarArgsShape)
    .Summary("Whether each whole string matches `pattern`.");

TX_REGISTER_OP("StaticRegexFullMatch")
    .Input("input: string")
    .Output("output: bool")
    .Attr("pattern: string")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("RegexFullMatch with the pattern as an attr, compiled once per kernel.");

}  // namespace tx

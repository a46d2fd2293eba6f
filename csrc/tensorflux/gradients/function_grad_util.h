// Generated gradient functions of library functions, shared by the gradients of calls
// (function_grad.cc), of If/Case (cond_grad.cc) and of While (while_grad.cc).
#pragma once

#include <string>
#include <vector>

#include "tensorflux/framework/function.h"
#include "tensorflux/framework/graph.h"

namespace tx {

// What a generated gradient function takes and returns (Note [Function gradients]).
struct GradFunction {
  std::string name;
  std::vector<int> dy_outputs;  // outputs of f whose gradients are passed, in order
  std::vector<int> dx_inputs;  // inputs of f whose gradients are returned, in order
  std::vector<DataType> dx_types;
  bool is_stateful = false;
};

// Builds the gradient function of `call` (f with its attrs) for inputs of static shapes
// `in_shapes`: it takes f's inputs and the gradients of the outputs marked in `has_dy`, and
// returns the gradients of the inputs marked in `wants_dx` that some output reaches. When
// `fill` is given (one entry per input), every input i with fill[i] != DT_INVALID gets a
// gradient of type fill[i], zeros when no output reaches it, and no other input does. With
// `add` false nothing is added to `lib` (out->name stays empty); use it to learn dx_inputs.
Status MakeGradFunction(FunctionLibrary* lib, const NameAttrList& call, const std::vector<PartialShape>& in_shapes,
                        const std::vector<bool>& has_dy, const std::vector<bool>& wants_dx,
                        const std::vector<DataType>* fill, bool add, GradFunction* out);

// Adds to `g` an _Arg node named after `base` with type, index and static shape; *out is its output.
Status AddArgNode(Graph* g, const std::string& base, DataType type, int index, const PartialShape& shape,
                  Endpoint* out);

// A `func` attr naming `name` (no attrs).
AttrValue FuncAttr(const std::string& name);
// A `list(type)` attr.
AttrValue TypeListAttr(const std::vector<DataType>& types);

}  // namespace tx

// Instantiation: a FunctionDef called with concrete attrs and input shapes becomes a Graph
// (its "body") that an ExecutionPlan can run (Note [Function instantiation]).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/framework/function.h"
#include "tensorflux/framework/graph.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {

// An instantiated function. Immutable once built; cached bodies are shared by every caller.
// The deepest nesting of function bodies (calls, control-flow branches and loop bodies) a graph
// may have; deeper nesting is InvalidArgument naming the limit and the chain of functions
// (Note [Bounded nesting] in function_instantiate.cc).
constexpr int kMaxFunctionNesting = 100;

struct FunctionBody {
  std::string function;  // the FunctionDef's name
  std::unique_ptr<Graph> graph;  // one _Arg node per input argument, then the body nodes
  std::vector<Node*> args;  // the _Arg nodes, in input order
  std::vector<Endpoint> rets;  // the tensor returned for each output argument
  std::vector<Node*> control_rets;  // control_ret nodes (run even when no output needs them)
  std::vector<DataType> arg_types, ret_types;
  bool is_stateful = false;  // the signature's is_stateful
  // Levels of bodies nested in this one, itself included (1: it calls no function), and the first
  // names of its deepest chain of calls (for errors).
  int nesting = 1;
  std::vector<std::string> deepest_chain;
};

struct InstantiateOptions {
  // Static shapes of the inputs (empty: all unknown) and, for resource inputs, what is known of
  // the variables behind them (empty, or one entry per input).
  std::vector<PartialShape> input_shapes;
  std::vector<InferenceContext::HandleData> input_handles;
  // Leaves out the body's control edges: used when a gradient function recomputes the forward
  // pass, which must not repeat its side effects (Note [Function gradients]).
  bool drop_control_edges = false;
};

// Builds the body of `f` with the attr values `call_attrs` (f's attrs; defaults fill the rest).
// The body graph borrows `library` (for the calls it makes), which must outlive it. Errors name
// the function and the body node: "function 'f': [mul] ...". Recursive calls (f calling f,
// directly or through other functions) are InvalidArgument.
Status InstantiateFunction(FunctionLibrary* library, const FunctionDef& f, const AttrMap& call_attrs,
                           const InstantiateOptions& opts, std::unique_ptr<FunctionBody>* out);

// The cached body of library function `name` for these attrs and input shapes (default
// options otherwise), instantiating it on first use. NotFound when `name` is not in `library`.
Status GetFunctionBody(FunctionLibrary* library, const std::string& name, const AttrMap& call_attrs,
                       const std::vector<PartialShape>& input_shapes,
                       const std::vector<InferenceContext::HandleData>& input_handles,
                       std::shared_ptr<const FunctionBody>* out);

// The cached body a call node of `graph` runs: its "f" instantiated for the static shapes (and
// resource handle data) of the node's inputs, the same body its shape function used; the types
// are checked against Tin/Tout.
Status GetCallBody(const Node& call, std::shared_ptr<const FunctionBody>* out);

// Checks a call's Tin/Tout against `body`'s argument and result types; InvalidArgument naming the
// function and the first mismatch.
Status CheckCallTypes(const FunctionBody& body, const std::vector<DataType>& tin, const std::vector<DataType>& tout);

// Reads a call node's "f" attr (the function and its attrs), "Tin" and "Tout".
Status GetCallAttrs(const AttrMap& attrs, const NameAttrList** f, std::vector<DataType>* tin,
                    std::vector<DataType>* tout);

}  // namespace tx

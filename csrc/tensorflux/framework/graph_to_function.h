// Graph -> FunctionDef: the engine side of TX_GraphToFunction, also used to turn generated
// gradient graphs into library functions (Note [Graph to function]).
#pragma once

#include <string>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/framework/function.h"
#include "tensorflux/framework/graph.h"

namespace tx {

struct GraphToFunctionSpec {
  std::string name;
  bool append_hash = false;  // name becomes "<name>_<16 hex digits of the body's hash>"
  bool use_body_nodes = false;  // true: `body_nodes` is the body; false: the nodes between
  std::vector<Node*> body_nodes;  //   the inputs and the outputs / control outputs
  std::vector<Endpoint> inputs;  // become the input arguments, in order
  std::vector<Endpoint> outputs;  // become the output arguments, in order
  std::vector<std::string> output_names;  // empty, or one per output
  std::vector<Node*> control_outputs;  // body nodes that must run
  std::vector<std::string> control_output_names;  // empty, or one per control output
  std::string description;
};

// Builds the FunctionDef described by `spec` from nodes of `graph`. InvalidArgument naming the
// node or tensor when an input repeats or belongs to another graph, a body node reads a tensor
// that is neither an input nor made in the body, a Placeholder or _Arg that is not an input is
// reachable, or names are invalid or repeat.
Status GraphToFunctionDef(const Graph& graph, const GraphToFunctionSpec& spec, FunctionDef* out);

// Names `f` "<base>_<16 hex digits of a fingerprint of its definition>" (what append_hash does),
// so one name always means one body and equal definitions share a name.
void NameByFingerprint(const std::string& base, FunctionDef* f);

}  // namespace tx

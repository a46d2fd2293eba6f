// FGraph: the mutable graph of NodeDefs that control-flow functionalization rewrites
// (Note [Functionalize control flow] in functionalize.cc). Engine-internal.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/framework/function.h"
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/proto_codec.h"

namespace tx {
namespace functionalize {

// Output `index` of node `node` of an FGraph.
struct FOut {
  int node = -1;
  int index = 0;
  bool operator==(const FOut& o) const { return node == o.node && index == o.index; }
  bool operator<(const FOut& o) const { return node != o.node ? node < o.node : index < o.index; }
};

// What an FGraph node stands for.
enum class FKind {
  kOp,  // a NodeDef
  kArg,  // an argument of the function being built (no NodeDef)
  kExternal,  // a node outside the GraphDef that input_map / control_map names (no NodeDef)
};

struct FNode {
  FKind kind = FKind::kOp;
  std::string name;
  std::string op;
  std::string device;
  AttrMap attr;  // complete after type inference: type, number and list attrs bound from the inputs
  std::string unknown_fields;
  const OpRegistration* reg = nullptr;  // kOp only
  std::vector<FOut> inputs;  // data inputs, in order
  std::vector<int> control_inputs;
  std::vector<DataType> out_types;  // DT_INVALID where unknown
  bool removed = false;
  int moved_to = -1;  // removed into a While/If/Case node: its id

  bool IsOp(const char* type) const { return kind == FKind::kOp && op == type; }
};

// The nodes outside the GraphDef that its inputs may name (ImportOptions' input_map and control_map).
struct ExternalNodes {
  // The dtype of the tensor input_map puts in place of "name:index", or DT_INVALID when unmapped.
  std::function<DataType(const std::string& name, int index)> tensor_type;
  // True when control_map maps "^name".
  std::function<bool(const std::string& name)> has_control;
};

// A graph of NodeDefs with resolved edges. Node ids are stable: removing marks a node removed.
class FGraph {
 public:
  std::vector<FNode> nodes;

  // The id of the live node called `name`, or -1.
  int Find(const std::string& name) const;
  // Appends `n` (its name must be unused); returns its id.
  int Add(FNode n);
  // Marks `id` removed; its name stays reserved.
  void Remove(int id) { nodes[id].removed = true; }
  // `base` if no node (live or removed) has that name, else the first free "base_1", "base_2", ...
  std::string UniqueName(const std::string& base) const;

  // Per node, per output: the (consumer, input position) pairs of live consumers.
  std::vector<std::vector<std::vector<std::pair<int, int>>>> DataConsumers() const;
  // Per node: the live nodes that have it as a control input.
  std::vector<std::vector<int>> ControlConsumers() const;

  // "[name] " for errors.
  std::string Where(int id) const { return "[" + nodes[id].name + "] "; }
  // "name:k" (or "name" for k == 0), for messages.
  std::string TensorName(FOut t) const;

 private:
  std::unordered_map<std::string, int> by_name_;
};

// Builds an FGraph from `nodes` (GraphDef naming: "name", "name:k", "^name"). Inputs naming no
// node of the GraphDef become kExternal nodes when `external` maps them, else InvalidArgument
// naming the node. Unregistered ops are NotFound (as in ImportGraphDef).
Status BuildFGraph(const std::vector<codec::NodeDefProto>& nodes, const FunctionLibrary& library,
                   const ExternalNodes& external, FGraph* out);

// Binds the type, number and list attrs a node left out from its inputs' types and computes
// its output types, in a topological order that skips edges out of NextIteration nodes (the loop
// back edges). InvalidArgument naming a node on a cycle that no NextIteration breaks.
Status InferTypes(FGraph* g);

// A topological order of the live nodes ignoring edges out of NextIteration nodes;
// InvalidArgument naming a node of a cycle otherwise.
Status TopologicalOrder(const FGraph& g, std::vector<int>* order);

// The live nodes of `g` as NodeDefs in GraphDef naming (kArg and kExternal nodes are not written).
std::vector<codec::NodeDefProto> ToNodeDefs(const FGraph& g);

// A function made of nodes of an FGraph: `g` holds kArg nodes (its arguments, in order) and body
// nodes; `rets` are the tensors returned, `control_rets` the nodes that must run.
struct FunctionSpec {
  std::string base_name;  // the function is named "<base_name>_<16 hex digits of its fingerprint>"
  std::vector<int> args;  // kArg node ids, in argument order
  std::vector<FOut> rets;
  std::vector<int> control_rets;
};
// Writes the FunctionDef of `spec` (function-body naming, Note [Function body naming]);
// InvalidArgument naming the node whose output type is unknown.
Status ToFunctionDef(const FGraph& g, const FunctionSpec& spec, FunctionDef* out);

// The subgraph of `g` made of `body` as a new FGraph: kArg nodes first, one per `arg_types` entry
// (named "arg_0", ... unless a body node has that name), then the body nodes in id order. A data
// input listed in `arg_of` reads that argument; any other data input must come from a body node
// (InvalidArgument naming the consumer otherwise). Control inputs from outside the body are
// dropped. `new_id` (may be null) receives, per node of `g`, its id in `sub` or -1.
Status Extract(const FGraph& g, const std::vector<int>& body, const std::map<FOut, int>& arg_of,
               const std::vector<DataType>& arg_types, FGraph* sub, std::vector<int>* new_id);

// True for ops with side effects (OpDef is_stateful).
bool IsStateful(const FNode& n);

// The node that now holds `id`: itself, or the While/If/Case it was moved into (transitively).
int Holder(const FGraph& g, int id);

// What the passes share: where the functions they make go, and how deep the recursion is.
struct PassContext {
  std::vector<FunctionDef>* functions = nullptr;
  int depth = 0;
};
// Rebuilds the lowered loops of `g` (functionalize_while.cc), then its conds
// (functionalize_cond.cc); the bodies and branches they extract go through this again, one level
// deeper. InvalidArgument past kMaxFunctionNesting levels.
Status FunctionalizeGraph(FGraph* g, PassContext ctx);
// Replaces every outermost loop frame of `g` by a While / StatelessWhile node.
Status FunctionalizeLoops(FGraph* g, PassContext ctx);
// Replaces every outermost Switch/Merge cond of `g` (which has no loops left) by an If /
// StatelessIf / Case / StatelessCase node.
Status FunctionalizeConds(FGraph* g, PassContext ctx);

// Makes a function of the nodes `body` of `g` (args: `arg_types`, reached through `arg_of`;
// results `rets`, control results `control_rets`, all in terms of `g`), functionalizes it one
// level deeper, adds it to ctx.functions and returns its name and whether it is stateful.
Status MakeFunction(const FGraph& g, const std::vector<int>& body, const std::map<FOut, int>& arg_of,
                    const std::vector<DataType>& arg_types, const std::vector<FOut>& rets,
                    const std::vector<int>& control_rets, const std::string& base_name, PassContext ctx,
                    std::string* name, bool* stateful);

// Turns node `id` into an Identity (or an IdentityN when `values` has several tensors) of `values`,
// keeping its name and device and dropping its control inputs; consumers keep their edges.
Status ReplaceWithIdentity(FGraph* g, int id, const std::vector<FOut>& values);

// "scope/suffix" made unique in `g`, where scope is `name` up to its last '/' (or `name` itself
// when it has none).
std::string NameInScope(const FGraph& g, const std::string& name, const std::string& suffix);
// `s` with every character other than [A-Za-z0-9_] replaced by '_' (for function names).
std::string Sanitize(const std::string& s);

}  // namespace functionalize
}  // namespace tx

// FunctionalizeControlFlow (functionalize.h) and the helpers its passes share.
//
// Note [Functionalize control flow]
// TensorFlow 1 graphs, and TensorFlow 2 graphs frozen with lowered control flow (what
// convert_variables_to_constants_v2 writes by default), express loops and conds with dataflow
// "dead tensor" primitives: Switch routes a value to one of two outputs, Merge forwards whichever
// input arrived, Enter/Exit move values into and out of a loop frame, NextIteration carries them
// to the next iteration, LoopCond marks the loop predicate. The engine runs one control-flow
// mechanism, the functional While/If/Case ops it also differentiates, so GraphDef import rebuilds
// the lowered form into those (as TensorFlow's functionalize_control_flow does for XLA):
//
// 1. Frames (functionalize_while.cc). Enter opens a child frame named by its frame_name, Exit
//    returns to the parent, every other node runs in the frame of its inputs (edges out of
//    NextIteration, the back edges, are ignored; a node without inputs floats and is captured
//    where it is used). Each outermost frame is one loop: per loop variable
//    Enter -> Merge <- NextIteration, Merge -> Switch(LoopCond) -> (Exit | body); loop-invariant
//    Enter(is_constant=true) values become extra loop variables the body passes through. The
//    nodes the LoopCond reads (back to the Merges) become the cond function, the nodes the
//    NextIterations read (back to the Switches' true outputs) the body function; nested frames
//    inside them are rebuilt when those functions are (recursively, innermost last).
// 2. Conds (functionalize_cond.cc), once a level has no loops: each node gets the set of
//    (predicate, branch) pairs under which it runs (Switch output k adds (pred, k); a Merge of
//    all branches of one predicate removes it; other nodes take the union of their inputs').
//    The Merges whose result runs unconditionally, with the nodes between them and the Switches
//    of their predicate, become one If (Switch) or Case (_SwitchN); tensors read from outside
//    become inputs of every branch; inner conds are rebuilt inside the branch functions.
// 3. Exit and Merge nodes become Identity nodes of the While/If outputs under their own names,
//    so consumers and fetches keep working; nodes moved into functions are reported (import
//    errors for return elements name the node that now holds them). The rebuilt graph is a valid
//    TensorFlow 2 graph again (export writes While/If and the library).
//
// Rejected, with InvalidArgument naming the node: a cycle that does not pass through a
// NextIteration; NextIteration, Exit or LoopCond outside any frame; inputs from two frames; a
// frame without Exit or with other than one LoopCond; a loop Merge that does not join one Enter
// and one NextIteration; an Enter(is_constant=false) that feeds no Merge; a Merge whose inputs do
// not come from all branches of one predicate (mismatched Merge inputs); a node with inputs from
// two branches of one cond, or reading a Switch output that never has a value; a cond whose
// branch values reach no Merge; a loop Merge's value_index read. Valid graphs this pass handles
// differently (TensorFlow's dead-tensor executor runs them): a cond whose result feeds back into
// its own inputs through a second cond on the same predicate, a value used from inside a cond
// branch outside of it other than through a Merge, and a cond nested in a branch of a cond on the
// same predicate are rejected; a stateful node of a loop frame that reaches neither the loop
// condition nor the body results becomes a control output of the body, and every stateful node of
// a cond branch one of its branch; lowered control flow inside library functions is left as it is
// (its nodes fail when run, naming the node). docs/control_flow.md has the user's view.
#include "tensorflux/framework/functionalize.h"

#include <algorithm>
#include <cctype>

#include "tensorflux/framework/function_instantiate.h"

namespace tx {

namespace functionalize {

int Holder(const FGraph& g, int id) {
  while (g.nodes[id].removed && g.nodes[id].moved_to >= 0) id = g.nodes[id].moved_to;
  return id;
}

Status FunctionalizeGraph(FGraph* g, PassContext ctx) {
  if (ctx.depth > kMaxFunctionNesting)
    return InvalidArgument("lowered control flow is nested more than ", kMaxFunctionNesting,
                           " levels deep (loops and conds inside each other)");
  TX_RETURN_IF_ERROR(FunctionalizeLoops(g, ctx));
  return FunctionalizeConds(g, ctx);
}

Status MakeFunction(const FGraph& g, const std::vector<int>& body, const std::map<FOut, int>& arg_of,
                    const std::vector<DataType>& arg_types, const std::vector<FOut>& rets,
                    const std::vector<int>& control_rets, const std::string& base_name, PassContext ctx,
                    std::string* name, bool* stateful) {
  FGraph sub;
  std::vector<int> ids;
  TX_RETURN_IF_ERROR(Extract(g, body, arg_of, arg_types, &sub, &ids));
  FunctionSpec spec;
  spec.base_name = base_name;
  for (size_t a = 0; a < arg_types.size(); ++a) spec.args.push_back(static_cast<int>(a));
  for (const FOut& t : rets) {
    auto a = arg_of.find(t);
    if (a != arg_of.end()) {
      spec.rets.push_back(FOut{a->second, 0});
    } else if (ids[t.node] >= 0) {
      spec.rets.push_back(FOut{ids[t.node], t.index});
    } else {
      return Internal(g.Where(t.node), "a result of function '", base_name, "' is outside its body");
    }
  }
  ++ctx.depth;
  TX_RETURN_IF_ERROR(FunctionalizeGraph(&sub, ctx));
  for (int c : control_rets) {
    const int h = Holder(sub, ids[c]);
    if (!sub.nodes[h].removed &&
        std::find(spec.control_rets.begin(), spec.control_rets.end(), h) == spec.control_rets.end())
      spec.control_rets.push_back(h);
  }
  FunctionDef f;
  TX_RETURN_IF_ERROR(ToFunctionDef(sub, spec, &f));
  *name = f.name();
  *stateful = f.signature.is_stateful;
  ctx.functions->push_back(std::move(f));
  return Status::OK();
}

Status ReplaceWithIdentity(FGraph* g, int id, const std::vector<FOut>& values) {
  FNode& n = g->nodes[id];
  std::vector<DataType> types;
  for (const FOut& v : values) types.push_back(g->nodes[v.node].out_types[v.index]);
  n.op = values.size() == 1 ? "Identity" : "IdentityN";
  n.reg = OpRegistry::Global()->LookUp(n.op);
  if (n.reg == nullptr) return Internal("op ", n.op, " is not registered");
  n.attr.clear();
  n.unknown_fields.clear();
  if (values.size() == 1) {
    n.attr["T"] = AttrValue::Type(types[0]);
  } else {
    AttrValue list = AttrValue::EmptyList();
    list.list.type = types;
    n.attr["T"] = list;
  }
  n.inputs = values;
  n.control_inputs.clear();
  n.out_types = types;
  return Status::OK();
}

std::string NameInScope(const FGraph& g, const std::string& name, const std::string& suffix) {
  const size_t slash = name.rfind('/');
  return g.UniqueName(slash == std::string::npos ? suffix : name.substr(0, slash) + "/" + suffix);
}

std::string Sanitize(const std::string& s) {
  std::string r = s.empty() ? std::string("fn") : s;
  for (char& c : r)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return r;
}

}  // namespace functionalize

namespace {

bool IsLoweredControlFlowOp(const std::string& op) {
  return op == "Switch" || op == "_SwitchN" || op == "Merge" || op == "Enter" || op == "Exit" ||
      op == "NextIteration" || op == "LoopCond";
}

}  // namespace

bool HasLoweredControlFlow(const codec::GraphDefProto& gd) {
  return std::any_of(gd.node.begin(), gd.node.end(),
                     [](const codec::NodeDefProto& n) { return IsLoweredControlFlowOp(n.op); });
}

Status FunctionalizeControlFlow(const FunctionLibrary& library, const functionalize::ExternalNodes& external,
                                codec::GraphDefProto* gd, std::vector<FunctionDef>* functions,
                                std::map<std::string, std::string>* moved) {
  using namespace functionalize;  // NOLINT
  FGraph g;
  TX_RETURN_IF_ERROR(BuildFGraph(gd->node, library, external, &g));
  TX_RETURN_IF_ERROR(InferTypes(&g));
  PassContext ctx;
  ctx.functions = functions;
  TX_RETURN_IF_ERROR(FunctionalizeGraph(&g, ctx));
  if (moved != nullptr) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const FNode& n = g.nodes[i];
      if (n.kind == FKind::kOp && n.removed && n.moved_to >= 0)
        (*moved)[n.name] = g.nodes[Holder(g, static_cast<int>(i))].name;
    }
  }
  gd->node = ToNodeDefs(g);
  return Status::OK();
}

}  // namespace tx

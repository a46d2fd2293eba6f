// InstantiateFunction and the body cache (function_instantiate.h).
//
// Note [Function instantiation]
// 1. Attrs: every attr of the signature takes its value from the call (f's NameAttrList attrs)
//    or its default; "$T"-style placeholders in body node attrs (also inside func-valued attrs)
//    are replaced by those values. A placeholder naming no attr of the function is an error.
// 2. Arguments: one _Arg node (TensorFlow's op) per input argument, of the resolved type, with
//    the caller's static shape merged in; for resource arguments the variable's dtype and shape
//    ride along in the internal attrs _handle_dtype/_handle_shape so reads inside the body get
//    static shapes. List arguments (N * T, list(type)) are not supported: Unimplemented.
// 3. Body nodes are added in a topological order of their data and control inputs (Kahn's
//    algorithm, keeping the FunctionDef's order where it is already sorted) through
//    Graph::AddNode, so types, attr defaults and shapes are checked and inferred as for any node.
//    Control inputs on arguments are dropped (arguments are ready when the call starts).
// 4. rets and control_rets are resolved; a ret whose type differs from its output argument's
//    is an error.
// A body graph borrows the caller's library, so nested calls resolve in the same library and a
// nested call node instantiates its own function while the outer one is being built. A
// thread-local stack of the functions being instantiated turns recursion into an error instead
// of endless instantiation.
//
// Note [Bounded nesting]
// Instantiating, building and running a body recurses once per level of nested functions (a
// call's shape function instantiates the callee, the call kernel builds and runs the callee's
// plan), so a chain of thousands of functions would overflow the stack. Every body records its
// nesting (1 + the deepest body it uses, learned as its nodes' shape functions fetch the bodies
// they call through GetFunctionBody), and nesting beyond kMaxFunctionNesting is an error, whether
// the chain is instantiated in one go or from bodies cached by earlier calls. Graphs of ordinary
// nodes are walked iteratively and have no such limit.
#include "tensorflux/framework/function_instantiate.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <unordered_map>

#include "tensorflux/framework/graph_def_io.h"

namespace tx {
namespace {

// A function being instantiated on this thread, and the deepest body its nodes use so far.
struct Frame {
  std::string name;
  int callee_nesting = 0;
  std::vector<std::string> callee_chain;
};
thread_local std::vector<Frame> t_instantiating;
// The nesting error raised inside the outermost instantiation on this thread: every level returns
// it as is, instead of prefixing "[call] function 'f<k>': " a hundred times.
thread_local Status t_nesting_error;

// Names kept of a chain of nested functions for error messages.
constexpr size_t kChainNames = 6;

// Pushes a function on the thread's instantiation stack for the lifetime of the guard.
class RecursionGuard {
 public:
  explicit RecursionGuard(const std::string& name) { t_instantiating.push_back(Frame{name, 0, {}}); }
  ~RecursionGuard() {
    t_instantiating.pop_back();
    if (t_instantiating.empty()) t_nesting_error = Status::OK();
  }
};

// "a -> b -> c -> d -> ... (N functions)" from the outermost names of a chain of `total` functions.
std::string ChainText(const std::vector<std::string>& names, int total) {
  std::string text;
  for (size_t i = 0; i < names.size() && i < kChainNames; ++i) text += (i ? " -> " : "") + names[i];
  if (total > static_cast<int>(std::min(names.size(), kChainNames))) text += " -> ...";
  return text + " (" + std::to_string(total) + " functions)";
}

// InvalidArgument for nesting `outer` (this thread's stack) plus `inner` (a body's chain) deeper
// than the limit.
Status NestingError(const std::vector<std::string>& inner, int inner_depth) {
  std::vector<std::string> names;
  for (const Frame& f : t_instantiating) names.push_back(f.name);
  names.insert(names.end(), inner.begin(), inner.end());
  Status s = InvalidArgument("function calls are nested deeper than the limit of ", kMaxFunctionNesting, ": ",
                             ChainText(names, static_cast<int>(t_instantiating.size()) + inner_depth));
  if (!t_instantiating.empty()) t_nesting_error = s;
  return s;
}

Status CheckRecursion(const std::string& name) {
  auto it =
      std::find_if(t_instantiating.begin(), t_instantiating.end(), [&](const Frame& f) { return f.name == name; });
  if (it != t_instantiating.end()) {
    std::string chain;
    for (; it != t_instantiating.end(); ++it) chain += it->name + " -> ";
    return InvalidArgument("function '", name, "' calls itself recursively (", chain, name,
                           "); recursive functions are not supported");
  }
  if (t_instantiating.size() >= static_cast<size_t>(kMaxFunctionNesting)) return NestingError({name}, 1);
  return Status::OK();
}

// Records that the function being instantiated uses `body`; an error when that nests too deep.
Status NoteCallee(const FunctionBody& body) {
  if (static_cast<int>(t_instantiating.size()) + body.nesting > kMaxFunctionNesting)
    return NestingError(body.deepest_chain, body.nesting);
  if (!t_instantiating.empty() && body.nesting > t_instantiating.back().callee_nesting) {
    t_instantiating.back().callee_nesting = body.nesting;
    t_instantiating.back().callee_chain = body.deepest_chain;
  }
  return Status::OK();
}

// Replaces placeholders in `v` (and in the attrs of func values) with their bound values.
Status Substitute(const AttrMap& bound, AttrValue* v) {
  if (v->kind == AttrValue::Kind::kPlaceholder) {
    auto it = bound.find(v->s);
    if (it == bound.end()) return InvalidArgument("attr placeholder '$", v->s, "' names no attr of the function");
    *v = it->second;
    return Status::OK();
  }
  auto in_func = [&](NameAttrList& f) -> Status {
    for (auto& kv : f.attr) TX_RETURN_IF_ERROR(Substitute(bound, &kv.second));
    return Status::OK();
  };
  if (v->kind == AttrValue::Kind::kFunc && v->func) {
    auto copy = std::make_shared<NameAttrList>(*v->func);
    TX_RETURN_IF_ERROR(in_func(*copy));
    v->func = std::move(copy);
  }
  for (NameAttrList& f : v->list.func) TX_RETURN_IF_ERROR(in_func(f));
  return Status::OK();
}

// The signature's attrs bound to the call's values or defaults.
Status BindAttrs(const FunctionDef& f, const AttrMap& call_attrs, AttrMap* bound) {
  for (const AttrDef& def : f.signature.attr) {
    auto it = call_attrs.find(def.name);
    AttrValue v;
    if (it != call_attrs.end()) {
      v = it->second;
    } else if (def.has_default) {
      v = def.default_value;
    } else {
      return InvalidArgument("the call gives no value for attr '", def.name, "' (", def.type, ")");
    }
    if (v.kind == AttrValue::Kind::kPlaceholder)
      return InvalidArgument("the call binds attr '", def.name, "' to the placeholder '$", v.s, "'");
    TX_RETURN_IF_ERROR(ValidateAttrValue(def, v));
    (*bound)[def.name] = std::move(v);
  }
  return Status::OK();
}

Status ArgType(const ArgDef& a, const AttrMap& bound, DataType* out) {
  if (!a.number_attr.empty() || !a.type_list_attr.empty())
    return Unimplemented("argument '", a.name, "' is a list (",
                         a.number_attr.empty() ? a.type_list_attr : a.number_attr,
                         "); functions with list arguments are not supported");
  if (a.type != DT_INVALID) {
    *out = a.type;
    return Status::OK();
  }
  auto it = bound.find(a.type_attr);
  if (it == bound.end() || it->second.kind != AttrValue::Kind::kType)
    return InvalidArgument("argument '", a.name, "' has type attr '", a.type_attr,
                           "', which the function does not define");
  *out = it->second.type;
  return Status::OK();
}

class Instantiator {
 public:
  Instantiator(FunctionLibrary* lib, const FunctionDef& f, const InstantiateOptions& opts, FunctionBody* body)
      : lib_(lib), f_(f), opts_(opts), body_(body) {}

  Status Run(const AttrMap& call_attrs);

 private:
  Status AddArgs();
  Status Order(std::vector<int>* order) const;
  Status AddBodyNode(int i);
  Status Resolve(const std::string& s, Endpoint* out) const;
  Status GroupInputs(const codec::NodeDefProto& nd, const OpDef& def, const AttrMap& attrs, NodeSpec* spec) const;

  FunctionLibrary* lib_;
  const FunctionDef& f_;
  const InstantiateOptions& opts_;
  FunctionBody* body_;
  AttrMap bound_;
  std::unordered_map<std::string, int> arg_index_;
  std::unordered_map<std::string, int> node_index_;  // FunctionDef position
  std::vector<Node*> nodes_;  // per FunctionDef position
};

Status Instantiator::AddArgs() {
  const auto& args = f_.signature.input_arg;
  for (size_t i = 0; i < args.size(); ++i) {
    DataType t;
    TX_RETURN_IF_ERROR(ArgType(args[i], bound_, &t));
    NodeSpec spec;
    spec.name = args[i].name;
    spec.op_type = "_Arg";
    spec.attrs["T"] = AttrValue::Type(t);
    spec.attrs["index"] = AttrValue::Int(static_cast<int64_t>(i));
    if (i < opts_.input_handles.size() && opts_.input_handles[i].dtype != DT_INVALID) {
      spec.attrs["_handle_dtype"] = AttrValue::Type(opts_.input_handles[i].dtype);
      spec.attrs["_handle_shape"] = AttrValue::Shape(opts_.input_handles[i].shape);
    }
    Node* n = nullptr;
    TX_RETURN_IF_ERROR(body_->graph->AddNode(std::move(spec), &n));
    if (i < opts_.input_shapes.size())
      TX_RETURN_IF_ERROR(body_->graph->MergeOutputShape({n, 0}, opts_.input_shapes[i]));
    arg_index_[args[i].name] = static_cast<int>(i);
    body_->args.push_back(n);
    body_->arg_types.push_back(t);
  }
  return Status::OK();
}

Status Instantiator::Order(std::vector<int>* order) const {
  const int n = static_cast<int>(f_.node_def.size());
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> users(n);
  for (int i = 0; i < n; ++i) {
    for (const std::string& in : f_.node_def[i].input) {
      FunctionTensorRef ref;
      TX_RETURN_IF_ERROR(ParseFunctionTensorRef(in, &ref).WithPrefix("[" + f_.node_def[i].name + "] "));
      auto it = node_index_.find(ref.node);
      if (it == node_index_.end()) continue;  // an argument
      users[it->second].push_back(i);
      ++pending[i];
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push(i);
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order->push_back(i);
    for (int u : users[i])
      if (--pending[u] == 0) ready.push(u);
  }
  for (int i = 0; i < n; ++i)
    if (pending[i] > 0)
      return InvalidArgument("[", f_.node_def[i].name, "] the body contains a cycle through this node");
  return Status::OK();
}

Status Instantiator::Resolve(const std::string& s, Endpoint* out) const {
  FunctionTensorRef ref;
  TX_RETURN_IF_ERROR(ParseFunctionTensorRef(s, &ref));
  auto arg = arg_index_.find(ref.node);
  if (arg != arg_index_.end() && ref.output_arg.empty() && node_index_.count(ref.node) == 0) {
    if (ref.index != 0) return InvalidArgument("'", s, "': argument '", ref.node, "' is a single tensor");
    *out = Endpoint{body_->args[arg->second], 0};
    return Status::OK();
  }
  auto it = node_index_.find(ref.node);
  if (it == node_index_.end() || nodes_[it->second] == nullptr)
    return InvalidArgument("'", s, "' names no argument or body node");
  Node* n = nodes_[it->second];
  int start = 0, stop = n->num_outputs();
  if (!ref.output_arg.empty() && !n->OutputRange(ref.output_arg, &start, &stop))
    return InvalidArgument("'", s, "': op ", n->op_type(), " has no output argument '", ref.output_arg, "'");
  if (ref.index < 0 || ref.index >= stop - start)
    return InvalidArgument("'", s, "': output index ", ref.index, " is out of range (", n->op_type(), " node '",
                           n->name(), "' has ", stop - start, ref.output_arg.empty() ? " outputs)" : " tensors there)");
  *out = Endpoint{n, start + ref.index};
  return Status::OK();
}

Status Instantiator::GroupInputs(const codec::NodeDefProto& nd, const OpDef& def, const AttrMap& attrs,
                                 NodeSpec* spec) const {
  size_t next = 0;
  std::vector<const std::string*> data;
  for (const std::string& in : nd.input)
    if (in.empty() || in[0] != '^') data.push_back(&in);
  for (const ArgDef& arg : def.input_arg) {
    NodeSpec::InputArg group;
    group.is_list = !arg.number_attr.empty() || !arg.type_list_attr.empty();
    int64_t size = 1;
    if (group.is_list) {
      const std::string& len_attr = arg.number_attr.empty() ? arg.type_list_attr : arg.number_attr;
      auto it = attrs.find(len_attr);
      const AttrDef* adef = def.FindAttr(len_attr);
      const AttrValue* v =
          it != attrs.end() ? &it->second : (adef && adef->has_default ? &adef->default_value : nullptr);
      if (v == nullptr)
        return InvalidArgument("attr '", len_attr, "' (the length of input '", arg.name, "') is missing");
      size = arg.number_attr.empty() ? static_cast<int64_t>(v->list.type.size()) : v->i;
    }
    if (size < 0 || static_cast<size_t>(size) > data.size() - next)
      return InvalidArgument("op ", def.name, " expects more data inputs than the node has (", data.size(), ")");
    for (int64_t k = 0; k < size; ++k) {
      Endpoint e;
      TX_RETURN_IF_ERROR(Resolve(*data[next++], &e));
      group.values.push_back(e);
    }
    spec->inputs.push_back(std::move(group));
  }
  if (next != data.size())
    return InvalidArgument("op ", def.name, " expects ", next, " data inputs but the node has ", data.size());
  return Status::OK();
}

Status Instantiator::AddBodyNode(int i) {
  const codec::NodeDefProto& nd = f_.node_def[i];
  const std::string where = "[" + nd.name + "] ";
  const OpRegistration* reg = OpRegistry::Global()->LookUp(nd.op);
  if (reg == nullptr) {
    if (lib_ != nullptr && lib_->Find(nd.op) != nullptr)
      return Unimplemented(where, "op '", nd.op,
                           "' is a library function called directly by name; call it through "
                           "PartitionedCall or StatefulPartitionedCall");
    return NotFound(where, "op type not registered: '", nd.op, "'");
  }
  NodeSpec spec;
  spec.name = nd.name;
  spec.op_type = nd.op;
  spec.device = nd.device;
  spec.attrs = nd.attr;
  for (auto& kv : spec.attrs)
    TX_RETURN_IF_ERROR(Substitute(bound_, &kv.second).WithPrefix(where + "attr '" + kv.first + "': "));
  TX_RETURN_IF_ERROR(GroupInputs(nd, reg->def, spec.attrs, &spec).WithPrefix(where));
  if (!opts_.drop_control_edges) {
    for (const std::string& in : nd.input) {
      if (in.empty() || in[0] != '^') continue;
      auto it = node_index_.find(in.substr(1));
      if (it == node_index_.end()) continue;  // on an argument: ready when the call starts
      Node* c = nodes_[it->second];
      if (std::find(spec.control_inputs.begin(), spec.control_inputs.end(), c) == spec.control_inputs.end())
        spec.control_inputs.push_back(c);
    }
  }
  return body_->graph->AddNode(std::move(spec), &nodes_[i]);
}

Status Instantiator::Run(const AttrMap& call_attrs) {
  TX_RETURN_IF_ERROR(BindAttrs(f_, call_attrs, &bound_));
  TX_RETURN_IF_ERROR(AddArgs());
  for (size_t i = 0; i < f_.node_def.size(); ++i) node_index_[f_.node_def[i].name] = static_cast<int>(i);
  nodes_.assign(f_.node_def.size(), nullptr);
  std::vector<int> order;
  TX_RETURN_IF_ERROR(Order(&order));
  for (int i : order) TX_RETURN_IF_ERROR(AddBodyNode(i));
  for (const ArgDef& out : f_.signature.output_arg) {
    DataType t;
    TX_RETURN_IF_ERROR(ArgType(out, bound_, &t));
    auto it = f_.ret.find(out.name);
    if (it == f_.ret.end()) return InvalidArgument("output '", out.name, "' has no ret entry");
    Endpoint e;
    TX_RETURN_IF_ERROR(Resolve(it->second, &e).WithPrefix("ret '" + out.name + "': "));
    if (e.node->output_type(e.index) != t)
      return InvalidArgument("output '", out.name, "' is declared ", DataTypeString(t), " but ret '", it->second,
                             "' is ", DataTypeString(e.node->output_type(e.index)));
    body_->rets.push_back(e);
    body_->ret_types.push_back(t);
  }
  for (const auto& kv : f_.control_ret) {
    auto it = node_index_.find(kv.second);
    if (it == node_index_.end()) return InvalidArgument("control_ret '", kv.first, "' names no body node");
    body_->control_rets.push_back(nodes_[it->second]);
  }
  return Status::OK();
}

}  // namespace

Status InstantiateFunction(FunctionLibrary* library, const FunctionDef& f, const AttrMap& call_attrs,
                           const InstantiateOptions& opts, std::unique_ptr<FunctionBody>* out) {
  TX_RETURN_IF_ERROR(CheckRecursion(f.name()));
  RecursionGuard guard(f.name());
  auto body = std::make_unique<FunctionBody>();
  body->function = f.name();
  body->is_stateful = f.signature.is_stateful;
  // A non-owning pointer: the library outlives its bodies (Note [Library caches]).
  body->graph = std::make_unique<Graph>(std::shared_ptr<FunctionLibrary>(std::shared_ptr<FunctionLibrary>(), library));
  Instantiator inst(library, f, opts, body.get());
  Status s = inst.Run(call_attrs);
  if (!s.ok()) {
    if (!t_nesting_error.ok()) return t_nesting_error;
    const std::string prefix = "function '" + f.name() + "': ";
    return s.message().rfind("function ", 0) == 0 ? s : s.WithPrefix(prefix);
  }
  const Frame& frame = t_instantiating.back();
  body->nesting = 1 + frame.callee_nesting;
  body->deepest_chain.push_back(f.name());
  for (size_t i = 0; i < frame.callee_chain.size() && body->deepest_chain.size() < kChainNames; ++i)
    body->deepest_chain.push_back(frame.callee_chain[i]);
  *out = std::move(body);
  return Status::OK();
}

Status GetFunctionBody(FunctionLibrary* library, const std::string& name, const AttrMap& call_attrs,
                       const std::vector<PartialShape>& input_shapes,
                       const std::vector<InferenceContext::HandleData>& input_handles,
                       std::shared_ptr<const FunctionBody>* out) {
  std::shared_ptr<const FunctionDef> f = library->Find(name);
  if (f == nullptr) return NotFound("function '", name, "' is not in the graph's function library");
  std::string key = name + '\0';
  for (const auto& kv : call_attrs) key += kv.first + '=' + SerializeAttrValue(kv.second) + '\0';
  for (const PartialShape& s : input_shapes) key += s.ToString() + ';';
  for (const auto& h : input_handles) key += std::to_string(h.dtype) + h.shape.ToString() + ';';
  if ((*out = library->FindBody(key)) != nullptr) return NoteCallee(**out);
  TX_RETURN_IF_ERROR(CheckRecursion(name));
  InstantiateOptions opts;
  opts.input_shapes = input_shapes;
  opts.input_handles = input_handles;
  std::unique_ptr<FunctionBody> body;
  TX_RETURN_IF_ERROR(InstantiateFunction(library, *f, call_attrs, opts, &body));
  *out = library->AddBody(key, std::shared_ptr<const FunctionBody>(std::move(body)));
  return NoteCallee(**out);
}

Status GetCallBody(const Node& call, std::shared_ptr<const FunctionBody>* out) {
  const NameAttrList* f = nullptr;
  std::vector<DataType> tin, tout;
  TX_RETURN_IF_ERROR(GetCallAttrs(call.attrs(), &f, &tin, &tout));
  std::vector<PartialShape> shapes;
  std::vector<InferenceContext::HandleData> handles;
  for (const Endpoint& in : call.inputs()) {
    shapes.push_back(call.graph()->OutputShape(in));
    handles.push_back(call.graph()->OutputHandleData(in));
  }
  TX_RETURN_IF_ERROR(GetFunctionBody(&call.graph()->library(), f->name, f->attr, shapes, handles, out));
  return CheckCallTypes(**out, tin, tout);
}

Status CheckCallTypes(const FunctionBody& body, const std::vector<DataType>& tin, const std::vector<DataType>& tout) {
  auto names = [](const std::vector<DataType>& ts) {
    std::string s;
    for (DataType t : ts) s += (s.empty() ? "" : ", ") + DataTypeString(t);
    return "[" + s + "]";
  };
  if (tin.size() != body.arg_types.size())
    return InvalidArgument("function '", body.function, "' takes ", body.arg_types.size(), " arguments ",
                           names(body.arg_types), " but the call passes ", tin.size(), " ", names(tin));
  for (size_t i = 0; i < tin.size(); ++i)
    if (tin[i] != body.arg_types[i])
      return InvalidArgument("argument ", i, " of function '", body.function, "' has type ",
                             DataTypeString(body.arg_types[i]), " but the call passes ", DataTypeString(tin[i]));
  if (tout.size() != body.ret_types.size() || tout != body.ret_types)
    return InvalidArgument("function '", body.function, "' returns ", names(body.ret_types), " but the call expects ",
                           names(tout));
  return Status::OK();
}

Status GetCallAttrs(const AttrMap& attrs, const NameAttrList** f, std::vector<DataType>* tin,
                    std::vector<DataType>* tout) {
  auto fi = attrs.find("f");
  if (fi == attrs.end() || fi->second.kind != AttrValue::Kind::kFunc || !fi->second.func)
    return InvalidArgument("attr 'f' must name a function");
  *f = fi->second.func.get();
  auto ti = attrs.find("Tin"), to = attrs.find("Tout");
  if (ti == attrs.end() || to == attrs.end()) return InvalidArgument("attrs 'Tin' and 'Tout' are required");
  *tin = ti->second.list.type;
  *tout = to->second.list.type;
  return Status::OK();
}

}  // namespace tx

// FGraph (functionalize_graph.h): building it from NodeDefs, type inference, and writing it back
// as NodeDefs or as a FunctionDef.
#include "tensorflux/framework/functionalize_graph.h"

#include <algorithm>
#include <queue>

#include "tensorflux/framework/graph.h"
#include "tensorflux/framework/graph_def_io.h"
#include "tensorflux/framework/graph_to_function.h"

namespace tx {
namespace functionalize {

int FGraph::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() || nodes[it->second].removed ? -1 : it->second;
}

int FGraph::Add(FNode n) {
  const int id = static_cast<int>(nodes.size());
  by_name_[n.name] = id;
  nodes.push_back(std::move(n));
  return id;
}

std::string FGraph::UniqueName(const std::string& base) const {
  if (!by_name_.count(base)) return base;
  for (int k = 1;; ++k) {
    std::string candidate = base + "_" + std::to_string(k);
    if (!by_name_.count(candidate)) return candidate;
  }
}

std::vector<std::vector<std::vector<std::pair<int, int>>>> FGraph::DataConsumers() const {
  std::vector<std::vector<std::vector<std::pair<int, int>>>> out(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) out[i].resize(nodes[i].out_types.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].removed) continue;
    for (size_t k = 0; k < nodes[i].inputs.size(); ++k) {
      const FOut& t = nodes[i].inputs[k];
      auto& per_node = out[t.node];
      if (static_cast<size_t>(t.index) >= per_node.size()) per_node.resize(t.index + 1);
      per_node[t.index].push_back({static_cast<int>(i), static_cast<int>(k)});
    }
  }
  return out;
}

std::vector<std::vector<int>> FGraph::ControlConsumers() const {
  std::vector<std::vector<int>> out(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].removed) continue;
    for (int c : nodes[i].control_inputs) out[c].push_back(static_cast<int>(i));
  }
  return out;
}

std::string FGraph::TensorName(FOut t) const {
  return t.index == 0 ? nodes[t.node].name : nodes[t.node].name + ":" + std::to_string(t.index);
}

bool IsStateful(const FNode& n) { return n.kind == FKind::kOp && n.reg->def.is_stateful; }

Status BuildFGraph(const std::vector<codec::NodeDefProto>& defs, const FunctionLibrary& library,
                   const ExternalNodes& external, FGraph* g) {
  for (const codec::NodeDefProto& nd : defs) {
    FNode n;
    n.name = nd.name;
    n.op = nd.op;
    n.device = nd.device;
    n.attr = nd.attr;
    n.unknown_fields = nd.unknown_fields;
    n.reg = OpRegistry::Global()->LookUp(nd.op);
    if (n.reg == nullptr) {
      if (library.Find(nd.op) != nullptr)
        return Unimplemented("[", nd.name, "] op '", nd.op,
                             "' is a function of the library; a node calling a "
                             "function directly by its name is not supported (call it through PartitionedCall "
                             "or StatefulPartitionedCall)");
      return NotFound("[", nd.name, "] op type not registered: '", nd.op, "'");
    }
    if (g->Find(nd.name) >= 0)
      return InvalidArgument("[", nd.name, "] duplicate node name '", nd.name, "' in GraphDef");
    g->Add(std::move(n));
  }
  // Resolves a referenced name to a node id, adding an external node for names the GraphDef lacks.
  auto resolve = [&](const std::string& user, const std::string& s, const std::string& name, int index,
                     int* id) -> Status {
    *id = g->Find(name);
    if (*id >= 0) return Status::OK();
    const bool known = index < 0 ? external.has_control(name) : external.tensor_type(name, index) != DT_INVALID;
    if (!known) return InvalidArgument("[", user, "] input '", s, "' refers to unknown node '", name, "'");
    FNode ext;
    ext.kind = FKind::kExternal;
    ext.name = name;
    *id = g->Add(std::move(ext));
    return Status::OK();
  };
  for (size_t i = 0; i < defs.size(); ++i) {
    const std::string where = "[" + defs[i].name + "] ";
    bool seen_control = false;
    for (const std::string& s : defs[i].input) {
      std::string name;
      int index = 0;
      bool control = false;
      TX_RETURN_IF_ERROR(ParseGraphTensorName(s, &name, &index, &control).WithPrefix(where));
      if (!control && seen_control)
        return InvalidArgument(where, "data input '", s, "' follows a control input; data inputs must come first");
      seen_control = seen_control || control;
      int id = -1;
      TX_RETURN_IF_ERROR(resolve(defs[i].name, s, name, index, &id));
      if (control) {
        auto& c = g->nodes[i].control_inputs;
        if (std::find(c.begin(), c.end(), id) == c.end()) c.push_back(id);
      } else {
        g->nodes[i].inputs.push_back(FOut{id, index});
      }
    }
  }
  // External nodes: their output types, as far as the inputs that read them need.
  for (FNode& n : g->nodes) {
    for (const FOut& t : n.inputs) {
      FNode& src = g->nodes[t.node];
      if (src.kind != FKind::kExternal) continue;
      if (static_cast<int>(src.out_types.size()) <= t.index) src.out_types.resize(t.index + 1, DT_INVALID);
      src.out_types[t.index] = external.tensor_type(src.name, t.index);
    }
  }
  return Status::OK();
}

Status TopologicalOrder(const FGraph& g, std::vector<int>* order) {
  const int n = static_cast<int>(g.nodes.size());
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> users(n);
  auto edge = [&](int src, int dst) {
    if (g.nodes[src].IsOp("NextIteration")) return;  // a loop back edge
    users[src].push_back(dst);
    ++pending[dst];
  };
  for (int i = 0; i < n; ++i) {
    if (g.nodes[i].removed) continue;
    for (const FOut& t : g.nodes[i].inputs) edge(t.node, i);
    for (int c : g.nodes[i].control_inputs) edge(c, i);
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if (!g.nodes[i].removed && pending[i] == 0) ready.push(i);
  order->clear();
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order->push_back(i);
    for (int u : users[i])
      if (--pending[u] == 0) ready.push(u);
  }
  int cur = -1;
  for (int i = 0; i < n && cur < 0; ++i)
    if (!g.nodes[i].removed && pending[i] > 0) cur = i;
  if (cur < 0) return Status::OK();
  // Walk back along unfinished inputs until a node repeats: it lies on the cycle.
  std::vector<bool> seen(n, false);
  while (!seen[cur]) {
    seen[cur] = true;
    for (const FOut& t : g.nodes[cur].inputs)
      if (pending[t.node] > 0 && !g.nodes[t.node].IsOp("NextIteration")) {
        cur = t.node;
        goto next;
      }
    for (int c : g.nodes[cur].control_inputs)
      if (pending[c] > 0 && !g.nodes[c].IsOp("NextIteration")) {
        cur = c;
        break;
      }
  next:;
  }
  return InvalidArgument(g.Where(cur), "graph contains a cycle involving node '", g.nodes[cur].name,
                         "' that does not pass through a NextIteration node (only a while loop's back edge may "
                         "close a cycle)");
}

namespace {

// The value of attr `name` of `n`, or its OpDef default, or nullptr.
const AttrValue* AttrOrDefault(const FNode& n, const std::string& name) {
  auto it = n.attr.find(name);
  if (it != n.attr.end()) return &it->second;
  const AttrDef* a = n.reg->def.FindAttr(name);
  return a != nullptr && a->has_default ? &a->default_value : nullptr;
}

// Binds the attrs `n` left out from its input types (like Graph::AddNode does) and sets its
// output types; types it cannot tell stay DT_INVALID.
Status BindNode(const FGraph& g, FNode* n) {
  const OpDef& def = n->reg->def;
  std::vector<DataType> in;
  for (const FOut& t : n->inputs) {
    const auto& types = g.nodes[t.node].out_types;
    in.push_back(t.index >= 0 && static_cast<size_t>(t.index) < types.size() ? types[t.index] : DT_INVALID);
  }
  // Tensors per input arg: from attrs, the one list without an attr taking what is left.
  std::vector<int64_t> sizes(def.input_arg.size(), 1);
  int unknown = -1;
  int64_t known = 0;
  for (size_t a = 0; a < def.input_arg.size(); ++a) {
    const ArgDef& arg = def.input_arg[a];
    const std::string& len_attr = !arg.number_attr.empty() ? arg.number_attr : arg.type_list_attr;
    if (!len_attr.empty()) {
      const AttrValue* v = AttrOrDefault(*n, len_attr);
      if (v == nullptr) {
        if (unknown >= 0) return InvalidArgument("[", n->name, "] cannot tell how many inputs each list argument has");
        unknown = static_cast<int>(a);
        continue;
      }
      sizes[a] = arg.number_attr.empty() ? static_cast<int64_t>(v->list.type.size()) : v->i;
    }
    known += sizes[a];
  }
  if (unknown >= 0) sizes[unknown] = static_cast<int64_t>(in.size()) - known;
  int64_t total = 0;
  for (int64_t s : sizes) total += s < 0 ? 0 : s;
  if (total != static_cast<int64_t>(in.size()) ||
      std::any_of(sizes.begin(), sizes.end(), [](int64_t s) { return s < 0; }))
    return InvalidArgument("[", n->name, "] op ", def.name, " expects ", total, " data inputs but the NodeDef has ",
                           in.size());
  size_t flat = 0;
  for (size_t a = 0; a < def.input_arg.size(); ++a) {
    const ArgDef& arg = def.input_arg[a];
    const size_t count = static_cast<size_t>(sizes[a]);
    if (!arg.number_attr.empty() && !n->attr.count(arg.number_attr))
      n->attr[arg.number_attr] = AttrValue::Int(static_cast<int64_t>(count));
    if (!arg.type_list_attr.empty() && !n->attr.count(arg.type_list_attr)) {
      AttrValue v = AttrValue::EmptyList();
      v.list.type.assign(in.begin() + flat, in.begin() + flat + count);
      if (std::find(v.list.type.begin(), v.list.type.end(), DT_INVALID) == v.list.type.end())
        n->attr[arg.type_list_attr] = v;
    }
    if (!arg.type_attr.empty() && !n->attr.count(arg.type_attr)) {
      for (size_t k = flat; k < flat + count; ++k)
        if (in[k] != DT_INVALID) {
          n->attr[arg.type_attr] = AttrValue::Type(in[k]);
          break;
        }
    }
    flat += count;
  }
  n->out_types.clear();
  for (const ArgDef& arg : def.output_arg) {
    if (!arg.type_list_attr.empty()) {
      const AttrValue* v = AttrOrDefault(*n, arg.type_list_attr);
      if (v == nullptr) return InvalidArgument("[", n->name, "] attr '", arg.type_list_attr, "' is missing");
      n->out_types.insert(n->out_types.end(), v->list.type.begin(), v->list.type.end());
      continue;
    }
    DataType t = arg.type;
    if (t == DT_INVALID) {
      const AttrValue* v = AttrOrDefault(*n, arg.type_attr);
      t = v != nullptr && v->kind == AttrValue::Kind::kType ? v->type : DT_INVALID;
    }
    int64_t count = 1;
    if (!arg.number_attr.empty()) {
      const AttrValue* v = AttrOrDefault(*n, arg.number_attr);
      count = v != nullptr && v->kind == AttrValue::Kind::kInt ? v->i : -1;
      if (count < 0 || count > kMaxArgLength)
        return InvalidArgument("[", n->name, "] output '", arg.name, "' has length ", count, ", outside [0, ",
                               kMaxArgLength, "]");
    }
    n->out_types.insert(n->out_types.end(), static_cast<size_t>(count), t);
  }
  return Status::OK();
}

// Output `flat` of `n` as (output arg name, index in that arg).
Status OutputArg(const FNode& n, int flat, std::string* arg, int* index) {
  int start = 0;
  for (const ArgDef& a : n.reg->def.output_arg) {
    int count = 1;
    if (!a.type_list_attr.empty()) {
      const AttrValue* v = AttrOrDefault(n, a.type_list_attr);
      count = v == nullptr ? 0 : static_cast<int>(v->list.type.size());
    } else if (!a.number_attr.empty()) {
      const AttrValue* v = AttrOrDefault(n, a.number_attr);
      count = v == nullptr ? 0 : static_cast<int>(v->i);
    }
    if (flat < start + count) {
      *arg = a.name;
      *index = flat - start;
      return Status::OK();
    }
    start += count;
  }
  return InvalidArgument("[", n.name, "] has no output ", flat);
}

}  // namespace

Status InferTypes(FGraph* g) {
  std::vector<int> order;
  TX_RETURN_IF_ERROR(TopologicalOrder(*g, &order));
  for (int i : order)
    if (g->nodes[i].kind == FKind::kOp) TX_RETURN_IF_ERROR(BindNode(*g, &g->nodes[i]));
  // A Merge that read a NextIteration before it had types (a loop back edge) takes them now.
  for (int i : order)
    if (g->nodes[i].kind == FKind::kOp && g->nodes[i].IsOp("Merge")) TX_RETURN_IF_ERROR(BindNode(*g, &g->nodes[i]));
  return Status::OK();
}

std::vector<codec::NodeDefProto> ToNodeDefs(const FGraph& g) {
  std::vector<codec::NodeDefProto> out;
  for (const FNode& n : g.nodes) {
    if (n.removed || n.kind != FKind::kOp) continue;
    codec::NodeDefProto nd;
    nd.name = n.name;
    nd.op = n.op;
    nd.device = n.device;
    nd.attr = n.attr;
    nd.unknown_fields = n.unknown_fields;
    for (const FOut& t : n.inputs) nd.input.push_back(g.TensorName(t));
    for (int c : n.control_inputs) nd.input.push_back("^" + g.nodes[c].name);
    out.push_back(std::move(nd));
  }
  return out;
}

Status ToFunctionDef(const FGraph& g, const FunctionSpec& spec, FunctionDef* out) {
  FunctionDef f;
  auto ref = [&](FOut t, std::string* s) -> Status {
    const FNode& n = g.nodes[t.node];
    if (n.kind == FKind::kArg) {
      *s = n.name;
      return Status::OK();
    }
    std::string arg;
    int index = 0;
    TX_RETURN_IF_ERROR(OutputArg(n, t.index, &arg, &index));
    *s = n.name + ":" + arg + ":" + std::to_string(index);
    return Status::OK();
  };
  auto type_of = [&](FOut t, DataType* dt) -> Status {
    const FNode& n = g.nodes[t.node];
    *dt = static_cast<size_t>(t.index) < n.out_types.size() ? n.out_types[t.index] : DT_INVALID;
    if (*dt == DT_INVALID) return InvalidArgument("[", n.name, "] the dtype of output ", t.index, " is unknown");
    return Status::OK();
  };
  for (int a : spec.args) {
    ArgDef arg;
    arg.name = g.nodes[a].name;
    TX_RETURN_IF_ERROR(type_of(FOut{a, 0}, &arg.type));
    f.signature.input_arg.push_back(std::move(arg));
  }
  for (size_t k = 0; k < spec.rets.size(); ++k) {
    ArgDef arg;
    arg.name = "output_" + std::to_string(k);
    TX_RETURN_IF_ERROR(type_of(spec.rets[k], &arg.type));
    std::string s;
    TX_RETURN_IF_ERROR(ref(spec.rets[k], &s));
    f.ret[arg.name] = s;
    f.signature.output_arg.push_back(std::move(arg));
  }
  for (const FNode& n : g.nodes) {
    if (n.removed || n.kind != FKind::kOp) continue;
    f.signature.is_stateful = f.signature.is_stateful || IsStateful(n);
    codec::NodeDefProto nd;
    nd.name = n.name;
    nd.op = n.op;
    nd.device = n.device;
    nd.attr = n.attr;
    nd.unknown_fields = n.unknown_fields;
    for (const FOut& t : n.inputs) {
      std::string s;
      TX_RETURN_IF_ERROR(ref(t, &s));
      nd.input.push_back(std::move(s));
    }
    for (int c : n.control_inputs)
      if (g.nodes[c].kind == FKind::kOp && !g.nodes[c].removed) nd.input.push_back("^" + g.nodes[c].name);
    f.node_def.push_back(std::move(nd));
  }
  for (size_t k = 0; k < spec.control_rets.size(); ++k) {
    const std::string name = "control_" + std::to_string(k);
    f.signature.control_output.push_back(name);
    f.control_ret[name] = g.nodes[spec.control_rets[k]].name;
  }
  NameByFingerprint(spec.base_name, &f);
  TX_RETURN_IF_ERROR(ValidateFunctionDef(f));
  *out = std::move(f);
  return Status::OK();
}

Status Extract(const FGraph& g, const std::vector<int>& body, const std::map<FOut, int>& arg_of,
               const std::vector<DataType>& arg_types, FGraph* sub, std::vector<int>* new_id) {
  std::vector<int> ids(g.nodes.size(), -1);
  std::set<std::string> body_names;
  for (int b : body) body_names.insert(g.nodes[b].name);
  for (size_t a = 0; a < arg_types.size(); ++a) {
    FNode arg;
    arg.kind = FKind::kArg;
    std::string name = "arg_" + std::to_string(a);
    while (body_names.count(name)) name += "_";
    arg.name = name;
    arg.out_types = {arg_types[a]};
    sub->Add(std::move(arg));
  }
  std::vector<int> sorted(body);
  std::sort(sorted.begin(), sorted.end());
  for (int b : sorted) {
    FNode n = g.nodes[b];
    n.inputs.clear();
    n.control_inputs.clear();
    ids[b] = sub->Add(std::move(n));
  }
  for (int b : sorted) {
    FNode& n = sub->nodes[ids[b]];
    for (const FOut& t : g.nodes[b].inputs) {
      auto a = arg_of.find(t);
      if (a != arg_of.end()) {
        n.inputs.push_back(FOut{a->second, 0});
      } else if (ids[t.node] >= 0) {
        n.inputs.push_back(FOut{ids[t.node], t.index});
      } else {
        return Internal(g.Where(b), "input '", g.TensorName(t), "' is neither an argument nor a body node");
      }
    }
    for (int c : g.nodes[b].control_inputs)
      if (ids[c] >= 0) n.control_inputs.push_back(ids[c]);
  }
  if (new_id != nullptr) *new_id = std::move(ids);
  return Status::OK();
}

}  // namespace functionalize
}  // namespace tx

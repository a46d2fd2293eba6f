#include "tensorflux/framework/graph.h"

#include <algorithm>
#include <cctype>

#include "tensorflux/framework/shape_inference.h"

// Note [Append-only graph]
// A Graph only grows: nodes are never removed and their inputs and attrs never change after
// AddNode. A Node* therefore stays valid for the graph's lifetime, a session's cached plan stays
// valid when nodes are added later, and readers need the mutex only for the name map, the node
// list, consumer lists and static shapes.
// The one exception is Graph::RollbackTo, used only by ImportGraphDef to undo a failed import
// (all-or-nothing): it removes the nodes that import added, before any of them has been
// returned to a caller, so no Node* that anyone holds is invalidated. The importer reserves no
// names through UniqueName before it has succeeded, so removing the rolled-back nodes' own
// names (those their AddNode inserted) restores names_in_use_ exactly.

namespace tx {

const AttrValue* Node::attr(const std::string& n) const {
  auto it = attrs_.find(n);
  return it == attrs_.end() ? nullptr : &it->second;
}

static bool ArgRange(const std::vector<ArgDef>& args, const std::vector<int>& starts, const std::string& arg,
                     int* start, int* stop) {
  for (size_t k = 0; k < args.size(); ++k) {
    if (args[k].name == arg) {
      *start = starts[k];
      *stop = starts[k + 1];
      return true;
    }
  }
  return false;
}

bool Node::InputRange(const std::string& arg, int* start, int* stop) const {
  return ArgRange(op_def().input_arg, input_arg_starts_, arg, start, stop);
}

bool Node::OutputRange(const std::string& arg, int* start, int* stop) const {
  return ArgRange(op_def().output_arg, output_arg_starts_, arg, start, stop);
}

bool IsValidNodeName(const std::string& name) {
  if (name.empty()) return false;
  auto ok_first = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.'; };
  auto ok_rest = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' || c == '>' || c == '-';
  };
  if (!ok_first(name[0])) return false;
  return std::all_of(name.begin() + 1, name.end(), ok_rest);
}

namespace {

std::string Lower(const std::string& s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// Expected AttrValue kind for an AttrDef type ("int" -> kInt; "list(...)" -> kList).
AttrValue::Kind KindFor(const std::string& type) {
  if (type.rfind("list(", 0) == 0) return AttrValue::Kind::kList;
  if (type == "string") return AttrValue::Kind::kString;
  if (type == "int") return AttrValue::Kind::kInt;
  if (type == "float") return AttrValue::Kind::kFloat;
  if (type == "bool") return AttrValue::Kind::kBool;
  if (type == "type") return AttrValue::Kind::kType;
  if (type == "shape") return AttrValue::Kind::kShape;
  if (type == "tensor") return AttrValue::Kind::kTensor;
  if (type == "func") return AttrValue::Kind::kFunc;
  return AttrValue::Kind::kNone;
}

// Number of list elements for the element kind named by a "list(x)" type.
size_t ListLength(const std::string& type, const AttrValue& v) {
  std::string inner = type.substr(5, type.size() - 6);
  if (inner == "string") return v.list.s.size();
  if (inner == "int") return v.list.i.size();
  if (inner == "float") return v.list.f.size();
  if (inner == "bool") return v.list.b.size();
  if (inner == "type") return v.list.type.size();
  if (inner == "shape") return v.list.shape.size();
  if (inner == "tensor") return v.list.tensor.size();
  if (inner == "func") return v.list.func.size();
  return 0;
}

std::string TypeEnumName(DataType t) {
  std::string s = DataTypeString(t);
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "DT_" + s;
}

}  // namespace

Status ValidateAttrValue(const AttrDef& def, const AttrValue& v) {
  AttrValue::Kind want = KindFor(def.type);
  if (v.kind == AttrValue::Kind::kPlaceholder) return Status::OK();
  if (v.kind != want)
    return InvalidArgument("attr '", def.name, "' expects a value of type '", def.type, "', got ", v.DebugString());
  bool is_list = want == AttrValue::Kind::kList;
  if (is_list && v.list.size() != ListLength(def.type, v))
    return InvalidArgument("attr '", def.name, "' expects a ", def.type, ", got ", v.DebugString());
  if (def.has_minimum) {
    if (is_list && static_cast<int64_t>(v.list.size()) < def.minimum)
      return InvalidArgument("attr '", def.name, "' must have at least ", def.minimum, " elements, got ",
                             v.list.size());
    if (want == AttrValue::Kind::kInt && v.i < def.minimum)
      return InvalidArgument("attr '", def.name, "' must be >= ", def.minimum, ", got ", v.i);
  }
  if (def.has_allowed_values) {
    const AttrValue::List& allowed = def.allowed_values.list;
    auto check_type = [&](DataType t) -> Status {
      if (std::find(allowed.type.begin(), allowed.type.end(), t) != allowed.type.end()) return Status::OK();
      std::string names;
      for (DataType a : allowed.type) names += (names.empty() ? "" : ", ") + TypeEnumName(a);
      return InvalidArgument("value for attr '", def.name, "' of ", TypeEnumName(t),
                             " is not in the list of allowed values: ", names);
    };
    auto check_string = [&](const std::string& s) -> Status {
      if (std::find(allowed.s.begin(), allowed.s.end(), s) != allowed.s.end()) return Status::OK();
      std::string names;
      for (const std::string& a : allowed.s) names += (names.empty() ? "\"" : ", \"") + a + "\"";
      return InvalidArgument("value for attr '", def.name, "' of \"", s,
                             "\" is not in the list of allowed values: ", names);
    };
    if (want == AttrValue::Kind::kType) TX_RETURN_IF_ERROR(check_type(v.type));
    if (want == AttrValue::Kind::kString) TX_RETURN_IF_ERROR(check_string(v.s));
    if (is_list) {
      for (DataType t : v.list.type) TX_RETURN_IF_ERROR(check_type(t));
      for (const std::string& s : v.list.s) TX_RETURN_IF_ERROR(check_string(s));
    }
  }
  return Status::OK();
}

Graph::Graph() : producer_(kGraphDefVersion), library_(std::make_shared<FunctionLibrary>()) {}
Graph::Graph(std::shared_ptr<FunctionLibrary> library) : producer_(kGraphDefVersion), library_(std::move(library)) {
  if (!library_) library_ = std::make_shared<FunctionLibrary>();
}
Graph::~Graph() = default;

Node* Graph::FindNode(const std::string& name) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

int Graph::num_nodes() const {
  std::lock_guard<std::mutex> l(mu_);
  return static_cast<int>(nodes_.size());
}

Node* Graph::node(int id) const {
  std::lock_guard<std::mutex> l(mu_);
  return id >= 0 && id < static_cast<int>(nodes_.size()) ? nodes_[id].get() : nullptr;
}

std::vector<Node*> Graph::Nodes() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<Node*> out;
  out.reserve(nodes_.size());
  for (const auto& n : nodes_) out.push_back(n.get());
  return out;
}

std::string Graph::UniqueName(const std::string& base) {
  std::lock_guard<std::mutex> l(mu_);
  std::string key = Lower(base);
  auto it = names_in_use_.find(key);
  if (it == names_in_use_.end()) {
    names_in_use_[key] = 1;
    return base;
  }
  int i = it->second;
  while (names_in_use_.count(Lower(base + "_" + std::to_string(i)))) ++i;
  it->second = i + 1;
  std::string name = base + "_" + std::to_string(i);
  names_in_use_[Lower(name)] = 1;
  return name;
}

bool Graph::IsNameUsed(const std::string& name) const {
  std::lock_guard<std::mutex> l(mu_);
  return names_in_use_.count(Lower(name)) > 0 || by_name_.count(name) > 0;
}

PartialShape Graph::OutputShape(Endpoint e) const {
  std::lock_guard<std::mutex> l(mu_);
  return e.node->output_shapes_[e.index];
}

Status Graph::MergeOutputShape(Endpoint e, const PartialShape& shape) {
  std::lock_guard<std::mutex> l(mu_);
  PartialShape merged;
  TX_RETURN_IF_ERROR(
      e.node->output_shapes_[e.index]
          .Merge(shape, &merged)
          .WithPrefix("[" + e.node->name() + "] cannot set shape of output " + std::to_string(e.index) + ": "));
  e.node->output_shapes_[e.index] = merged;
  return Status::OK();
}

std::vector<std::pair<Node*, int>> Graph::Consumers(const Node* n, int index) const {
  std::lock_guard<std::mutex> l(mu_);
  return n->consumers_[index];
}

std::vector<Node*> Graph::ControlOutputs(const Node* n) const {
  std::lock_guard<std::mutex> l(mu_);
  return n->control_outputs_;
}

void Graph::RollbackTo(int num_nodes) {
  std::lock_guard<std::mutex> l(mu_);
  if (num_nodes < 0) num_nodes = 0;
  for (int id = static_cast<int>(nodes_.size()) - 1; id >= num_nodes; --id) {
    Node* n = nodes_[id].get();
    for (const Endpoint& e : n->inputs_) {
      auto& list = e.node->consumers_[e.index];
      list.erase(std::remove_if(list.begin(), list.end(), [n](const std::pair<Node*, int>& c) { return c.first == n; }),
                 list.end());
    }
    for (Node* c : n->control_inputs_) {
      auto& list = c->control_outputs_;
      list.erase(std::remove(list.begin(), list.end(), n), list.end());
    }
    auto it = by_name_.find(n->name_);
    if (it != by_name_.end() && it->second == n) by_name_.erase(it);
    if (n->reserved_name_) names_in_use_.erase(Lower(n->name_));
    nodes_.pop_back();
  }
}

namespace {

// Sets attr `name` to `value` if absent; if present, checks equality.
Status BindTypeAttr(AttrMap& attrs, const std::string& name, DataType t, const std::string& arg) {
  auto it = attrs.find(name);
  if (it == attrs.end()) {
    attrs[name] = AttrValue::Type(t);
    return Status::OK();
  }
  if (it->second.kind != AttrValue::Kind::kType || it->second.type != t)
    return InvalidArgument("input '", arg, "' has type ", DataTypeString(t), " but attr '", name, "' is ",
                           it->second.DebugString());
  return Status::OK();
}

// Resolves the input arg types, binding type/number/list attrs from the inputs.
Status BindInputs(const Graph* g, const OpDef& def, NodeSpec& spec, std::vector<DataType>* input_types,
                  std::vector<int>* starts) {
  if (spec.inputs.size() != def.input_arg.size())
    return InvalidArgument("op ", def.name, " expects ", def.input_arg.size(), " input arguments, got ",
                           spec.inputs.size());
  int flat = 0;
  for (size_t a = 0; a < def.input_arg.size(); ++a) {
    const ArgDef& arg = def.input_arg[a];
    NodeSpec::InputArg& in = spec.inputs[a];
    starts->push_back(flat);
    bool list_arg = !arg.number_attr.empty() || !arg.type_list_attr.empty();
    if (list_arg != in.is_list && !(in.values.size() == 1 && !list_arg))
      return InvalidArgument("input '", arg.name, "' ",
                             list_arg ? "expects a list of tensors" : "expects a single tensor");
    for (const Endpoint& e : in.values) {
      if (e.node == nullptr || e.index < 0 || e.index >= e.node->num_outputs())
        return OutOfRange("input '", arg.name, "' refers to output ", e.index, " of ",
                          e.node ? "'" + e.node->name() + "'" : std::string("a null operation"), ", which has ",
                          e.node ? e.node->num_outputs() : 0, " outputs");
      if (e.node->graph() != g)
        return InvalidArgument("input '", arg.name, "' comes from node '", e.node->name(), "' of another graph");
      input_types->push_back(e.node->output_type(e.index));
    }
    const int n = static_cast<int>(in.values.size());
    if (!arg.number_attr.empty()) {
      auto it = spec.attrs.find(arg.number_attr);
      if (it == spec.attrs.end()) {
        spec.attrs[arg.number_attr] = AttrValue::Int(n);
      } else if (it->second.kind != AttrValue::Kind::kInt || it->second.i != n) {
        return InvalidArgument("input '", arg.name, "' has ", n, " tensors but attr '", arg.number_attr, "' is ",
                               it->second.DebugString());
      }
    }
    if (!arg.type_list_attr.empty()) {
      AttrValue v = AttrValue::EmptyList();
      for (int k = 0; k < n; ++k) v.list.type.push_back((*input_types)[flat + k]);
      auto it = spec.attrs.find(arg.type_list_attr);
      if (it == spec.attrs.end()) {
        spec.attrs[arg.type_list_attr] = v;
      } else if (it->second.kind != AttrValue::Kind::kList || it->second.list.type != v.list.type) {
        return InvalidArgument("input '", arg.name, "' has types ", v.DebugString(), " but attr '", arg.type_list_attr,
                               "' is ", it->second.DebugString());
      }
    } else {
      for (int k = 0; k < n; ++k) {
        DataType t = (*input_types)[flat + k];
        if (arg.type != DT_INVALID) {
          if (t != arg.type)
            return InvalidArgument("input '", arg.name, "' expects type ", DataTypeString(arg.type), " but got ",
                                   DataTypeString(t));
        } else {
          TX_RETURN_IF_ERROR(BindTypeAttr(spec.attrs, arg.type_attr, t, arg.name));
        }
      }
    }
    flat += n;
  }
  starts->push_back(flat);
  return Status::OK();
}

// Computes the flat output types from the (complete) attrs.
Status ResolveOutputs(const OpDef& def, const AttrMap& attrs, std::vector<DataType>* types, std::vector<int>* starts) {
  for (const ArgDef& arg : def.output_arg) {
    starts->push_back(static_cast<int>(types->size()));
    if (!arg.type_list_attr.empty()) {
      const AttrValue& v = attrs.at(arg.type_list_attr);
      types->insert(types->end(), v.list.type.begin(), v.list.type.end());
      continue;
    }
    DataType t = arg.type != DT_INVALID ? arg.type : attrs.at(arg.type_attr).type;
    int64_t n = arg.number_attr.empty() ? 1 : attrs.at(arg.number_attr).i;
    if (n < 0 || n > kMaxArgLength)
      return InvalidArgument("output '", arg.name, "' has length ", n, ", outside [0, ", kMaxArgLength, "]");
    types->insert(types->end(), static_cast<size_t>(n), t);
  }
  starts->push_back(static_cast<int>(types->size()));
  return Status::OK();
}

}  // namespace

InferenceContext::HandleData ResourceHandleData(const Node& n) {
  InferenceContext::HandleData d;
  const bool is_arg = n.op_type() == "_Arg";
  if (n.op_type() != "VarHandleOp" && !is_arg) return d;
  const AttrValue* dtype = n.attr(is_arg ? "_handle_dtype" : "dtype");
  const AttrValue* shape = n.attr(is_arg ? "_handle_shape" : "shape");
  if (dtype == nullptr || dtype->kind != AttrValue::Kind::kType || shape == nullptr ||
      shape->kind != AttrValue::Kind::kShape)
    return d;
  d.dtype = dtype->type;
  d.shape = shape->shape;
  return d;
}

InferenceContext::HandleData Graph::OutputHandleData(Endpoint e) const {
  const auto& h = e.node->output_handles_;
  if (e.index >= 0 && static_cast<size_t>(e.index) < h.size() && h[e.index].dtype != DT_INVALID) return h[e.index];
  return e.index == 0 ? ResourceHandleData(*e.node) : InferenceContext::HandleData();
}

Status Graph::AddNode(NodeSpec spec, Node** out) {
  const std::string where = "[" + spec.name + "] ";
  if (!IsValidNodeName(spec.name))
    return InvalidArgument(where, "'", spec.name,
                           "' is not a valid node name (expected [A-Za-z0-9.][A-Za-z0-9_./>-]*)");
  const OpRegistration* reg = OpRegistry::Global()->LookUp(spec.op_type);
  if (reg == nullptr) return NotFound(where, "op type not registered: '", spec.op_type, "'");
  const OpDef& def = reg->def;

  auto node = std::make_unique<Node>();
  TX_RETURN_IF_ERROR(BindInputs(this, def, spec, &node->input_types_, &node->input_arg_starts_).WithPrefix(where));
  for (Node* c : spec.control_inputs)
    if (c == nullptr || c->graph() != this)
      return InvalidArgument(where, "control input ",
                             c ? "'" + c->name() + "' is from another graph" : std::string("is null"));
  for (const auto& kv : spec.attrs) {
    if (kv.first.empty() || kv.first[0] == '_') continue;  // internal attrs pass through
    if (def.FindAttr(kv.first) == nullptr)
      return InvalidArgument(where, "op ", def.name, " has no attr named '", kv.first, "'");
  }
  for (const AttrDef& a : def.attr) {
    auto it = spec.attrs.find(a.name);
    if (it == spec.attrs.end()) {
      if (!a.has_default) return InvalidArgument(where, "missing required attr '", a.name, "' of op ", def.name);
      spec.attrs[a.name] = a.default_value;
    } else {
      TX_RETURN_IF_ERROR(ValidateAttrValue(a, it->second).WithPrefix(where));
    }
  }
  TX_RETURN_IF_ERROR(
      ResolveOutputs(def, spec.attrs, &node->output_types_, &node->output_arg_starts_).WithPrefix(where));

  // Shape inference, with constant inputs visible to the shape function.
  std::vector<PartialShape> in_shapes;
  std::vector<const Tensor*> in_consts;
  std::vector<InferenceContext::HandleData> in_handles;
  std::vector<Endpoint> flat_inputs;
  for (const NodeSpec::InputArg& a : spec.inputs)
    for (const Endpoint& e : a.values) flat_inputs.push_back(e);
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const Endpoint& e : flat_inputs) {
      in_shapes.push_back(e.node->output_shapes_[e.index]);
      const AttrValue* v = e.node->op_type() == "Const" ? e.node->attr("value") : nullptr;
      in_consts.push_back(v && v->kind == AttrValue::Kind::kTensor ? &v->tensor : nullptr);
      in_handles.push_back(OutputHandleData(e));
    }
  }
  InferenceContext ctx(def, spec.attrs, in_shapes, in_consts, static_cast<int>(node->output_types_.size()));
  ctx.set_input_handle_data(std::move(in_handles));
  ctx.set_function_library(library_.get());
  if (reg->shape_fn != nullptr) {
    Status s = reg->shape_fn(&ctx);
    if (!s.ok()) {
      std::string shapes;
      for (const PartialShape& p : in_shapes) shapes += (shapes.empty() ? "" : ", ") + p.ToString();
      return Status(s.code(), where + s.message() + " (op " + def.name + ", input shapes: " + shapes + ")");
    }
  }

  node->graph_ = this;
  node->name_ = spec.name;
  node->device_ = spec.device;
  node->reg_ = reg;
  node->attrs_ = std::move(spec.attrs);
  node->inputs_ = std::move(flat_inputs);
  node->control_inputs_ = std::move(spec.control_inputs);
  node->output_shapes_ = std::move(ctx.outputs());
  node->output_handles_ = std::move(ctx.output_handle_data());
  node->consumers_.resize(node->output_types_.size());

  std::lock_guard<std::mutex> l(mu_);
  if (by_name_.count(node->name_))
    return AlreadyExists(where, "a node named '", node->name_, "' already exists in the graph");
  node->id_ = static_cast<int>(nodes_.size());
  for (int i = 0; i < node->num_inputs(); ++i)
    node->inputs_[i].node->consumers_[node->inputs_[i].index].push_back({node.get(), i});
  for (Node* c : node->control_inputs_) c->control_outputs_.push_back(node.get());
  Node* raw = node.get();
  by_name_[raw->name_] = raw;
  raw->reserved_name_ = names_in_use_.emplace(Lower(raw->name_), 1).second;
  nodes_.push_back(std::move(node));
  *out = raw;
  return Status::OK();
}

}  // namespace tx

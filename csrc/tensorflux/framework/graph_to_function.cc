// GraphToFunctionDef (graph_to_function.h).
//
// Note [Graph to function]
// Follows TensorFlow's TF_GraphToFunction so that a function built here reads like one built
// there:
// - The body is `body_nodes`, or every node reached walking back from the outputs and control
//   outputs along data and control edges, stopping at input tensors. Body nodes keep creation
//   order (a topological order). A reached Placeholder or _Arg that is not an input is an
//   error: it could never be fed. With explicit body nodes, control inputs from nodes outside
//   the body are dropped; data inputs from outside must be inputs.
// - Names: output arguments are named first (given names, or the normalized name of the node
//   producing the output), then input arguments (the normalized producer name), then body nodes
//   keep their names; each is made unique among all names used so far by appending "_0", "_1",
//   ... Normalizing lowercases letters, turns other characters into '_' and drops everything
//   before the first letter ("unknown" if there is none).
// - Body inputs use function-body naming (Note [Function body naming]); an output that is an
//   input tensor returns the input argument. Each input argument records its static shape in
//   arg_attr "_output_shapes". The signature is stateful when a body node is.
// - With append_hash the name gets "_" and 16 hex digits of a fingerprint of the definition
//   (TensorFlow appends a different, base64 encoding of its own hash).
#include "tensorflux/framework/graph_to_function.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>

namespace tx {
namespace {

std::string Normalize(const std::string& name) {
  std::string s = name;
  for (char& c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    c = std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '_';
  }
  size_t first = 0;
  while (first < s.size() && !std::isalpha(static_cast<unsigned char>(s[first]))) ++first;
  return first == s.size() ? "unknown" : s.substr(first);
}

// Hands out names unique among those used so far: "name", else "name_0", "name_1", ...
class NameSet {
 public:
  std::string Unique(const std::string& name) {
    auto it = used_.emplace(name, 0);
    if (it.second) return name;
    for (;;) {
      std::string candidate = name + "_" + std::to_string(it.first->second++);
      if (used_.emplace(candidate, 0).second) return candidate;
    }
  }
  bool Use(const std::string& name) { return used_.emplace(name, 0).second; }

 private:
  std::map<std::string, int> used_;
};

using EndpointKey = std::pair<int, int>;  // (node id, output index)
EndpointKey Key(const Endpoint& e) { return {e.node->id(), e.index}; }

Status CheckTensor(const Graph& g, const Endpoint& e, const char* what, size_t i) {
  if (e.node == nullptr) return InvalidArgument(what, " ", i, " is null");
  if (e.node->graph() != &g) return InvalidArgument(what, " ", i, " ('", e.node->name(), "') is from another graph");
  if (e.index < 0 || e.index >= e.node->num_outputs())
    return InvalidArgument(what, " ", i, " refers to output ", e.index, " of '", e.node->name(), "', which has ",
                           e.node->num_outputs(), " outputs");
  return Status::OK();
}

// The body: explicit nodes, or the nodes between the inputs and the outputs.
Status CollectBody(const Graph& g, const GraphToFunctionSpec& spec, const std::map<EndpointKey, int>& input_index,
                   std::vector<char>* in_body) {
  in_body->assign(g.num_nodes(), 0);
  if (spec.use_body_nodes) {
    for (Node* n : spec.body_nodes) {
      if (n == nullptr || n->graph() != &g) return InvalidArgument("a body operation is null or from another graph");
      (*in_body)[n->id()] = 1;
    }
    return Status::OK();
  }
  std::vector<const Node*> stack;
  auto visit = [&](const Node* n) {
    if (!(*in_body)[n->id()]) {
      (*in_body)[n->id()] = 1;
      stack.push_back(n);
    }
  };
  for (const Endpoint& e : spec.outputs)
    if (!input_index.count(Key(e))) visit(e.node);
  for (const Node* n : spec.control_outputs) visit(n);
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const Endpoint& in : n->inputs())
      if (!input_index.count(Key(in))) visit(in.node);
    for (const Node* c : n->control_inputs()) visit(c);
  }
  return Status::OK();
}

// "node:out_arg:k" for output `index` of a body node.
std::string BodyTensorName(const Node& n, const std::string& name, int index) {
  const std::vector<ArgDef>& args = n.op_def().output_arg;
  for (const ArgDef& a : args) {
    int start = 0, stop = 0;
    if (n.OutputRange(a.name, &start, &stop) && index >= start && index < stop)
      return name + ":" + a.name + ":" + std::to_string(index - start);
  }
  return name + ":" + std::to_string(index);
}

}  // namespace

void NameByFingerprint(const std::string& base, FunctionDef* f) {
  f->signature.name = base;
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(Fingerprint64(SerializeFunctionDef(*f))));
  f->signature.name = base + "_" + hex;
}

Status GraphToFunctionDef(const Graph& g, const GraphToFunctionSpec& spec, FunctionDef* out) {
  if (!spec.output_names.empty() && spec.output_names.size() != spec.outputs.size())
    return InvalidArgument("got ", spec.output_names.size(), " output names for ", spec.outputs.size(), " outputs");
  if (!spec.control_output_names.empty() && spec.control_output_names.size() != spec.control_outputs.size())
    return InvalidArgument("got ", spec.control_output_names.size(), " control output names for ",
                           spec.control_outputs.size(), " control outputs");
  std::map<EndpointKey, int> input_index;
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    TX_RETURN_IF_ERROR(CheckTensor(g, spec.inputs[i], "input", i));
    if (!input_index.emplace(Key(spec.inputs[i]), static_cast<int>(i)).second)
      return InvalidArgument("input ", i, " ('", spec.inputs[i].node->name(), ":", spec.inputs[i].index,
                             "') is listed twice");
  }
  for (size_t i = 0; i < spec.outputs.size(); ++i) TX_RETURN_IF_ERROR(CheckTensor(g, spec.outputs[i], "output", i));
  for (const Node* n : spec.control_outputs)
    if (n == nullptr || n->graph() != &g) return InvalidArgument("a control output is null or from another graph");
  std::vector<char> in_body;
  TX_RETURN_IF_ERROR(CollectBody(g, spec, input_index, &in_body));
  for (const Node* n : spec.control_outputs)
    if (!in_body[n->id()]) return InvalidArgument("control output '", n->name(), "' is not in the function body");
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    const Endpoint& e = spec.outputs[i];
    if (!input_index.count(Key(e)) && !in_body[e.node->id()])
      return InvalidArgument("output ", i, " ('", e.node->name(), ":", e.index,
                             "') is neither a function input nor computed in the function body");
  }

  FunctionDef f;
  NameSet names;
  std::vector<std::string> out_names, in_names;
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    if (spec.output_names.empty()) {
      out_names.push_back(names.Unique(Normalize(spec.outputs[i].node->name())));
    } else if (spec.output_names[i].empty() || !names.Use(spec.output_names[i])) {
      return InvalidArgument("output name '", spec.output_names[i], "' is empty or used twice");
    } else {
      out_names.push_back(spec.output_names[i]);
    }
  }
  for (const Endpoint& e : spec.inputs) in_names.push_back(names.Unique(Normalize(e.node->name())));
  std::map<int, std::string> body_name;  // node id -> name in the body
  std::vector<Node*> all = g.Nodes();
  for (Node* n : all)
    if (in_body[n->id()]) body_name[n->id()] = names.Unique(n->name());

  auto tensor_name = [&](const Endpoint& e) -> std::string {
    auto it = input_index.find(Key(e));
    if (it != input_index.end()) return in_names[it->second];
    return BodyTensorName(*e.node, body_name.at(e.node->id()), e.index);
  };
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    ArgDef a;
    a.name = in_names[i];
    a.type = spec.inputs[i].node->output_type(spec.inputs[i].index);
    f.signature.input_arg.push_back(a);
    AttrValue shapes = AttrValue::EmptyList();
    shapes.list.shape.push_back(g.OutputShape(spec.inputs[i]));
    f.arg_attr[static_cast<uint32_t>(i)]["_output_shapes"] = shapes;
  }
  for (Node* n : all) {
    if (!in_body[n->id()]) continue;
    if (n->op_type() == "Placeholder" || n->op_type() == "_Arg")
      return InvalidArgument("[", n->name(), "] ", n->op_type(),
                             " is reached from the function's outputs but is not one of its inputs");
    codec::NodeDefProto nd;
    nd.name = body_name[n->id()];
    nd.op = n->op_type();
    nd.device = n->requested_device();
    nd.attr = n->attrs();
    for (const Endpoint& in : n->inputs()) {
      if (!input_index.count(Key(in)) && !in_body[in.node->id()])
        return InvalidArgument("[", n->name(), "] reads '", in.node->name(), ":", in.index,
                               "', which is neither a function input nor computed in the function body");
      nd.input.push_back(tensor_name(in));
    }
    for (const Node* c : n->control_inputs())
      if (in_body[c->id()]) nd.input.push_back("^" + body_name[c->id()]);
    f.signature.is_stateful = f.signature.is_stateful || n->op_def().is_stateful;
    f.node_def.push_back(std::move(nd));
  }
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    ArgDef a;
    a.name = out_names[i];
    a.type = spec.outputs[i].node->output_type(spec.outputs[i].index);
    f.signature.output_arg.push_back(a);
    f.ret[out_names[i]] = tensor_name(spec.outputs[i]);
  }
  for (size_t i = 0; i < spec.control_outputs.size(); ++i) {
    const Node* n = spec.control_outputs[i];
    const std::string name = spec.control_output_names.empty() ? n->name() : spec.control_output_names[i];
    if (f.control_ret.count(name)) return InvalidArgument("control output name '", name, "' is used twice");
    f.signature.control_output.push_back(name);
    f.control_ret[name] = body_name[n->id()];
  }
  f.signature.description = spec.description;
  f.signature.name = spec.name;
  if (spec.append_hash) NameByFingerprint(spec.name, &f);
  TX_RETURN_IF_ERROR(ValidateFunctionDef(f));
  *out = std::move(f);
  return Status::OK();
}

}  // namespace tx

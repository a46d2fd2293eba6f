// ImportGraphDef: serialized GraphDef -> nodes of a Graph, all or nothing.
//
// Note [GraphDef import]
// 1. Decode the bytes and check versions (min_consumer, bad_consumers); merge the function
//    library into the graph's (a function whose name is taken by a different body fails).
// 2. Validate every NodeDef before touching the graph: unique names, registered ops (a node whose
//    op is a library function gets Unimplemented), parsed inputs ("name", "name:k", then "^name"), input_map /
//    control_map substitutions, and per-input-arg grouping from the OpDef (number_attr,
//    type_list_attr, or one tensor).
// 3. Order the nodes with Kahn's algorithm over the unmapped data and control edges (a min-heap
//    on GraphDef position keeps an already sorted GraphDef in its order); leftovers form a cycle.
// 4. Choose final names (prefix, uniquify) without reserving any, then AddNode each node, which
//    fills defaults, validates attrs and infers shapes.
// 5. On any failure Graph::RollbackTo restores the graph exactly and the functions the import
//    added are removed again; on success the versions (for a previously empty graph) and a
//    uniquified prefix are recorded.
#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>
#include <queue>
#include <set>
#include <unordered_map>

#include "tensorflux/framework/functionalize.h"
#include "tensorflux/framework/graph_def_io.h"
#include "tensorflux/framework/proto_codec.h"

namespace tx {

namespace {

using codec::NodeDefProto;

// Oldest GraphDef producer version this engine reads (TensorFlow's is 0 as well).
constexpr int kGraphDefMinProducer = 0;

std::string Lower(const std::string& s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// One NodeDef input string, parsed: "name", "name:k" or "^name".
struct InputRef {
  std::string node;
  int index = 0;
  bool control = false;
  // Where it comes from: mapped (input_map / control_map) or a node of the GraphDef.
  bool mapped = false;
  Endpoint mapped_endpoint;
  Node* mapped_node = nullptr;
  int source = -1;  // index in the GraphDef when not mapped
};

Status ParseInput(const std::string& s, InputRef* out) {
  return ParseGraphTensorName(s, &out->node, &out->index, &out->control);
}

}  // namespace

Status ParseGraphTensorName(const std::string& s, std::string* node, int* index, bool* control) {
  if (s.empty()) return InvalidArgument("has an empty input name");
  *control = false;
  *index = 0;
  if (s[0] == '^') {
    *control = true;
    *node = s.substr(1);
    *index = -1;
    if (node->empty()) return InvalidArgument("has a malformed control input '", s, "'");
    return Status::OK();
  }
  size_t colon = s.rfind(':');
  if (colon == std::string::npos) {
    *node = s;
    return Status::OK();
  }
  std::string digits = s.substr(colon + 1);
  *node = s.substr(0, colon);
  if (node->empty() || digits.empty() || digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return InvalidArgument("has a malformed input '", s, "' (expected 'name', 'name:k' or '^name')");
  *index = std::stoi(digits);
  return Status::OK();
}

namespace {

class Importer {
 public:
  // `moved` names, for nodes that functionalization moved into a function, the node holding them.
  Importer(const codec::GraphDefProto& gd, const ImportOptions& opts, Graph* graph,
           const std::map<std::string, std::string>& moved)
      : gd_(gd), nodes_(gd.node), opts_(opts), graph_(graph), n_(static_cast<int>(gd.node.size())), moved_(moved) {}

  // Validates and adds every node; on error nothing has been added.
  Status Run(ImportResults* results);

 private:
  Status IndexNodes();
  Status ResolveInputs();
  Status GroupInputs();
  Status TopologicalOrder();
  void ChooseNames();
  Status AddNodes();
  Status AddOneNode(int i);
  Status CollectResults(ImportResults* results);
  std::string Where(int i) const { return "[" + nodes_[i].name + "] "; }
  std::string MovedHint(const std::string& name) const {
    auto it = moved_.find(name);
    return it == moved_.end() ? std::string()
                              : " (it is inside lowered control flow that import rebuilt as '" + it->second +
            "'; values inside a loop or cond cannot be returned)";
  }

  const codec::GraphDefProto& gd_;
  const std::vector<NodeDefProto>& nodes_;
  const ImportOptions& opts_;
  Graph* graph_;
  const int n_;
  const std::map<std::string, std::string>& moved_;
  std::unordered_map<std::string, int> index_;  // GraphDef name -> position
  std::vector<std::vector<InputRef>> inputs_;  // per node, data inputs then control inputs
  std::vector<std::vector<int>> arg_sizes_;  // per node, tensors per OpDef input arg
  std::vector<const OpRegistration*> regs_;
  std::vector<int> order_;  // topological order of positions
  std::vector<std::string> final_names_;
  std::vector<Node*> created_;
  std::set<std::pair<std::string, int>> used_input_map_;
  std::string prefix_;  // with its trailing '/', or empty
  std::string chosen_prefix_;  // uniquified prefix to reserve on success
};

Status Importer::IndexNodes() {
  regs_.resize(n_);
  for (int i = 0; i < n_; ++i) {
    if (!index_.emplace(nodes_[i].name, i).second)
      return InvalidArgument(Where(i), "duplicate node name '", nodes_[i].name, "' in GraphDef");
    regs_[i] = OpRegistry::Global()->LookUp(nodes_[i].op);
    if (regs_[i] != nullptr) continue;
    if (graph_->library().Find(nodes_[i].op) != nullptr)
      return Unimplemented(Where(i), "op '", nodes_[i].op,
                           "' is a function of the library; a node calling a function directly by its name is "
                           "not supported (call it through PartitionedCall or StatefulPartitionedCall)");
    return NotFound(Where(i), "op type not registered: '", nodes_[i].op, "'");
  }
  return Status::OK();
}

Status Importer::ResolveInputs() {
  inputs_.resize(n_);
  for (int i = 0; i < n_; ++i) {
    bool seen_control = false;
    for (const std::string& s : nodes_[i].input) {
      InputRef in;
      TX_RETURN_IF_ERROR(ParseInput(s, &in).WithPrefix(Where(i)));
      if (!in.control && seen_control)
        return InvalidArgument(Where(i), "data input '", s, "' follows a control input; data inputs must come first");
      seen_control = seen_control || in.control;
      if (in.control) {
        auto m = opts_.control_map.find(in.node);
        if (m != opts_.control_map.end()) {
          if (m->second == nullptr) return InvalidArgument(Where(i), "control_map maps '", in.node, "' to null");
          in.mapped = true;
          in.mapped_node = m->second;
        }
      } else {
        auto m = opts_.input_map.find({in.node, in.index});
        if (m != opts_.input_map.end()) {
          if (m->second.node == nullptr)
            return InvalidArgument(Where(i), "input_map maps '", s, "' to a null operation");
          in.mapped = true;
          in.mapped_endpoint = m->second;
          used_input_map_.insert(m->first);
        }
      }
      if (!in.mapped) {
        auto src = index_.find(in.node);
        if (src == index_.end())
          return InvalidArgument(Where(i), "input '", s, "' refers to unknown node '", in.node, "'");
        in.source = src->second;
      }
      inputs_[i].push_back(std::move(in));
    }
  }
  return Status::OK();
}

// The value of an attr a NodeDef names (or its OpDef default), or nullptr.
const AttrValue* AttrOrDefault(const NodeDefProto& nd, const OpDef& def, const std::string& name) {
  auto it = nd.attr.find(name);
  if (it != nd.attr.end()) return &it->second;
  const AttrDef* a = def.FindAttr(name);
  return a != nullptr && a->has_default ? &a->default_value : nullptr;
}

Status Importer::GroupInputs() {
  arg_sizes_.resize(n_);
  for (int i = 0; i < n_; ++i) {
    const OpDef& def = regs_[i]->def;
    const NodeDefProto& nd = nodes_[i];
    int64_t num_data = 0;
    for (const InputRef& in : inputs_[i]) num_data += in.control ? 0 : 1;
    int64_t expected = 0;
    std::string args;
    for (const ArgDef& arg : def.input_arg) {
      int64_t size = 1;
      if (!arg.number_attr.empty()) {
        const AttrValue* v = AttrOrDefault(nd, def, arg.number_attr);
        if (v == nullptr || v->kind != AttrValue::Kind::kInt)
          return InvalidArgument(Where(i), "int attr '", arg.number_attr, "' (the length of input '", arg.name,
                                 "') is missing");
        size = v->i;
      } else if (!arg.type_list_attr.empty()) {
        const AttrValue* v = AttrOrDefault(nd, def, arg.type_list_attr);
        if (v == nullptr || v->kind != AttrValue::Kind::kList)
          return InvalidArgument(Where(i), "list(type) attr '", arg.type_list_attr, "' (the types of input '", arg.name,
                                 "') is missing");
        size = static_cast<int64_t>(v->list.type.size());
      }
      if (size < 0) return InvalidArgument(Where(i), "input '", arg.name, "' has negative length ", size);
      size = std::min<int64_t>(size, std::numeric_limits<int32_t>::max());  // keeps the sum from overflowing
      expected += size;
      arg_sizes_[i].push_back(static_cast<int>(size));
      args += (args.empty() ? "" : ", ") + arg.name +
          (arg.number_attr.empty() && arg.type_list_attr.empty() ? std::string() : "[" + std::to_string(size) + "]");
    }
    for (const ArgDef& arg : def.output_arg) {
      if (arg.number_attr.empty()) continue;
      const AttrValue* v = AttrOrDefault(nd, def, arg.number_attr);
      if (v != nullptr && v->kind == AttrValue::Kind::kInt && v->i > kMaxArgLength)
        return InvalidArgument(Where(i), "attr '", arg.number_attr, "' asks for ", v->i, " outputs in '", arg.name,
                               "'; at most ", kMaxArgLength, " are supported");
    }
    if (expected != num_data)
      return InvalidArgument(Where(i), "op ", def.name, " expects ", expected, " data inputs (", args,
                             ") but the NodeDef has ", num_data);
  }
  return Status::OK();
}

Status Importer::TopologicalOrder() {
  std::vector<int> pending(n_, 0);
  std::vector<std::vector<int>> out_edges(n_);
  for (int i = 0; i < n_; ++i) {
    for (const InputRef& in : inputs_[i]) {
      if (in.mapped) continue;
      out_edges[in.source].push_back(i);
      ++pending[i];
    }
  }
  // A min-heap on GraphDef position keeps an already sorted GraphDef in its own order.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n_; ++i)
    if (pending[i] == 0) ready.push(i);
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order_.push_back(i);
    for (int j : out_edges[i])
      if (--pending[j] == 0) ready.push(j);
  }
  if (static_cast<int>(order_.size()) == n_) return Status::OK();
  // Walk back along unfinished inputs from an unfinished node until a node repeats: it is on a cycle.
  int cur = 0;
  while (pending[cur] == 0) ++cur;
  std::vector<bool> seen(n_, false);
  while (!seen[cur]) {
    seen[cur] = true;
    for (const InputRef& in : inputs_[cur]) {
      if (!in.mapped && pending[in.source] > 0) {
        cur = in.source;
        break;
      }
    }
  }
  return InvalidArgument("[", nodes_[cur].name, "] graph contains a cycle involving node '", nodes_[cur].name, "'");
}

void Importer::ChooseNames() {
  std::string prefix = opts_.prefix;
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (!prefix.empty() && opts_.uniquify_prefix) {
    std::vector<Node*> existing = graph_->Nodes();
    auto prefix_in_use = [&](const std::string& p) {
      if (graph_->IsNameUsed(p)) return true;
      const std::string lp = Lower(p) + "/";
      for (const Node* node : existing)
        if (Lower(node->name()).compare(0, lp.size(), lp) == 0) return true;
      return false;
    };
    std::string candidate = prefix;
    for (int k = 1; prefix_in_use(candidate); ++k) candidate = prefix + "_" + std::to_string(k);
    prefix = candidate;
    chosen_prefix_ = candidate;
  }
  prefix_ = prefix.empty() ? std::string() : prefix + "/";

  final_names_.resize(n_);
  std::set<std::string> taken;  // lowercase names the import will use
  for (int i = 0; i < n_; ++i) {
    final_names_[i] = prefix_ + nodes_[i].name;
    taken.insert(Lower(final_names_[i]));
  }
  if (!opts_.uniquify_names) return;
  for (int i = 0; i < n_; ++i) {
    if (!graph_->IsNameUsed(final_names_[i])) continue;
    const std::string base = final_names_[i];
    std::string candidate;
    for (int k = 1;; ++k) {
      candidate = base + "_" + std::to_string(k);
      if (!graph_->IsNameUsed(candidate) && !taken.count(Lower(candidate))) break;
    }
    taken.insert(Lower(candidate));
    final_names_[i] = candidate;
  }
}

Status Importer::AddOneNode(int i) {
  const NodeDefProto& nd = nodes_[i];
  NodeSpec spec;
  spec.name = final_names_[i];
  spec.op_type = nd.op;
  spec.device = nd.device.empty() ? opts_.default_device : nd.device;
  spec.attrs = nd.attr;

  // Before GraphDef version 22 a Placeholder's scalar `shape` meant "unknown shape".
  const int producer = gd_.has_versions ? gd_.versions.producer : 0;
  if (nd.op == "Placeholder" && producer <= 21) {
    auto it = spec.attrs.find("shape");
    if (it != spec.attrs.end() && it->second.kind == AttrValue::Kind::kShape && it->second.shape.rank() == 0)
      it->second.shape = PartialShape::Unknown();
  }
  // Colocation constraints name nodes: follow their renaming.
  auto cls = spec.attrs.find("_class");
  if (cls != spec.attrs.end() && cls->second.kind == AttrValue::Kind::kList) {
    for (std::string& s : cls->second.list.s) {
      if (s.compare(0, 5, "loc:@") != 0) continue;
      auto src = index_.find(s.substr(5));
      if (src != index_.end()) s = "loc:@" + final_names_[src->second];
    }
  }

  bool has_internal_input = false;
  size_t next = 0;
  const std::vector<InputRef>& ins = inputs_[i];
  const OpDef& def = regs_[i]->def;
  for (size_t a = 0; a < def.input_arg.size(); ++a) {
    NodeSpec::InputArg arg;
    arg.is_list = !def.input_arg[a].number_attr.empty() || !def.input_arg[a].type_list_attr.empty();
    for (int k = 0; k < arg_sizes_[i][a]; ++k, ++next) {
      const InputRef& in = ins[next];
      if (in.mapped) {
        arg.values.push_back(in.mapped_endpoint);
      } else {
        arg.values.push_back(Endpoint{created_[in.source], in.index});
        has_internal_input = true;
      }
    }
    spec.inputs.push_back(std::move(arg));
  }
  for (; next < ins.size(); ++next) {
    const InputRef& in = ins[next];
    Node* c = in.mapped ? in.mapped_node : created_[in.source];
    has_internal_input = has_internal_input || !in.mapped;
    if (std::find(spec.control_inputs.begin(), spec.control_inputs.end(), c) == spec.control_inputs.end())
      spec.control_inputs.push_back(c);
  }
  if (!has_internal_input) {
    for (Node* c : opts_.control_dependencies)
      if (std::find(spec.control_inputs.begin(), spec.control_inputs.end(), c) == spec.control_inputs.end())
        spec.control_inputs.push_back(c);
  }
  Node* node = nullptr;
  TX_RETURN_IF_ERROR(graph_->AddNode(std::move(spec), &node));
  created_[i] = node;
  return Status::OK();
}

Status Importer::AddNodes() {
  created_.assign(n_, nullptr);
  for (int i : order_) TX_RETURN_IF_ERROR(AddOneNode(i));
  return Status::OK();
}

Status Importer::CollectResults(ImportResults* results) {
  ImportResults r;
  for (const auto& want : opts_.return_outputs) {
    auto m = opts_.input_map.find(want);
    if (m != opts_.input_map.end()) {
      r.return_outputs.push_back(m->second);
      continue;
    }
    auto it = index_.find(want.first);
    if (it == index_.end())
      return NotFound("requested return output '", want.first, ":", want.second, "' names no node of the GraphDef",
                      MovedHint(want.first));
    Node* node = created_[it->second];
    if (want.second < 0 || want.second >= node->num_outputs())
      return InvalidArgument("[", node->name(), "] requested return output ", want.second, " but the node has ",
                             node->num_outputs(), " outputs");
    r.return_outputs.push_back(Endpoint{node, want.second});
  }
  for (const std::string& name : opts_.return_operations) {
    auto it = index_.find(name);
    if (it == index_.end())
      return NotFound("requested return operation '", name, "' names no node of the GraphDef", MovedHint(name));
    r.return_operations.push_back(created_[it->second]);
  }
  for (const auto& kv : opts_.input_map)
    if (!used_input_map_.count(kv.first)) r.missing_unused_input_mappings.push_back(kv.first);
  if (results != nullptr) *results = std::move(r);
  return Status::OK();
}

Status Importer::Run(ImportResults* results) {
  TX_RETURN_IF_ERROR(IndexNodes());
  TX_RETURN_IF_ERROR(ResolveInputs());
  TX_RETURN_IF_ERROR(GroupInputs());
  TX_RETURN_IF_ERROR(TopologicalOrder());
  ChooseNames();
  const int start = graph_->num_nodes();
  Status s = AddNodes();
  ImportResults r;
  if (s.ok()) s = CollectResults(&r);
  if (!s.ok()) {
    graph_->RollbackTo(start);
    return s;
  }
  if (!chosen_prefix_.empty()) graph_->UniqueName(chosen_prefix_);
  if (results != nullptr) *results = std::move(r);
  return Status::OK();
}

}  // namespace

Status ImportGraphDef(const std::string& bytes, const ImportOptions& opts, Graph* graph, ImportResults* results) {
  if (graph == nullptr) return InvalidArgument("ImportGraphDef needs a graph");
  codec::GraphDefProto gd;
  Status s = codec::DecodeGraphDef(bytes, &gd);
  if (!s.ok()) return s.message().rfind('[', 0) == 0 ? s : s.WithPrefix("malformed GraphDef: ");

  const codec::VersionDefProto& v = gd.versions;
  if (v.producer < kGraphDefMinProducer)
    return InvalidArgument("GraphDef producer version ", v.producer, " is below the oldest supported version ",
                           kGraphDefMinProducer);
  if (v.min_consumer > kGraphDefVersion)
    return InvalidArgument("GraphDef min_consumer version ", v.min_consumer,
                           " is above this engine's GraphDef version ", kGraphDefVersion,
                           "; the graph needs a newer consumer");
  for (int32_t bad : v.bad_consumers)
    if (bad == kGraphDefVersion)
      return InvalidArgument("GraphDef lists this engine's GraphDef version ", kGraphDefVersion, " in bad_consumers");
  // The library is merged first (its functions must be there when call nodes infer their shapes)
  // and taken out again if the nodes fail to import (Note [GraphDef import], step 5).
  FunctionLibrary::Added added;
  if (!gd.library.empty()) {
    FunctionDefLibraryProto lib;
    Status ls = ParseFunctionDefLibrary(gd.library, &lib);
    if (!ls.ok()) return ls.WithPrefix("malformed GraphDef library: ");
    TX_RETURN_IF_ERROR(graph->library().MergeFrom(lib, &added).WithPrefix("GraphDef library: "));
  }

  // Lowered control flow becomes While/If/Case calling new functions (Note [Functionalize control flow]).
  std::map<std::string, std::string> moved;
  if (HasLoweredControlFlow(gd)) {
    functionalize::ExternalNodes external;
    external.tensor_type = [&opts](const std::string& name, int index) {
      auto it = opts.input_map.find({name, index});
      return it == opts.input_map.end() || it->second.node == nullptr || it->second.index < 0 ||
              it->second.index >= it->second.node->num_outputs()
          ? DT_INVALID
          : it->second.node->output_type(it->second.index);
    };
    external.has_control = [&opts](const std::string& name) { return opts.control_map.count(name) > 0; };
    FunctionDefLibraryProto made;
    Status fs = FunctionalizeControlFlow(graph->library(), external, &gd, &made.function, &moved);
    FunctionLibrary::Added more;
    if (fs.ok()) fs = graph->library().MergeFrom(made, &more).WithPrefix("lowered control flow: ");
    if (!fs.ok()) {
      graph->library().Remove(added);
      return fs;
    }
    added.functions.insert(added.functions.end(), more.functions.begin(), more.functions.end());
  }

  const bool was_empty = graph->num_nodes() == 0;
  Importer importer(gd, opts, graph, moved);
  Status s_run = importer.Run(results);
  if (!s_run.ok()) {
    graph->library().Remove(added);
    return s_run;
  }
  if (was_empty && gd.has_versions) graph->set_versions(v.producer, v.min_consumer);
  return Status::OK();
}

}  // namespace tx

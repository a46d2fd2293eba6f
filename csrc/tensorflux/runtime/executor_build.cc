// ExecutionPlan::Build: pruning, placement, plan rewrites (CSE, constant folding, Conv2D epilogues,
// loop fusion) and the wiring of value slots.
#include <algorithm>
#include <atomic>
#include <unordered_map>

#include "tensorflux/kernels/cpu/conv_epilogue.h"
#include "tensorflux/kernels/cpu/loop_fusion.h"
#include "tensorflux/passes/constant_folding.h"
#include "tensorflux/passes/conv_fusion.h"
#include "tensorflux/passes/cse.h"
#include "tensorflux/passes/loop_fusion.h"
#include "tensorflux/runtime/device.h"
#include "tensorflux/runtime/executor.h"

// Note [Plan cache]
// Session::Run looks up an ExecutionPlan by the (feeds, fetches, targets) signature. A plan holds
// the pruned node list in topological order, one kernel per node (constructed once, so attr
// parsing and kernel lookup are off the per-run path), the wiring of every input to a value slot,
// how many readers each slot has (so a tensor is released by its last reader) and the initial
// pending-input counts. A run copies nothing from the plan but the counters. Because the graph
// is append-only (Note [Append-only graph]), a plan never goes stale when nodes are added.
//
// Note [Replaced loops]
// The gradient of a While node W adds a second loop A that runs W's body on W's inputs and also
// pushes the intermediates the backward loop needs (Note [While gradients]); A carries the attr
// `_tx_replaces` naming W. Both compute the same first outputs, so when a plan needs both, W is
// left out and its consumers read A's outputs: the forward loop runs once. Only when A provably
// stands in for W (same loop op family, W's inputs as A's first inputs, W's output types as A's
// first output types, no fed output) is W replaced; otherwise both run. W's control inputs then
// hold A back.
// A then appears after some of W's consumers in the plan's node list, which is harmless: nodes
// run in dataflow order (pending counts), not list order.

namespace tx {
namespace {

std::atomic<bool> g_remapping{true};

bool IsWhile(const Node& n) { return n.op_type() == "While" || n.op_type() == "StatelessWhile"; }

// The node that W's `_tx_replaces` successor A stands in for, when A may replace it.
const Node* ReplacedLoop(const Graph& graph, const Node& a) {
  if (!IsWhile(a)) return nullptr;
  const AttrValue* target = a.attr("_tx_replaces");
  if (target == nullptr || target->kind != AttrValue::Kind::kString) return nullptr;
  const Node* w = graph.FindNode(target->s);
  if (w == nullptr || w == &a || !IsWhile(*w) || w->num_inputs() > a.num_inputs() || w->num_outputs() > a.num_outputs())
    return nullptr;
  for (int i = 0; i < w->num_inputs(); ++i)
    if (!(w->input(i) == a.input(i))) return nullptr;
  for (int k = 0; k < w->num_outputs(); ++k)
    if (w->output_type(k) != a.output_type(k)) return nullptr;
  return w;
}

// "name = Op(input, ...)": TensorFlow's timeline label of a node; `op` is the op type, or for a
// fused node the fused op and its members' types ("_FusedConv2D(Conv2D, BiasAdd)").
std::string TimelineLabel(const std::string& name, const std::string& op, const std::vector<Endpoint>& inputs) {
  std::string label = name + " = " + op + "(";
  for (size_t i = 0; i < inputs.size(); ++i) {
    label += (i ? ", " : "") + inputs[i].node->name();
    if (inputs[i].index != 0) label += ":" + std::to_string(inputs[i].index);
  }
  return label + ")";
}

// "fused_op(Type, Type, ...)" for the nodes a fused plan node runs.
std::string FusedOpLabel(const char* fused_op, const std::vector<const Node*>& nodes) {
  std::string label = std::string(fused_op) + "(";
  for (size_t i = 0; i < nodes.size(); ++i) label += (i ? ", " : "") + nodes[i]->op_type();
  return label + ")";
}

// The loop-fusion groups of a plan (Note [Loop fusion]), by graph node id.
struct LoopGroups {
  std::vector<std::vector<int>> groups;  // member ids, ascending (a topological order)
  std::vector<int> group_of;  // per id: its group, or -1
  std::vector<char> exported;  // per id: the member's value is read outside its group
};

// Groups the plan's canonical, unfolded CPU nodes that the loop kernel computes (not already in a
// Conv2D epilogue) with FindFusionGroups, and marks the members whose values leave their group.
template <typename IsFed, typename Unit, typename ControlsOf>
LoopGroups FindLoopGroups(const Graph& graph, const std::vector<char>& needed, const std::vector<int>& canon,
                          const std::vector<std::vector<Tensor>>& folded, const std::vector<int>& fused_into,
                          const std::vector<std::string>& device_types, const std::vector<Endpoint>& fetches,
                          const IsFed& is_fed, const Unit& unit, const ControlsOf& controls_of) {
  LoopGroups out;
  out.group_of.assign(needed.size(), -1);
  out.exported.assign(needed.size(), 0);
  std::vector<int> ids, pos(needed.size(), -1);
  for (size_t id = 0; id < needed.size(); ++id) {
    if (!needed[id] || canon[id] != static_cast<int>(id)) continue;
    pos[id] = static_cast<int>(ids.size());
    ids.push_back(static_cast<int>(id));
  }
  std::vector<FusionNode> nodes(ids.size());
  int fusible = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    const int id = ids[i];
    if (!folded[id].empty()) continue;  // a constant: no inputs in the plan
    const Node* n = graph.node(id);
    FusionNode& f = nodes[i];
    f.fusible = fused_into[id] < 0 && device_types[id] == kDeviceCPU && cpu::LoopFusible(*n);
    if (f.fusible) {
      f.dtype = n->output_type(0);
      f.shape = graph.OutputShape({graph.node(id), 0});
      ++fusible;
    }
    for (const Endpoint& in : n->inputs()) f.data_inputs.push_back(is_fed(in) ? -1 : pos[unit(in.node)]);
    for (const Node* c : controls_of(n)) f.control_inputs.push_back(pos[unit(c)]);
  }
  if (fusible < 2) return out;
  for (std::vector<int>& group : FindFusionGroups(nodes)) {
    for (int& m : group) {
      m = ids[m];
      out.group_of[m] = static_cast<int>(out.groups.size());
    }
    out.groups.push_back(std::move(group));
  }
  for (int id : ids) {
    if (!folded[id].empty()) continue;
    for (const Endpoint& in : graph.node(id)->inputs()) {
      if (is_fed(in)) continue;
      const int p = unit(in.node);
      if (out.group_of[p] >= 0 && out.group_of[p] != out.group_of[id]) out.exported[p] = 1;
    }
  }
  for (const Endpoint& e : fetches)
    if (!is_fed(e) && out.group_of[unit(e.node)] >= 0) out.exported[unit(e.node)] = 1;
  for (const std::vector<int>& group : out.groups)  // a group run only for its effects still has an output
    if (std::none_of(group.begin(), group.end(), [&](int m) { return out.exported[m] != 0; }))
      out.exported[group.back()] = 1;
  return out;
}

// A loop-fusion group as one plan node: a _FusedElementwise node in the plan's own graph with one
// input per distinct value the members read from outside the group and one output per exported
// member, and its kernel.
struct FusedLoop {
  const Node* node = nullptr;
  std::unique_ptr<OpKernel> kernel;
  std::string op_label;  // "_FusedElementwise(Mul, AddV2, ...)"
  std::vector<Endpoint> externals;  // the node's inputs, as graph endpoints
  std::vector<const Node*> controls;  // the members' control inputs from outside the group
  std::vector<int> exported;  // member ids, in output order
};

template <typename IsFed, typename Unit, typename ControlsOf>
Status MakeFusedLoop(const Graph& graph, const LoopGroups& loops, int g, const IsFed& is_fed, const Unit& unit,
                     const ControlsOf& controls_of, Graph* fused_graph, FusedLoop* out) {
  const std::vector<int>& group = loops.groups[g];
  cpu::LoopFusionSpec spec;
  for (int m : group) {
    const Node* member = graph.node(m);
    spec.members.push_back(member);
    std::vector<int> operands;
    for (const Endpoint& in : member->inputs()) {
      const int p = is_fed(in) ? -1 : unit(in.node);
      if (p >= 0 && loops.group_of[p] == g) {
        operands.push_back(static_cast<int>(std::find(group.begin(), group.end(), p) - group.begin()));
        continue;
      }
      // One external input per distinct value: a feed, or a canonical endpoint.
      const Endpoint ext = p < 0 ? in : Endpoint{graph.node(p), in.index};
      auto it = std::find(out->externals.begin(), out->externals.end(), ext);
      if (it == out->externals.end()) {
        out->externals.push_back(ext);
        spec.external_shapes.push_back(graph.OutputShape(ext));
        it = out->externals.end() - 1;
      }
      operands.push_back(-1 - static_cast<int>(it - out->externals.begin()));
    }
    spec.operands.push_back(std::move(operands));
    for (const Node* c : controls_of(member))
      if (loops.group_of[unit(c)] != g) out->controls.push_back(c);
  }
  AttrValue tout = AttrValue::EmptyList();
  for (size_t k = 0; k < group.size(); ++k) {
    if (!loops.exported[group[k]]) continue;
    spec.exported.push_back(static_cast<int>(k));
    out->exported.push_back(group[k]);
    tout.list.type.push_back(spec.members[k]->output_type(0));
  }
  // The fused node, named after the last value it exports, reading one placeholder per external.
  NodeSpec fs;
  fs.name = fused_graph->UniqueName(graph.node(out->exported.back())->name());
  fs.op_type = "_FusedElementwise";
  NodeSpec::InputArg arg;
  arg.is_list = true;
  for (const Endpoint& e : out->externals) {
    NodeSpec ph;
    ph.name = fused_graph->UniqueName("input");
    ph.op_type = "Placeholder";
    ph.attrs["dtype"] = AttrValue::Type(e.node->output_type(e.index));
    Node* p = nullptr;
    TX_RETURN_IF_ERROR(fused_graph->AddNode(std::move(ph), &p));
    arg.values.push_back(Endpoint{p, 0});
  }
  fs.inputs.push_back(std::move(arg));
  fs.attrs["Tout"] = std::move(tout);
  Node* fused = nullptr;
  TX_RETURN_IF_ERROR(fused_graph->AddNode(std::move(fs), &fused));
  out->node = fused;
  out->op_label = FusedOpLabel("_FusedElementwise", spec.members);
  return cpu::CreateLoopFusionKernel(fused, std::move(spec), &out->kernel);
}

}  // namespace

int ExecutionPlan::num_fused_loops() const {
  return static_cast<int>(std::count_if(nodes_.begin(), nodes_.end(),
                                        [](const PlanNode& pn) { return pn.node->op_type() == "_FusedElementwise"; }));
}

bool RemappingDefault() { return g_remapping.load(std::memory_order_relaxed); }
void SetRemappingDefault(bool on) { g_remapping.store(on, std::memory_order_relaxed); }

Status ExecutionPlan::Build(const Graph& graph, const std::vector<Endpoint>& feeds,
                            const std::vector<Endpoint>& fetches, const std::vector<Node*>& targets,
                            const Options& opts, std::unique_ptr<ExecutionPlan>* out) {
  auto plan = std::unique_ptr<ExecutionPlan>(new ExecutionPlan());
  // Endpoint -> feed index.
  auto key = [](const Endpoint& e) {
    return reinterpret_cast<uintptr_t>(e.node) * 1024u + static_cast<uintptr_t>(e.index);
  };
  std::unordered_map<uintptr_t, int> fed;
  for (size_t i = 0; i < feeds.size(); ++i) {
    if (!fed.emplace(key(feeds[i]), static_cast<int>(i)).second)
      return InvalidArgument("[", feeds[i].node->name(), "] output ", feeds[i].index, " is fed more than once");
  }

  // Reverse reachability from fetches and targets, stopping at fed endpoints.
  std::vector<char> needed(graph.num_nodes(), 0);
  std::vector<const Node*> stack;
  auto need = [&](const Node* n) {
    if (!needed[n->id()]) {
      needed[n->id()] = 1;
      stack.push_back(n);
    }
  };
  for (const Endpoint& e : fetches)
    if (!fed.count(key(e))) need(e.node);
  for (const Node* t : targets) need(t);
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const Endpoint& in : n->inputs())
      if (!fed.count(key(in))) need(in.node);
    for (const Node* c : n->control_inputs()) need(c);
  }

  // Loops replaced by their gradient's accumulating copy (Note [Replaced loops]).
  std::vector<const Node*> replaced_by(graph.num_nodes(), nullptr), replaces(graph.num_nodes(), nullptr);
  auto has_fed_output = [&](const Node* n) {
    for (int k = 0; k < n->num_outputs(); ++k)
      if (fed.count(key({const_cast<Node*>(n), k}))) return true;
    return false;
  };
  for (int id = 0; id < graph.num_nodes(); ++id) {
    if (!needed[id]) continue;
    const Node* a = graph.node(id);
    const Node* w = ReplacedLoop(graph, *a);
    if (w == nullptr || !needed[w->id()] || replaced_by[w->id()] != nullptr || has_fed_output(w) || has_fed_output(a))
      continue;
    replaced_by[w->id()] = a;
    replaces[id] = w;
    needed[w->id()] = 0;
  }
  auto resolve = [&](const Node* n) { return replaced_by[n->id()] != nullptr ? replaced_by[n->id()] : n; };

  // Plan nodes in id order (a topological order: inputs always have smaller ids); a repeated
  // subexpression shares its first occurrence's plan node (Note [Plan CSE]); a Conv2D and the
  // chain after it that its kernel applies as an epilogue are one plan node, made at the chain's
  // last node (Note [Conv2D epilogues] in passes/conv_fusion.cc); so is a group of connected
  // elementwise nodes (Note [Loop fusion] in passes/loop_fusion.cc).
  auto is_fed = [&](const Endpoint& e) { return fed.count(key(e)) > 0; };
  const std::vector<int> canon = FindCommonSubexpressions(graph, needed, is_fed);
  // Constants folded now (Note [Plan constant folding]): the plan runs what the fetches and
  // targets reach without looking past a folded node.
  std::vector<std::vector<Tensor>> folded = FoldConstants(graph, needed, canon, is_fed);
  std::fill(needed.begin(), needed.end(), 0);
  auto need_canonical = [&](const Node* n) {
    need(n);
    need(graph.node(canon[n->id()]));
  };
  for (const Endpoint& e : fetches)
    if (!fed.count(key(e))) need_canonical(resolve(e.node));
  for (const Node* t : targets) need_canonical(resolve(t));
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (canon[n->id()] != n->id() || !folded[n->id()].empty()) continue;
    for (const Endpoint& in : n->inputs())
      if (!fed.count(key(in))) need_canonical(resolve(in.node));
    for (const Node* c : n->control_inputs()) need_canonical(resolve(c));
    if (const Node* w = replaces[n->id()])
      for (const Node* c : w->control_inputs()) need_canonical(resolve(c));
  }
  // The canonical id a graph node's value comes from in the plan.
  auto unit = [&](const Node* n) { return canon[resolve(n)->id()]; };
  auto controls_of = [&](const Node* n) {
    std::vector<const Node*> controls(n->control_inputs().begin(), n->control_inputs().end());
    if (const Node* w = replaces[n->id()])
      controls.insert(controls.end(), w->control_inputs().begin(), w->control_inputs().end());
    return controls;
  };
  const std::vector<ConvFusion> fusions =
      opts.remap ? FindConvFusions(graph, needed, canon, is_fed, fetches) : std::vector<ConvFusion>();
  std::vector<int> fused_into(needed.size(), -1), fusion_at(needed.size(), -1);  // node -> last member; last -> fusion
  for (size_t f = 0; f < fusions.size(); ++f) {
    const int last = fusions[f].members.back()->id();
    fusion_at[last] = static_cast<int>(f);
    fused_into[fusions[f].conv->id()] = last;
    for (const Node* m : fusions[f].members) fused_into[m->id()] = last;
  }
  // Placement of the nodes that are plan nodes of their own or loop-fusion candidates.
  std::vector<std::string> device_types(needed.size());
  for (size_t id = 0; id < needed.size(); ++id) {
    if (!needed[id] || canon[id] != static_cast<int>(id) || (fused_into[id] >= 0 && fusion_at[id] < 0)) continue;
    const Node* n = graph.node(static_cast<int>(id));
    TX_RETURN_IF_ERROR(PlaceNode(n->name(), n->requested_device(), opts.allow_soft_placement, &device_types[id]));
  }
  const LoopGroups loops = opts.remap
      ? FindLoopGroups(graph, needed, canon, folded, fused_into, device_types, fetches, is_fed, unit, controls_of)
      : LoopGroups{{}, std::vector<int>(needed.size(), -1), {}};

  std::vector<int> plan_index(needed.size(), -1), member_slot(needed.size(), -1);
  std::vector<std::vector<Endpoint>> plan_inputs;
  std::vector<std::vector<const Node*>> plan_controls;
  int num_slots = static_cast<int>(feeds.size());
  auto add_plan_node = [&](PlanNode pn, std::vector<Endpoint> inputs, std::vector<const Node*> controls) {
    pn.expensive = pn.kernel->IsExpensive();
    pn.num_inputs = static_cast<int>(inputs.size());
    pn.output_begin = num_slots;
    num_slots += pn.num_outputs;
    plan->nodes_.push_back(std::move(pn));
    plan_inputs.push_back(std::move(inputs));
    plan_controls.push_back(std::move(controls));
    return static_cast<int>(plan->nodes_.size()) - 1;
  };
  for (size_t id = 0; id < needed.size(); ++id) {
    if (!needed[id] || canon[id] != static_cast<int>(id)) continue;
    if (fused_into[id] >= 0 && fusion_at[id] < 0) continue;  // made with its chain's last node
    const int g = loops.group_of[id];
    if (g >= 0) {
      if (static_cast<int>(id) != loops.groups[g].back()) continue;  // made with the group's last member
      if (!plan->fused_graph_) plan->fused_graph_ = std::make_unique<Graph>();
      FusedLoop loop;
      TX_RETURN_IF_ERROR(MakeFusedLoop(graph, loops, g, is_fed, unit, controls_of, plan->fused_graph_.get(), &loop));
      for (size_t k = 0; k < loop.exported.size(); ++k) member_slot[loop.exported[k]] = num_slots + static_cast<int>(k);
      PlanNode pn;
      pn.node = loop.node;
      pn.kernel = std::move(loop.kernel);
      pn.fused = true;
      pn.num_outputs = static_cast<int>(loop.exported.size());
      pn.timeline_label = TimelineLabel(loop.node->name(), loop.op_label, loop.externals);
      const int index = add_plan_node(std::move(pn), std::move(loop.externals), std::move(loop.controls));
      for (int m : loops.groups[g]) plan_index[m] = index;
      continue;
    }
    const Node* n = graph.node(static_cast<int>(id));
    PlanNode pn;
    pn.node = n;
    std::vector<Endpoint> inputs = n->inputs();
    std::vector<const Node*> controls = controls_of(n);
    std::string op = n->op_type();
    if (!folded[id].empty()) {
      pn.kernel = MakeFoldedKernel(n, device_types[id], std::move(folded[id]));
      inputs.clear();
      controls.clear();
    } else if (fusion_at[id] >= 0) {
      const ConvFusion& f = fusions[fusion_at[id]];
      TX_RETURN_IF_ERROR(cpu::CreateFusedConv2DKernel(f.conv, f.members, f.chain_inputs, device_types[id], &pn.kernel));
      pn.fused = true;
      inputs = {f.conv->input(0), f.conv->input(1)};
      controls.assign(f.conv->control_inputs().begin(), f.conv->control_inputs().end());
      std::vector<const Node*> chain = {f.conv};
      for (size_t i = 0; i < f.members.size(); ++i) {
        const Node* m = f.members[i];
        if (m->num_inputs() == 2) inputs.push_back(m->input(1 - f.chain_inputs[i]));
        controls.insert(controls.end(), m->control_inputs().begin(), m->control_inputs().end());
        chain.push_back(m);
      }
      op = FusedOpLabel("_FusedConv2D", chain);
    } else {
      TX_RETURN_IF_ERROR(KernelRegistry::Global()->CreateKernel(n, device_types[id], &pn.kernel));
    }
    pn.timeline_label = TimelineLabel(n->name(), op, inputs);
    pn.num_outputs = n->num_outputs();
    plan_index[id] = add_plan_node(std::move(pn), std::move(inputs), std::move(controls));
  }
  for (size_t id = 0; id < needed.size(); ++id) {
    if (!needed[id]) continue;
    if (canon[id] != static_cast<int>(id))
      plan_index[id] = plan_index[canon[id]];  // canon[id] < id
    else if (fused_into[id] >= 0)
      plan_index[id] = plan_index[fused_into[id]];
  }
  plan->num_slots_ = num_slots;
  plan->slot_reads_.assign(num_slots, 0);
  plan->slot_pinned_.assign(num_slots, 0);
  for (size_t i = 0; i < feeds.size(); ++i) plan->feed_slots_.push_back(static_cast<int>(i));

  auto slot_of = [&](const Endpoint& e) {
    auto it = fed.find(key(e));
    if (it != fed.end()) return it->second;
    const int id = unit(e.node);
    if (member_slot[id] >= 0) return member_slot[id];
    return plan->nodes_[plan_index[id]].output_begin + e.index;
  };
  for (size_t p = 0; p < plan->nodes_.size(); ++p) {
    PlanNode& pn = plan->nodes_[p];
    pn.input_begin = static_cast<int>(plan->input_slots_.size());
    for (const Endpoint& in : plan_inputs[p]) {
      int s = slot_of(in);
      plan->input_slots_.push_back(s);
      plan->slot_reads_[s]++;
      if (!fed.count(key(in))) {
        plan->nodes_[plan_index[resolve(in.node)->id()]].successors.push_back(static_cast<int>(p));
        pn.initial_pending++;
      }
    }
    for (const Node* c : plan_controls[p]) {
      plan->nodes_[plan_index[resolve(c)->id()]].successors.push_back(static_cast<int>(p));
      pn.initial_pending++;
    }
  }
  for (const Endpoint& e : fetches) {
    int s = slot_of(e);
    plan->fetch_slots_.push_back(s);
    plan->slot_pinned_[s] = 1;
  }
  plan->input_moves_.resize(plan->input_slots_.size());
  for (size_t k = 0; k < plan->input_slots_.size(); ++k) {
    int s = plan->input_slots_[k];
    bool is_feed = s < static_cast<int>(feeds.size());
    plan->input_moves_[k] = plan->slot_reads_[s] == 1 && !plan->slot_pinned_[s] && !is_feed;
  }
  for (size_t p = 0; p < plan->nodes_.size(); ++p)
    if (plan->nodes_[p].initial_pending == 0) plan->roots_.push_back(static_cast<int>(p));
  *out = std::move(plan);
  return Status::OK();
}

}  // namespace tx

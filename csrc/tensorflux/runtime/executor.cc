#include "tensorflux/runtime/executor.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <unordered_map>

#include "tensorflux/kernels/cpu/conv_epilogue.h"
#include "tensorflux/passes/constant_folding.h"
#include "tensorflux/passes/conv_fusion.h"
#include "tensorflux/passes/cse.h"
#include "tensorflux/runtime/device.h"
#include "tensorflux/runtime/node_status.h"

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

// "name = Op(input, ...)": TensorFlow's timeline label of a node, for a fused chain
// "last = _FusedConv2D(Conv2D, BiasAdd, ...)(input, ...)".
std::string TimelineLabel(const Node* n, const ConvFusion* fusion, const std::vector<Endpoint>& inputs) {
  std::string label = n->name() + " = ";
  if (fusion == nullptr) {
    label += n->op_type();
  } else {
    label += "_FusedConv2D(" + fusion->conv->op_type();
    for (const Node* m : fusion->members) label += ", " + m->op_type();
    label += ")";
  }
  label += "(";
  for (size_t i = 0; i < inputs.size(); ++i) {
    label += (i ? ", " : "") + inputs[i].node->name();
    if (inputs[i].index != 0) label += ":" + std::to_string(inputs[i].index);
  }
  return label + ")";
}

}  // namespace

// Per-run mutable state: value slots, pending counts, completion tracking.
struct RunState {
  explicit RunState(int num_nodes, int num_slots)
      : slots(num_slots), pending(new std::atomic<int>[num_nodes]), reads(new std::atomic<int>[num_slots]) {}
  std::vector<Tensor> slots;
  std::unique_ptr<std::atomic<int>[]> pending;
  std::unique_ptr<std::atomic<int>[]> reads;
  std::atomic<int> inflight{0};
  std::atomic<bool> failed{false};
  ResourceMgr* resources = nullptr;
  const CancellationToken* cancel = nullptr;
  StepStatsCollector* stats = nullptr;
  std::mutex mu;
  std::condition_variable cv;
  Status status;  // guarded by mu

  void Fail(const Status& s) {
    std::lock_guard<std::mutex> l(mu);
    if (status.ok()) status = s;
    failed.store(true, std::memory_order_release);
  }
};

Status ExecutionPlan::Build(const Graph& graph, const std::vector<Endpoint>& feeds,
                            const std::vector<Endpoint>& fetches, const std::vector<Node*>& targets,
                            const Options& opts, std::unique_ptr<ExecutionPlan>* out) {
  auto plan = std::unique_ptr<ExecutionPlan>(new ExecutionPlan());
  // Endpoint -> feed index.
  auto key = [](const Endpoint& e) { return reinterpret_cast<uintptr_t>(e.node) * 1024u + static_cast<uintptr_t>(e.index); };
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
  // last node (Note [Conv2D epilogues] in passes/conv_fusion.cc).
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
  const std::vector<ConvFusion> fusions = FindConvFusions(graph, needed, canon, is_fed, fetches);
  std::vector<int> fused_into(needed.size(), -1), fusion_at(needed.size(), -1);  // node -> last member; last -> fusion
  for (size_t f = 0; f < fusions.size(); ++f) {
    const int last = fusions[f].members.back()->id();
    fusion_at[last] = static_cast<int>(f);
    fused_into[fusions[f].conv->id()] = last;
    for (const Node* m : fusions[f].members) fused_into[m->id()] = last;
  }
  std::vector<int> plan_index(needed.size(), -1);
  std::vector<std::vector<Endpoint>> plan_inputs;
  std::vector<std::vector<const Node*>> plan_controls;
  int num_slots = static_cast<int>(feeds.size());
  for (size_t id = 0; id < needed.size(); ++id) {
    if (!needed[id] || canon[id] != static_cast<int>(id)) continue;
    if (fused_into[id] >= 0 && fusion_at[id] < 0) continue;  // made with its chain's last node
    const Node* n = graph.node(static_cast<int>(id));
    PlanNode pn;
    pn.node = n;
    std::string device_type;
    TX_RETURN_IF_ERROR(PlaceNode(n->name(), n->requested_device(), opts.allow_soft_placement, &device_type));
    std::vector<Endpoint> inputs = n->inputs();
    std::vector<const Node*> controls(n->control_inputs().begin(), n->control_inputs().end());
    if (const Node* w = replaces[n->id()]) controls.insert(controls.end(), w->control_inputs().begin(),
                                                           w->control_inputs().end());
    if (!folded[id].empty()) {
      pn.kernel = MakeFoldedKernel(n, device_type, std::move(folded[id]));
      inputs.clear();
      controls.clear();
    } else if (fusion_at[id] >= 0) {
      const ConvFusion& f = fusions[fusion_at[id]];
      TX_RETURN_IF_ERROR(cpu::CreateFusedConv2DKernel(f.conv, f.members, f.chain_inputs, device_type, &pn.kernel));
      pn.fused = true;
      inputs = {f.conv->input(0), f.conv->input(1)};
      controls.assign(f.conv->control_inputs().begin(), f.conv->control_inputs().end());
      for (size_t i = 0; i < f.members.size(); ++i) {
        const Node* m = f.members[i];
        if (m->num_inputs() == 2) inputs.push_back(m->input(1 - f.chain_inputs[i]));
        controls.insert(controls.end(), m->control_inputs().begin(), m->control_inputs().end());
      }
    } else {
      TX_RETURN_IF_ERROR(KernelRegistry::Global()->CreateKernel(n, device_type, &pn.kernel));
    }
    pn.expensive = pn.kernel->IsExpensive();
    pn.timeline_label = TimelineLabel(n, pn.fused ? &fusions[fusion_at[id]] : nullptr, inputs);
    pn.num_inputs = static_cast<int>(inputs.size());
    pn.num_outputs = n->num_outputs();
    pn.output_begin = num_slots;
    num_slots += pn.num_outputs;
    plan_index[id] = static_cast<int>(plan->nodes_.size());
    plan->nodes_.push_back(std::move(pn));
    plan_inputs.push_back(std::move(inputs));
    plan_controls.push_back(std::move(controls));
  }
  for (size_t id = 0; id < needed.size(); ++id) {
    if (!needed[id]) continue;
    if (canon[id] != static_cast<int>(id)) plan_index[id] = plan_index[canon[id]];  // canon[id] < id
    else if (fused_into[id] >= 0) plan_index[id] = plan_index[fused_into[id]];
  }
  plan->num_slots_ = num_slots;
  plan->slot_reads_.assign(num_slots, 0);
  plan->slot_pinned_.assign(num_slots, 0);
  for (size_t i = 0; i < feeds.size(); ++i) plan->feed_slots_.push_back(static_cast<int>(i));

  auto slot_of = [&](const Endpoint& e) {
    auto it = fed.find(key(e));
    if (it != fed.end()) return it->second;
    return plan->nodes_[plan_index[resolve(e.node)->id()]].output_begin + e.index;
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

namespace {

// The dispatch rule for a node that became ready: cheap nodes and the first expensive one run on
// this thread (pushed on `local`); further expensive ones run concurrently on the inter-op pool
// (`schedule`). `kept_expensive` tracks, per batch of ready nodes, whether one was kept.
template <typename Schedule>
void Dispatch(int n, bool expensive, bool can_dispatch, bool* kept_expensive, std::vector<int>* local,
              const Schedule& schedule) {
  if (!expensive || !can_dispatch || !*kept_expensive) {
    *kept_expensive |= expensive;
    local->push_back(n);
  } else {
    schedule(n);
  }
}

}  // namespace

void ExecutionPlan::RunNode(RunState* rs, int n, ThreadPool* inter_op, ThreadPool* intra_op) const {
  const PlanNode& pn = nodes_[n];
  const int nin = pn.num_inputs, nout = pn.num_outputs;
  constexpr int kInline = 8;
  Tensor in_small[kInline], out_small[kInline];
  std::vector<Tensor> in_big, out_big;
  Tensor* in = in_small;
  Tensor* out = out_small;
  if (nin > kInline) { in_big.resize(nin); in = in_big.data(); }
  if (nout > kInline) { out_big.resize(nout); out = out_big.data(); }

  for (int k = 0; k < nin; ++k) {
    int idx = pn.input_begin + k;
    int s = input_slots_[idx];
    if (input_moves_[idx]) {
      in[k] = std::move(rs->slots[s]);
    } else {
      in[k] = rs->slots[s];
      // The last reader drops the slot's reference (pinned slots live to the end).
      if (rs->reads[s].fetch_sub(1, std::memory_order_acq_rel) == 1 && !slot_pinned_[s]) rs->slots[s] = Tensor();
    }
  }
  OpKernelContext ctx(pn.node, in, out, intra_op);
  ctx.set_resource_manager(rs->resources);
  ctx.set_inter_op_pool(inter_op);
  ctx.set_cancellation(rs->cancel);
  ctx.set_inputs_releasable(true);  // `in` is this node's alone and unread after Compute
  const int64_t start = rs->stats != nullptr ? NowNanos() : 0;
  pn.kernel->Compute(&ctx);
  if (rs->stats != nullptr) Record(rs->stats, pn, start, out);
  Status s = ctx.status();
  for (int j = 0; s.ok() && j < nout; ++j) {
    if (!out[j].initialized()) {
      s = Internal("kernel did not produce output ", j);
    } else if (out[j].dtype() != pn.node->output_type(j)) {
      s = Internal("kernel produced a ", DataTypeString(out[j].dtype()), " output ", j, ", expected ",
                   DataTypeString(pn.node->output_type(j)));
    }
  }
  if (!s.ok()) {
    // A kernel that stopped because the run was cancelled reports the token's status as is.
    if (rs->cancel != nullptr && rs->cancel->cancelled() &&
        (s.code() == Code::kCancelled || s.code() == Code::kDeadlineExceeded)) {
      rs->Fail(rs->cancel->status());
      return;
    }
    rs->Fail(pn.fused ? s : NamedForNode(pn.node->name(), s));  // a fused kernel names its failing member
    return;
  }
  for (int j = 0; j < nout; ++j) {
    int slot = pn.output_begin + j;
    if (slot_reads_[slot] > 0 || slot_pinned_[slot]) rs->slots[slot] = std::move(out[j]);
  }
}

void ExecutionPlan::Record(StepStatsCollector* stats, const PlanNode& pn, int64_t start, const Tensor* out) {
  NodeExecStats ns;
  ns.duration_nanos = NowNanos() - start;
  ns.start_nanos = start;
  ns.node_name = pn.node->name();
  ns.timeline_label = pn.timeline_label;
  ns.thread_id = CurrentThreadId();
  for (int j = 0; j < pn.num_outputs; ++j)
    if (out[j].initialized())
      ns.outputs.push_back({j, out[j].dtype(), out[j].shape(), static_cast<int64_t>(out[j].byte_size())});
  stats->Record(std::move(ns));
}

void ExecutionPlan::Process(RunState* rs, int first, ThreadPool* inter_op, ThreadPool* intra_op) const {
  std::vector<int> stack;
  stack.push_back(first);
  const bool can_dispatch = inter_op != nullptr && inter_op->num_threads() > 0;
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    if (rs->failed.load(std::memory_order_acquire)) continue;
    if (rs->cancel != nullptr && rs->cancel->cancelled()) {  // Note [Cancellation]
      rs->Fail(rs->cancel->status());
      continue;
    }
    RunNode(rs, n, inter_op, intra_op);
    if (rs->failed.load(std::memory_order_acquire)) continue;
    bool kept_expensive = false;
    for (int succ : nodes_[n].successors) {
      if (rs->pending[succ].fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
      Dispatch(succ, nodes_[succ].expensive, can_dispatch, &kept_expensive, &stack, [&](int m) {
        rs->inflight.fetch_add(1, std::memory_order_acq_rel);
        inter_op->Schedule([this, rs, m, inter_op, intra_op] { Process(rs, m, inter_op, intra_op); });
      });
    }
  }
  if (rs->inflight.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    std::lock_guard<std::mutex> l(rs->mu);
    rs->cv.notify_all();
  }
}

Status ExecutionPlan::Run(std::vector<Tensor> feed_values, ThreadPool* inter_op, ThreadPool* intra_op,
                          std::vector<Tensor>* outputs, ResourceMgr* resources,
                          const CancellationToken* cancel, StepStatsCollector* stats) const {
  RunState rs(num_nodes(), num_slots_);
  rs.resources = resources;
  rs.cancel = cancel;
  rs.stats = stats;
  for (int p = 0; p < num_nodes(); ++p) rs.pending[p].store(nodes_[p].initial_pending, std::memory_order_relaxed);
  for (int s = 0; s < num_slots_; ++s) rs.reads[s].store(slot_reads_[s], std::memory_order_relaxed);
  for (size_t i = 0; i < feed_slots_.size(); ++i) rs.slots[feed_slots_[i]] = std::move(feed_values[i]);

  if (!roots_.empty()) {
    rs.inflight.store(1, std::memory_order_relaxed);  // this thread
    const bool can_dispatch = inter_op != nullptr && inter_op->num_threads() > 0;
    std::vector<int> local;
    bool kept_expensive = false;
    for (int r : roots_) {
      Dispatch(r, nodes_[r].expensive, can_dispatch, &kept_expensive, &local, [&](int m) {
        rs.inflight.fetch_add(1, std::memory_order_acq_rel);
        inter_op->Schedule([this, &rs, m, inter_op, intra_op] { Process(&rs, m, inter_op, intra_op); });
      });
    }
    // Process the local roots as one work list: the last Process call releases this thread's count.
    for (size_t i = 0; i + 1 < local.size(); ++i) {
      rs.inflight.fetch_add(1, std::memory_order_acq_rel);
      Process(&rs, local[i], inter_op, intra_op);
    }
    if (!local.empty()) {
      Process(&rs, local.back(), inter_op, intra_op);
    } else if (rs.inflight.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // nothing local; fallthrough to wait
    }
    std::unique_lock<std::mutex> l(rs.mu);
    rs.cv.wait(l, [&] { return rs.inflight.load(std::memory_order_acquire) == 0; });
    if (!rs.status.ok()) return rs.status;
  }

  outputs->clear();
  outputs->reserve(fetch_slots_.size());
  for (int s : fetch_slots_) outputs->push_back(rs.slots[s]);
  return Status::OK();
}

}  // namespace tx

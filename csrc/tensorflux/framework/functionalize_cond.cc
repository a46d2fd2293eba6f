// FunctionalizeConds: the Switch/_SwitchN ... Merge conds of a loop-free FGraph become If /
// StatelessIf / Case / StatelessCase nodes (Note [Functionalize control flow], step 2).
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "tensorflux/framework/functionalize_graph.h"

namespace tx {
namespace functionalize {
namespace {

// The (predicate, branch) pairs under which a value exists, sorted by predicate: a conjunction.
using State = std::vector<std::pair<int, int>>;
// The state id of a value that never exists: output k of a Switch on a predicate its input
// already depends on with another branch.
constexpr int kNever = -1;

bool IsSwitch(const FNode& n) { return n.IsOp("Switch") || n.IsOp("_SwitchN"); }

// The branch `s` has for predicate `p`, or -1.
int BranchOf(const State& s, int p) {
  for (const auto& e : s)
    if (e.first == p) return e.second;
  return -1;
}

State Without(const State& s, int p) {
  State r;
  for (const auto& e : s)
    if (e.first != p) r.push_back(e);
  return r;
}

class CondPass {
 public:
  CondPass(FGraph* g, PassContext ctx) : g_(g), ctx_(ctx) {}
  // One round: states, then every outermost cond rebuilt; `*progress` false when none was left.
  Status Round(bool* progress);
  // Removes Switches nothing reads and single-input Merges; errors on what is left.
  Status Finish();

 private:
  struct Cluster {
    int pred = -1;
    std::vector<int> merges;
    std::set<int> nodes;  // branch nodes and Switches on `pred`
  };

  Status ComputeStates();
  int PredicateOf(FOut t);
  int Intern(const State& s);
  Status Union(const State& a, const State& b, int node, int* out);
  int TensorState(FOut t);
  Status MergeState(int m, int* out);
  std::string Describe(const State& s) const;
  bool IsSwitchOn(int node, int p) const { return switch_pred_[node] == p; }
  void Closure(int m, std::set<int>* nodes) const;
  Status Build(const Cluster& c);

  FGraph* g_;
  PassContext ctx_;
  std::vector<State> states_{State{}};  // interned; 0 is the empty state
  std::map<State, int> state_ids_{{State{}, 0}};
  std::vector<FOut> preds_;  // predicate id -> tensor
  std::vector<int> pred_branches_;  // predicate id -> number of branches
  std::map<FOut, int> pred_ids_;
  std::vector<int> state_;  // per node: the state it runs under
  std::vector<int> switch_pred_;  // per node: the predicate of a Switch/_SwitchN, else -1
  std::map<int, std::vector<int>> merge_branch_;  // cond Merge -> branch of each input
  std::map<int, int> merge_pred_;
};

int CondPass::PredicateOf(FOut t) {
  while (g_->nodes[t.node].IsOp("Identity") && g_->nodes[t.node].inputs.size() == 1) t = g_->nodes[t.node].inputs[0];
  auto it = pred_ids_.find(t);
  if (it != pred_ids_.end()) return it->second;
  pred_ids_[t] = static_cast<int>(preds_.size());
  preds_.push_back(t);
  pred_branches_.push_back(0);
  return static_cast<int>(preds_.size()) - 1;
}

int CondPass::Intern(const State& s) {
  auto it = state_ids_.emplace(s, static_cast<int>(states_.size()));
  if (it.second) states_.push_back(s);
  return it.first->second;
}

std::string CondPass::Describe(const State& s) const {
  if (s.empty()) return "always";
  std::string r;
  for (const auto& e : s)
    r += (r.empty() ? "when " : " and ") + g_->TensorName(preds_[e.first]) + " selects branch " +
        std::to_string(e.second);
  return r;
}

Status CondPass::Union(const State& a, const State& b, int node, int* out) {
  State r;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
      r.push_back(a[i++]);
    } else if (i == a.size() || b[j].first < a[i].first) {
      r.push_back(b[j++]);
    } else {
      if (a[i].second != b[j].second)
        return InvalidArgument(g_->Where(node), "has inputs from different branches (", a[i].second, " and ",
                               b[j].second, ") of the cond on '", g_->TensorName(preds_[a[i].first]),
                               "', so it would never run");
      r.push_back(a[i++]);
      ++j;
    }
  }
  *out = Intern(r);
  return Status::OK();
}

int CondPass::TensorState(FOut t) {
  const int base = state_[t.node];
  const int p = switch_pred_[t.node];
  if (p < 0 || base == kNever) return base;
  const int b = BranchOf(states_[base], p);
  if (b >= 0) return b == t.index ? base : kNever;  // switched again on a predicate it already depends on
  State s = states_[base];
  s.push_back({p, t.index});
  std::sort(s.begin(), s.end());
  return Intern(s);
}

Status CondPass::MergeState(int m, int* out) {
  const FNode& n = g_->nodes[m];
  std::vector<State> in;
  for (const FOut& t : n.inputs) {
    const int ts = TensorState(t);
    if (ts == kNever)
      return InvalidArgument(g_->Where(m), "reads output ", t.index, " of Switch '", g_->nodes[t.node].name,
                             "', which never has a value: its input exists only in another branch of the cond on '",
                             g_->TensorName(preds_[switch_pred_[t.node]]), "'");
    in.push_back(states_[ts]);
  }
  if (in.empty()) return InvalidArgument(g_->Where(m), "Merge has no data inputs (it needs at least one)");
  if (in.size() == 1) {
    *out = Intern(in[0]);
    return Status::OK();
  }
  for (const auto& candidate : in[0]) {
    const int p = candidate.first;
    const State rest = Without(in[0], p);
    std::vector<int> branches;
    for (const State& s : in) {
      const int b = BranchOf(s, p);
      if (b < 0 || Without(s, p) != rest || std::count(branches.begin(), branches.end(), b)) break;
      branches.push_back(b);
    }
    if (branches.size() != in.size()) continue;
    if (static_cast<int>(in.size()) != pred_branches_[p])
      return InvalidArgument(g_->Where(m), "mismatched Merge inputs: the Merge joins ", in.size(), " of the ",
                             pred_branches_[p], " branches of the cond on '", g_->TensorName(preds_[p]),
                             "'; the other branches would leave it without a value");
    merge_pred_[m] = p;
    merge_branch_[m] = branches;
    *out = Intern(rest);
    return Status::OK();
  }
  std::string ins;
  for (size_t k = 0; k < in.size(); ++k)
    ins += (k ? "; '" : "'") + g_->TensorName(n.inputs[k]) + "' exists " + Describe(in[k]);
  return InvalidArgument(g_->Where(m), "mismatched Merge inputs: they do not come from the branches of one cond (", ins,
                         ")");
}

Status CondPass::ComputeStates() {
  std::vector<int> order;
  TX_RETURN_IF_ERROR(TopologicalOrder(*g_, &order));
  state_.assign(g_->nodes.size(), 0);
  switch_pred_.assign(g_->nodes.size(), -1);
  merge_pred_.clear();
  merge_branch_.clear();
  for (int i : order) {
    const FNode& n = g_->nodes[i];
    if (n.kind != FKind::kOp) continue;
    if (n.IsOp("Merge")) {
      TX_RETURN_IF_ERROR(MergeState(i, &state_[i]));
      continue;
    }
    int s = 0;
    for (const FOut& t : n.inputs) {
      const int ts = TensorState(t);
      if (ts == kNever)
        return InvalidArgument(g_->Where(i), "reads output ", t.index, " of Switch '", g_->nodes[t.node].name,
                               "', which never has a value: its input exists only in another branch of the cond on '",
                               g_->TensorName(preds_[switch_pred_[t.node]]), "'");
      TX_RETURN_IF_ERROR(Union(states_[s], states_[ts], i, &s));
    }
    for (int c : n.control_inputs) TX_RETURN_IF_ERROR(Union(states_[s], states_[state_[c]], i, &s));
    state_[i] = s;
    if (IsSwitch(n) && n.inputs.size() == 2) {
      const int p = PredicateOf(n.inputs[1]);
      const int branches = static_cast<int>(n.out_types.size());
      if (pred_branches_[p] != 0 && pred_branches_[p] != branches)
        return InvalidArgument(g_->Where(i), "switches on '", g_->TensorName(preds_[p]), "' into ", branches,
                               " branches where another switch on it has ", pred_branches_[p]);
      pred_branches_[p] = branches;
      switch_pred_[i] = p;
    }
  }
  return Status::OK();
}

// The branch nodes and Switches of Merge `m`'s cond: back from its inputs to the Switches on its
// predicate, through nodes that run only in a branch of it.
void CondPass::Closure(int m, std::set<int>* nodes) const {
  const int p = merge_pred_.at(m);
  std::vector<int> stack;
  auto visit = [&](int i) {
    if (IsSwitchOn(i, p)) {
      nodes->insert(i);
    } else if (BranchOf(states_[state_[i]], p) >= 0 && nodes->insert(i).second) {
      stack.push_back(i);
    }
  };
  for (const FOut& t : g_->nodes[m].inputs) visit(t.node);
  for (int c : g_->nodes[m].control_inputs) visit(c);
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    for (const FOut& t : g_->nodes[i].inputs) visit(t.node);
    for (int c : g_->nodes[i].control_inputs) visit(c);
  }
}

Status CondPass::Build(const Cluster& c) {
  const int p = c.pred;
  const int nb = pred_branches_[p];
  std::vector<std::vector<int>> branch(nb);
  std::vector<int> switches;
  for (int i : c.nodes) {
    if (IsSwitchOn(i, p)) {
      switches.push_back(i);
      continue;
    }
    // A node reading a switch output past the switch's branches (e.g. "s:4" of a 3-way _SwitchN).
    const int b = BranchOf(states_[state_[i]], p);
    if (b < 0 || b >= nb)
      return InvalidArgument(g_->Where(i), "is in branch ", b, " of the cond on '", g_->TensorName(preds_[p]),
                             "', which has ", nb, " branches (it reads a switch output that does not exist)");
    branch[b].push_back(i);
  }
  // Inputs of the new node: every tensor a branch reads from outside (a Switch's input once).
  std::vector<FOut> captures;
  std::map<FOut, int> capture_index;
  std::vector<int> control_in;
  auto capture = [&](FOut t) {
    auto it = capture_index.emplace(t, static_cast<int>(captures.size()));
    if (it.second) captures.push_back(t);
    return it.first->second;
  };
  auto add_control = [&](int n) {
    if (std::find(control_in.begin(), control_in.end(), n) == control_in.end()) control_in.push_back(n);
  };
  std::vector<std::map<FOut, int>> arg_of(nb);
  for (int b = 0; b < nb; ++b) {
    std::set<int> mine(branch[b].begin(), branch[b].end());
    for (int i : branch[b]) {
      for (const FOut& t : g_->nodes[i].inputs) {
        if (mine.count(t.node)) continue;
        if (IsSwitchOn(t.node, p)) {
          arg_of[b][t] = capture(g_->nodes[t.node].inputs[0]);
        } else {
          arg_of[b][t] = capture(t);
        }
      }
      for (int ci : g_->nodes[i].control_inputs)
        if (!mine.count(ci) && !IsSwitchOn(ci, p) && !c.nodes.count(ci)) add_control(ci);
    }
  }
  for (int s : switches)
    for (int ci : g_->nodes[s].control_inputs) add_control(ci);
  for (int m : c.merges)
    for (int ci : g_->nodes[m].control_inputs)
      if (!c.nodes.count(ci) && !IsSwitchOn(ci, p)) add_control(ci);
  // Results: each Merge's input from the branch (and its value_index, where something reads it).
  const auto consumers = g_->DataConsumers();
  std::vector<std::vector<FOut>> rets(nb);
  std::vector<std::vector<int>> control_rets(nb);
  std::vector<DataType> out_types;
  std::vector<std::vector<FOut>> merge_values;
  for (int m : c.merges) {
    const FNode mn = g_->nodes[m];  // a copy: adding the value_index Consts below may move the node list
    const std::vector<int>& branches = merge_branch_.at(m);
    const bool value_index = consumers[m].size() > 1 && !consumers[m][1].empty();
    for (int b = 0; b < nb; ++b) {
      const int k = static_cast<int>(std::find(branches.begin(), branches.end(), b) - branches.begin());
      const FOut t = mn.inputs[k];
      rets[b].push_back(t);
      if (IsSwitchOn(t.node, p)) arg_of[b][t] = capture(g_->nodes[t.node].inputs[0]);
      if (!value_index) continue;
      FNode index;  // a Const in the branch: the position of its input in the Merge
      index.name = g_->UniqueName(mn.name + "/value_index_" + std::to_string(b));
      index.op = "Const";
      index.reg = OpRegistry::Global()->LookUp("Const");
      index.attr["dtype"] = AttrValue::Type(DT_INT32);
      Tensor value;
      TX_RETURN_IF_ERROR(Tensor::Allocate(DT_INT32, TensorShape(), &value));
      *value.data<int32_t>() = k;
      index.attr["value"] = AttrValue::FromTensor(value);
      index.out_types = {DT_INT32};
      const int id = g_->Add(std::move(index));
      branch[b].push_back(id);
      rets[b].push_back(FOut{id, 0});
    }
    std::vector<FOut> values{FOut{-1, static_cast<int>(out_types.size())}};
    out_types.push_back(mn.out_types.at(0));
    if (value_index) {
      values.push_back(FOut{-1, static_cast<int>(out_types.size())});
      out_types.push_back(DT_INT32);
    }
    merge_values.push_back(values);
    for (int ci : mn.control_inputs)
      if (c.nodes.count(ci) && !IsSwitchOn(ci, p)) control_rets[BranchOf(states_[state_[ci]], p)].push_back(ci);
  }
  std::vector<DataType> types;
  for (const FOut& t : captures) {
    types.push_back(g_->nodes[t.node].out_types.at(t.index));
    if (types.back() == DT_INVALID)
      return InvalidArgument(g_->Where(t.node), "the dtype of output ", t.index, " is unknown");
  }
  for (int b = 0; b < nb; ++b)
    for (int i : branch[b])
      if (IsStateful(g_->nodes[i]) &&
          std::find(control_rets[b].begin(), control_rets[b].end(), i) == control_rets[b].end())
        control_rets[b].push_back(i);

  const FNode& m0 = g_->nodes[c.merges[0]];
  const bool is_if = nb == 2 && g_->nodes[switches.empty() ? c.merges[0] : switches[0]].IsOp("Switch");
  const std::string base = Sanitize(m0.name);
  std::vector<std::string> fns(nb);
  bool stateful = false;
  for (int b = 0; b < nb; ++b) {
    bool s = false;
    TX_RETURN_IF_ERROR(MakeFunction(*g_, branch[b], arg_of[b], types, rets[b], control_rets[b],
                                    base + (is_if ? (b ? "_then" : "_else") : "_branch" + std::to_string(b)), ctx_,
                                    &fns[b], &s));
    stateful = stateful || s;
  }
  FNode op;
  op.op = std::string(stateful ? "" : "Stateless") + (is_if ? "If" : "Case");
  op.reg = OpRegistry::Global()->LookUp(op.op);
  op.name = NameInScope(*g_, m0.name, is_if ? "If" : "Case");
  op.device = m0.device;
  op.inputs.push_back(preds_[p]);
  for (const FOut& t : captures) op.inputs.push_back(t);
  op.control_inputs = control_in;
  AttrValue tin = AttrValue::EmptyList(), tout = AttrValue::EmptyList();
  tin.list.type = types;
  tout.list.type = out_types;
  op.attr["Tin"] = tin;
  op.attr["Tout"] = tout;
  op.attr["output_shapes"] = AttrValue::EmptyList();
  auto func = [](const std::string& name) {
    AttrValue v;
    v.kind = AttrValue::Kind::kFunc;
    v.func = std::make_shared<NameAttrList>(NameAttrList{name, {}});
    return v;
  };
  if (is_if) {
    op.attr["Tcond"] = AttrValue::Type(g_->nodes[preds_[p].node].out_types.at(preds_[p].index));
    op.attr["then_branch"] = func(fns[1]);
    op.attr["else_branch"] = func(fns[0]);
  } else {
    AttrValue list = AttrValue::EmptyList();
    for (const std::string& f : fns) list.list.func.push_back(NameAttrList{f, {}});
    op.attr["branches"] = list;
  }
  op.out_types = out_types;
  const int id = g_->Add(std::move(op));
  // A control edge from a Switch is taken whichever branch runs: nodes outside the cond that wait
  // for a Switch wait for its inputs instead.
  const auto control_users = g_->ControlConsumers();
  for (int s : switches) {
    std::vector<int> instead = g_->nodes[s].control_inputs;
    for (const FOut& t : g_->nodes[s].inputs) instead.push_back(t.node);
    for (int user : control_users[s]) {
      if (c.nodes.count(user) || user == id) continue;
      std::vector<int>& ctl = g_->nodes[user].control_inputs;
      ctl.erase(std::remove(ctl.begin(), ctl.end(), s), ctl.end());
      for (int n : instead)
        if (std::find(ctl.begin(), ctl.end(), n) == ctl.end()) ctl.push_back(n);
    }
  }
  for (int b = 0; b < nb; ++b)
    for (int i : branch[b]) g_->nodes[i].removed = true, g_->nodes[i].moved_to = id;
  for (int s : switches) g_->nodes[s].removed = true, g_->nodes[s].moved_to = id;
  for (size_t k = 0; k < c.merges.size(); ++k) {
    std::vector<FOut> values = merge_values[k];
    for (FOut& v : values) v.node = id;
    TX_RETURN_IF_ERROR(ReplaceWithIdentity(g_, c.merges[k], values));
  }
  return Status::OK();
}

Status CondPass::Round(bool* progress) {
  *progress = false;
  TX_RETURN_IF_ERROR(ComputeStates());
  // The outermost conds: Merges that remove a predicate and then run unconditionally.
  std::vector<int> merges;
  for (const auto& kv : merge_pred_)
    if (state_[kv.first] == 0 && !g_->nodes[kv.first].removed) merges.push_back(kv.first);
  if (merges.empty()) return Status::OK();
  // Merges whose conds share a node are one cond (one If with several outputs).
  std::vector<int> rep(merges.size());
  std::iota(rep.begin(), rep.end(), 0);
  auto find = [&](int x) {
    while (rep[x] != x) x = rep[x] = rep[rep[x]];
    return x;
  };
  std::vector<std::set<int>> closures(merges.size());
  std::map<int, int> owner;  // node -> a merge (index) whose cond holds it
  for (size_t k = 0; k < merges.size(); ++k) {
    Closure(merges[k], &closures[k]);
    for (int i : closures[k]) {
      auto it = owner.emplace(i, static_cast<int>(k));
      if (it.second) continue;
      const int other = it.first->second;
      if (merge_pred_[merges[other]] != merge_pred_[merges[k]])
        return InvalidArgument(g_->Where(i), "belongs to the conds on '",
                               g_->TensorName(preds_[merge_pred_[merges[other]]]), "' and '",
                               g_->TensorName(preds_[merge_pred_[merges[k]]]), "', neither inside the other");
      rep[find(static_cast<int>(k))] = find(other);
    }
  }
  // Branch nodes that reach no Merge join the cond of the nodes they read.
  std::vector<int> order;
  TX_RETURN_IF_ERROR(TopologicalOrder(*g_, &order));
  std::map<int, int> dangling;
  for (int i : order) {
    if (owner.count(i) || state_[i] == 0 || g_->nodes[i].IsOp("Merge")) continue;
    int cl = -1;
    auto see = [&](int src) {
      auto it = owner.find(src);
      auto d = dangling.find(src);
      const int k = it != owner.end() ? it->second : d != dangling.end() ? d->second : -1;
      if (k < 0 || BranchOf(states_[state_[i]], merge_pred_[merges[k]]) < 0) return;
      if (cl < 0)
        cl = k;
      else
        rep[find(k)] = find(cl);
    };
    for (const FOut& t : g_->nodes[i].inputs) see(t.node);
    for (int c : g_->nodes[i].control_inputs) see(c);
    if (cl >= 0) dangling[i] = cl;
  }
  std::map<int, Cluster> clusters;
  for (size_t k = 0; k < merges.size(); ++k) {
    Cluster& c = clusters[find(static_cast<int>(k))];
    c.pred = merge_pred_[merges[k]];
    c.merges.push_back(merges[k]);
    c.nodes.insert(closures[k].begin(), closures[k].end());
  }
  for (const auto& kv : dangling) clusters[find(kv.second)].nodes.insert(kv.first);
  for (auto& kv : clusters) {
    std::sort(kv.second.merges.begin(), kv.second.merges.end());
    TX_RETURN_IF_ERROR(Build(kv.second));
  }
  *progress = true;
  return Status::OK();
}

Status CondPass::Finish() {
  const auto consumers = g_->DataConsumers();
  const auto control = g_->ControlConsumers();
  for (size_t k = 0; k < g_->nodes.size(); ++k) {
    const int i = static_cast<int>(k);
    FNode& n = g_->nodes[i];
    if (n.removed || n.kind != FKind::kOp) continue;
    bool read = !control[i].empty();
    for (const auto& out : consumers[i]) read = read || !out.empty();
    if (IsSwitch(n)) {
      if (!read) {
        n.removed = true;
        continue;
      }
      int user = control[i].empty() ? -1 : control[i][0];
      for (const auto& out : consumers[i])
        if (!out.empty()) user = out[0].first;
      return InvalidArgument(g_->Where(user), "reads Switch '", n.name,
                             "', but the branch reaches no Merge of its cond, "
                             "so the cond cannot be rebuilt as an If");
    }
    if (n.IsOp("Merge")) {
      if (n.inputs.size() == 1 && (consumers[i].size() < 2 || consumers[i][1].empty())) {
        TX_RETURN_IF_ERROR(ReplaceWithIdentity(g_, i, {n.inputs[0]}));
        continue;
      }
      return InvalidArgument(g_->Where(i), "Merge does not join the branches of a cond (its inputs exist ",
                             Describe(states_[state_[i]]), ")");
    }
  }
  return Status::OK();
}

}  // namespace

Status FunctionalizeConds(FGraph* g, PassContext ctx) {
  const bool any = std::any_of(g->nodes.begin(), g->nodes.end(),
                               [](const FNode& n) { return !n.removed && (IsSwitch(n) || n.IsOp("Merge")); });
  if (!any) return Status::OK();
  CondPass pass(g, ctx);
  for (bool progress = true; progress;) TX_RETURN_IF_ERROR(pass.Round(&progress));
  return pass.Finish();
}

}  // namespace functionalize
}  // namespace tx

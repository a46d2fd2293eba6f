// FunctionalizeLoops: each outermost while-loop frame of an FGraph becomes a While or
// StatelessWhile node (Note [Functionalize control flow], step 1).
#include <algorithm>
#include <map>
#include <set>

#include "tensorflux/framework/functionalize_graph.h"

namespace tx {
namespace functionalize {
namespace {

constexpr int kFloating = -1;  // the frame of a node without inputs: wherever it is used

struct Frame {
  std::string name;
  int parent = -1;
  int first_enter = -1;
};

// Where each node runs: `in` is the frame a node executes in, `out` the frame of its outputs (they
// differ for Enter, which opens a child frame, and Exit, which returns to the parent).
struct Frames {
  std::vector<Frame> frames{Frame{}};  // frames[0]: the graph's own (root) frame
  std::vector<int> in, out;

  bool Within(int frame, int ancestor) const {
    for (; frame > 0; frame = frames[frame].parent)
      if (frame == ancestor) return true;
    return ancestor == 0;
  }
};

bool IsFrameOp(const FNode& n) {
  return n.IsOp("Enter") || n.IsOp("Exit") || n.IsOp("Merge") || n.IsOp("Switch") || n.IsOp("NextIteration") ||
      n.IsOp("LoopCond") || n.IsOp("_SwitchN");
}

std::string FrameName(const Frames& f, int frame) { return frame <= 0 ? std::string("(root)") : f.frames[frame].name; }

Status AssignFrames(const FGraph& g, Frames* f) {
  std::vector<int> order;
  TX_RETURN_IF_ERROR(TopologicalOrder(g, &order));
  f->in.assign(g.nodes.size(), 0);
  f->out.assign(g.nodes.size(), 0);
  std::map<std::pair<int, std::string>, int> children;
  for (int i : order) {
    const FNode& n = g.nodes[i];
    if (n.kind != FKind::kOp) continue;
    int frame = kFloating, from = -1;
    auto see = [&](int src) -> Status {
      if (g.nodes[src].IsOp("NextIteration") || f->out[src] == kFloating) return Status::OK();
      if (frame == kFloating) {
        frame = f->out[src];
        from = src;
      } else if (frame != f->out[src]) {
        return InvalidArgument(g.Where(i), "has inputs from different frames: '", g.nodes[from].name, "' is in frame '",
                               FrameName(*f, frame), "' and '", g.nodes[src].name, "' in frame '",
                               FrameName(*f, f->out[src]), "'");
      }
      return Status::OK();
    };
    for (const FOut& t : n.inputs) TX_RETURN_IF_ERROR(see(t.node));
    for (int c : n.control_inputs) TX_RETURN_IF_ERROR(see(c));
    if (frame == kFloating) {
      if (!IsFrameOp(n)) {
        f->in[i] = f->out[i] = kFloating;
        continue;
      }
      frame = 0;
    }
    f->in[i] = f->out[i] = frame;
    if (n.op == "Enter") {
      auto it = n.attr.find("frame_name");
      if (it == n.attr.end() || it->second.kind != AttrValue::Kind::kString || it->second.s.empty())
        return InvalidArgument(g.Where(i), "Enter has no frame_name");
      auto child = children.emplace(std::make_pair(frame, it->second.s), static_cast<int>(f->frames.size()));
      if (child.second) f->frames.push_back(Frame{it->second.s, frame, i});
      f->out[i] = child.first->second;
    } else if (n.op == "Exit" || n.op == "NextIteration" || n.op == "LoopCond") {
      if (frame == 0)
        return InvalidArgument(g.Where(i), n.op, " is outside any while loop frame (no Enter leads to it)");
      if (n.op == "Exit") f->out[i] = f->frames[frame].parent;
    }
  }
  return Status::OK();
}

// One loop variable: Enter -> Merge <- NextIteration, Merge -> Switch -> Exit(s).
struct LoopVar {
  int enter = -1, merge = -1, sw = -1, next = -1;
  std::vector<int> exits;
};

class LoopBuilder {
 public:
  LoopBuilder(FGraph* g, const Frames& f, int frame, PassContext ctx) : g_(g), f_(f), frame_(frame), ctx_(ctx) {}
  Status Run();

 private:
  std::string Where(int i) const { return g_->Where(i); }
  std::string Frame() const { return "while loop frame '" + f_.frames[frame_].name + "'"; }
  bool Member(int i) const { return f_.in[i] != kFloating && f_.Within(f_.in[i], frame_) && f_.in[i] != 0; }
  Status FindStructure();
  Status Walk(FOut start, int user, bool body, std::set<int>* nodes);
  void VisitNode(int i, std::set<int>* nodes, std::vector<FOut>* tensors, std::vector<int>* users);
  Status Replace();

  FGraph* g_;
  const Frames& f_;
  const int frame_;
  PassContext ctx_;
  std::vector<LoopVar> vars_;
  int loop_cond_ = -1;
  std::set<int> structural_;  // Enter/Merge/Switch/NextIteration/LoopCond of this frame
  std::map<int, int> var_of_merge_, var_of_switch_;
  std::map<FOut, int> invariant_arg_;  // tensor of the parent graph -> invariant index
  std::vector<FOut> invariant_src_;  // the value each invariant carries in
  std::set<int> cond_nodes_, body_nodes_;
  std::vector<int> control_rets_;
};

Status LoopBuilder::FindStructure() {
  const int enter0 = f_.frames[frame_].first_enter;
  std::vector<int> enters, merges, nexts, exits;
  for (size_t k = 0; k < g_->nodes.size(); ++k) {
    const int i = static_cast<int>(k);
    const FNode& n = g_->nodes[i];
    if (n.removed || n.kind != FKind::kOp) continue;
    if (n.op == "Enter" && f_.out[i] == frame_) enters.push_back(i);
    if (f_.in[i] != frame_) continue;
    if (n.op == "LoopCond") {
      if (loop_cond_ >= 0)
        return InvalidArgument(Where(i), Frame(), " has a second LoopCond ('", g_->nodes[loop_cond_].name, "')");
      loop_cond_ = i;
    } else if (n.op == "NextIteration") {
      nexts.push_back(i);
    } else if (n.op == "Exit") {
      exits.push_back(i);
    } else if (n.op == "Merge" && std::any_of(n.inputs.begin(), n.inputs.end(), [&](FOut t) {
                 return g_->nodes[t.node].IsOp("NextIteration");
               })) {
      merges.push_back(i);
    }
  }
  if (exits.empty()) return InvalidArgument(Where(enter0), Frame(), " has no Exit node");
  if (loop_cond_ < 0) return InvalidArgument(Where(enter0), Frame(), " has no LoopCond node");
  structural_.insert(loop_cond_);
  const auto consumers = g_->DataConsumers();
  std::map<int, int> merge_of_enter, merge_of_next;
  for (int m : merges) {
    const FNode& n = g_->nodes[m];
    LoopVar v;
    v.merge = m;
    for (const FOut& t : n.inputs) {
      const FNode& src = g_->nodes[t.node];
      if (src.IsOp("Enter") && f_.out[t.node] == frame_ && v.enter < 0)
        v.enter = t.node;
      else if (src.IsOp("NextIteration") && f_.in[t.node] == frame_ && v.next < 0)
        v.next = t.node;
      else
        v.enter = v.next = -2;
    }
    if (n.inputs.size() != 2 || v.enter < 0 || v.next < 0) {
      std::string ins;
      for (const FOut& t : n.inputs)
        ins += (ins.empty() ? "'" : ", '") + g_->TensorName(t) + "' (" + g_->nodes[t.node].op + ")";
      return InvalidArgument(Where(m), "mismatched Merge inputs: a Merge of ", Frame(),
                             " must join one Enter of the frame and one NextIteration, but its inputs are ", ins);
    }
    if (!merge_of_enter.emplace(v.enter, m).second)
      return InvalidArgument(Where(v.enter), "Enter feeds two loop Merges ('", g_->nodes[merge_of_enter[v.enter]].name,
                             "' and '", g_->nodes[m].name, "')");
    if (!merge_of_next.emplace(v.next, m).second)
      return InvalidArgument(Where(v.next), "NextIteration feeds two loop Merges");
    if (consumers[m].size() > 1 && !consumers[m][1].empty())
      return InvalidArgument(Where(consumers[m][1][0].first), "reads value_index of loop Merge '", n.name,
                             "', which has no equivalent in a While loop");
    for (const auto& use : consumers[m][0]) {
      const FNode& c = g_->nodes[use.first];
      if (!c.IsOp("Switch") || use.second != 0 || c.inputs[1].node != loop_cond_) continue;
      if (v.sw >= 0)
        return InvalidArgument(Where(use.first), "a second Switch on the LoopCond for loop variable '", n.name, "'");
      v.sw = use.first;
    }
    if (v.sw < 0) return InvalidArgument(Where(m), "loop variable of ", Frame(), " has no Switch on the LoopCond");
    var_of_merge_[m] = static_cast<int>(vars_.size());
    var_of_switch_[v.sw] = static_cast<int>(vars_.size());
    for (const auto& use : consumers[v.sw][0]) {
      if (!g_->nodes[use.first].IsOp("Exit"))
        return InvalidArgument(Where(use.first), "reads the exit side of loop Switch '", g_->nodes[v.sw].name,
                               "' without an Exit");
      v.exits.push_back(use.first);
    }
    structural_.insert({v.enter, v.merge, v.sw, v.next});
    vars_.push_back(std::move(v));
  }
  for (int nx : nexts)
    if (!merge_of_next.count(nx))
      return InvalidArgument(Where(nx), "NextIteration of ", Frame(), " feeds no Merge of its loop");
  for (int e : exits) {
    const FOut in = g_->nodes[e].inputs.at(0);
    if (!var_of_switch_.count(in.node) || in.index != 0)
      return InvalidArgument(Where(e), "Exit of ", Frame(),
                             " must read output 0 of a loop variable's Switch on the LoopCond");
  }
  for (size_t k = 0; k < g_->nodes.size(); ++k) {
    const FNode& n = g_->nodes[k];
    if (n.removed || !n.IsOp("Switch") || f_.in[k] != frame_ || n.inputs.size() != 2 || n.inputs[1].node != loop_cond_)
      continue;
    if (!var_of_switch_.count(static_cast<int>(k)))
      return InvalidArgument(Where(static_cast<int>(k)), "Switch on the LoopCond of ", Frame(),
                             " does not switch a loop variable's Merge");
  }
  for (int e : enters) {
    const AttrValue* c = g_->nodes[e].attr.count("is_constant") ? &g_->nodes[e].attr.at("is_constant") : nullptr;
    const bool is_constant = c != nullptr && c->kind == AttrValue::Kind::kBool && c->b;
    structural_.insert(e);
    if (!merge_of_enter.count(e) && !is_constant)
      return InvalidArgument(Where(e), "Enter (is_constant=false) of ", Frame(),
                             " feeds no Merge: a loop variable needs Enter -> Merge <- NextIteration");
    if (is_constant) {
      invariant_arg_.emplace(FOut{e, 0}, static_cast<int>(invariant_src_.size()));
      invariant_src_.push_back(g_->nodes[e].inputs.at(0));
    } else {
      for (const auto& use : consumers[e][0])
        if (use.first != merge_of_enter[e])
          return InvalidArgument(Where(use.first), "reads loop-variable Enter '", g_->nodes[e].name,
                                 "' directly; loop variables are read through their Merge");
    }
  }
  return Status::OK();
}

// Adds `i` and what it reads to `nodes` (iteratively, so deep graphs do not exhaust the stack).
Status LoopBuilder::Walk(FOut start, int user, bool body, std::set<int>* nodes) {
  std::vector<FOut> tensors{start};
  std::vector<int> users{user};
  while (!tensors.empty()) {
    const FOut t = tensors.back();
    const int u = users.back();
    tensors.pop_back();
    users.pop_back();
    const FNode& n = g_->nodes[t.node];
    if (var_of_merge_.count(t.node) && t.index == 0) continue;
    if (var_of_switch_.count(t.node)) {
      if (body && t.index == 1) continue;
      return InvalidArgument(
          Where(u), body ? "reads the exit side of loop Switch '" : "(in the loop condition) reads loop Switch '",
          n.name, "'");
    }
    if (invariant_arg_.count(t)) continue;
    if (n.IsOp("Enter") && f_.out[t.node] == frame_)
      return InvalidArgument(Where(u), "reads loop-variable Enter '", n.name,
                             "' directly; loop variables are read through their Merge");
    if (f_.in[t.node] == kFloating || n.kind != FKind::kOp) {
      invariant_arg_.emplace(t, static_cast<int>(invariant_src_.size()));
      invariant_src_.push_back(t);
      continue;
    }
    if (!Member(t.node) || structural_.count(t.node))
      return InvalidArgument(Where(u), "in ", Frame(), " reads '", g_->TensorName(t),
                             "' from outside the frame without an Enter");
    VisitNode(t.node, nodes, &tensors, &users);
  }
  return Status::OK();
}

void LoopBuilder::VisitNode(int i, std::set<int>* nodes, std::vector<FOut>* tensors, std::vector<int>* users) {
  std::vector<int> stack{i};
  while (!stack.empty()) {
    const int k = stack.back();
    stack.pop_back();
    if (!nodes->insert(k).second) continue;
    for (const FOut& t : g_->nodes[k].inputs) {
      tensors->push_back(t);
      users->push_back(k);
    }
    for (int c : g_->nodes[k].control_inputs) {
      if (structural_.count(c) || f_.in[c] == kFloating || !Member(c)) continue;  // a pivot, or ready at entry
      stack.push_back(c);
    }
  }
}

Status LoopBuilder::Replace() {
  const int n = static_cast<int>(vars_.size());
  std::vector<DataType> types;
  for (const LoopVar& v : vars_) types.push_back(g_->nodes[v.merge].out_types.at(0));
  for (const FOut& src : invariant_src_) types.push_back(g_->nodes[src.node].out_types.at(src.index));
  for (size_t k = 0; k < types.size(); ++k)
    if (types[k] == DT_INVALID)
      return InvalidArgument(Where(k < vars_.size() ? vars_[k].merge : invariant_src_[k - n].node),
                             "the dtype of this loop value is unknown");
  std::map<FOut, int> cond_args, body_args;
  for (int k = 0; k < n; ++k) {
    cond_args[FOut{vars_[k].merge, 0}] = k;
    body_args[FOut{vars_[k].merge, 0}] = k;
    body_args[FOut{vars_[k].sw, 1}] = k;
  }
  for (const auto& kv : invariant_arg_) {
    cond_args[kv.first] = n + kv.second;
    body_args[kv.first] = n + kv.second;
  }
  const std::string base = Sanitize(f_.frames[frame_].name);
  std::string cond_fn, body_fn;
  bool cond_stateful = false, body_stateful = false;
  std::vector<int> cond_list(cond_nodes_.begin(), cond_nodes_.end()), body_list(body_nodes_.begin(), body_nodes_.end());
  TX_RETURN_IF_ERROR(MakeFunction(*g_, cond_list, cond_args, types, {g_->nodes[loop_cond_].inputs.at(0)}, {},
                                  base + "_cond", ctx_, &cond_fn, &cond_stateful));
  std::vector<FOut> rets;
  for (const LoopVar& v : vars_) rets.push_back(g_->nodes[v.next].inputs.at(0));
  for (const FOut& src : invariant_src_) {
    (void)src;
    rets.push_back(FOut{-1, 0});
  }
  // Invariants pass through: the body returns its argument (an arg_of key maps to itself).
  for (const auto& kv : invariant_arg_) rets[n + kv.second] = kv.first;
  TX_RETURN_IF_ERROR(MakeFunction(*g_, body_list, body_args, types, rets, control_rets_, base + "_body", ctx_, &body_fn,
                                  &body_stateful));

  const FNode& first = g_->nodes[vars_.empty() ? f_.frames[frame_].first_enter : vars_[0].enter];
  FNode w;
  w.op = cond_stateful || body_stateful ? "While" : "StatelessWhile";
  w.reg = OpRegistry::Global()->LookUp(w.op);
  w.device = first.device;
  const int exit0 = vars_.empty() || vars_[0].exits.empty() ? -1 : vars_[0].exits[0];
  w.name = NameInScope(*g_, exit0 >= 0 ? g_->nodes[exit0].name : first.name, "While");
  AttrValue t = AttrValue::EmptyList();
  t.list.type = types;
  w.attr["T"] = t;
  AttrValue cond = AttrValue::EmptyList(), body = AttrValue::EmptyList();
  cond.kind = body.kind = AttrValue::Kind::kFunc;
  cond.func = std::make_shared<NameAttrList>(NameAttrList{cond_fn, {}});
  body.func = std::make_shared<NameAttrList>(NameAttrList{body_fn, {}});
  w.attr["cond"] = cond;
  w.attr["body"] = body;
  w.attr["output_shapes"] = AttrValue::EmptyList();
  auto pi = first.attr.find("parallel_iterations");
  w.attr["parallel_iterations"] = pi != first.attr.end() ? pi->second : AttrValue::Int(10);
  for (const LoopVar& v : vars_) w.inputs.push_back(g_->nodes[v.enter].inputs.at(0));
  for (const FOut& src : invariant_src_) w.inputs.push_back(src);
  for (int e : structural_) {
    if (!g_->nodes[e].IsOp("Enter")) continue;
    for (int c : g_->nodes[e].control_inputs)
      if (std::find(w.control_inputs.begin(), w.control_inputs.end(), c) == w.control_inputs.end())
        w.control_inputs.push_back(c);
  }
  w.out_types = types;
  const int wid = g_->Add(std::move(w));

  for (size_t k = 0; k < g_->nodes.size(); ++k) {
    const int i = static_cast<int>(k);
    if (i == wid || g_->nodes[i].removed || g_->nodes[i].kind != FKind::kOp) continue;
    const bool own_exit = g_->nodes[i].IsOp("Exit") && f_.in[i] == frame_;
    if (own_exit || !(structural_.count(i) || Member(i))) continue;
    g_->nodes[i].removed = true;
    g_->nodes[i].moved_to = wid;
  }
  for (int k = 0; k < n; ++k)
    for (int e : vars_[k].exits) TX_RETURN_IF_ERROR(ReplaceWithIdentity(g_, e, {FOut{wid, k}}));
  return Status::OK();
}

Status LoopBuilder::Run() {
  TX_RETURN_IF_ERROR(FindStructure());
  TX_RETURN_IF_ERROR(Walk(g_->nodes[loop_cond_].inputs.at(0), loop_cond_, false, &cond_nodes_));
  for (const LoopVar& v : vars_) TX_RETURN_IF_ERROR(Walk(g_->nodes[v.next].inputs.at(0), v.next, true, &body_nodes_));
  // Stateful nodes of the frame that neither result needs still run each iteration.
  for (size_t k = 0; k < g_->nodes.size(); ++k) {
    const int i = static_cast<int>(k);
    const FNode& n = g_->nodes[i];
    if (n.removed || !Member(i) || structural_.count(i) || (n.IsOp("Exit") && f_.in[i] == frame_)) continue;
    if (cond_nodes_.count(i) || body_nodes_.count(i) || !IsStateful(n)) continue;
    std::vector<FOut> tensors;
    std::vector<int> users;
    VisitNode(i, &body_nodes_, &tensors, &users);
    for (size_t j = 0; j < tensors.size(); ++j) TX_RETURN_IF_ERROR(Walk(tensors[j], users[j], true, &body_nodes_));
    control_rets_.push_back(i);
  }
  return Replace();
}

}  // namespace

Status FunctionalizeLoops(FGraph* g, PassContext ctx) {
  // One outermost frame at a time; the frames are found again after each rewrite (node ids of the
  // rest stay valid, but the new While node has none).
  for (;;) {
    Frames f;
    TX_RETURN_IF_ERROR(AssignFrames(*g, &f));
    int frame = 1;
    while (frame < static_cast<int>(f.frames.size()) && f.frames[frame].parent != 0) ++frame;
    if (frame >= static_cast<int>(f.frames.size())) return Status::OK();
    LoopBuilder b(g, f, frame, ctx);
    TX_RETURN_IF_ERROR(b.Run());
  }
}

}  // namespace functionalize
}  // namespace tx

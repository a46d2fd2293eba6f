// Gradients of While and StatelessWhile (Note [While gradients]).
//
// Note [While gradients]
// The body is instantiated once more (for the loop variables' invariant shapes) and
// differentiated there: one `dy` argument per differentiable loop variable, the symbolic driver
// adding the gradient nodes. The nodes of that graph are then split:
// - forward: the body itself, plus what gradients of nested loops add to run forward (their
//   accumulating loops, which carry `_tx_replaces`, and those loops' inputs);
// - backward: the gradient nodes that compute the new loop-variable gradients.
// The intermediates are the forward tensors that backward nodes read and that change from one
// iteration to the next (they depend on a loop variable or on a stateful op); forward tensors
// that do not (constants, shapes of constants) are recomputed in the backward body instead.
// Three functions come out of it, and two loops:
// - the accumulating forward loop A runs the body plus one StackPushV2 per intermediate, onto a
//   stack made by StackV2 outside the loop, and counts its iterations; its cond is the forward
//   cond taking (and ignoring) the extra loop variables. A carries `_tx_replaces` = the forward
//   node's name, so a plan that needs both runs only A (Note [Replaced loops] in executor.cc).
//   The stacks share the pushed tensors, so a loop-invariant tensor costs nothing per iteration.
// - the backward loop runs as many iterations as A did; its body pops the intermediates (last
//   iteration first) and runs the backward nodes, turning the gradients of one iteration's
//   outputs into the gradients of its inputs. A loop variable the body returns unchanged (a
//   captured tensor) thereby accumulates its gradient over the iterations. A resource loop
//   variable (a captured variable handle) gets an accumulator of the variable's gradient.
// So the backward pass never recomputes the forward body. In eager mode (a While op run
// directly under a tape) the gradient runs A afresh: the forward loop runs twice there.
#include <algorithm>
#include <map>
#include <set>

#include "tensorflux/framework/function_instantiate.h"
#include "tensorflux/framework/graph_to_function.h"
#include "tensorflux/gradients/function_grad_util.h"
#include "tensorflux/gradients/gradient_registry.h"
#include "tensorflux/gradients/grad_scope.h"
#include "tensorflux/gradients/graph_grad_builder.h"
#include "tensorflux/gradients/symbolic_gradients.h"

namespace tx {
namespace {

// What the forward and backward loops need, built from one differentiated body.
struct LoopGrad {
  std::string forward_body, forward_cond, backward_body, backward_cond;
  std::vector<int> dvars;  // differentiable loop variables, in order
  std::vector<int> rvars;  // resource loop variables some gradient reaches
  std::vector<DataType> rtypes;  // the gradient types of rvars (the variables' dtypes)
  std::vector<DataType> stack_types;  // element types of the intermediates' stacks
};

// Nodes of `g` that the forward loop runs: every node older than the gradient (ids below
// `grad_begin`, which read only each other), and accumulating loops of nested loops with
// everything they read.
std::vector<char> ForwardNodes(const Graph& g, int grad_begin) {
  std::vector<char> fwd(g.num_nodes(), 0);
  std::fill(fwd.begin(), fwd.begin() + grad_begin, 1);
  std::vector<const Node*> stack;
  for (int id = grad_begin; id < g.num_nodes(); ++id)
    if (g.node(id)->attr("_tx_replaces") != nullptr) stack.push_back(g.node(id));
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (fwd[n->id()]) continue;
    fwd[n->id()] = 1;
    for (const Endpoint& in : n->inputs()) stack.push_back(in.node);
    for (const Node* c : n->control_inputs()) stack.push_back(c);
  }
  return fwd;
}

// Nodes whose value may differ between iterations: arguments, stateful nodes and what reads them.
std::vector<char> VariantNodes(const Graph& g) {
  std::vector<char> variant(g.num_nodes(), 0);
  for (int id = 0; id < g.num_nodes(); ++id) {  // ids are a topological order
    const Node* n = g.node(id);
    bool v = n->op_type() == "_Arg" || n->op_def().is_stateful;
    for (const Endpoint& in : n->inputs()) v = v || variant[in.node->id()];
    for (const Node* c : n->control_inputs()) v = v || variant[c->id()];
    variant[id] = v;
  }
  return variant;
}

// Gradient nodes the forward loop computes instead (Note [Lists stay out of stacks]): nodes that
// read a forward TensorList, or such nodes' results, and nothing else but forward values.
std::vector<char> HoistedNodes(const Graph& g, int grad_begin, const std::vector<char>& fwd) {
  std::vector<char> hoisted(g.num_nodes(), 0);
  for (int id = grad_begin; id < g.num_nodes(); ++id) {  // ids are a topological order
    const Node* n = g.node(id);
    if (n->op_def().is_stateful || n->op_type() == "_Arg") continue;
    bool all_forward = true, reads_list = false;
    for (const Endpoint& in : n->inputs()) {
      const int src = in.node->id();
      all_forward = all_forward && (fwd[src] || hoisted[src]);
      reads_list = reads_list || hoisted[src] || (fwd[src] && in.node->output_type(in.index) == DT_VARIANT);
    }
    for (const Node* c : n->control_inputs()) all_forward = all_forward && (fwd[c->id()] || hoisted[c->id()]);
    hoisted[id] = all_forward && reads_list;
  }
  return hoisted;
}

// Note [Lists stay out of stacks]
// A loop that writes one element of a TensorList per iteration changes the list in place (Note
// [TensorList in place]); pushing each iteration's list onto a stack would keep a reference to
// it, so the next write would copy it: O(n^2). The list gradients mostly read a forward list for
// its length or element shape (TensorListLength, TensorListElementShape), so those small
// computations run in the forward loop and their results are the intermediates instead.

// The intermediates: forward, iteration-dependent tensors that the nodes computing `outputs`
// read, stopping at `inputs` (Note [While gradients]); results of hoisted gradient nodes count as
// forward tensors (Note [Lists stay out of stacks]).
std::vector<Endpoint> Intermediates(const Graph& g, int grad_begin, const std::vector<Endpoint>& inputs,
                                    const std::vector<Endpoint>& outputs) {
  std::vector<char> fwd = ForwardNodes(g, grad_begin);
  const std::vector<char> variant = VariantNodes(g), hoisted = HoistedNodes(g, grad_begin, fwd);
  for (int id = 0; id < g.num_nodes(); ++id) fwd[id] = fwd[id] || hoisted[id];
  auto key = [](const Endpoint& e) { return std::make_pair(e.node->id(), e.index); };
  std::set<std::pair<int, int>> input_keys;
  for (const Endpoint& e : inputs) input_keys.insert(key(e));
  auto is_input = [&](const Endpoint& e) { return input_keys.count(key(e)) > 0; };
  std::vector<Endpoint> found;
  std::set<std::pair<int, int>> seen_tensor;
  std::vector<char> seen_node(g.num_nodes(), 0);
  std::vector<const Node*> stack;
  auto reach = [&](const Endpoint& e) {
    if (is_input(e)) return;
    if (fwd[e.node->id()] && variant[e.node->id()]) {
      if (seen_tensor.insert(key(e)).second) found.push_back(e);
      return;
    }
    if (!seen_node[e.node->id()]) {
      seen_node[e.node->id()] = 1;
      stack.push_back(e.node);
    }
  };
  for (const Endpoint& e : outputs) reach(e);
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const Endpoint& in : n->inputs()) reach(in);
    for (Node* c : n->control_inputs())
      if (!(fwd[c->id()] && variant[c->id()])) reach({c, 0});
  }
  return found;
}

// Replaces the function's last `count` input arguments by pops from the stacks that the
// `count` arguments before them hold: each read of such an argument reads the pop instead.
void PopInsteadOfArgs(size_t count, FunctionDef* f) {
  std::vector<ArgDef>& args = f->signature.input_arg;
  const size_t first = args.size() - count, handles = first - count;
  std::map<std::string, std::string> renamed;
  std::vector<codec::NodeDefProto> pops;
  for (size_t t = 0; t < count; ++t) {
    const ArgDef& a = args[first + t];
    codec::NodeDefProto pop;
    pop.name = a.name;  // free once the argument is gone
    pop.op = "StackPopV2";
    pop.input.push_back(args[handles + t].name);
    pop.attr["elem_type"] = AttrValue::Type(a.type);
    renamed[a.name] = a.name + ":elem:0";
    pops.push_back(std::move(pop));
    f->arg_attr.erase(static_cast<uint32_t>(first + t));
  }
  args.resize(first);
  for (codec::NodeDefProto& n : f->node_def)
    for (std::string& in : n.input) {
      auto it = renamed.find(in);
      if (it != renamed.end()) in = it->second;
    }
  for (auto& r : f->ret) {
    auto it = renamed.find(r.second);
    if (it != renamed.end()) r.second = it->second;
  }
  f->node_def.insert(f->node_def.begin(), pops.begin(), pops.end());
  f->signature.is_stateful = true;
}

// `cond` taking `extra` more (ignored) arguments; added to `lib`, its name in *name.
Status ExtendCond(FunctionLibrary* lib, const NameAttrList& cond, const std::vector<DataType>& extra,
                  std::string* name) {
  std::shared_ptr<const FunctionDef> def = lib->Find(cond.name);
  if (def == nullptr) return NotFound("cond: function '", cond.name, "' is not in the graph's function library");
  FunctionDef f = *def;
  std::set<std::string> used;
  for (const ArgDef& a : f.signature.input_arg) used.insert(a.name);
  for (const ArgDef& a : f.signature.output_arg) used.insert(a.name);
  for (const codec::NodeDefProto& n : f.node_def) used.insert(n.name);
  for (size_t t = 0; t < extra.size(); ++t) {
    ArgDef a;
    a.name = "accumulator_" + std::to_string(t);
    while (used.count(a.name)) a.name += "_";
    used.insert(a.name);
    a.type = extra[t];
    f.signature.input_arg.push_back(a);
  }
  f.signature.description = "Loop condition of " + cond.name + " with the accumulators of its gradient (generated).";
  NameByFingerprint(cond.name + "_accumulating", &f);
  *name = f.name();
  return lib->Add(std::move(f));
}

// `n > 0` over loop variables of `types` (the first one the iteration count).
Status CountdownCond(FunctionLibrary* lib, const std::vector<DataType>& types, std::string* name) {
  Graph g;
  GraphToFunctionSpec spec;
  for (size_t k = 0; k < types.size(); ++k) {
    Endpoint a;
    TX_RETURN_IF_ERROR(AddArgNode(&g, "arg", types[k], static_cast<int>(k), PartialShape::Unknown(), &a));
    spec.inputs.push_back(a);
  }
  GraphGradBuilder b(&g, "countdown");
  b.SetScope("cond", "");
  GradScope s(&b);
  GValue more = s.Op1("Greater", {b.Wrap(spec.inputs[0]), s.Int(0)});
  TX_RETURN_IF_ERROR(s.status());
  spec.outputs.push_back(b.Unwrap(more));
  spec.name = "while_grad_countdown";
  spec.append_hash = true;
  spec.description = "Loop condition of a While gradient: iterations are left (generated).";
  FunctionDef f;
  TX_RETURN_IF_ERROR(GraphToFunctionDef(g, spec, &f));
  *name = f.name();
  return lib->Add(std::move(f));
}

// Differentiates the body of a loop over `types` with invariant shapes `shapes` (and what is
// known of the variables behind resource loop variables, `handles`) and adds the
// forward and backward functions to `lib` (Note [While gradients]). A loop variable the body
// returns unchanged carries a gradient only when `needs` asks for it: its gradient feeds no other.
Status BuildLoopGrad(FunctionLibrary* lib, const std::vector<DataType>& types, const std::vector<PartialShape>& shapes,
                     const std::vector<InferenceContext::HandleData>& handles, const std::vector<bool>& needs,
                     const NameAttrList& body, const NameAttrList& cond, LoopGrad* out) {
  std::shared_ptr<const FunctionDef> def = lib->Find(body.name);
  if (def == nullptr) return NotFound("body: function '", body.name, "' is not in the graph's function library");
  InstantiateOptions opts;
  opts.input_shapes = shapes;
  opts.input_handles = handles;
  std::unique_ptr<FunctionBody> fb;
  TX_RETURN_IF_ERROR(InstantiateFunction(lib, *def, body.attr, opts, &fb));
  Graph& g = *fb->graph;
  const int grad_begin = g.num_nodes();
  const int n = static_cast<int>(types.size());
  int next_index = n;

  // Gradients of the body's differentiable results with respect to its arguments.
  std::vector<Endpoint> ys, dys, xs;
  std::vector<int> xvars;
  std::vector<bool> skip(n);
  for (int k = 0; k < n; ++k) skip[k] = !needs[k] && fb->rets[k] == Endpoint{fb->args[k], 0};
  for (int k = 0; k < n; ++k) {
    if (!IsDifferentiableType(types[k]) || skip[k]) continue;
    Endpoint dy;
    TX_RETURN_IF_ERROR(AddArgNode(&g, "dy", types[k], next_index++, g.OutputShape(fb->rets[k]), &dy));
    ys.push_back(fb->rets[k]);
    dys.push_back(dy);
    out->dvars.push_back(k);
  }
  for (int k = 0; k < n; ++k) {
    if ((!IsDifferentiableType(types[k]) && types[k] != DT_RESOURCE) || skip[k]) continue;
    xs.push_back({fb->args[k], 0});
    xvars.push_back(k);
  }
  GradientOptions gopts;
  gopts.grad_ys = dys;
  std::vector<Endpoint> dxs;
  const std::string prefix = g.UniqueName("while_grad");
  TX_RETURN_IF_ERROR(AddSymbolicGradients(&g, prefix, ys, xs, gopts, &dxs));

  // The backward body's values: the iteration count, the new gradients, the accumulators.
  GraphGradBuilder b(&g, prefix);
  b.SetScope("loop", "");
  GradScope s(&b);
  Endpoint count;
  TX_RETURN_IF_ERROR(AddArgNode(&g, "iterations_left", DT_INT32, next_index++, PartialShape::Scalar(), &count));
  std::vector<Endpoint> bwd_inputs{count}, bwd_outputs{b.Unwrap(s.Sub(b.Wrap(count), s.Int(1)))};
  for (const Endpoint& dy : dys) bwd_inputs.push_back(dy);
  std::vector<Endpoint> accs, acc_nexts;
  for (size_t j = 0; j < xvars.size(); ++j) {
    const int k = xvars[j];
    if (types[k] != DT_RESOURCE) {
      bwd_outputs.push_back(dxs[j].node != nullptr ? dxs[j] : b.Unwrap(s.ZerosLike(b.Wrap(xs[j]))));
      continue;
    }
    if (dxs[j].node == nullptr) continue;  // no gradient reaches this variable
    const DataType t = dxs[j].node->output_type(dxs[j].index);
    Endpoint acc;
    TX_RETURN_IF_ERROR(AddArgNode(&g, "accumulated", t, next_index++, g.OutputShape(dxs[j]), &acc));
    accs.push_back(acc);
    acc_nexts.push_back(b.Unwrap(s.Add(b.Wrap(acc), b.Wrap(dxs[j]))));
    out->rvars.push_back(k);
    out->rtypes.push_back(t);
  }
  TX_RETURN_IF_ERROR(s.status());
  bwd_inputs.insert(bwd_inputs.end(), accs.begin(), accs.end());
  bwd_outputs.insert(bwd_outputs.end(), acc_nexts.begin(), acc_nexts.end());
  const std::vector<Endpoint> inter = Intermediates(g, grad_begin, bwd_inputs, bwd_outputs);

  // The accumulating forward body: the body, an iteration count, and one push per intermediate.
  Endpoint iteration;
  TX_RETURN_IF_ERROR(AddArgNode(&g, "iteration", DT_INT32, next_index++, PartialShape::Scalar(), &iteration));
  GraphToFunctionSpec fwd;
  for (Node* a : fb->args) fwd.inputs.push_back({a, 0});
  fwd.inputs.push_back(iteration);
  fwd.outputs = fb->rets;
  fwd.outputs.push_back(b.Unwrap(s.Add(b.Wrap(iteration), s.Int(1))));
  fwd.control_outputs = fb->control_rets;
  for (int id = 0; id < grad_begin; ++id) {
    Node* node = g.node(id);
    if (node->op_def().is_stateful && node->op_type() != "_Arg") fwd.control_outputs.push_back(node);
  }
  std::vector<Endpoint> stacks;
  for (const Endpoint& e : inter) {
    Endpoint h;
    TX_RETURN_IF_ERROR(AddArgNode(&g, "stack", DT_RESOURCE, next_index++, PartialShape::Scalar(), &h));
    stacks.push_back(h);
    GValue push = s.Op1("StackPushV2", {b.Wrap(h), b.Wrap(e)});
    TX_RETURN_IF_ERROR(s.status());
    fwd.control_outputs.push_back(b.Unwrap(push).node);
    out->stack_types.push_back(e.node->output_type(e.index));
  }
  {
    std::sort(fwd.control_outputs.begin(), fwd.control_outputs.end(),
              [](const Node* x, const Node* y) { return x->id() < y->id(); });
    fwd.control_outputs.erase(std::unique(fwd.control_outputs.begin(), fwd.control_outputs.end()),
                              fwd.control_outputs.end());
  }
  fwd.inputs.insert(fwd.inputs.end(), stacks.begin(), stacks.end());
  fwd.outputs.insert(fwd.outputs.end(), stacks.begin(), stacks.end());
  fwd.name = body.name + "_accumulating";
  fwd.append_hash = true;
  fwd.description = "Body of " + body.name + " pushing what its gradient needs (generated).";
  FunctionDef fwd_def;
  TX_RETURN_IF_ERROR(GraphToFunctionDef(g, fwd, &fwd_def).WithPrefix("accumulating body: "));
  out->forward_body = fwd_def.name();
  TX_RETURN_IF_ERROR(lib->Add(std::move(fwd_def)));

  // The backward body: pops the intermediates, returns the gradients of the iteration's inputs.
  GraphToFunctionSpec bwd;
  bwd.inputs = bwd_inputs;
  bwd.inputs.insert(bwd.inputs.end(), stacks.begin(), stacks.end());
  bwd.inputs.insert(bwd.inputs.end(), inter.begin(), inter.end());
  bwd.outputs = bwd_outputs;
  bwd.outputs.insert(bwd.outputs.end(), stacks.begin(), stacks.end());
  bwd.name = body.name + "_backward";
  bwd.description = "Gradient of one iteration of " + body.name + " (generated).";
  FunctionDef bwd_def;
  TX_RETURN_IF_ERROR(GraphToFunctionDef(g, bwd, &bwd_def).WithPrefix("gradient body: "));
  PopInsteadOfArgs(inter.size(), &bwd_def);
  NameByFingerprint(bwd.name, &bwd_def);
  out->backward_body = bwd_def.name();
  TX_RETURN_IF_ERROR(lib->Add(std::move(bwd_def)));

  std::vector<DataType> extra{DT_INT32};
  extra.insert(extra.end(), inter.size(), DT_RESOURCE);
  TX_RETURN_IF_ERROR(ExtendCond(lib, cond, extra, &out->forward_cond));
  std::vector<DataType> bwd_types{DT_INT32};
  for (int k : out->dvars) bwd_types.push_back(types[k]);
  bwd_types.insert(bwd_types.end(), out->rtypes.begin(), out->rtypes.end());
  bwd_types.insert(bwd_types.end(), inter.size(), DT_RESOURCE);
  return CountdownCond(lib, bwd_types, &out->backward_cond);
}

Status WhileGrad(GradContext& g) {
  GradScope& o = g.ops();
  FunctionLibrary* lib = o.builder()->function_library();
  if (lib == nullptr) return Unimplemented("gradients of ", g.op_type(), " need the graph's function library");
  const std::vector<DataType> types = g.attr("T").list.type;
  const AttrValue& body = g.attr("body");
  const AttrValue& cond = g.attr("cond");
  TX_RETURN_IF_ERROR(o.status());
  if (body.kind != AttrValue::Kind::kFunc || !body.func || cond.kind != AttrValue::Kind::kFunc || !cond.func)
    return InvalidArgument("attrs 'cond' and 'body' must name functions");
  bool any_dy = false;
  for (int k = 0; k < g.num_outputs(); ++k) any_dy = any_dy || (g.has_grad(k) && IsDifferentiableType(types[k]));
  if (!any_dy) return Status::OK();
  std::vector<PartialShape> shapes;
  std::vector<InferenceContext::HandleData> handles;
  std::vector<bool> needs;
  for (int k = 0; k < g.num_outputs(); ++k) {
    shapes.push_back(o.shape(g.output(k)));
    handles.push_back(o.builder()->handle_data(g.input(k)));
    needs.push_back(g.needs_grad(k));
  }

  LoopGrad lg;
  TX_RETURN_IF_ERROR(BuildLoopGrad(lib, types, shapes, handles, needs, *body.func, *cond.func, &lg));
  const int n = static_cast<int>(types.size());
  const AttrValue& parallel = g.attr("parallel_iterations");

  // The accumulating forward loop, standing in for this one.
  std::vector<GValue> fwd_in;
  for (int k = 0; k < n; ++k) fwd_in.push_back(g.input(k));
  fwd_in.push_back(o.Int(0));
  for (DataType t : lg.stack_types)
    fwd_in.push_back(o.Op1("StackV2", {o.Int(-1)}, {{"elem_type", AttrValue::Type(t)}}));
  AttrMap fwd_attrs{{"body", FuncAttr(lg.forward_body)}, {"parallel_iterations", parallel}};
  fwd_attrs["cond"] = FuncAttr(lg.forward_cond);
  fwd_attrs["cond"].func->attr = cond.func->attr;
  AttrValue out_shapes = g.attr("output_shapes");
  if (!out_shapes.list.shape.empty()) {
    out_shapes.list.shape.insert(out_shapes.list.shape.end(), 1 + lg.stack_types.size(), PartialShape::Scalar());
    fwd_attrs["output_shapes"] = out_shapes;
  }
  if (!g.node_name().empty()) fwd_attrs["_tx_replaces"] = AttrValue::String(g.node_name());
  std::vector<GValue> fwd = o.Op("While", {fwd_in}, fwd_attrs);
  TX_RETURN_IF_ERROR(o.status());

  // The backward loop: as many iterations, from the output gradients (zeros where none flowed).
  std::vector<GValue> bwd_in{fwd[n]};
  for (int k : lg.dvars) bwd_in.push_back(g.grad(k));
  for (size_t j = 0; j < lg.rvars.size(); ++j) {
    GValue value = o.Op1("ReadVariableOp", {g.input(lg.rvars[j])}, {{"dtype", AttrValue::Type(lg.rtypes[j])}});
    bwd_in.push_back(o.ZerosLike(value));
  }
  for (size_t t = 0; t < lg.stack_types.size(); ++t) bwd_in.push_back(fwd[n + 1 + t]);
  AttrMap bwd_attrs{
      {"body", FuncAttr(lg.backward_body)}, {"cond", FuncAttr(lg.backward_cond)}, {"parallel_iterations", parallel}};
  std::vector<GValue> bwd = o.Op("While", {bwd_in}, bwd_attrs);
  TX_RETURN_IF_ERROR(o.status());
  for (size_t j = 0; j < lg.dvars.size(); ++j)
    if (g.needs_grad(lg.dvars[j])) g.set_grad(lg.dvars[j], bwd[1 + j]);
  for (size_t j = 0; j < lg.rvars.size(); ++j)
    if (g.needs_grad(lg.rvars[j])) g.set_grad(lg.rvars[j], bwd[1 + lg.dvars.size() + j]);
  return Status::OK();
}

// A gradient reaching a popped intermediate means differentiating a While gradient's backward
// loop: the intermediates would need gradients through the stacks, which are not tracked. Failing
// here is better than the silently partial result a stop would give.
Status StackPopGrad(GradContext&) {
  return Unimplemented(
      "second-order gradients through a While loop are not supported (the backward loop reads the "
      "forward intermediates from stacks, and gradients do not flow through them)");
}

}  // namespace

TX_REGISTER_GRADIENT("StackPopV2", StackPopGrad);
TX_REGISTER_GRADIENT("While", WhileGrad);
TX_REGISTER_GRADIENT("StatelessWhile", WhileGrad);

}  // namespace tx

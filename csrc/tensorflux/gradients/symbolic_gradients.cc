#include "tensorflux/gradients/symbolic_gradients.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "tensorflux/gradients/gradient_registry.h"
#include "tensorflux/gradients/graph_grad_builder.h"

namespace tx {
namespace {

std::string Describe(const Endpoint& e) { return "'" + e.node->name() + ":" + std::to_string(e.index) + "'"; }

Status CheckEndpoint(const Graph* graph, const Endpoint& e, const char* what, size_t i) {
  if (e.node == nullptr) return InvalidArgument("gradients: ", what, "[", i, "] is null");
  if (e.node->graph() != graph)
    return InvalidArgument("gradients: ", what, "[", i, "] ", Describe(e), " is from a different graph");
  if (e.index < 0 || e.index >= e.node->num_outputs())
    return InvalidArgument("gradients: ", what, "[", i, "] names output ", e.index, " of '", e.node->name(),
                           "', which has ", e.node->num_outputs(), " outputs");
  return Status::OK();
}

Status Validate(const Graph* graph, const std::vector<Endpoint>& ys, const std::vector<Endpoint>& xs,
                const GradientOptions& opts) {
  if (!opts.grad_ys.empty() && opts.grad_ys.size() != ys.size())
    return InvalidArgument("gradients: got ", opts.grad_ys.size(), " grad_ys for ", ys.size(), " ys");
  for (size_t i = 0; i < ys.size(); ++i) {
    TX_RETURN_IF_ERROR(CheckEndpoint(graph, ys[i], "ys", i));
    const DataType t = ys[i].node->output_type(ys[i].index);
    if (!IsDifferentiableType(t) || opts.grad_ys.empty()) continue;  // Note [Integer targets]
    const Endpoint& g = opts.grad_ys[i];
    TX_RETURN_IF_ERROR(CheckEndpoint(graph, g, "grad_ys", i));
    const DataType gt = g.node->output_type(g.index);
    if (gt != t)
      return InvalidArgument("gradients: grad_ys[", i, "] ", Describe(g), " has type ", DataTypeString(gt), " but ys[",
                             i, "] ", Describe(ys[i]), " has type ", DataTypeString(t));
    const PartialShape ys_shape = graph->OutputShape(ys[i]), g_shape = graph->OutputShape(g);
    if (!ys_shape.IsCompatibleWith(g_shape))
      return InvalidArgument("gradients: grad_ys[", i, "] ", Describe(g), " has shape ", g_shape.ToString(), " but ys[",
                             i, "] ", Describe(ys[i]), " has shape ", ys_shape.ToString());
  }
  for (size_t i = 0; i < xs.size(); ++i) TX_RETURN_IF_ERROR(CheckEndpoint(graph, xs[i], "xs", i));
  for (size_t i = 0; i < opts.stop_gradients.size(); ++i)
    TX_RETURN_IF_ERROR(CheckEndpoint(graph, opts.stop_gradients[i], "stop_gradients", i));
  return Status::OK();
}

// Note [Resource gradients]
// A DT_RESOURCE input (a variable's handle) receives the gradient of the values read through
// it: gradient functions of reads (ReadVariableOp, ResourceGather) give it a tensor of the
// variable's dtype. Gradients of all reads of one handle are summed like any other, so
// differentiating with respect to a VarHandleOp output yields d y / d (variable value).
bool CanReceiveGradient(DataType input_type) { return IsDifferentiableType(input_type) || input_type == DT_RESOURCE; }

// Zeros shaped like x, or like the value of the variable x is a VarHandleOp handle of.
GValue ZerosFor(GradScope& scope, GValue xv, const Endpoint& x) {
  const AttrValue* dtype = x.node->attr("dtype");
  if (x.node->output_type(x.index) != DT_RESOURCE || dtype == nullptr || dtype->kind != AttrValue::Kind::kType)
    return scope.ZerosLike(xv);
  return scope.ZerosLike(scope.Op1("ReadVariableOp", {xv}, {{"dtype", *dtype}}));
}

int64_t Key(const Endpoint& e) { return (static_cast<int64_t>(e.node->id()) << 32) | static_cast<uint32_t>(e.index); }

}  // namespace

Status AddSymbolicGradients(Graph* graph, const std::string& prefix, const std::vector<Endpoint>& ys,
                            const std::vector<Endpoint>& xs, const GradientOptions& opts, std::vector<Endpoint>* dxs) {
  TX_RETURN_IF_ERROR(Validate(graph, ys, xs, opts));
  const int n = graph->num_nodes();
  // Nodes whose outputs some y depends on, and nodes that depend on some x; stop nodes pass
  // nothing through. Node ids are a topological order (Note [Append-only graph]).
  std::vector<char> to_y(n, 0), from_x(n, 0), stop(n, 0);
  for (const Endpoint& s : opts.stop_gradients) stop[s.node->id()] = 1;
  int max_y = -1, min_x = n;
  for (const Endpoint& y : ys) {
    if (!IsDifferentiableType(y.node->output_type(y.index))) continue;  // Note [Integer targets]
    to_y[y.node->id()] = 1;
    max_y = std::max(max_y, y.node->id());
  }
  for (int id = max_y; id >= 0; --id) {
    if (!to_y[id] || stop[id]) continue;
    for (const Endpoint& in : graph->node(id)->inputs()) to_y[in.node->id()] = 1;
  }
  for (const Endpoint& x : xs) {
    from_x[x.node->id()] = 1;
    min_x = std::min(min_x, x.node->id());
  }
  // A stop node's outputs depend on no x unless it is an x itself.
  for (int id = min_x; id <= max_y; ++id) {
    if (from_x[id] || stop[id]) continue;
    for (const Endpoint& in : graph->node(id)->inputs())
      if (from_x[in.node->id()]) {
        from_x[id] = 1;
        break;
      }
  }

  GraphGradBuilder b(graph, prefix);
  GradScope scope(&b);
  std::unordered_map<int64_t, std::vector<GValue>> pending;
  for (size_t i = 0; i < ys.size(); ++i) {
    if (!IsDifferentiableType(ys[i].node->output_type(ys[i].index))) continue;
    b.SetScope("grad_ys_" + std::to_string(i), ys[i].node->requested_device());
    GValue g = opts.grad_ys.empty() ? scope.OnesLike(b.Wrap(ys[i])) : b.Wrap(opts.grad_ys[i]);
    pending[Key(ys[i])].push_back(g);
  }
  TX_RETURN_IF_ERROR(scope.status());

  for (int id = max_y; id >= 0; --id) {
    if (!to_y[id] || !from_x[id]) continue;
    Node* node = graph->node(id);
    b.SetScope(node->name() + "_grad", node->requested_device());
    std::vector<GValue> outputs(node->num_outputs()), out_grads(node->num_outputs());
    bool any = false;
    for (int k = 0; k < node->num_outputs(); ++k) {
      outputs[k] = b.Wrap({node, k});
      auto it = pending.find(Key({node, k}));
      if (it == pending.end()) continue;
      if (it->second.size() > 1) it->second = {scope.AddN(it->second)};
      out_grads[k] = it->second[0];
      any = true;
    }
    TX_RETURN_IF_ERROR(scope.status());
    if (!any || stop[id]) continue;
    std::vector<bool> needs(node->num_inputs());
    bool needs_any = false;
    for (int j = 0; j < node->num_inputs(); ++j) {
      const Endpoint& in = node->input(j);
      needs[j] = to_y[in.node->id()] && from_x[in.node->id()] && CanReceiveGradient(node->input_type(j));
      needs_any = needs_any || needs[j];
    }
    if (!needs_any) continue;
    const GradientRegistry::Entry* entry = GradientRegistry::Global()->LookUp(node->op_type());
    if (entry == nullptr)
      return NotFound("[", node->name(), "] No gradient defined for op '", node->op_type(),
                      "': it has neither a registered gradient nor a not-differentiable declaration");
    if (entry->fn == nullptr) continue;
    std::vector<GValue> inputs;
    for (const Endpoint& in : node->inputs()) inputs.push_back(b.Wrap(in));
    GradContext ctx(&scope, node->op_type(), &node->attrs(), inputs, outputs, out_grads, needs);
    ctx.set_node_name(node->name());
    Status s = entry->fn(ctx);
    if (s.ok()) s = scope.status();
    if (!s.ok()) return Status(s.code(), "[" + node->name() + "] gradient of " + node->op_type() + ": " + s.message());
    for (int j = 0; j < node->num_inputs(); ++j) {
      GValue dx = ctx.input_grads()[j];
      if (!dx.valid() || !needs[j]) continue;
      const bool resource_ok = node->input_type(j) == DT_RESOURCE && IsDifferentiableType(b.dtype(dx));
      if (b.dtype(dx) != node->input_type(j) && !resource_ok)
        return Internal("[", node->name(), "] gradient of ", node->op_type(), " input ", j, " has type ",
                        DataTypeString(b.dtype(dx)), ", expected ", DataTypeString(node->input_type(j)));
      pending[Key(node->input(j))].push_back(dx);
    }
  }

  dxs->clear();
  for (size_t i = 0; i < xs.size(); ++i) {
    b.SetScope("dx_" + std::to_string(i), xs[i].node->requested_device());
    auto it = pending.find(Key(xs[i]));
    GValue g;
    if (it != pending.end() && !it->second.empty())
      g = scope.AddN(it->second);
    else if (opts.unconnected_zero)
      g = ZerosFor(scope, b.Wrap(xs[i]), xs[i]);
    TX_RETURN_IF_ERROR(scope.status());
    dxs->push_back(g.valid() ? b.Unwrap(g) : Endpoint{});
  }
  return Status::OK();
}

}  // namespace tx

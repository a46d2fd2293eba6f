// Generated gradient functions of library functions (function_grad_util.h).
#include "tensorflux/gradients/function_grad_util.h"

#include "tensorflux/framework/function_instantiate.h"
#include "tensorflux/framework/graph_to_function.h"
#include "tensorflux/gradients/grad_scope.h"
#include "tensorflux/gradients/graph_grad_builder.h"
#include "tensorflux/gradients/symbolic_gradients.h"

namespace tx {

Status AddArgNode(Graph* g, const std::string& base, DataType type, int index, const PartialShape& shape,
                  Endpoint* out) {
  NodeSpec arg;
  arg.name = g->UniqueName(base);
  arg.op_type = "_Arg";
  arg.attrs["T"] = AttrValue::Type(type);
  arg.attrs["index"] = AttrValue::Int(index);
  Node* n = nullptr;
  TX_RETURN_IF_ERROR(g->AddNode(std::move(arg), &n));
  TX_RETURN_IF_ERROR(g->MergeOutputShape({n, 0}, shape));
  *out = {n, 0};
  return Status::OK();
}

Status MakeGradFunction(FunctionLibrary* lib, const NameAttrList& call, const std::vector<PartialShape>& in_shapes,
                        const std::vector<bool>& has_dy, const std::vector<bool>& wants_dx,
                        const std::vector<DataType>* fill, bool add, GradFunction* out) {
  std::shared_ptr<const FunctionDef> fdef = lib->Find(call.name);
  if (fdef == nullptr) return NotFound("function '", call.name, "' is not in the graph's function library");
  InstantiateOptions opts;
  opts.input_shapes = in_shapes;
  opts.drop_control_edges = true;
  std::unique_ptr<FunctionBody> body;
  TX_RETURN_IF_ERROR(InstantiateFunction(lib, *fdef, call.attr, opts, &body));
  Graph& g = *body->graph;

  GraphToFunctionSpec spec;
  for (Node* a : body->args) spec.inputs.push_back({a, 0});
  std::vector<Endpoint> ys, dys, xs;
  for (size_t k = 0; k < body->rets.size(); ++k) {
    if (!has_dy[k]) continue;
    Endpoint dy;
    TX_RETURN_IF_ERROR(AddArgNode(&g, "dy", body->ret_types[k], static_cast<int>(spec.inputs.size()),
                                  g.OutputShape(body->rets[k]), &dy));
    spec.inputs.push_back(dy);
    ys.push_back(body->rets[k]);
    dys.push_back(dy);
    out->dy_outputs.push_back(static_cast<int>(k));
  }
  std::vector<int> x_inputs;
  for (size_t i = 0; i < body->args.size(); ++i) {
    const bool wanted = fill != nullptr ? (*fill)[i] != DT_INVALID : static_cast<bool>(wants_dx[i]);
    if (!wanted) continue;
    xs.push_back({body->args[i], 0});
    x_inputs.push_back(static_cast<int>(i));
  }
  GradientOptions gopts;
  gopts.grad_ys = dys;
  std::vector<Endpoint> dxs;
  const std::string prefix = g.UniqueName("gradients");
  TX_RETURN_IF_ERROR(AddSymbolicGradients(&g, prefix, ys, xs, gopts, &dxs));
  GraphGradBuilder b(&g, prefix);
  b.SetScope("zeros", "");
  GradScope scope(&b);
  for (size_t j = 0; j < dxs.size(); ++j) {
    const int i = x_inputs[j];
    if (dxs[j].node == nullptr) {
      if (fill == nullptr) continue;  // no gradient reaches this input
      // Zeros of the input's value (for a resource: of the variable behind it).
      GValue x = b.Wrap(xs[j]);
      if (body->arg_types[i] == DT_RESOURCE)
        x = scope.Op1("ReadVariableOp", {x}, {{"dtype", AttrValue::Type((*fill)[i])}});
      GValue zeros = scope.ZerosLike(x);
      TX_RETURN_IF_ERROR(scope.status().WithPrefix("zero gradient of input " + std::to_string(i) + ": "));
      dxs[j] = b.Unwrap(zeros);
    }
    spec.outputs.push_back(dxs[j]);
    spec.output_names.push_back("d_" + fdef->signature.input_arg[i].name);
    out->dx_inputs.push_back(i);
    out->dx_types.push_back(dxs[j].node->output_type(dxs[j].index));
  }
  if (spec.outputs.empty() || !add) return Status::OK();
  spec.name = call.name + "_grad";
  spec.append_hash = true;
  spec.description = "Gradient of " + call.name + " (generated).";
  FunctionDef grad;
  TX_RETURN_IF_ERROR(GraphToFunctionDef(g, spec, &grad));
  out->name = grad.name();
  out->is_stateful = grad.signature.is_stateful;
  return lib->Add(std::move(grad));
}

AttrValue FuncAttr(const std::string& name) {
  AttrValue v;
  v.kind = AttrValue::Kind::kFunc;
  v.func = std::make_shared<NameAttrList>();
  v.func->name = name;
  return v;
}

AttrValue TypeListAttr(const std::vector<DataType>& types) {
  AttrValue v = AttrValue::EmptyList();
  v.list.type = types;
  return v;
}

}  // namespace tx

// Gradients of PartitionedCall and StatefulPartitionedCall (Note [Function gradients]).
//
// Note [Function gradients]
// The gradient of a call of f is a call of a generated gradient function g_f, added to the same
// library, that takes f's inputs and the gradients of f's outputs and returns the gradients of
// f's inputs:
// 1. f's body is instantiated afresh (not the cached one: the driver adds nodes to it) for the
//    static shapes of the call's inputs, without control edges;
// 2. one _Arg per output that received a gradient is appended, and the symbolic driver
//    (AddSymbolicGradients) differentiates the body's results with those as grad_ys with
//    respect to the arguments whose gradient is wanted (floating and resource ones);
// 3. the body and its gradient nodes become a FunctionDef (GraphToFunctionDef keeps only what
//    the input gradients need) named "<f>_grad_<hash>": the hash covers the definition, so
//    one name always means one body and equal requests share one function.
// The call's gradient is then (Stateful)PartitionedCall(g_f) on the inputs and output
// gradients; inputs no gradient reaches get none. Second order works the same way on g_f.
// g_f recomputes f's forward pass instead of receiving f's intermediates (the forward node is
// immutable, so it cannot be given extra outputs). The recomputation leaves out f's control
// edges so that it repeats no side effect (an AssignVariableOp is only reached through them):
// a read of a variable then sees its value after f ran, which equals what f read when f
// assigned before reading, and differs when f read before assigning. Stateful random ops in f
// draw again, so gradients through them differ from the forward pass; seeded stateless random
// ops are recomputed exactly.
// A GradientDef in the library (TX_GraphCopyFunction with a gradient) replaces steps 1-3: its
// function takes f's inputs and one gradient per output (zeros where none flowed) and returns
// one gradient per input, as TensorFlow's SymbolicGradient convention has it.
#include "tensorflux/framework/function_instantiate.h"
#include "tensorflux/framework/graph_to_function.h"
#include "tensorflux/gradients/gradient_registry.h"
#include "tensorflux/gradients/symbolic_gradients.h"

namespace tx {
namespace {

// What the generated gradient function takes and returns.
struct GradFunction {
  std::string name;
  std::vector<int> dy_outputs;  // outputs of f whose gradients are passed, in order
  std::vector<int> dx_inputs;   // inputs of f whose gradients are returned, in order
  std::vector<DataType> dx_types;
  bool is_stateful = false;
};

Status MakeGradFunction(FunctionLibrary* lib, const NameAttrList& call, const std::vector<PartialShape>& in_shapes,
                        const std::vector<bool>& has_dy, const std::vector<bool>& wants_dx, GradFunction* out) {
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
    NodeSpec arg;
    arg.name = g.UniqueName("dy");
    arg.op_type = "_Arg";
    arg.attrs["T"] = AttrValue::Type(body->ret_types[k]);
    arg.attrs["index"] = AttrValue::Int(static_cast<int64_t>(spec.inputs.size()));
    Node* n = nullptr;
    TX_RETURN_IF_ERROR(g.AddNode(std::move(arg), &n));
    TX_RETURN_IF_ERROR(g.MergeOutputShape({n, 0}, g.OutputShape(body->rets[k])));
    spec.inputs.push_back({n, 0});
    ys.push_back(body->rets[k]);
    dys.push_back({n, 0});
    out->dy_outputs.push_back(static_cast<int>(k));
  }
  std::vector<int> x_inputs;
  for (size_t i = 0; i < body->args.size(); ++i) {
    if (!wants_dx[i]) continue;
    xs.push_back({body->args[i], 0});
    x_inputs.push_back(static_cast<int>(i));
  }
  GradientOptions gopts;
  gopts.grad_ys = dys;
  std::vector<Endpoint> dxs;
  TX_RETURN_IF_ERROR(AddSymbolicGradients(&g, g.UniqueName("gradients"), ys, xs, gopts, &dxs));
  for (size_t j = 0; j < dxs.size(); ++j) {
    if (dxs[j].node == nullptr) continue;  // no gradient reaches this input
    spec.outputs.push_back(dxs[j]);
    spec.output_names.push_back("d_" + fdef->signature.input_arg[x_inputs[j]].name);
    out->dx_inputs.push_back(x_inputs[j]);
    out->dx_types.push_back(dxs[j].node->output_type(dxs[j].index));
  }
  if (spec.outputs.empty()) return Status::OK();
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

// Calls `grad_fn` from the library's GradientDef for f: (inputs, one dy per output) -> one dx per input.
Status CustomGradient(GradContext& g, FunctionLibrary* lib, const std::string& grad_fn, bool stateful) {
  GradScope& o = g.ops();
  std::shared_ptr<const FunctionDef> gdef = lib->Find(grad_fn);
  if (gdef == nullptr) return NotFound("gradient function '", grad_fn, "' is not in the graph's function library");
  std::vector<GValue> args;
  for (int i = 0; i < g.num_inputs(); ++i) args.push_back(g.input(i));
  for (int k = 0; k < g.num_outputs(); ++k) args.push_back(g.has_grad(k) ? g.grad(k) : o.ZerosLike(g.output(k)));
  std::vector<DataType> tout;
  for (const ArgDef& a : gdef->signature.output_arg) tout.push_back(a.type);
  if (static_cast<int>(tout.size()) != g.num_inputs())
    return InvalidArgument("gradient function '", grad_fn, "' returns ", tout.size(), " values for ", g.num_inputs(),
                           " inputs");
  std::vector<GValue> dxs = o.Op(stateful || gdef->signature.is_stateful ? "StatefulPartitionedCall" : "PartitionedCall",
                                 {args}, {{"f", FuncAttr(grad_fn)}, {"Tout", TypeListAttr(tout)}});
  for (size_t i = 0; i < dxs.size(); ++i)
    if (g.needs_grad(static_cast<int>(i))) g.set_grad(static_cast<int>(i), dxs[i]);
  return Status::OK();
}

Status CallGrad(GradContext& g) {
  GradScope& o = g.ops();
  FunctionLibrary* lib = o.builder()->function_library();
  if (lib == nullptr) return Unimplemented("gradients of function calls need the graph's function library");
  const AttrValue& f = g.attr("f");
  if (f.kind != AttrValue::Kind::kFunc || !f.func) return InvalidArgument("attr 'f' must name a function");
  const bool stateful = g.op_type() == "StatefulPartitionedCall";
  const std::string custom = lib->FindGradient(f.func->name);
  if (!custom.empty()) return CustomGradient(g, lib, custom, stateful);

  std::vector<PartialShape> shapes;
  std::vector<bool> wants_dx, has_dy;
  for (int i = 0; i < g.num_inputs(); ++i) {
    shapes.push_back(o.shape(g.input(i)));
    wants_dx.push_back(g.needs_grad(i));
  }
  bool any_dy = false;
  for (int k = 0; k < g.num_outputs(); ++k) {
    has_dy.push_back(g.has_grad(k) && IsDifferentiableType(o.dtype(g.output(k))));
    any_dy = any_dy || has_dy.back();
  }
  if (!any_dy) return Status::OK();
  GradFunction gf;
  TX_RETURN_IF_ERROR(MakeGradFunction(lib, *f.func, shapes, has_dy, wants_dx, &gf));
  if (gf.dx_inputs.empty()) return Status::OK();
  std::vector<GValue> args;
  for (int i = 0; i < g.num_inputs(); ++i) args.push_back(g.input(i));
  for (int k : gf.dy_outputs) args.push_back(g.grad(k));
  std::vector<GValue> dxs = o.Op(gf.is_stateful ? "StatefulPartitionedCall" : "PartitionedCall", {args},
                                 {{"f", FuncAttr(gf.name)}, {"Tout", TypeListAttr(gf.dx_types)}});
  if (!o.ok()) return o.status();
  for (size_t j = 0; j < gf.dx_inputs.size(); ++j) g.set_grad(gf.dx_inputs[j], dxs[j]);
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("PartitionedCall", CallGrad);
TX_REGISTER_GRADIENT("StatefulPartitionedCall", CallGrad);
TX_REGISTER_NO_GRADIENT("_Arg");

}  // namespace tx

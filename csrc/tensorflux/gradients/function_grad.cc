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
#include "tensorflux/gradients/function_grad_util.h"
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

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
  std::vector<GValue> dxs =
      o.Op(stateful || gdef->signature.is_stateful ? "StatefulPartitionedCall" : "PartitionedCall", {args},
           {{"f", FuncAttr(grad_fn)}, {"Tout", TypeListAttr(tout)}});
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
  TX_RETURN_IF_ERROR(MakeGradFunction(lib, *f.func, shapes, has_dy, wants_dx, nullptr, true, &gf));
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

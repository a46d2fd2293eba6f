// Gradients of If, StatelessIf, Case and StatelessCase (Note [Branch gradients]).
//
// Note [Branch gradients]
// The gradient of a branching op is the same kind of op on the same predicate (or index): its
// branches are the generated gradient functions of the forward branches (Note [Function
// gradients]), each taking the forward inputs and the output gradients and returning the
// gradients of the inputs. All branches must return the same list, so the gradient functions
// are first built without adding them, to learn which inputs each branch reaches; then every
// branch returns a gradient for each input that any branch reaches, zeros where it does not
// (for a resource input, zeros shaped like the variable). Each gradient branch recomputes its
// forward branch instead of receiving the forward intermediates.
#include "tensorflux/gradients/function_grad_util.h"
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

bool IsCase(const GradContext& g) { return g.op_type() == "Case" || g.op_type() == "StatelessCase"; }

// The forward op's branch functions, in order (then/else, or `branches`).
Status Branches(GradContext& g, std::vector<NameAttrList>* out) {
  if (IsCase(g)) {
    for (const NameAttrList& f : g.attr("branches").list.func) out->push_back(f);
  } else {
    for (const char* name : {"then_branch", "else_branch"}) {
      const AttrValue& f = g.attr(name);
      if (f.kind != AttrValue::Kind::kFunc || !f.func) return InvalidArgument("attr '", name, "' must name a function");
      out->push_back(*f.func);
    }
  }
  if (out->empty()) return InvalidArgument("the op has no branches");
  return g.ops().status();
}

Status BranchGrad(GradContext& g) {
  GradScope& o = g.ops();
  FunctionLibrary* lib = o.builder()->function_library();
  if (lib == nullptr) return Unimplemented("gradients of ", g.op_type(), " need the graph's function library");
  std::vector<NameAttrList> branches;
  TX_RETURN_IF_ERROR(Branches(g, &branches));

  // Branch argument i is op input i + 1 (input 0 is the predicate or index).
  const int num_args = g.num_inputs() - 1;
  std::vector<PartialShape> shapes;
  std::vector<bool> wants_dx, has_dy;
  for (int i = 0; i < num_args; ++i) {
    shapes.push_back(o.shape(g.input(i + 1)));
    wants_dx.push_back(g.needs_grad(i + 1));
  }
  bool any_dy = false;
  for (int k = 0; k < g.num_outputs(); ++k) {
    has_dy.push_back(g.has_grad(k) && IsDifferentiableType(o.dtype(g.output(k))));
    any_dy = any_dy || has_dy.back();
  }
  if (!any_dy) return Status::OK();

  // Which arguments some branch reaches, and their gradient types.
  std::vector<DataType> fill(static_cast<size_t>(num_args), DT_INVALID);
  bool any_dx = false;
  for (size_t b = 0; b < branches.size(); ++b) {
    GradFunction probe;
    TX_RETURN_IF_ERROR(MakeGradFunction(lib, branches[b], shapes, has_dy, wants_dx, nullptr, false, &probe)
                           .WithPrefix("branch " + std::to_string(b) + ": "));
    for (size_t j = 0; j < probe.dx_inputs.size(); ++j) {
      DataType& t = fill[probe.dx_inputs[j]];
      if (t != DT_INVALID && t != probe.dx_types[j])
        return Internal("branches give input ", probe.dx_inputs[j], " gradients of types ", DataTypeString(t), " and ",
                        DataTypeString(probe.dx_types[j]));
      t = probe.dx_types[j];
      any_dx = true;
    }
  }
  if (!any_dx) return Status::OK();

  std::vector<GradFunction> grads(branches.size());
  bool stateful = g.op_type() == "If" || g.op_type() == "Case";
  for (size_t b = 0; b < branches.size(); ++b) {
    TX_RETURN_IF_ERROR(MakeGradFunction(lib, branches[b], shapes, has_dy, wants_dx, &fill, true, &grads[b])
                           .WithPrefix("branch " + std::to_string(b) + ": "));
    stateful = stateful || grads[b].is_stateful;
  }
  std::vector<GValue> args;
  for (int i = 0; i < num_args; ++i) args.push_back(g.input(i + 1));
  for (int k : grads[0].dy_outputs) args.push_back(g.grad(k));
  AttrMap attrs{{"Tout", TypeListAttr(grads[0].dx_types)}};
  std::string op;
  if (!IsCase(g)) {
    op = stateful ? "If" : "StatelessIf";
    attrs["then_branch"] = FuncAttr(grads[0].name);
    attrs["else_branch"] = FuncAttr(grads[1].name);
  } else {
    op = stateful ? "Case" : "StatelessCase";
    AttrValue list = AttrValue::EmptyList();
    for (const GradFunction& gf : grads) list.list.func.push_back(*FuncAttr(gf.name).func);
    attrs["branches"] = list;
  }
  std::vector<GValue> dxs = o.Op(op, {{g.input(0)}, args}, attrs);
  TX_RETURN_IF_ERROR(o.status());
  for (size_t j = 0; j < grads[0].dx_inputs.size(); ++j) g.set_grad(grads[0].dx_inputs[j] + 1, dxs[j]);
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("If", BranchGrad);
TX_REGISTER_GRADIENT("StatelessIf", BranchGrad);
TX_REGISTER_GRADIENT("Case", BranchGrad);
TX_REGISTER_GRADIENT("StatelessCase", BranchGrad);

}  // namespace tx

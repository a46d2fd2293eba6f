// Gradients of resource variable reads: the gradient of the value read flows to the handle
// input (as TensorFlow's _ReadGrad and _GatherGrad), where the symbolic driver sums it over
// every read of the variable (Note [Resource gradients] in symbolic_gradients.cc). Updates,
// handles and predicates are declared not differentiable.
#include "tensorflux/gradients/array_grad_util.h"
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

// ReadVariableOp: d handle = d value.
Status ReadVariableGrad(GradContext& g) {
  g.set_grad(0, g.grad(0));
  return Status::OK();
}

// ResourceGather(resource, indices, batch_dims) = GatherV2(value, indices, axis=batch_dims,
// batch_dims): d handle is the dense scatter-add of dz into the variable's shape, which comes
// from a read of the variable (folded to a constant when its shape is static).
Status ResourceGatherGrad(GradContext& g) {
  GradScope& o = g.ops();
  const int64_t batch_dims = g.attr_int("batch_dims");
  GValue value = o.Op1("ReadVariableOp", {g.input(0)}, {{"dtype", TypeAttr(g.attr_type("dtype"))}});
  g.set_grad(0, GatherParamsGrad(o, value, g.input(1), o.Int(batch_dims), batch_dims, g.grad(0)));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("ReadVariableOp", ReadVariableGrad);
TX_REGISTER_GRADIENT("ResourceGather", ResourceGatherGrad);

TX_REGISTER_NO_GRADIENT("VarHandleOp");
TX_REGISTER_NO_GRADIENT("AssignVariableOp");
TX_REGISTER_NO_GRADIENT("AssignAddVariableOp");
TX_REGISTER_NO_GRADIENT("AssignSubVariableOp");
TX_REGISTER_NO_GRADIENT("VarIsInitializedOp");
TX_REGISTER_NO_GRADIENT("DestroyResourceOp");
TX_REGISTER_NO_GRADIENT("ResourceApplyGradientDescent");
TX_REGISTER_NO_GRADIENT("ResourceApplyMomentum");
TX_REGISTER_NO_GRADIENT("ResourceApplyAdam");
TX_REGISTER_NO_GRADIENT("ResourceApplyRMSProp");
TX_REGISTER_NO_GRADIENT("ResourceApplyAdagradV2");

}  // namespace tx

// Fused optimizer updates on resource variables: ResourceApplyGradientDescent,
// ResourceApplyMomentum, ResourceApplyAdam, ResourceApplyRMSProp, ResourceApplyAdagradV2
// (signatures identical to TensorFlow's). Every input other than the variables and the gradient
// (`grad`, or `delta` for gradient descent) is a scalar hyperparameter.
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Variables (from their VarHandleOps, when known) and the gradient must agree in shape, and the
// hyperparameters must be scalars; errors name the arguments.
Status ApplyShape(InferenceContext* c) {
  DataType t;
  TX_RETURN_IF_ERROR(c->GetAttr("T", &t));
  PartialShape var = PartialShape::Unknown();
  std::string first;
  for (int i = 0; i < c->num_inputs(); ++i) {
    const ArgDef& arg = c->op_def().input_arg[i];
    if (arg.type == DT_RESOURCE) {
      const InferenceContext::HandleData* h = c->input_handle_data(i);
      if (h == nullptr) continue;
      if (h->dtype != t)
        return InvalidArgument(arg.name, " is a variable of dtype ", DataTypeString(h->dtype), " but T is ",
                               DataTypeString(t));
      PartialShape merged;
      if (!var.Merge(h->shape, &merged).ok())
        return InvalidArgument(first, " and ", arg.name, " do not have the same shape: ", var.ToString(), " vs ",
                               h->shape.ToString());
      if (first.empty()) first = arg.name;
      var = merged;
    } else if (arg.name == "grad" || arg.name == "delta") {
      PartialShape merged;
      if (!var.Merge(c->input(i), &merged).ok())
        return InvalidArgument("var and ", arg.name, " do not have the same shape: ", var.ToString(), " vs ",
                               c->input(i).ToString());
    } else {
      PartialShape unused;
      TX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, arg.name.c_str(), &unused));
    }
  }
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("ResourceApplyGradientDescent")
    .Input("var: resource")
    .Input("alpha: T")
    .Input("delta: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetIsStateful()
    .SetShapeFn(ApplyShape)
    .Summary("var -= alpha * delta.");

TX_REGISTER_OP("ResourceApplyMomentum")
    .Input("var: resource")
    .Input("accum: resource")
    .Input("lr: T")
    .Input("grad: T")
    .Input("momentum: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetIsStateful()
    .SetShapeFn(ApplyShape)
    .Summary("accum = accum * momentum + grad; var -= lr * accum (Nesterov: var -= lr * (grad + momentum * accum)).");

TX_REGISTER_OP("ResourceApplyAdam")
    .Input("var: resource")
    .Input("m: resource")
    .Input("v: resource")
    .Input("beta1_power: T")
    .Input("beta2_power: T")
    .Input("lr: T")
    .Input("beta1: T")
    .Input("beta2: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetIsStateful()
    .SetShapeFn(ApplyShape)
    .Summary("One Adam step: m, v moving averages of grad and grad^2; var -= lr_t * m / (sqrt(v) + epsilon).");

TX_REGISTER_OP("ResourceApplyRMSProp")
    .Input("var: resource")
    .Input("ms: resource")
    .Input("mom: resource")
    .Input("lr: T")
    .Input("rho: T")
    .Input("momentum: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetIsStateful()
    .SetShapeFn(ApplyShape)
    .Summary("ms += (grad^2 - ms) * (1 - rho); mom = mom * momentum + lr * grad / sqrt(ms + epsilon); var -= mom.");

TX_REGISTER_OP("ResourceApplyAdagradV2")
    .Input("var: resource")
    .Input("accum: resource")
    .Input("lr: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("update_slots: bool = true")
    .SetIsStateful()
    .SetShapeFn(ApplyShape)
    .Summary("accum += grad^2 (when update_slots); var -= lr * grad / (sqrt(accum) + epsilon).");

}  // namespace tx

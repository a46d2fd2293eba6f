// Gradients of the host-callback ops. EagerPyFunc's gradient is another EagerPyFunc calling the
// host function registered under "<token>_grad" with (inputs..., output gradients...), which
// returns one gradient per input (the Python front end registers it next to the forward
// function; Note [Host callbacks]). PyFunc and PyFuncStateless are not differentiable, as in
// TensorFlow.
#include <string>
#include <vector>

#include "tensorflux/gradients/gradient_registry.h"
#include "tensorflux/gradients/grad_scope.h"

namespace tx {
namespace {

// Suffix of the token under which the gradient of an EagerPyFunc's function is registered.
constexpr const char kGradTokenSuffix[] = "_grad";

Status EagerPyFuncGrad(GradContext& g) {
  GradScope& ops = g.ops();
  std::vector<GValue> args;
  AttrValue tin = AttrValue::EmptyList(), tout = AttrValue::EmptyList();
  for (int i = 0; i < g.num_inputs(); ++i) {
    args.push_back(g.input(i));
    tin.list.type.push_back(ops.dtype(g.input(i)));
    tout.list.type.push_back(ops.dtype(g.input(i)));
  }
  for (int i = 0; i < g.num_outputs(); ++i) {
    GValue dy = g.grad(i);
    if (!dy.valid()) dy = ops.ZerosLike(g.output(i));  // a non-differentiable output: zeros stand in
    args.push_back(dy);
    tin.list.type.push_back(ops.dtype(g.output(i)));
  }
  if (g.num_inputs() == 0) return Status::OK();
  std::vector<GValue> dx = ops.Op("EagerPyFunc", {args},
                                  {{"token", StringAttr(g.attr_string("token") + kGradTokenSuffix)},
                                   {"is_async", BoolAttr(false)},
                                   {"Tin", tin},
                                   {"Tout", tout}});
  if (!ops.ok()) return ops.status();
  for (int i = 0; i < g.num_inputs(); ++i)
    if (IsDifferentiableType(ops.dtype(g.input(i)))) g.set_grad(i, dx[i]);
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("EagerPyFunc", EagerPyFuncGrad);
TX_REGISTER_NO_GRADIENT("PyFunc");
TX_REGISTER_NO_GRADIENT("PyFuncStateless");

}  // namespace tx

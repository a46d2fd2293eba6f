// Host-callback ops (signatures identical to TensorFlow's): PyFunc, PyFuncStateless and
// EagerPyFunc call the function registered under their `token` (Note [Host callbacks]).
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {

TX_REGISTER_OP("PyFunc")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("token: string")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnknownShape)
    .Summary("Calls the host function registered under `token` with NumPy-style inputs (stateful).");

TX_REGISTER_OP("PyFuncStateless")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("token: string")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .SetShapeFn(shape_fns::UnknownShape)
    .Summary("Calls the host function registered under `token`; the function must be pure.");

TX_REGISTER_OP("EagerPyFunc")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("token: string")
    .Attr("is_async: bool = false")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnknownShape)
    .Summary("Calls the host function registered under `token` with eager tensors; differentiable through it.");

}  // namespace tx

// NoOp: does nothing; used as a target that groups control dependencies.
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {

TX_REGISTER_OP("NoOp")
    .SetShapeFn(shape_fns::NoOutputs)
    .Summary("Does nothing; useful only for the control dependencies it carries.");

}  // namespace tx

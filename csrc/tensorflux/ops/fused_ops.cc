// _FusedElementwise: the node an ExecutionPlan runs in place of a group of elementwise nodes
// (Note [Loop fusion] in passes/loop_fusion.cc). It exists only inside plans: graphs and
// GraphDefs never hold it, and it has no kernel of its own in the registry (the plan builds one
// for each group), so a GraphDef that names it imports but cannot run.
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {

TX_REGISTER_OP("_FusedElementwise")
    .Input("inputs: Tin")
    .Output("outputs: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 1")
    .SetShapeFn(shape_fns::UnknownShape)
    .Summary("Runs a group of elementwise nodes of an execution plan as one loop over their elements.");

}  // namespace tx

// TensorScatterUpdate, TensorScatterSub, TensorScatterMin and TensorScatterMax (signatures
// identical to TensorFlow's): a copy of tensor whose slices at the index tuples are replaced by,
// reduced by, or combined (min / max) with the update slices. TensorScatterAdd is in
// grad_support_array_ops.cc.
#include <string>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/grad_util.h"

namespace tx {
namespace {

// Output has tensor's shape; indices and updates must address it (Note [Index tuples]).
Status ScatterShape(InferenceContext* c) {
  std::string policy;
  TX_RETURN_IF_ERROR(c->GetAttr("bad_indices_policy", &policy));
  if (policy != "" && policy != "DEFAULT" && policy != "ERROR" && policy != "IGNORE")
    return InvalidArgument("bad_indices_policy must be one of '', 'DEFAULT', 'ERROR', 'IGNORE', got '", policy, "'");
  TX_RETURN_IF_ERROR(grad_util::CheckTensorScatter(c->input(0), c->input(1), c->input(2)));
  c->set_output(0, c->input(0));
  return Status::OK();
}

OpDefBuilder Scatter(const char* name, const char* index_types, const char* summary) {
  return OpDefBuilder(name)
      .Input("tensor: T")
      .Input("indices: Tindices")
      .Input("updates: T")
      .Output("output: T")
      .Attr("T: type")
      .Attr(std::string("Tindices: {") + index_types + "}")
      .Attr("bad_indices_policy: string = ''")
      .SetShapeFn(ScatterShape)
      .Summary(summary);
}

}  // namespace

TX_REGISTER_OP_FROM(Scatter("TensorScatterUpdate", "int16, int32, int64, uint16",
                            "A copy of tensor with the slices at the index tuples replaced by the updates."));
TX_REGISTER_OP_FROM(Scatter("TensorScatterSub", "int32, int64",
                            "A copy of tensor with the update slices subtracted at the index tuples."));
TX_REGISTER_OP_FROM(Scatter("TensorScatterMin", "int32, int64",
                            "A copy of tensor with each indexed slice the elementwise minimum of it and its updates."));
TX_REGISTER_OP_FROM(Scatter("TensorScatterMax", "int32, int64",
                            "A copy of tensor with each indexed slice the elementwise maximum of it and its updates."));

}  // namespace tx

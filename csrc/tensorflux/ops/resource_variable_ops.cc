// Resource variable ops: VarHandleOp, ReadVariableOp, AssignVariableOp, AssignAddVariableOp,
// AssignSubVariableOp, VarIsInitializedOp, DestroyResourceOp, ResourceGather (signatures
// identical to TensorFlow's). Shape functions learn a variable's dtype and shape from the
// VarHandleOp feeding them (InferenceContext::input_handle_data), else leave shapes unknown.
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

Status VarHandleShape(InferenceContext* c) {
  c->set_output(0, PartialShape::Scalar());
  return Status::OK();
}

// Checks that the variable behind input 0 has the op's `dtype` attr; sets *shape to its declared
// shape (unknown when the handle's producer is not a VarHandleOp).
Status HandleShape(InferenceContext* c, PartialShape* shape) {
  *shape = PartialShape::Unknown();
  const InferenceContext::HandleData* h = c->input_handle_data(0);
  if (h == nullptr) return Status::OK();
  DataType dtype;
  TX_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  if (h->dtype != dtype)
    return InvalidArgument("Trying to read variable with wrong dtype. Expected ", DataTypeString(h->dtype), " got ",
                           DataTypeString(dtype));
  *shape = h->shape;
  return Status::OK();
}

Status ReadVariableShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(HandleShape(c, &s));
  c->set_output(0, s);
  return Status::OK();
}

// Assign*: the value must fit the variable's declared shape (as TensorFlow's shape function).
Status AssignShape(InferenceContext* c) {
  PartialShape s, merged;
  TX_RETURN_IF_ERROR(HandleShape(c, &s));
  Status m = s.Merge(c->input(1), &merged);
  if (!m.ok())
    return InvalidArgument("cannot assign a value of shape ", c->input(1).ToString(), " to a variable of shape ",
                           s.ToString());
  return Status::OK();
}

// ResourceGather: params[:batch_dims] + indices[batch_dims:] + params[batch_dims+1:].
Status ResourceGatherShape(InferenceContext* c) {
  PartialShape params;
  TX_RETURN_IF_ERROR(HandleShape(c, &params));
  const PartialShape& indices = c->input(1);
  int64_t batch_dims;
  TX_RETURN_IF_ERROR(c->GetAttr("batch_dims", &batch_dims));
  if (!params.known_rank() || !indices.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  if (batch_dims < 0) batch_dims += indices.rank();
  if (batch_dims < 0 || batch_dims > indices.rank() || batch_dims >= params.rank())
    return InvalidArgument("batch_dims must be in [-", indices.rank(), ", ", indices.rank(),
                           "] and less than the variable's rank ", params.rank(), ", got ", batch_dims,
                           " (indices shape ", indices.ToString(), ", variable shape ", params.ToString(), ")");
  std::vector<int64_t> dims(params.dims().begin(), params.dims().begin() + batch_dims);
  dims.insert(dims.end(), indices.dims().begin() + batch_dims, indices.dims().end());
  dims.insert(dims.end(), params.dims().begin() + batch_dims + 1, params.dims().end());
  c->set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("VarHandleOp")
    .Output("resource: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("debug_name: string = ''")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .Attr("allowed_devices: list(string) = []")
    .SetIsStateful()
    .SetShapeFn(VarHandleShape)
    .Summary("A handle to the resource variable (container, shared_name); an empty shared_name means the node name.");

TX_REGISTER_OP("ReadVariableOp")
    .Input("resource: resource")
    .Output("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(ReadVariableShape)
    .Summary("A snapshot of the variable's current value; later updates do not change it.");

TX_REGISTER_OP("AssignVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .Attr("validate_shape: bool = false")
    .SetIsStateful()
    .SetShapeFn(AssignShape)
    .Summary("Sets the variable's value (initializing it).");

TX_REGISTER_OP("AssignAddVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(AssignShape)
    .Summary("Adds `value` to the initialized variable, atomically with respect to other updates.");

TX_REGISTER_OP("AssignSubVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(AssignShape)
    .Summary("Subtracts `value` from the initialized variable, atomically with respect to other updates.");

TX_REGISTER_OP("VarIsInitializedOp")
    .Input("resource: resource")
    .Output("is_initialized: bool")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Summary("Whether the variable exists and has been assigned a value.");

TX_REGISTER_OP("DestroyResourceOp")
    .Input("resource: resource")
    .Attr("ignore_lookup_error: bool = true")
    .SetIsStateful()
    .SetShapeFn(shape_fns::NoOutputs)
    .Summary("Deletes the variable from the session (NotFound if absent unless ignore_lookup_error).");

TX_REGISTER_OP("ResourceGather")
    .Input("resource: resource")
    .Input("indices: Tindices")
    .Output("output: dtype")
    .Attr("batch_dims: int = 0")
    .Attr("validate_indices: bool = true")
    .Attr("dtype: type")
    .Attr("Tindices: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(ResourceGatherShape)
    .Summary("Rows of the variable's value picked by `indices` along axis batch_dims.");

}  // namespace tx

// Stacks: StackV2 creates an empty stack owned by its handle, StackPushV2/StackPopV2 push and pop
// tensors, StackCloseV2 empties it (TensorFlow's OpDefs). While gradients use them to carry
// the forward loop's intermediates to the backward loop (Note [While gradients]).
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

Status ScalarHandleShape(InferenceContext* c) {
  if (c->input(0).known_rank() && c->input(0).rank() != 0)
    return InvalidArgument("max_size must be a scalar, got shape ", c->input(0).ToString());
  c->set_output(0, PartialShape::Scalar());
  return Status::OK();
}

Status PushShape(InferenceContext* c) {
  c->set_output(0, c->input(1));
  return Status::OK();
}

Status PopShape(InferenceContext* c) {
  c->set_output(0, PartialShape::Unknown());
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("StackV2")
    .Input("max_size: int32")
    .Output("handle: resource")
    .Attr("elem_type: type")
    .Attr("stack_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarHandleShape)
    .Summary("A new empty stack of `elem_type` tensors holding at most `max_size` of them (no limit when negative).");

TX_REGISTER_OP("StackPushV2")
    .Input("handle: resource")
    .Input("elem: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("swap_memory: bool = false")
    .SetIsStateful()
    .SetShapeFn(PushShape)
    .Summary("Pushes `elem` onto the stack and returns it.");

TX_REGISTER_OP("StackPopV2")
    .Input("handle: resource")
    .Output("elem: elem_type")
    .Attr("elem_type: type")
    .SetIsStateful()
    .SetShapeFn(PopShape)
    .Summary("Removes and returns the tensor on top of the stack.");

TX_REGISTER_OP("StackCloseV2")
    .Input("handle: resource")
    .SetIsStateful()
    .SetShapeFn(shape_fns::NoOutputs)
    .Summary("Drops every tensor the stack holds; later pushes and pops fail.");

}  // namespace tx

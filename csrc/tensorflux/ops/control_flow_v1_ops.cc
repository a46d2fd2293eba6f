// Lowered (TensorFlow 1) control flow: Switch, _SwitchN, Merge, Enter, Exit, NextIteration and
// LoopCond with TensorFlow's OpDefs. GraphDef import rebuilds graphs holding them into While / If /
// Case (Note [Functionalize control flow] in framework/functionalize.cc); their kernels
// (kernels/cpu/control_flow_v1.cc) only report that a graph built node by node cannot run them.
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/control_flow_util.h"

namespace tx {
namespace {

// Every output has the shape of input 0 (Switch, _SwitchN).
Status ForwardToAllOutputs(InferenceContext* c) {
  for (int k = 0; k < c->num_outputs(); ++k) c->set_output(k, c->input(0));
  return Status::OK();
}

// Switch: `pred` is a scalar; both outputs have the shape of `data`.
Status SwitchShape(InferenceContext* c) {
  PartialShape pred;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "pred", &pred));
  return ForwardToAllOutputs(c);
}

// _SwitchN: `output_index` is a scalar; every output has the shape of `data`.
Status SwitchNShape(InferenceContext* c) {
  PartialShape index;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "output_index", &index));
  return ForwardToAllOutputs(c);
}

// Merge: the join of the input shapes (the most specific shape all of them have); a scalar index.
Status MergeShape(InferenceContext* c) {
  PartialShape s = c->input(0);
  for (int k = 1; k < c->num_inputs(); ++k) s = JoinShapes(s, c->input(k));
  c->set_output(0, s);
  c->set_output(1, PartialShape::Scalar());
  return Status::OK();
}

// LoopCond: a scalar bool.
Status LoopCondShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, "input", &s));
  c->set_output(0, s);
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("Switch")
    .Input("data: T")
    .Input("pred: bool")
    .Output("output_false: T")
    .Output("output_true: T")
    .Attr("T: type")
    .SetShapeFn(SwitchShape)
    .Summary("Forwards `data` to `output_true` when `pred` is true, else to `output_false` (lowered control flow).");

TX_REGISTER_OP("_SwitchN")
    .Input("data: T")
    .Input("output_index: int32")
    .Output("outputs: num_outs * T")
    .Attr("num_outs: int >= 1")
    .Attr("T: type")
    .SetShapeFn(SwitchNShape)
    .Summary("Forwards `data` to output `output_index` (the last one when out of range; lowered Case).");

TX_REGISTER_OP("Merge")
    .Input("inputs: N * T")
    .Output("output: T")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1")
    .SetShapeFn(MergeShape)
    .Summary("Forwards the one input that has a value, and its position (lowered control flow).");

TX_REGISTER_OP("Enter")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Makes `data` available in the child frame `frame_name` of a lowered while loop.");

TX_REGISTER_OP("Exit")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Returns `data` from a lowered while loop's frame to its parent frame.");

TX_REGISTER_OP("NextIteration")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Makes `data` available to the next iteration of a lowered while loop.");

TX_REGISTER_OP("LoopCond")
    .Input("input: bool")
    .Output("output: bool")
    .SetShapeFn(LoopCondShape)
    .Summary("Forwards the loop predicate of a lowered while loop.");

}  // namespace tx

// Functional control flow: If, Case and While (and their stateless forms) call library functions
// for their branches, loop condition and loop body (kernels in kernels/cpu/control_flow.cc).
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/control_flow_util.h"

namespace tx {
namespace {

// The `output_shapes` attr (empty when not given); InvalidArgument unless it has one entry per output.
Status OutputShapesAttr(InferenceContext* c, std::vector<PartialShape>* out) {
  auto it = c->attrs().find("output_shapes");
  if (it == c->attrs().end()) return Status::OK();
  *out = it->second.list.shape;
  if (!out->empty() && static_cast<int>(out->size()) != c->num_outputs())
    return InvalidArgument("output_shapes has ", out->size(), " shapes but the op has ", c->num_outputs(), " outputs");
  return Status::OK();
}

// If/Case: the branches are instantiated (and checked against Tin/Tout) when the node is in a
// graph; outputs take output_shapes when given, else the join of the branches' result shapes
// (unknown outside a graph).
Status BranchShape(InferenceContext* c) {
  std::vector<PartialShape> declared;
  TX_RETURN_IF_ERROR(OutputShapesAttr(c, &declared));
  for (int k = 0; k < c->num_outputs(); ++k) c->set_output(k, PartialShape::Unknown());
  if (c->function_library() == nullptr) {
    for (size_t k = 0; k < declared.size(); ++k) c->set_output(static_cast<int>(k), declared[k]);
    return Status::OK();
  }
  std::vector<FunctionBodyPtr> bodies;
  TX_RETURN_IF_ERROR(GetBranchBodies(c->function_library(), c->attrs(), ContextArgShapes(*c, 1), &bodies));
  for (int k = 0; k < c->num_outputs(); ++k) {
    PartialShape s = bodies[0]->graph->OutputShape(bodies[0]->rets[k]);
    for (size_t b = 1; b < bodies.size(); ++b) s = JoinShapes(s, bodies[b]->graph->OutputShape(bodies[b]->rets[k]));
    if (!declared.empty() && !s.IsCompatibleWith(declared[k]))
      return InvalidArgument("output ", k, " of the branches has shape ", s.ToString(), " but output_shapes declares ",
                             declared[k].ToString());
    c->set_output(k, declared.empty() ? s : declared[k]);
    InferenceContext::HandleData h = bodies[0]->graph->OutputHandleData(bodies[0]->rets[k]);
    for (size_t b = 1; b < bodies.size(); ++b)
      h = JoinHandles(h, bodies[b]->graph->OutputHandleData(bodies[b]->rets[k]));
    c->set_output_handle_data(k, h);
  }
  return Status::OK();
}

// While: outputs have the loop-variable shapes every iteration keeps (Note [While shapes]),
// narrowed by output_shapes when given; without a library, the output_shapes or unknown.
Status WhileShape(InferenceContext* c) {
  std::vector<PartialShape> declared;
  TX_RETURN_IF_ERROR(OutputShapesAttr(c, &declared));
  if (c->function_library() == nullptr) {
    for (int k = 0; k < c->num_outputs(); ++k)
      c->set_output(k, declared.empty() ? PartialShape::Unknown() : declared[static_cast<size_t>(k)]);
    return Status::OK();
  }
  WhileBodies bodies;
  TX_RETURN_IF_ERROR(GetWhileBodies(c->function_library(), c->attrs(), ContextArgShapes(*c, 0), &bodies));
  for (int k = 0; k < c->num_outputs(); ++k) {
    PartialShape s = bodies.shapes[k];
    if (!declared.empty())
      TX_RETURN_IF_ERROR(s.Merge(declared[k], &s).WithPrefix("loop variable " + std::to_string(k) + ": "));
    c->set_output(k, s);
    c->set_output_handle_data(k, bodies.handles[k]);
  }
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("If")
    .Input("cond: Tcond")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tcond: type")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("then_branch: func")
    .Attr("else_branch: func")
    .Attr("output_shapes: list(shape) = []")
    .SetIsStateful()
    .SetShapeFn(BranchShape)
    .Summary(
        "Runs `then_branch` on `input` when `cond` is true (a non-zero scalar or a non-empty tensor), else "
        "`else_branch`.");

TX_REGISTER_OP("StatelessIf")
    .Input("cond: Tcond")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tcond: type")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("then_branch: func")
    .Attr("else_branch: func")
    .Attr("output_shapes: list(shape) = []")
    .SetShapeFn(BranchShape)
    .Summary("If whose branches have no side effects.");

TX_REGISTER_OP("Case")
    .Input("branch_index: int32")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("branches: list(func) >= 1")
    .Attr("output_shapes: list(shape) = []")
    .SetIsStateful()
    .SetShapeFn(BranchShape)
    .Summary("Runs `branches[branch_index]` on `input`; an index out of range runs the last branch.");

TX_REGISTER_OP("StatelessCase")
    .Input("branch_index: int32")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("branches: list(func) >= 1")
    .Attr("output_shapes: list(shape) = []")
    .SetShapeFn(BranchShape)
    .Summary("Case whose branches have no side effects.");

TX_REGISTER_OP("While")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10")
    .SetIsStateful()
    .SetShapeFn(WhileShape)
    .Summary("Runs `body` on the loop variables `input` while `cond` of them is true; returns the final variables.");

TX_REGISTER_OP("StatelessWhile")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(WhileShape)
    .Summary("While whose cond and body have no side effects.");

}  // namespace tx

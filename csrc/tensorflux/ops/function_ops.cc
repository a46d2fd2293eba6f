// Function call ops (PartitionedCall, StatefulPartitionedCall) and _Arg, the node that stands
// for a function's input inside an instantiated body (framework/function_instantiate.h).
#include "tensorflux/framework/function_instantiate.h"
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Instantiates the called function for the call's input shapes (the body is cached for the
// kernel) and returns the static shapes of its results. Without a library (a node built outside
// a graph) the shapes are unknown.
Status CallShape(InferenceContext* c) {
  const NameAttrList* f = nullptr;
  std::vector<DataType> tin, tout;
  TX_RETURN_IF_ERROR(GetCallAttrs(c->attrs(), &f, &tin, &tout));
  if (c->function_library() == nullptr) return shape_fns::UnknownShape(c);
  std::vector<PartialShape> shapes;
  std::vector<InferenceContext::HandleData> handles;
  for (int i = 0; i < c->num_inputs(); ++i) {
    shapes.push_back(c->input(i));
    const InferenceContext::HandleData* h = c->input_handle_data(i);
    handles.push_back(h != nullptr ? *h : InferenceContext::HandleData());
  }
  std::shared_ptr<const FunctionBody> body;
  TX_RETURN_IF_ERROR(GetFunctionBody(c->function_library(), f->name, f->attr, shapes, handles, &body));
  TX_RETURN_IF_ERROR(CheckCallTypes(*body, tin, tout));
  for (int k = 0; k < c->num_outputs(); ++k) {
    c->set_output(k, body->graph->OutputShape(body->rets[k]));
    c->set_output_handle_data(k, body->graph->OutputHandleData(body->rets[k]));
  }
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("PartitionedCall")
    .Input("args: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("f: func")
    .Attr("config: string = ''")
    .Attr("config_proto: string = ''")
    .Attr("executor_type: string = ''")
    .SetShapeFn(CallShape)
    .Summary("Calls the library function `f` (a side-effect-free one) on `args` and returns its results.");

TX_REGISTER_OP("StatefulPartitionedCall")
    .Input("args: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("f: func")
    .Attr("config: string = ''")
    .Attr("config_proto: string = ''")
    .Attr("executor_type: string = ''")
    .SetIsStateful()
    .SetIsDistributedCommunication()
    .SetShapeFn(CallShape)
    .Summary("Calls the library function `f`, which may have side effects, on `args` and returns its results.");

TX_REGISTER_OP("_Arg")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnknownShape)
    .Summary("Input `index` of the function whose instantiated body holds this node (always fed by the call).");

}  // namespace tx

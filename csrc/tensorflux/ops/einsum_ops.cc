// Einsum (TensorFlow's OpDef): one or two operands contracted by an equation.
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/einsum_util.h"

namespace tx {
namespace {

Status EinsumShape(InferenceContext* c) {
  std::string equation;
  TX_RETURN_IF_ERROR(c->GetAttr("equation", &equation));
  einsum::Equation eq;
  TX_RETURN_IF_ERROR(einsum::Parse(equation, c->num_inputs(), &eq));
  std::vector<PartialShape> shapes;
  for (int i = 0; i < c->num_inputs(); ++i) shapes.push_back(c->input(i));
  PartialShape out;
  TX_RETURN_IF_ERROR(einsum::ResolveShapes(eq, shapes, &out));
  c->set_output(0, out);
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("Einsum")
    .Input("inputs: N * T")
    .Output("output: T")
    .Attr("equation: string")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .SetShapeFn(EinsumShape)
    .Summary("Tensor contraction over the labels of an equation such as 'bij,bjk->bik'.");

}  // namespace tx

// File ops (signatures identical to TensorFlow's): a file's bytes as a string and back.
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Every input is a scalar; a single output (if any) is a scalar too.
Status ScalarIoShape(InferenceContext* c) {
  static const char* const kNames[] = {"filename", "contents"};
  PartialShape unused;
  for (int i = 0; i < c->num_inputs(); ++i) TX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, kNames[i], &unused));
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, PartialShape::Scalar());
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("ReadFile")
    .Input("filename: string")
    .Output("contents: string")
    .SetShapeFn(ScalarIoShape)
    .Summary("The bytes of the file `filename`.");

TX_REGISTER_OP("WriteFile")
    .Input("filename: string")
    .Input("contents: string")
    .SetIsStateful()
    .SetShapeFn(ScalarIoShape)
    .Summary("Writes `contents` to the file `filename`, creating missing parent directories.");

}  // namespace tx

// RaggedTensorToTensor (TensorFlow's OpDef): a ragged tensor, given as flat values and one row
// partition per ragged dimension, made dense by padding with default_value (and truncated to
// `shape` where that is smaller). What tf.RaggedTensor.to_tensor() — and Keras's
// TextVectorization — put in a graph.
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Ragged dimensions of `types`: one per partition, less a leading FIRST_DIM_SIZE.
int RaggedRank(const std::vector<std::string>& types) {
  const int n = static_cast<int>(types.size());
  return !types.empty() && types[0] == "FIRST_DIM_SIZE" ? n - 1 : n;
}

Status RaggedTensorToTensorShape(InferenceContext* c) {
  const AttrValue* types = c->attrs().count("row_partition_types") ? &c->attrs().at("row_partition_types") : nullptr;
  const PartialShape& values = c->input(1);
  if (types == nullptr || !values.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int ragged_rank = RaggedRank(types->list.s);
  std::vector<int64_t> dims(ragged_rank + 1, -1);
  for (int d = 1; d < values.rank(); ++d) dims.push_back(values.dim(d));
  PartialShape out(dims);
  // A constant `shape` of the same rank refines it (a scalar -1 says nothing).
  if (const Tensor* t = c->input_tensor(0); t != nullptr && t->rank() == 1) {
    PartialShape given;
    TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &given));
    if (given.known_rank() && given.rank() != out.rank())
      return InvalidArgument("shape has rank ", given.rank(), " but the ragged tensor has rank ", out.rank());
    TX_RETURN_IF_ERROR(out.Merge(given, &out).WithPrefix("shape does not match the ragged tensor's values: "));
  }
  c->set_output(0, out);
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("RaggedTensorToTensor")
    .Input("shape: Tshape")
    .Input("values: T")
    .Input("default_value: T")
    .Input("row_partition_tensors: num_row_partition_tensors * Tindex")
    .Output("result: T")
    .Attr("T: type")
    .Attr("Tindex: {int64, int32}")
    .Attr("Tshape: {int64, int32}")
    .Attr("num_row_partition_tensors: int >= 1")
    .Attr("row_partition_types: list(string)")
    .SetShapeFn(RaggedTensorToTensorShape)
    .Summary("The dense tensor of a ragged one: rows padded with default_value, cut to `shape` where given.");

}  // namespace tx

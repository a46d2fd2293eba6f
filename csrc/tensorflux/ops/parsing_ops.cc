// ParseExampleV2 (TensorFlow's OpDef): serialized tf.train.Example protos parsed into dense
// tensors (FixedLenFeature, and FixedLenSequenceFeature with a -1 first dimension) and sparse
// ones (VarLenFeature). Ragged features (ragged_keys) are refused by the kernel for now.
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

Status ParseExampleShape(InferenceContext* c) {
  PartialShape serialized;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 0, "serialized", &serialized));
  if (serialized.known_rank() && serialized.rank() > 1)
    return InvalidArgument("serialized must be a scalar or a vector of Examples, got shape ", serialized.ToString());
  int64_t num_sparse = 0;
  TX_RETURN_IF_ERROR(c->GetAttr("num_sparse", &num_sparse));
  const AttrValue& shapes = c->attrs().at("dense_shapes");
  const int num_dense = static_cast<int>(shapes.list.shape.size());
  const int num_ragged = c->num_outputs() - 3 * static_cast<int>(num_sparse) - num_dense;
  const int rank = serialized.known_rank() ? serialized.rank() : -1;
  const std::vector<int64_t> batch = rank == 1 ? std::vector<int64_t>{serialized.dim(0)} : std::vector<int64_t>{};
  int out = 0;
  for (int64_t i = 0; i < num_sparse; ++i)
    c->set_output(out++, rank < 0 ? PartialShape::UnknownDims(2) : PartialShape({-1, rank + 1}));
  for (int64_t i = 0; i < num_sparse; ++i) c->set_output(out++, PartialShape({-1}));
  for (int64_t i = 0; i < num_sparse; ++i)
    c->set_output(out++, rank < 0 ? PartialShape::UnknownDims(1) : PartialShape({rank + 1}));
  for (int i = 0; i < num_dense; ++i) {
    const PartialShape& s = shapes.list.shape[i];
    if (rank < 0 || !s.known_rank()) {
      c->set_output(out++, PartialShape::Unknown());
      continue;
    }
    std::vector<int64_t> dims = batch;
    for (int d = 0; d < s.rank(); ++d) dims.push_back(s.dim(d));
    c->set_output(out++, PartialShape(dims));
  }
  for (int i = 0; i < num_ragged; ++i) c->set_output(out++, PartialShape::Unknown());
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("ParseExampleV2")
    .Input("serialized: string")
    .Input("names: string")
    .Input("sparse_keys: string")
    .Input("dense_keys: string")
    .Input("ragged_keys: string")
    .Input("dense_defaults: Tdense")
    .Output("sparse_indices: num_sparse * int64")
    .Output("sparse_values: sparse_types")
    .Output("sparse_shapes: num_sparse * int64")
    .Output("dense_values: Tdense")
    .Output("ragged_values: ragged_value_types")
    .Output("ragged_row_splits: ragged_split_types")
    .Attr("Tdense: list({float, int64, string}) >= 0")
    .Attr("num_sparse: int >= 0")
    .Attr("sparse_types: list({float, int64, string}) >= 0")
    .Attr("ragged_value_types: list({float, int64, string}) >= 0")
    .Attr("ragged_split_types: list({int32, int64}) >= 0")
    .Attr("dense_shapes: list(shape) >= 0")
    .SetShapeFn(ParseExampleShape)
    .Summary("Parses serialized tf.train.Example protos into dense and sparse (VarLen) feature tensors.");

}  // namespace tx

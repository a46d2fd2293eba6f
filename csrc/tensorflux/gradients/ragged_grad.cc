// Gradient of RaggedTensorToTensor: each row of `values` kept in the output gets the output
// gradient at its place; default_value gets the gradient summed over the padded places. The
// places come from running the op itself on the row numbers 0..n-1 with default -1 (the way
// TensorFlow's gradient finds them). The shape and the row partitions get none.
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

Status RaggedTensorToTensorGrad(GradContext& g) {
  GradScope& o = g.ops();
  const std::vector<std::string>& types = g.attr("row_partition_types").list.s;
  const int ragged_rank = static_cast<int>(types.size()) - (!types.empty() && types[0] == "FIRST_DIM_SIZE" ? 1 : 0);
  GValue shape = g.input(0), values = g.input(1), grad = g.grad(0);
  const int shape_rank = o.Rank(shape);
  if (shape_rank < 0)
    return InvalidArgument("the gradient of RaggedTensorToTensor needs the static rank of its shape input");
  // The places have the output's outer (ragged_rank + 1) dimensions.
  GValue place_shape = shape_rank == 0 ? shape : o.Op1("Slice", {shape, o.Ints({0}), o.Ints({ragged_rank + 1})});
  std::vector<GValue> partitions;
  for (int i = 3; i < g.num_inputs(); ++i) partitions.push_back(g.input(i));
  GValue n = o.Reshape(o.Op1("Slice", {o.ShapeOf(values, DT_INT64), o.Ints({0}), o.Ints({1})}), o.Ints({}));
  GValue rows = o.Op1("Range", {o.Int(0, DT_INT64), n, o.Int(1, DT_INT64)});
  std::vector<GValue> placed = o.Op("RaggedTensorToTensor", {{place_shape}, {rows}, {o.Int(-1, DT_INT64)}, partitions},
                                    {{"row_partition_types", g.attr("row_partition_types")}});
  if (placed.empty()) return o.status();
  GValue places = placed[0];
  GValue inner = o.Op1("Slice", {o.ShapeOf(values), o.Ints({1}), o.Ints({-1})});
  GValue flat_grad = o.Reshape(grad, o.Op("ConcatV2", {{o.Ints({-1}), inner}, {o.Int(0)}})[0]);
  // Padded places hold -1, which UnsortedSegmentSum drops.
  g.set_grad(1, o.Op1("UnsortedSegmentSum", {flat_grad, o.Reshape(places, o.Ints({-1})), n}));
  GValue padded = o.Cast(o.Op1("Equal", {places, o.Int(-1, DT_INT64)}), o.dtype(grad));
  GValue padded_full = o.Reshape(padded, o.Op("ConcatV2", {{o.ShapeOf(places), o.OnesLike(inner)}, {o.Int(0)}})[0]);
  g.set_grad(2, o.SumToShapeOf(o.Mul(grad, padded_full), g.input(2)));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("RaggedTensorToTensor", RaggedTensorToTensorGrad);

}  // namespace tx

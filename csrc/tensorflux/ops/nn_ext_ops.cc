// Block rearrangements (SpaceToBatchND, BatchToSpaceND, SpaceToDepth, DepthToSpace), local
// response normalization (LRN, LRNGrad) and CTCLoss; signatures identical to TensorFlow's.
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/array_util.h"
#include "tensorflux/ops/space_batch_util.h"

namespace tx {
namespace {

// SpaceToBatchND / BatchToSpaceND: exact output dims when block_shape and paddings (crops) are
// constants; otherwise the rank, and the remaining dims that pass through unchanged.
Status SpaceBatchShape(InferenceContext* c, const char* op, bool to_batch) {
  const PartialShape& in = c->input(0);
  PartialShape block_s, pads_s;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "Input 'block_shape'", &block_s));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 2, to_batch ? "Input 'paddings'" : "Input 'crops'", &pads_s));
  const int64_t m = block_s.known_rank() ? block_s.dim(0) : -1;
  if (pads_s.known_rank() && pads_s.dim(1) >= 0 && pads_s.dim(1) != 2)
    return InvalidArgument(op, ": ", to_batch ? "paddings" : "crops", " must have shape [M, 2], got ",
                           pads_s.ToString());
  if (m >= 0 && pads_s.known_rank() && pads_s.dim(0) >= 0 && pads_s.dim(0) != m)
    return InvalidArgument(op, ": block_shape has ", m, " elements but ", to_batch ? "paddings" : "crops",
                           " has shape ", pads_s.ToString());
  if (m >= 0 && in.known_rank() && in.rank() < 1 + m)
    return InvalidArgument(op, ": input rank should be >= ", 1 + m, " (1 + the length of block_shape), got ",
                           in.rank());
  const Tensor* block_t = c->input_tensor(1);
  const Tensor* pads_t = c->input_tensor(2);
  if (!in.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  if (block_t == nullptr || pads_t == nullptr) {
    std::vector<int64_t> dims(in.rank(), -1);
    if (m >= 0)
      for (int d = 1 + static_cast<int>(m); d < in.rank(); ++d) dims[d] = in.dim(d);
    c->set_output(0, PartialShape(dims));
    return Status::OK();
  }
  std::vector<int64_t> block, pads, out;
  TX_RETURN_IF_ERROR(array_util::ReadInts(*block_t, "block_shape", &block));
  TX_RETURN_IF_ERROR(array_util::ReadInts(*pads_t, to_batch ? "paddings" : "crops", &pads));
  TX_RETURN_IF_ERROR(space_batch::Resolve(op, in.dims(), block, pads, to_batch, &out));
  c->set_output(0, PartialShape(out));
  return Status::OK();
}
Status SpaceToBatchNDShape(InferenceContext* c) { return SpaceBatchShape(c, "SpaceToBatchND", true); }
Status BatchToSpaceNDShape(InferenceContext* c) { return SpaceBatchShape(c, "BatchToSpaceND", false); }

Status DepthShape(InferenceContext* c, const char* op, bool to_depth) {
  PartialShape in;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "Input 'input'", &in));
  int64_t block = 0;
  std::string format;
  TX_RETURN_IF_ERROR(c->GetAttr("block_size", &block));
  TX_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  std::vector<int64_t> out;
  TX_RETURN_IF_ERROR(space_batch::ResolveDepth(op, in.known_rank() ? in.dims() : std::vector<int64_t>(4, -1), block,
                                               format, to_depth, &out));
  c->set_output(0, PartialShape(out));
  return Status::OK();
}
Status SpaceToDepthShape(InferenceContext* c) { return DepthShape(c, "SpaceToDepth", true); }
Status DepthToSpaceShape(InferenceContext* c) { return DepthShape(c, "DepthToSpace", false); }

// LRN: a rank-4 input, output of the same shape.
Status LRNShape(InferenceContext* c) {
  PartialShape in;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "Input 'input'", &in));
  c->set_output(0, in);
  return Status::OK();
}

// LRNGrad: three rank-4 inputs of one shape.
Status LRNGradShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "Input 'input_grads'", &s));
  const char* names[] = {"Input 'input_image'", "Input 'output_image'"};
  for (int i = 1; i < 3; ++i) {
    PartialShape si;
    TX_RETURN_IF_ERROR(c->WithRank(c->input(i), 4, names[i - 1], &si));
    Status st = s.Merge(si, &s);
    if (!st.ok())
      return InvalidArgument("LRNGrad: input_grads, input_image and output_image must have the same shape, got ",
                             c->input(0).ToString(), ", ", c->input(1).ToString(), ", ", c->input(2).ToString());
  }
  c->set_output(0, s);
  return Status::OK();
}

// CTCLoss: inputs [max_time, batch, classes] -> loss [batch], gradient like inputs.
Status CTCLossShape(InferenceContext* c) {
  PartialShape in, idx, vals, len;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 3, "Input 'inputs'", &in));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, "Input 'labels_indices'", &idx));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, "Input 'labels_values'", &vals));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(3), 1, "Input 'sequence_length'", &len));
  int64_t batch = in.known_rank() ? in.dim(1) : -1;
  const int64_t len_b = len.known_rank() ? len.dim(0) : -1;
  if (batch >= 0 && len_b >= 0 && batch != len_b)
    return InvalidArgument("CTCLoss: sequence_length has ", len_b, " entries but inputs have batch size ", batch);
  if (batch < 0) batch = len_b;
  const int64_t rows = idx.known_rank() ? idx.dim(0) : -1, n = vals.known_rank() ? vals.dim(0) : -1;
  if (rows >= 0 && n >= 0 && rows != n)
    return InvalidArgument("CTCLoss: labels_indices has ", rows, " rows but labels_values has ", n, " values");
  c->set_output(0, PartialShape({batch}));
  c->set_output(1, in.known_rank() ? PartialShape({in.dim(0), batch, in.dim(2)}) : PartialShape::UnknownDims(3));
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("CTCLoss")
    .Input("inputs: T")
    .Input("labels_indices: int64")
    .Input("labels_values: int32")
    .Input("sequence_length: int32")
    .Output("loss: T")
    .Output("gradient: T")
    .Attr("preprocess_collapse_repeated: bool = false")
    .Attr("ctc_merge_repeated: bool = true")
    .Attr("ignore_longer_outputs_than_inputs: bool = false")
    .Attr("T: {float, double} = DT_FLOAT")
    .SetShapeFn(CTCLossShape)
    .Summary(
        "Connectionist temporal classification loss of label sequences given per-step class logits, with "
        "its gradient with respect to the logits.");

TX_REGISTER_OP("SpaceToBatchND")
    .Input("input: T")
    .Input("block_shape: Tblock_shape")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tblock_shape: {int32, int64} = DT_INT32")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(SpaceToBatchNDShape)
    .Summary("Pads the spatial dimensions and moves blocks of them into the batch dimension.");

TX_REGISTER_OP("BatchToSpaceND")
    .Input("input: T")
    .Input("block_shape: Tblock_shape")
    .Input("crops: Tcrops")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tblock_shape: {int32, int64} = DT_INT32")
    .Attr("Tcrops: {int32, int64} = DT_INT32")
    .SetShapeFn(BatchToSpaceNDShape)
    .Summary("Moves blocks of the batch dimension back into the spatial dimensions and crops them.");

TX_REGISTER_OP("SpaceToDepth")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn(SpaceToDepthShape)
    .Summary("Moves block_size x block_size spatial blocks into the depth dimension.");

TX_REGISTER_OP("DepthToSpace")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn(DepthToSpaceShape)
    .Summary("Moves depth into block_size x block_size spatial blocks (the inverse of SpaceToDepth).");

TX_REGISTER_OP("LRN")
    .Input("input: T")
    .Output("output: T")
    .Attr("depth_radius: int = 5")
    .Attr("bias: float = 1")
    .Attr("alpha: float = 1")
    .Attr("beta: float = 0.5")
    .Attr("T: {half, bfloat16, float} = DT_FLOAT")
    .SetShapeFn(LRNShape)
    .Summary("Local response normalization: input / (bias + alpha * sum of squares over a depth window)^beta.");

TX_REGISTER_OP("LRNGrad")
    .Input("input_grads: T")
    .Input("input_image: T")
    .Input("output_image: T")
    .Output("output: T")
    .Attr("depth_radius: int = 5")
    .Attr("bias: float = 1")
    .Attr("alpha: float = 1")
    .Attr("beta: float = 0.5")
    .Attr("T: {half, bfloat16, float} = DT_FLOAT")
    .SetShapeFn(LRNGradShape)
    .Summary("Gradient of LRN with respect to its input.");

}  // namespace tx

// FusedBatchNormV3 (signature identical to TensorFlow's).
#include <cstdint>
#include <string>

#include "tensorflux/ops/conv_window.h"
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// x is rank 4 (rank 5 for the 3-D formats); scale/offset (and mean/variance unless they may be
// empty) are vectors of the channel count; y has x's shape, the other outputs [C] (reserve 3: unknown).
Status FusedBatchNormShape(InferenceContext* c) {
  std::string format;
  TX_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  DataFormat f;
  TX_RETURN_IF_ERROR(ParseDataFormat("FusedBatchNormV3", format, &f));
  const int rank = f.rank();
  PartialShape x;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, "Input 'x'", &x));
  bool is_training = true;
  TX_RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  float factor = 1.0f;
  auto it = c->attrs().find("exponential_avg_factor");
  if (it != c->attrs().end()) factor = it->second.f;
  const int cdim = f.channel_dim(rank);
  int64_t ch = x.dim(cdim);
  const int num_vecs = (is_training && factor == 1.0f) ? 3 : 5;
  static const char* kNames[] = {"", "Input 'scale'", "Input 'offset'", "Input 'mean'", "Input 'variance'"};
  for (int i = 1; i < 5; ++i) {
    PartialShape v;
    TX_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, kNames[i], &v));
    if (i >= num_vecs) continue;
    if (ch >= 0 && v.dim(0) >= 0 && v.dim(0) != ch)
      return InvalidArgument(kNames[i], " must have as many elements as the channel dimension of x (", ch,
                             "), but has shape ", v.ToString());
    if (ch < 0) ch = v.dim(0);
  }
  std::vector<int64_t> dims = x.dims();
  dims[cdim] = ch;
  c->set_output(0, PartialShape(dims));
  for (int i = 1; i < 5; ++i) c->set_output(i, PartialShape({ch}));
  c->set_output(5, PartialShape::UnknownDims(1));
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("FusedBatchNormV3")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Output("reserve_space_3: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {bfloat16, float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1")
    .Attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape)
    .Summary("Batch normalization: y = scale * (x - mean) / sqrt(variance + epsilon) + offset per channel.");

}  // namespace tx

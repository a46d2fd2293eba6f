// Gradient ops FusedBatchNormGradV3 and BiasAddGrad (signatures identical to TensorFlow's).
#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/ops/conv_window.h"
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// y_backprop and x: equal shapes of rank 4 (5 for the 3-D formats); scale and reserve spaces 1
// and 2: vectors of the channel count. x_backprop has x's shape, scale/offset_backprop are [C],
// reserve_space_4/5 are empty vectors.
Status FusedBatchNormGradShape(InferenceContext* c) {
  std::string format;
  TX_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  DataFormat f;
  TX_RETURN_IF_ERROR(ParseDataFormat("FusedBatchNormGradV3", format, &f));
  const int rank = f.rank();
  const int cdim = f.channel_dim(rank);
  PartialShape dy, x, merged;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, "Input 'y_backprop'", &dy));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), rank, "Input 'x'", &x));
  if (!dy.IsCompatibleWith(x))
    return InvalidArgument("y_backprop and x must have the same shape, got ", dy.ToString(), " and ", x.ToString());
  TX_RETURN_IF_ERROR(dy.Merge(x, &merged));
  int64_t ch = merged.dim(cdim);
  static const char* kNames[] = {"", "", "Input 'scale'", "Input 'reserve_space_1'", "Input 'reserve_space_2'"};
  for (int i = 2; i < 5; ++i) {
    PartialShape v;
    TX_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, kNames[i], &v));
    if (ch >= 0 && v.dim(0) >= 0 && v.dim(0) != ch)
      return InvalidArgument(kNames[i], " must have as many elements as the channel dimension of x (", ch,
                             "), but has shape ", v.ToString());
    if (ch < 0) ch = v.dim(0);
  }
  std::vector<int64_t> dims = merged.dims();
  dims[cdim] = ch;
  c->set_output(0, PartialShape(std::move(dims)));
  c->set_output(1, PartialShape({ch}));
  c->set_output(2, PartialShape({ch}));
  c->set_output(3, PartialShape({0}));
  c->set_output(4, PartialShape({0}));
  return Status::OK();
}

// out_backprop has rank >= 2; the output is [C] for its channel dimension (last, or 1 for NCHW).
Status BiasAddGradShape(InferenceContext* c) {
  PartialShape dy;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, "Input 'out_backprop'", &dy));
  std::string format;
  TX_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  DataFormat f;
  TX_RETURN_IF_ERROR(ParseDataFormat("BiasAddGrad", format, &f));
  const int64_t ch = !dy.known_rank() ? -1 : dy.dim(f.channel_dim(dy.rank()));
  c->set_output(0, PartialShape({ch}));
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("FusedBatchNormGradV3")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: float")
    .Input("reserve_space_1: U")
    .Input("reserve_space_2: U")
    .Input("reserve_space_3: U")
    .Output("x_backprop: T")
    .Output("scale_backprop: U")
    .Output("offset_backprop: U")
    .Output("reserve_space_4: U")
    .Output("reserve_space_5: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape)
    .Summary("Gradients of FusedBatchNormV3 with respect to x, scale and offset.");

TX_REGISTER_OP("BiasAddGrad")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: numbertype")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .SetShapeFn(BiasAddGradShape)
    .Summary("Gradient of BiasAdd with respect to the bias: out_backprop summed over all but the channel dimension.");

}  // namespace tx

// Neural-network ops: BiasAdd, Relu, Softmax (signatures identical to TensorFlow's).
#include <cstdint>
#include <string>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// The channel dimension is the last one for NHWC and dimension 1 for NCHW; the bias length must
// match it, and the output has the value's shape (refined by the bias length).
Status BiasAddShape(InferenceContext* c) {
  PartialShape value, bias;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, "Input 'value'", &value));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "Input 'bias'", &bias));
  std::string format;
  TX_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  if (!value.known_rank()) {
    c->set_output(0, value);
    return Status::OK();
  }
  const int channel = format == "NCHW" ? 1 : value.rank() - 1;
  const int64_t ch = value.dim(channel), nb = bias.dim(0);
  if (ch >= 0 && nb >= 0 && ch != nb)
    return InvalidArgument("Dimensions must be equal, but are ", ch, " and ", nb, ": the bias length must match ",
                           "dimension ", channel, " of the value for data_format ", format, " (shapes ",
                           value.ToString(), ", ", bias.ToString(), ")");
  std::vector<int64_t> dims = value.dims();
  if (dims[channel] < 0) dims[channel] = nb;
  c->set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

Status SoftmaxShape(InferenceContext* c) {
  PartialShape logits;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, "Input 'logits'", &logits));
  c->set_output(0, logits);
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("BiasAdd")
    .Input("value: T")
    .Input("bias: T")
    .Output("output: T")
    .Attr("T: numbertype")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .SetShapeFn(BiasAddShape)
    .Summary("Adds a 1-D bias to the channel dimension of a value of rank 2 or more.");

TX_REGISTER_OP("Relu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64, qint8}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Returns max(features, 0) elementwise.");

TX_REGISTER_OP("Softmax")
    .Input("logits: T")
    .Output("softmax: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(SoftmaxShape)
    .Summary("Normalizes the last axis to probabilities: exp(x - max) / sum(exp(x - max)).");

}  // namespace tx

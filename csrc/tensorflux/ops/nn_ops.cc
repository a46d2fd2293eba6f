// Neural-network ops: BiasAdd, activations, (log-)softmax, cross-entropies, L2Loss, InTopKV2
// (signatures identical to TensorFlow's). Windowed ops are in conv_ops.cc, batch norm in batch_norm_ops.cc.
#include <cstdint>
#include <string>

#include "tensorflux/ops/conv_window.h"
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
  DataFormat f;
  TX_RETURN_IF_ERROR(ParseDataFormat("BiasAdd", format, &f));
  if (!value.known_rank()) {
    c->set_output(0, value);
    return Status::OK();
  }
  const int channel = f.channel_dim(value.rank());
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

// Softmax cross-entropy: features and labels broadcast to a rank-2 [batch, classes] shape.
Status XentShape(InferenceContext* c) {
  PartialShape f, l, b;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, "Input 'features'", &f));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, "Input 'labels'", &l));
  Status s = BroadcastShapes(f, l, &b);
  if (!s.ok())
    return InvalidArgument("logits and labels must be broadcastable: logits_size=", f.ToString(),
                           " labels_size=", l.ToString());
  c->set_output(0, PartialShape({b.dim(0)}));
  c->set_output(1, b);
  return Status::OK();
}

// Sparse softmax cross-entropy: features [batch, classes], labels [batch].
Status SparseXentShape(InferenceContext* c) {
  PartialShape f, l;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, "Input 'features'", &f));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "Input 'labels'", &l));
  int64_t b = f.dim(0);
  if (b >= 0 && l.dim(0) >= 0 && b != l.dim(0))
    return InvalidArgument("logits and labels must have the same first dimension, got logits shape ", f.ToString(),
                           " and labels shape ", l.ToString());
  if (b < 0) b = l.dim(0);
  c->set_output(0, PartialShape({b}));
  c->set_output(1, PartialShape({b, f.dim(1)}));
  return Status::OK();
}

// InTopKV2: predictions [batch, classes], targets [batch], k a scalar -> bool [batch].
Status InTopKShape(InferenceContext* c) {
  PartialShape p, t, k;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, "Input 'predictions'", &p));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "Input 'targets'", &t));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, "Input 'k'", &k));
  int64_t b = p.dim(0);
  if (b >= 0 && t.dim(0) >= 0 && b != t.dim(0))
    return InvalidArgument("First dimension of predictions ", b, " must match length of targets ", t.dim(0));
  if (b < 0) b = t.dim(0);
  c->set_output(0, PartialShape({b}));
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

TX_REGISTER_OP("Relu6")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Returns min(max(features, 0), 6) elementwise.");

TX_REGISTER_OP("Elu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Exponential linear unit: features where positive, exp(features) - 1 elsewhere.");

TX_REGISTER_OP("Selu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Scaled exponential linear unit: scale * (x if x > 0 else alpha * (exp(x) - 1)).");

TX_REGISTER_OP("LeakyRelu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Returns features where positive and alpha * features elsewhere.");

TX_REGISTER_OP("Softplus")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Returns log(exp(features) + 1) elementwise, computed without overflow.");

TX_REGISTER_OP("Softsign")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Returns features / (abs(features) + 1) elementwise.");

TX_REGISTER_OP("LogSoftmax")
    .Input("logits: T")
    .Output("logsoftmax: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(SoftmaxShape)
    .Summary("Log of the softmax over the last axis: x - max - log(sum(exp(x - max))).");

TX_REGISTER_OP("SoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: T")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(XentShape)
    .Summary("Per-row cross-entropy of label distributions against softmax(features), and its gradient.");

TX_REGISTER_OP("SparseSoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: Tlabels")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("Tlabels: {int32, int64} = DT_INT64")
    .SetShapeFn(SparseXentShape)
    .Summary("Per-row cross-entropy of class indices against softmax(features), and its gradient.");

TX_REGISTER_OP("L2Loss")
    .Input("t: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_fns::ScalarShape)
    .Summary("Returns sum(t ** 2) / 2 as a scalar.");

TX_REGISTER_OP("InTopKV2")
    .Input("predictions: float")
    .Input("targets: T")
    .Input("k: T")
    .Output("precision: bool")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(InTopKShape)
    .Summary("Whether each row's target class is among its k largest predictions.");

}  // namespace tx

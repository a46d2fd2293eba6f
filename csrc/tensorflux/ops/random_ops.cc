// Stateful random ops: RandomUniform, RandomStandardNormal, TruncatedNormal, RandomUniformInt,
// RandomShuffle, Multinomial (signatures identical to TensorFlow's).
#include <cstdint>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Output shape from the 1-D `shape` input (input 0); a known negative entry is an error.
Status RandomShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "Input 'shape'", &s));
  PartialShape out;
  TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &out));
  if (c->input_tensor(0) != nullptr) {
    for (int i = 0; i < out.rank(); ++i)
      if (out.dim(i) < 0) return InvalidArgument("shape must be non-negative, got ", out.ToString());
  }
  c->set_output(0, out);
  return Status::OK();
}

// Like RandomShape, plus scalar minval and maxval (with minval < maxval when both are constant).
Status RandomUniformIntShape(InferenceContext* c) {
  PartialShape unused;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "Input 'minval'", &unused));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, "Input 'maxval'", &unused));
  const Tensor* lo = c->input_tensor(1);
  const Tensor* hi = c->input_tensor(2);
  if (lo != nullptr && hi != nullptr && lo->num_elements() == 1 && hi->num_elements() == 1 &&
      lo->dtype() == hi->dtype()) {
    const int64_t a = lo->dtype() == DT_INT32 ? lo->data<int32_t>()[0] : lo->data<int64_t>()[0];
    const int64_t b = hi->dtype() == DT_INT32 ? hi->data<int32_t>()[0] : hi->data<int64_t>()[0];
    if (a >= b) return InvalidArgument("Need minval < maxval: ", a, " >= ", b);
  }
  return RandomShape(c);
}

// logits [batch, classes] and scalar num_samples -> [batch, num_samples].
Status MultinomialShape(InferenceContext* c) {
  PartialShape logits, ns;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, "Input 'logits'", &logits));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "Input 'num_samples'", &ns));
  int64_t samples = -1;
  if (const Tensor* t = c->input_tensor(1); t != nullptr && t->dtype() == DT_INT32 && t->num_elements() == 1) {
    samples = t->data<int32_t>()[0];
    if (samples < 0) return InvalidArgument("num_samples should be nonnegative, got ", samples);
  }
  c->set_output(0, PartialShape({logits.known_rank() ? logits.dim(0) : -1, samples}));
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("RandomUniform")
    .Input("shape: T")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(RandomShape)
    .Summary("Samples a tensor of the given shape uniformly from [0, 1).");

TX_REGISTER_OP("RandomStandardNormal")
    .Input("shape: T")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(RandomShape)
    .Summary("Samples a tensor of the given shape from the standard normal distribution.");

TX_REGISTER_OP("TruncatedNormal")
    .Input("shape: T")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(RandomShape)
    .Summary("Samples a standard normal conditioned on lying within two standard deviations of 0.");

TX_REGISTER_OP("RandomUniformInt")
    .Input("shape: T")
    .Input("minval: Tout")
    .Input("maxval: Tout")
    .Output("output: Tout")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("Tout: {int32, int64}")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(RandomUniformIntShape)
    .Summary("Samples integers uniformly from [minval, maxval) into a tensor of the given shape.");

TX_REGISTER_OP("RandomShuffle")
    .Input("value: T")
    .Output("output: T")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Randomly permutes a tensor along its first dimension.");

TX_REGISTER_OP("Multinomial")
    .Input("logits: T")
    .Input("num_samples: int32")
    .Output("output: output_dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}")
    .Attr("output_dtype: {int32, int64} = DT_INT64")
    .SetIsStateful()
    .SetShapeFn(MultinomialShape)
    .Summary("Draws class indices for each row of logits, with probabilities softmax(logits row).");

}  // namespace tx

// Stateless random ops (V2: explicit key, counter and algorithm): StatelessRandomUniformV2,
// StatelessRandomNormalV2, StatelessTruncatedNormalV2, StatelessRandomUniformIntV2,
// StatelessRandomUniformFullIntV2, and StatelessRandomGetKeyCounter, which turns a seed computed at
// run time into their key and counter (signatures identical to TensorFlow's).
#include <cstdint>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Output shape from the constant `shape` input; key and counter are vectors, alg a scalar whose
// constant value must name a supported algorithm (1 Philox, 3 auto-select).
Status StatelessShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "Input 'shape'", &s));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "Input 'key'", &s));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, "Input 'counter'", &s));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, "Input 'alg'", &s));
  if (const Tensor* alg = c->input_tensor(3); alg != nullptr && alg->num_elements() == 1) {
    const int32_t a = alg->data<int32_t>()[0];
    if (a != 1 && a != 3)
      return InvalidArgument("Unsupported random algorithm id ", a, " (supported: 1 Philox, 3 auto-select)");
  }
  PartialShape out;
  TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &out));
  if (c->input_tensor(0) != nullptr) {
    for (int i = 0; i < out.rank(); ++i)
      if (out.dim(i) < 0) return InvalidArgument("shape must be non-negative, got ", out.ToString());
  }
  c->set_output(0, out);
  return Status::OK();
}

// StatelessShape, plus scalar minval and maxval (inputs 4 and 5).
Status StatelessIntShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(4), 0, "Input 'minval'", &s));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(5), 0, "Input 'maxval'", &s));
  return StatelessShape(c);
}

// StatelessRandomGetKeyCounter: a shape-[2] seed in, key [1] and counter [2] out.
Status GetKeyCounterShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "Input 'seed'", &s));
  if (s.dim(0) >= 0 && s.dim(0) != 2) return InvalidArgument("seed must have shape [2], got ", s.ToString());
  c->set_output(0, PartialShape({1}));
  c->set_output(1, PartialShape({2}));
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("StatelessRandomGetKeyCounter")
    .Input("seed: Tseed")
    .Output("key: uint64")
    .Output("counter: uint64")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(GetKeyCounterShape)
    .Summary("The Philox key and counter the V2 stateless ops take, scrambled from a shape-[2] seed.");

TX_REGISTER_OP("StatelessRandomUniformV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: dtype")
    .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(StatelessShape)
    .Summary("Uniform values in [0, 1) determined by (key, counter, alg) alone.");

TX_REGISTER_OP("StatelessRandomNormalV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: dtype")
    .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(StatelessShape)
    .Summary("Standard normal values determined by (key, counter, alg) alone.");

TX_REGISTER_OP("StatelessTruncatedNormalV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: dtype")
    .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(StatelessShape)
    .Summary("Standard normal values within two standard deviations, determined by (key, counter, alg) alone.");

TX_REGISTER_OP("StatelessRandomUniformIntV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Input("minval: dtype")
    .Input("maxval: dtype")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64}")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(StatelessIntShape)
    .Summary("Uniform integers in [minval, maxval) determined by (key, counter, alg) alone.");

TX_REGISTER_OP("StatelessRandomUniformFullIntV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(StatelessShape)
    .Summary("Integers over the dtype's whole range determined by (key, counter, alg) alone.");

}  // namespace tx

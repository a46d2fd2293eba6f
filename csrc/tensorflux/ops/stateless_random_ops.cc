// Stateless random ops (V2: explicit key, counter and algorithm): StatelessRandomUniformV2,
// StatelessRandomNormalV2, StatelessTruncatedNormalV2 (signatures identical to TensorFlow's).
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

}  // namespace

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

}  // namespace tx

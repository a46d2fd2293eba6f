// Samplers of parameterized distributions (signatures identical to TensorFlow's): RandomGamma
// (with RandomGammaGrad, the implicit reparameterization derivative), RandomPoisson(V2), and the
// stateless StatelessRandomGammaV2/V3, StatelessRandomPoisson and StatelessRandomBinomial.
#include <cstdint>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Stateful samplers: `shape` (input 0, the sample shape) followed by the parameter's shape
// (input 1).
Status SampleThenParamShape(InferenceContext* c) {
  PartialShape shape, s;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "Input 'shape'", &s));
  TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &shape));
  const PartialShape& param = c->input(1);
  if (!shape.known_rank() || !param.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> dims = shape.dims();
  dims.insert(dims.end(), param.dims().begin(), param.dims().end());
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

// The output shape is the `shape` input; it must end with the parameters' (broadcast) shape.
Status CheckEndsWith(const PartialShape& out, const PartialShape& param) {
  if (!out.known_rank() || !param.known_rank()) return Status::OK();
  if (param.rank() > out.rank())
    return InvalidArgument("Shape passed in must end with broadcasted shape: ", out.ToString(), " vs. ",
                           param.ToString());
  for (int i = 0; i < param.rank(); ++i) {
    const int64_t a = out.dim(out.rank() - param.rank() + i), b = param.dim(i);
    if (a >= 0 && b >= 0 && a != b)
      return InvalidArgument("Shape passed in must end with broadcasted shape: ", out.ToString(), " vs. ",
                             param.ToString());
  }
  return Status::OK();
}

// Stateless samplers with a shape-[2] seed (input 1) and parameters from input `first_param` on.
template <int kFirstParam, int kNumParams>
Status StatelessSeedShape(InferenceContext* c) {
  PartialShape s, seed, out;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "Input 'shape'", &s));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "Input 'seed'", &seed));
  if (seed.dim(0) >= 0 && seed.dim(0) != 2) return InvalidArgument("seed must have shape [2], not ", seed.ToString());
  TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &out));
  PartialShape params = c->input(kFirstParam);
  for (int i = 1; i < kNumParams; ++i) TX_RETURN_IF_ERROR(BroadcastShapes(params, c->input(kFirstParam + i), &params));
  TX_RETURN_IF_ERROR(CheckEndsWith(out, params));
  c->set_output(0, out);
  return Status::OK();
}

// StatelessRandomGammaV3: shape, key [1], counter, alg scalar, alpha.
Status StatelessKeyCounterShape(InferenceContext* c) {
  PartialShape s, out;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "Input 'shape'", &s));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "Input 'key'", &s));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, "Input 'counter'", &s));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, "Input 'alg'", &s));
  TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &out));
  TX_RETURN_IF_ERROR(CheckEndsWith(out, c->input(4)));
  c->set_output(0, out);
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("RandomGamma")
    .Input("shape: S")
    .Input("alpha: T")
    .Output("output: T")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("S: {int32, int64}")
    .Attr("T: {half, float, double}")
    .SetIsStateful()
    .SetShapeFn(SampleThenParamShape)
    .Summary("Samples Gamma(alpha, 1): shape samples for every alpha (output shape = shape + alpha's shape).");

TX_REGISTER_OP("RandomGammaGrad")
    .Input("alpha: T")
    .Input("sample: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .SetShapeFn(shape_fns::BroadcastBinaryOp)
    .Summary("The derivative of a Gamma(alpha, 1) sample with respect to alpha (implicit reparameterization).");

TX_REGISTER_OP("RandomPoisson")
    .Input("shape: S")
    .Input("rate: dtype")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("S: {int32, int64}")
    .Attr("dtype: {half, float, double}")
    .SetIsStateful()
    .SetShapeFn(SampleThenParamShape)
    .Summary("Samples Poisson(rate) for every rate (deprecated: RandomPoissonV2 chooses the output dtype).");

TX_REGISTER_OP("RandomPoissonV2")
    .Input("shape: S")
    .Input("rate: R")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("S: {int32, int64}")
    .Attr("R: {half, float, double, int32, int64} = DT_DOUBLE")
    .Attr("dtype: {half, float, double, int32, int64} = DT_INT64")
    .SetIsStateful()
    .SetShapeFn(SampleThenParamShape)
    .Summary("Samples Poisson(rate): shape samples for every rate (output shape = shape + rate's shape).");

TX_REGISTER_OP("StatelessRandomGammaV2")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Input("alpha: dtype")
    .Output("output: dtype")
    .Attr("dtype: {half, float, double}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(StatelessSeedShape<2, 1>)
    .Summary("Gamma(alpha, 1) samples of the given shape (ending with alpha's shape), determined by seed alone.");

TX_REGISTER_OP("StatelessRandomGammaV3")
    .Input("shape: shape_dtype")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Input("alpha: dtype")
    .Output("output: dtype")
    .Attr("dtype: {half, float, double}")
    .Attr("shape_dtype: {int32, int64} = DT_INT32")
    .SetShapeFn(StatelessKeyCounterShape)
    .Summary("Gamma(alpha, 1) samples of the given shape, determined by (key, counter, alg) alone.");

TX_REGISTER_OP("StatelessRandomPoisson")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Input("lam: Rtype")
    .Output("output: dtype")
    .Attr("Rtype: {half, float, double, int32, int64}")
    .Attr("dtype: {half, float, double, int32, int64}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(StatelessSeedShape<2, 1>)
    .Summary("Poisson(lam) samples of the given shape (ending with lam's shape), determined by seed alone.");

TX_REGISTER_OP("StatelessRandomBinomial")
    .Input("shape: S")
    .Input("seed: Tseed")
    .Input("counts: T")
    .Input("probs: T")
    .Output("output: dtype")
    .Attr("S: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .Attr("T: {half, float, double, int32, int64} = DT_DOUBLE")
    .Attr("dtype: {half, float, double, int32, int64} = DT_INT64")
    .SetShapeFn(StatelessSeedShape<2, 2>)
    .Summary("Binomial(counts, probs) samples of the given shape, determined by seed alone.");

}  // namespace tx

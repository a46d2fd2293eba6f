// CPU kernels for the Poisson samplers: RandomPoisson, RandomPoissonV2 (stateful) and
// StatelessRandomPoisson. Rates below 10 use Knuth's product of uniforms; larger rates Hormann's
// transformed rejection (PTRS), in double precision with TensorFlow's order of draws (Note
// [Per-element sampler streams]).
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/philox_stream.h"

namespace tx {
namespace cpu {
namespace {

// One Poisson(rate) sample from `stream`; `highest` is the output type's largest value
// (a candidate above it is redrawn). A NaN rate gives NaN and an infinite one infinity (both
// would never be accepted); CheckRates keeps them, and rates beyond `highest`, from integer outputs.
double SamplePoisson(double rate, double highest, PhiloxStream* stream) {
  if (std::isnan(rate) || std::isinf(rate)) return rate;
  UniformDraws uniform(stream);
  if (rate < 10) {
    const double exp_neg_rate = std::exp(-rate);
    double prod = 1, x = 0;
    while (true) {
      prod = prod * uniform();
      if (prod <= exp_neg_rate && x <= highest) return x;
      x += 1;
    }
  }
  const double log_rate = std::log(rate);
  // Hormann's constants for the dominating distribution G(u) = (2a / (0.5 - |u|) + b) u + c.
  const double b = 0.931 + 2.53 * std::sqrt(rate);
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  while (true) {
    double u = uniform();
    u -= 0.5;
    const double v = uniform();
    const double u_shifted = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / u_shifted + b) * u + rate + 0.43);
    if (k > highest) continue;
    if (u_shifted >= 0.07 && v <= 0.9277 - 3.6224 / (b - 2)) return k;  // inside the box: accept
    if (k < 0 || (u_shifted < 0.013 && v > u_shifted)) continue;
    const double s = std::log(v * inv_alpha / (a / (u_shifted * u_shifted) + b));
    const double t = -rate + k * log_rate - std::lgamma(k + 1);
    if (s <= t) return k;
  }
}

constexpr int64_t kPoissonCost = 400;

// Rates an integer output cannot hold samples of (NaN, or so large that every candidate is
// redrawn) are an error; float outputs take NaN and infinity as they are.
template <typename R, typename Out>
Status CheckRates(const Tensor& rate) {
  if constexpr (std::is_integral_v<Out>) {
    const double highest = static_cast<double>(std::numeric_limits<Out>::max());
    const R* r = rate.data<R>();
    for (int64_t i = 0; i < rate.num_elements(); ++i) {
      const double v = static_cast<double>(r[i]);
      if (std::isnan(v) || v - 10 * std::sqrt(std::fabs(v)) > highest)
        return InvalidArgument("Poisson rate ", v, " has no samples representable in ",
                               DataTypeString(DataTypeOf<Out>::value));
    }
  }
  return Status::OK();
}

// Fills `out` (num_rates * per_rate samples of Out) from rates of type R.
template <typename R, typename Out>
void FillPoisson(const Tensor& rate, PhiloxKey key, PhiloxCounter counter, int64_t per_rate, Out* out,
                 ThreadPool* pool) {
  const R* r = rate.data<R>();
  const double highest = static_cast<double>(std::numeric_limits<Out>::max());
  FillSamples(rate.num_elements(), per_rate, kPoissonCost, pool, out, [&](int64_t p, int64_t i) {
    PhiloxStream s(key, counter);
    s.Skip(kSamplerBlocksPerOutput * static_cast<uint64_t>(i));
    return SampleAs<Out>(SamplePoisson(static_cast<double>(r[p]), highest, &s));
  });
}

// RandomPoisson(V2)(shape, rate): shape samples for every rate (output shape + rate's shape).
template <typename R, typename Out>
class RandomPoissonOp : public OpKernel {
 public:
  explicit RandomPoissonOp(OpKernelConstruction* c) : OpKernel(c) {
    int64_t seed = 0, seed2 = 0;
    c->SetStatus(c->GetAttr("seed", &seed));
    c->SetStatus(c->GetAttr("seed2", &seed2));
    state_ = std::make_unique<PhiloxState>(seed, seed2);
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<R>::value));
    TensorShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, RandomShapeFromTensor(ctx->input(0), &shape));
    const Tensor& rate = ctx->input(1);
    TX_CTX_RETURN_IF_ERROR(ctx, (CheckRates<R, Out>(rate)));
    const int64_t per_rate = shape.num_elements();
    for (int64_t d : rate.shape().dims()) shape.add_dim(d);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    const PhiloxCounter base = state_->Reserve(kSamplerBlocksPerOutput * static_cast<uint64_t>(shape.num_elements()));
    FillPoisson<R, Out>(rate, state_->key(), base, per_rate, out->data<Out>(), ctx->intra_op_pool());
  }

 private:
  std::unique_ptr<PhiloxState> state_;
};

// StatelessRandomPoisson(shape, seed, lam): the shape ends with lam's shape.
template <typename R, typename Out>
class StatelessRandomPoissonOp : public OpKernel {
 public:
  explicit StatelessRandomPoissonOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, DataTypeOf<R>::value));
    const Tensor& lam = ctx->input(2);
    TX_CTX_RETURN_IF_ERROR(ctx, (CheckRates<R, Out>(lam)));
    TensorShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, StatelessSamplerShape(ctx->input(0), lam.shape(), &shape));
    PhiloxKey key;
    PhiloxCounter counter;
    TX_CTX_RETURN_IF_ERROR(ctx, StreamFromSeed(ctx->input(1), &key, &counter));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0 || lam.num_elements() == 0) return;
    FillPoisson<R, Out>(lam, key, counter, shape.num_elements() / lam.num_elements(), out->data<Out>(),
                        ctx->intra_op_pool());
  }
};

template <typename R, typename Out>
void RegisterPair() {
  KernelRegistry* reg = KernelRegistry::Global();
  reg->Register(KernelDefBuilder("RandomPoissonV2")
                    .TypeConstraint("R", DataTypeOf<R>::value)
                    .TypeConstraint("dtype", DataTypeOf<Out>::value)
                    .Build([](OpKernelConstruction* c) -> OpKernel* { return new RandomPoissonOp<R, Out>(c); }));
  reg->Register(
      KernelDefBuilder("StatelessRandomPoisson")
          .TypeConstraint("Rtype", DataTypeOf<R>::value)
          .TypeConstraint("dtype", DataTypeOf<Out>::value)
          .Build([](OpKernelConstruction* c) -> OpKernel* { return new StatelessRandomPoissonOp<R, Out>(c); }));
}

template <typename R>
void RegisterRate() {
  RegisterPair<R, float>();
  RegisterPair<R, double>();
  RegisterPair<R, int32_t>();
  RegisterPair<R, int64_t>();
}

const bool kRegistered = [] {
  RegisterRate<float>();
  RegisterRate<double>();
  RegisterRate<int32_t>();
  RegisterRate<int64_t>();
  for (DataType t : {DT_FLOAT, DT_DOUBLE})
    KernelRegistry::Global()->Register(
        KernelDefBuilder("RandomPoisson").TypeConstraint("dtype", t).Build([t](OpKernelConstruction* c) -> OpKernel* {
          return t == DT_FLOAT ? static_cast<OpKernel*>(new RandomPoissonOp<float, float>(c))
                               : static_cast<OpKernel*>(new RandomPoissonOp<double, double>(c));
        }));
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

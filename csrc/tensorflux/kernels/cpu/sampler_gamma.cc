// CPU kernels for the Gamma samplers: RandomGamma (stateful) and StatelessRandomGammaV2/V3,
// Marsaglia and Tsang's transformation-rejection method with TensorFlow's order of draws (Note
// [Per-element sampler streams]); alpha < 1 samples Gamma(alpha + 1) times U^(1 / alpha).
#include <cmath>
#include <limits>
#include <memory>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/philox_stream.h"

namespace tx {
namespace cpu {
namespace {

// One Gamma(alpha, 1) sample drawn from `stream`; NaN for a NaN or negative alpha (where the
// rejection loop would never accept).
double SampleGamma(double alpha, PhiloxStream* stream) {
  if (!(alpha >= 0)) return std::numeric_limits<double>::quiet_NaN();
  UniformDraws uniform(stream);
  if (alpha == 1.0) return -std::log1p(-uniform());  // exponential
  NormalDraws normal(stream);
  const bool below_one = alpha < 1;
  const double d = alpha + (below_one ? 2.0 / 3 : -1.0 / 3);
  const double c = 1.0 / 3 / std::sqrt(d);
  while (true) {
    const double x = normal();
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = uniform();
    // The squeeze test first: it dodges the two logs for most draws.
    if ((u < 1 - 0.0331 * (x * x) * (x * x)) || (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v)))) {
      double res = d * v;
      if (below_one) res *= std::pow(uniform(), 1 / alpha);
      return res;
    }
  }
}

// Relative cost of one sample (a few transcendental calls and Philox blocks).
constexpr int64_t kGammaCost = 400;

// Fills `out` (num_alphas * per_alpha samples) from the stream (key, counter).
template <typename T>
void FillGamma(const Tensor& alpha, PhiloxKey key, PhiloxCounter counter, int64_t per_alpha, T* out, ThreadPool* pool) {
  const T* a = alpha.data<T>();
  FillSamples(alpha.num_elements(), per_alpha, kGammaCost, pool, out, [&](int64_t p, int64_t i) {
    PhiloxStream s(key, counter);
    s.Skip(kSamplerBlocksPerOutput * static_cast<uint64_t>(i));
    return static_cast<T>(SampleGamma(static_cast<double>(a[p]), &s));
  });
}

// RandomGamma(shape, alpha): shape samples for every alpha; each run reserves fresh blocks.
template <typename T>
class RandomGammaOp : public OpKernel {
 public:
  explicit RandomGammaOp(OpKernelConstruction* c) : OpKernel(c) {
    int64_t seed = 0, seed2 = 0;
    c->SetStatus(c->GetAttr("seed", &seed));
    c->SetStatus(c->GetAttr("seed2", &seed2));
    state_ = std::make_unique<PhiloxState>(seed, seed2);
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    TensorShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, RandomShapeFromTensor(ctx->input(0), &shape));
    const Tensor& alpha = ctx->input(1);
    const int64_t per_alpha = shape.num_elements();
    for (int64_t d : alpha.shape().dims()) shape.add_dim(d);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    const PhiloxCounter base = state_->Reserve(kSamplerBlocksPerOutput * static_cast<uint64_t>(shape.num_elements()));
    FillGamma<T>(alpha, state_->key(), base, per_alpha, out->data<T>(), ctx->intra_op_pool());
  }

 private:
  std::unique_ptr<PhiloxState> state_;
};

// StatelessRandomGammaV2(shape, seed, alpha) and V3(shape, key, counter, alg, alpha): the shape
// ends with alpha's shape; the values depend on the seed (or key and counter) alone.
template <typename T, bool kV3>
class StatelessRandomGammaOp : public OpKernel {
 public:
  explicit StatelessRandomGammaOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    const int alpha_input = kV3 ? 4 : 2;
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, alpha_input, DataTypeOf<T>::value));
    const Tensor& alpha = ctx->input(alpha_input);
    TensorShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, StatelessSamplerShape(ctx->input(0), alpha.shape(), &shape));
    PhiloxKey key;
    PhiloxCounter counter;
    TX_CTX_RETURN_IF_ERROR(
        ctx, kV3 ? StreamFromKeyCounterAlg(ctx, 1, &key, &counter) : StreamFromSeed(ctx->input(1), &key, &counter));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    if (alpha.num_elements() == 0) {
      ctx->SetStatus(InvalidArgument("Input alpha should have non-zero element count, got: 0"));
      return;
    }
    FillGamma<T>(alpha, key, counter, shape.num_elements() / alpha.num_elements(), out->data<T>(),
                 ctx->intra_op_pool());
  }
};

template <typename T>
void RegisterFor() {
  KernelRegistry* r = KernelRegistry::Global();
  r->Register(KernelDefBuilder("RandomGamma")
                  .TypeConstraint("T", DataTypeOf<T>::value)
                  .Build([](OpKernelConstruction* c) -> OpKernel* { return new RandomGammaOp<T>(c); }));
  r->Register(KernelDefBuilder("StatelessRandomGammaV2")
                  .TypeConstraint("dtype", DataTypeOf<T>::value)
                  .Build([](OpKernelConstruction* c) -> OpKernel* { return new StatelessRandomGammaOp<T, false>(c); }));
  r->Register(KernelDefBuilder("StatelessRandomGammaV3")
                  .TypeConstraint("dtype", DataTypeOf<T>::value)
                  .Build([](OpKernelConstruction* c) -> OpKernel* { return new StatelessRandomGammaOp<T, true>(c); }));
}

const bool kRegistered = [] {
  RegisterFor<float>();
  RegisterFor<double>();
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

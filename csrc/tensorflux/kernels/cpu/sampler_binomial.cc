// CPU kernel for StatelessRandomBinomial: binomial inversion (geometric waiting times) where the
// mean count * min(p, 1 - p) is below 10, Hormann's BTRS transformed rejection above, with
// TensorFlow's order of draws and per-output streams (Note [Per-element sampler streams]).
#include <cmath>
#include <limits>
#include <vector>

#include "tensorflux/kernels/cpu/broadcast.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/philox_stream.h"

namespace tx {
namespace cpu {
namespace {

// Blocks reserved per output by binomial inversion (mean <= 10: ten standard deviations fit).
constexpr uint64_t kInversionBlocksPerOutput = 42;

// Binomial(count, prob) by counting geometric waiting times until they pass count.
double BinomialInversion(double count, double prob, PhiloxStream* stream) {
  UniformDraws uniform(stream);
  double geom_sum = 0;
  int64_t num_geom = 0;
  const double log1m_prob = std::log1p(-prob);
  while (true) {
    geom_sum += std::ceil(std::log(uniform()) / log1m_prob);
    if (geom_sum > count) break;
    ++num_geom;
  }
  return static_cast<double>(num_geom);
}

// The tail of Stirling's series for log k!, tabulated for k <= 9.
double StirlingApproxTail(double k) {
  static constexpr double kTailValues[] = {
      0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509, 0.0166446911898211,
      0.0138761288230707, 0.0118967099458917, 0.0104112652619720, 0.00925546218271273, 0.00833056343336287};
  if (k <= 9) return kTailValues[static_cast<int>(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

// Binomial(count, prob) for count * prob >= 10 and prob <= 1/2 (Hormann's BTRS).
double Btrs(double count, double prob, PhiloxStream* stream) {
  UniformDraws uniform(stream);
  const double stddev = std::sqrt(count * prob * (1 - prob));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (1 - prob);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + 1) * prob);
  while (true) {
    double u = uniform();
    double v = uniform();
    u = u - 0.5;
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (us >= 0.07 && v <= v_r) return k;  // inside the box: accept
    if (k < 0 || k > count) continue;
    v = std::log(v * alpha / (a / (us * us) + b));
    const double upperbound = ((m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
                               (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
                               (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) + StirlingApproxTail(m) +
                               StirlingApproxTail(count - m) - StirlingApproxTail(k) - StirlingApproxTail(count - k));
    if (v <= upperbound) return k;
  }
}

// One sample for (count, prob) of type T from the stream (key, counter) for output i; NaN for a NaN
// prob or a non-finite count. The method tests run in T, as TensorFlow's do.
template <typename T>
double SampleBinomial(T count, T prob, PhiloxKey key, PhiloxCounter counter, int64_t i) {
  const double dcount = static_cast<double>(count);
  if (!std::isfinite(dcount)) return std::numeric_limits<double>::quiet_NaN();  // would never stop
  if (dcount <= 0.0 || prob <= T(0)) return 0.0;
  if (prob >= T(1)) return dcount;
  const bool flip = !(prob <= T(0.5));
  if (flip && !(prob > T(0.5))) return std::numeric_limits<double>::quiet_NaN();
  const T p = flip ? T(1) - prob : prob;
  const bool rejection = count * p >= T(10);
  PhiloxStream s(key, counter);
  s.Skip((rejection ? kSamplerBlocksPerOutput : kInversionBlocksPerOutput) * static_cast<uint64_t>(i));
  const double k =
      rejection ? Btrs(dcount, static_cast<double>(p), &s) : BinomialInversion(dcount, static_cast<double>(p), &s);
  return flip ? dcount - k : k;
}

constexpr int64_t kBinomialCost = 400;

// StatelessRandomBinomial(shape, seed, counts, probs): counts and probs broadcast; the shape
// ends with their broadcast shape.
template <typename T, typename Out>
class StatelessRandomBinomialOp : public OpKernel {
 public:
  explicit StatelessRandomBinomialOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 3, DataTypeOf<T>::value));
    const Tensor& counts = ctx->input(2);
    const Tensor& probs = ctx->input(3);
    BroadcastPlan plan;
    TX_CTX_RETURN_IF_ERROR(ctx, MakeBroadcastPlan(counts.shape(), probs.shape(), &plan));
    TensorShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, StatelessSamplerShape(ctx->input(0), plan.out_shape, &shape));
    PhiloxKey key;
    PhiloxCounter counter;
    TX_CTX_RETURN_IF_ERROR(ctx, StreamFromSeed(ctx->input(1), &key, &counter));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t num_params = plan.out_shape.num_elements();
    if (shape.num_elements() == 0 || num_params == 0) return;
    // The broadcast parameters, materialized once (they are few next to the samples).
    std::vector<T> c(static_cast<size_t>(num_params)), p(static_cast<size_t>(num_params));
    const int r = static_cast<int>(plan.dims.size());
    for (int64_t z = 0; z < num_params; ++z) {
      int64_t rest = z, ci = 0, pi = 0;
      for (int d = r - 1; d >= 0; --d) {
        const int64_t k = rest % plan.dims[d];
        rest /= plan.dims[d];
        ci += k * plan.x_strides[d];
        pi += k * plan.y_strides[d];
      }
      c[z] = counts.data<T>()[ci];
      p[z] = probs.data<T>()[pi];
    }
    FillSamples(num_params, shape.num_elements() / num_params, kBinomialCost, ctx->intra_op_pool(), out->data<Out>(),
                [&](int64_t param, int64_t i) {
                  return SampleAs<Out>(SampleBinomial<T>(c[param], p[param], key, counter, i));
                });
  }
};

template <typename T, typename Out>
void RegisterPair() {
  KernelRegistry::Global()->Register(
      KernelDefBuilder("StatelessRandomBinomial")
          .TypeConstraint("T", DataTypeOf<T>::value)
          .TypeConstraint("dtype", DataTypeOf<Out>::value)
          .Build([](OpKernelConstruction* c) -> OpKernel* { return new StatelessRandomBinomialOp<T, Out>(c); }));
}

template <typename T>
void RegisterParams() {
  RegisterPair<T, float>();
  RegisterPair<T, double>();
  RegisterPair<T, int32_t>();
  RegisterPair<T, int64_t>();
}

const bool kRegistered = [] {
  RegisterParams<float>();
  RegisterParams<double>();
  RegisterParams<int32_t>();
  RegisterParams<int64_t>();
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

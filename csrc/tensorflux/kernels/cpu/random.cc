// CPU kernels for the stateful float samplers: RandomUniform, RandomStandardNormal, TruncatedNormal.
#include <memory>

#include "tensorflux/kernels/cpu/convert16.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/philox.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Note [16-bit samples]
// half and bfloat16 samples are float32 samples (the same stream and blocks as a float32 kernel
// with the same seeds) rounded to the 16-bit type: to nearest even for the normal distributions,
// toward zero for the uniform one, so that a value just below 1 cannot round up to 1 and the
// samples stay in [0, 1) (each 16-bit value v is drawn with the probability of the float interval
// [v, next(v)), which is uniform).

// x[0..n) rounded to T (a 16-bit float) toward zero; x holds values >= 0.
template <typename T>
void NarrowTowardZero(const float* x, T* y, int64_t n) {
  FromFloat(x, y, n);
  for (int64_t i = 0; i < n; ++i)
    if (Widen(y[i]) > x[i]) y[i].bits = static_cast<uint16_t>(y[i].bits - 1);
}

// Samples `Dist` into a tensor of the shape input's value; each run reserves fresh blocks of the
// kernel's stream, so runs differ while values never depend on the thread count. 16-bit types
// round float32 samples (Note [16-bit samples]).
template <typename T, RandomDist Dist>
class StatefulRandomOp : public OpKernel {
 public:
  explicit StatefulRandomOp(OpKernelConstruction* c) : OpKernel(c) {
    int64_t seed = 0, seed2 = 0;
    c->SetStatus(c->GetAttr("seed", &seed));
    c->SetStatus(c->GetAttr("seed2", &seed2));
    state_ = std::make_unique<PhiloxState>(seed, seed2);
  }

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, RandomShapeFromTensor(ctx->input(0), &shape));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = shape.num_elements();
    using C = ComputeType<T>;
    const PhiloxCounter base = state_->Reserve(BlocksFor<C>(Dist, n));
    if constexpr (kIsFloat16<T>) {
      std::unique_ptr<float[]> wide(new float[static_cast<size_t>(n > 0 ? n : 1)]);
      FillRandom<float>(Dist, state_->key(), base, wide.get(), n, ctx->intra_op_pool());
      if (Dist == RandomDist::kUniform)
        NarrowTowardZero(wide.get(), out->data<T>(), n);
      else
        FromFloat(wide.get(), out->data<T>(), n);
    } else {
      FillRandom<T>(Dist, state_->key(), base, out->data<T>(), n, ctx->intra_op_pool());
    }
  }

 private:
  std::unique_ptr<PhiloxState> state_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("RandomUniform").TypeConstraint<float>("dtype"),
                   StatefulRandomOp<float, RandomDist::kUniform>);
TX_REGISTER_KERNEL(KernelDefBuilder("RandomUniform").TypeConstraint<double>("dtype"),
                   StatefulRandomOp<double, RandomDist::kUniform>);
TX_REGISTER_KERNEL(KernelDefBuilder("RandomStandardNormal").TypeConstraint<float>("dtype"),
                   StatefulRandomOp<float, RandomDist::kNormal>);
TX_REGISTER_KERNEL(KernelDefBuilder("RandomStandardNormal").TypeConstraint<double>("dtype"),
                   StatefulRandomOp<double, RandomDist::kNormal>);
TX_REGISTER_KERNEL(KernelDefBuilder("TruncatedNormal").TypeConstraint<float>("dtype"),
                   StatefulRandomOp<float, RandomDist::kTruncatedNormal>);
TX_REGISTER_KERNEL(KernelDefBuilder("TruncatedNormal").TypeConstraint<double>("dtype"),
                   StatefulRandomOp<double, RandomDist::kTruncatedNormal>);

// --- half and bfloat16 (Note [16-bit samples]) ---
#define TX_REGISTER_RANDOM16(T)                                                           \
  TX_REGISTER_KERNEL(KernelDefBuilder("RandomUniform").TypeConstraint<T>("dtype"),        \
                     StatefulRandomOp<T, RandomDist::kUniform>);                          \
  TX_REGISTER_KERNEL(KernelDefBuilder("RandomStandardNormal").TypeConstraint<T>("dtype"), \
                     StatefulRandomOp<T, RandomDist::kNormal>);                           \
  TX_REGISTER_KERNEL(KernelDefBuilder("TruncatedNormal").TypeConstraint<T>("dtype"),      \
                     StatefulRandomOp<T, RandomDist::kTruncatedNormal>)
TX_REGISTER_RANDOM16(Half);
TX_REGISTER_RANDOM16(BFloat16);
#undef TX_REGISTER_RANDOM16

}  // namespace
}  // namespace cpu
}  // namespace tx

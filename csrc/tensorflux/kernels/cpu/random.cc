// CPU kernels for the stateful float samplers: RandomUniform, RandomStandardNormal, TruncatedNormal.
#include <memory>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/philox.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Samples `Dist` into a tensor of the shape input's value; each run reserves fresh blocks of the
// kernel's stream, so runs differ while values never depend on the thread count.
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
    const PhiloxCounter base = state_->Reserve(BlocksFor<T>(Dist, n));
    FillRandom<T>(Dist, state_->key(), base, out->data<T>(), n, ctx->intra_op_pool());
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

}  // namespace
}  // namespace cpu
}  // namespace tx

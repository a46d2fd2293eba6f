// CPU kernels for StatelessRandomUniformV2, StatelessRandomNormalV2, StatelessTruncatedNormalV2.
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/philox.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Algorithm ids of TensorFlow's Algorithm enum that select Philox here.
constexpr int32_t kAlgPhilox = 1;
constexpr int32_t kAlgAutoSelect = 3;

// Reads key ([1] uint64), counter ([>= 2] uint64) and alg (scalar int32) into a Philox stream:
// key word k0:k1 = key[0]; counter = counter[1]:counter[0] (128 bits, counter[0] low).
Status StreamFromInputs(const OpKernelContext* ctx, PhiloxKey* key, PhiloxCounter* counter) {
  TX_RETURN_IF_ERROR(CheckInput(ctx, 1, DT_UINT64));
  TX_RETURN_IF_ERROR(CheckInput(ctx, 2, DT_UINT64));
  TX_RETURN_IF_ERROR(CheckInput(ctx, 3, DT_INT32));
  const Tensor& k = ctx->input(1);
  const Tensor& c = ctx->input(2);
  const Tensor& a = ctx->input(3);
  if (a.rank() != 0) return InvalidArgument("alg must be a scalar, got shape ", a.shape().ToString());
  const int32_t alg = a.data<int32_t>()[0];
  if (alg != kAlgPhilox && alg != kAlgAutoSelect)
    return InvalidArgument("Unsupported random algorithm id ", alg, " (supported: 1 Philox, 3 auto-select)");
  if (k.rank() != 1 || k.dim(0) != 1) return InvalidArgument("key must have shape [1], got ", k.shape().ToString());
  if (c.rank() != 1 || c.dim(0) < 2)
    return InvalidArgument("counter must have shape [2] for Philox, got ", c.shape().ToString());
  *key = MakeKey(k.data<uint64_t>()[0]);
  *counter = MakeCounter(c.data<uint64_t>()[0], c.data<uint64_t>()[1]);
  return Status::OK();
}

// Samples `Dist` from the stream its inputs name; same inputs, same values, on any thread count.
template <typename T, RandomDist Dist>
class StatelessRandomOp : public OpKernel {
 public:
  explicit StatelessRandomOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, RandomShapeFromTensor(ctx->input(0), &shape));
    PhiloxKey key;
    PhiloxCounter counter;
    TX_CTX_RETURN_IF_ERROR(ctx, StreamFromInputs(ctx, &key, &counter));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    FillRandom<T>(Dist, key, counter, out->data<T>(), shape.num_elements(), ctx->intra_op_pool());
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomUniformV2").TypeConstraint<float>("dtype"),
                   StatelessRandomOp<float, RandomDist::kUniform>);
TX_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomUniformV2").TypeConstraint<double>("dtype"),
                   StatelessRandomOp<double, RandomDist::kUniform>);
TX_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomNormalV2").TypeConstraint<float>("dtype"),
                   StatelessRandomOp<float, RandomDist::kNormal>);
TX_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomNormalV2").TypeConstraint<double>("dtype"),
                   StatelessRandomOp<double, RandomDist::kNormal>);
TX_REGISTER_KERNEL(KernelDefBuilder("StatelessTruncatedNormalV2").TypeConstraint<float>("dtype"),
                   StatelessRandomOp<float, RandomDist::kTruncatedNormal>);
TX_REGISTER_KERNEL(KernelDefBuilder("StatelessTruncatedNormalV2").TypeConstraint<double>("dtype"),
                   StatelessRandomOp<double, RandomDist::kTruncatedNormal>);

}  // namespace
}  // namespace cpu
}  // namespace tx

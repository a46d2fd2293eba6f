#include "tensorflux/kernels/cpu/philox_stream.h"

#include "tensorflux/kernels/cpu/kernel_util.h"

namespace tx {
namespace cpu {
namespace {

// TensorFlow's key for scrambling stateless seeds (Note [Stateless seeds] in random_ops.py).
constexpr PhiloxKey kSeedScrambleKey = {0x3ec8f720u, 0x02461e29u};
// Algorithm ids of TensorFlow's Algorithm enum that select Philox here.
constexpr int32_t kAlgPhilox = 1;
constexpr int32_t kAlgAutoSelect = 3;

}  // namespace

Status StreamFromSeed(const Tensor& seed, PhiloxKey* key, PhiloxCounter* counter) {
  if (seed.rank() != 1 || seed.dim(0) != 2)
    return InvalidArgument("seed must have shape [2], not ", seed.shape().ToString());
  uint64_t s[2];
  for (int i = 0; i < 2; ++i) {
    if (seed.dtype() == DT_INT32)
      s[i] = static_cast<uint64_t>(static_cast<int64_t>(seed.data<int32_t>()[i]));
    else if (seed.dtype() == DT_INT64)
      s[i] = static_cast<uint64_t>(seed.data<int64_t>()[i]);
    else
      return InvalidArgument("seed must be int32 or int64, got ", DataTypeString(seed.dtype()));
  }
  const PhiloxBlock mix = Philox4x32(MakeCounter(s[0], s[1]), kSeedScrambleKey);
  *key = {mix[0], mix[1]};
  *counter = {0, 0, mix[2], mix[3]};
  return Status::OK();
}

Status StreamFromKeyCounterAlg(const OpKernelContext* ctx, int k, PhiloxKey* key, PhiloxCounter* counter) {
  TX_RETURN_IF_ERROR(CheckInput(ctx, k, DT_UINT64));
  TX_RETURN_IF_ERROR(CheckInput(ctx, k + 1, DT_UINT64));
  TX_RETURN_IF_ERROR(CheckInput(ctx, k + 2, DT_INT32));
  const Tensor& kt = ctx->input(k);
  const Tensor& c = ctx->input(k + 1);
  const Tensor& a = ctx->input(k + 2);
  if (a.rank() != 0) return InvalidArgument("alg must be a scalar, got shape ", a.shape().ToString());
  const int32_t alg = a.data<int32_t>()[0];
  if (alg != kAlgPhilox && alg != kAlgAutoSelect)
    return InvalidArgument("Unsupported random algorithm id ", alg, " (supported: 1 Philox, 3 auto-select)");
  if (kt.rank() != 1 || kt.dim(0) != 1) return InvalidArgument("key must have shape [1], got ", kt.shape().ToString());
  if (c.rank() != 1 || c.dim(0) < 2)
    return InvalidArgument("counter must have shape [2] for Philox, got ", c.shape().ToString());
  *key = MakeKey(kt.data<uint64_t>()[0]);
  *counter = MakeCounter(c.data<uint64_t>()[0], c.data<uint64_t>()[1]);
  return Status::OK();
}

Status StatelessSamplerShape(const Tensor& shape_t, const TensorShape& params, TensorShape* out) {
  TX_RETURN_IF_ERROR(RandomShapeFromTensor(shape_t, out));
  bool ends_with = params.rank() <= out->rank();
  for (int i = 0; ends_with && i < params.rank(); ++i)
    ends_with = out->dim(out->rank() - params.rank() + i) == params.dim(i);
  if (!ends_with)
    return InvalidArgument("Shape passed in must end with broadcasted shape: ", out->ToString(), " vs. ",
                           params.ToString());
  return Status::OK();
}

}  // namespace cpu
}  // namespace tx

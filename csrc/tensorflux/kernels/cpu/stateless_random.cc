// CPU kernels for StatelessRandomUniformV2, StatelessRandomNormalV2, StatelessTruncatedNormalV2,
// StatelessRandomUniformIntV2 and StatelessRandomUniformFullIntV2, and StatelessRandomGetKeyCounter.
#include <type_traits>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/philox.h"
#include "tensorflux/kernels/cpu/philox_stream.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// The stream of inputs key, counter and alg (1, 2, 3).
Status StreamFromInputs(const OpKernelContext* ctx, PhiloxKey* key, PhiloxCounter* counter) {
  return StreamFromKeyCounterAlg(ctx, 1, key, counter);
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

// Note [Integer random streams]
// As TensorFlow's Philox integer distributions: a 32-bit element is one word of its block (4 per
// block), a 64-bit element two (2 per block, word 2j low and 2j+1 high). Full-range values are
// the words themselves; a range [minval, maxval) takes minval + word % (maxval - minval).
template <typename T>
constexpr int64_t kIntsPerBlock = sizeof(T) == 4 ? 4 : 2;

template <typename T>
using UnsignedOf = std::make_unsigned_t<T>;

template <typename T>
UnsignedOf<T> Word(const PhiloxBlock& w, int64_t j) {
  if constexpr (sizeof(T) == 4) {
    return w[j];
  } else {
    return static_cast<uint64_t>(w[2 * j]) | (static_cast<uint64_t>(w[2 * j + 1]) << 32);
  }
}

// Fills out[0, n) with the integer stream (Note [Integer random streams]); `range` 0 means the
// full range of T, else values are lo + word % range.
template <typename T>
void FillInts(PhiloxKey key, PhiloxCounter base, T lo, UnsignedOf<T> range, T* out, int64_t n, ThreadPool* pool) {
  constexpr int64_t per = kIntsPerBlock<T>;
  const int64_t blocks = (n + per - 1) / per;
  pool->ParallelFor(blocks, 40, [&](int64_t b, int64_t e) {
    for (int64_t g = b; g < e; ++g) {
      const PhiloxBlock w = Philox4x32(PhiloxAdd(base, static_cast<uint64_t>(g)), key);
      for (int64_t j = 0; j < per && g * per + j < n; ++j) {
        const UnsignedOf<T> x = Word<T>(w, j);
        out[g * per + j] = range == 0 ? static_cast<T>(x) : static_cast<T>(static_cast<UnsignedOf<T>>(lo) + x % range);
      }
    }
  });
}

// StatelessRandomUniformFullIntV2: every value of the dtype equally likely.
template <typename T>
class StatelessRandomFullIntOp : public OpKernel {
 public:
  explicit StatelessRandomFullIntOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, RandomShapeFromTensor(ctx->input(0), &shape));
    PhiloxKey key;
    PhiloxCounter counter;
    TX_CTX_RETURN_IF_ERROR(ctx, StreamFromInputs(ctx, &key, &counter));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    FillInts<T>(key, counter, T(0), 0, out->data<T>(), shape.num_elements(), ctx->intra_op_pool());
  }
};

// StatelessRandomUniformIntV2: uniform integers in [minval, maxval) (scalars, minval < maxval
// unless the output is empty).
template <typename T>
class StatelessRandomIntOp : public OpKernel {
 public:
  explicit StatelessRandomIntOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, RandomShapeFromTensor(ctx->input(0), &shape));
    PhiloxKey key;
    PhiloxCounter counter;
    TX_CTX_RETURN_IF_ERROR(ctx, StreamFromInputs(ctx, &key, &counter));
    const Tensor& lo_t = ctx->input(4);
    const Tensor& hi_t = ctx->input(5);
    if (lo_t.rank() != 0 || hi_t.rank() != 0)
      return ctx->SetStatus(InvalidArgument("[", name(), "] minval and maxval must be scalars, got shapes ",
                                            lo_t.shape().ToString(), " and ", hi_t.shape().ToString()));
    const T lo = lo_t.data<T>()[0], hi = hi_t.data<T>()[0];
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    if (!(lo < hi)) return ctx->SetStatus(InvalidArgument("[", name(), "] Need minval < maxval, got ", lo, " >= ", hi));
    const UnsignedOf<T> range = static_cast<UnsignedOf<T>>(hi) - static_cast<UnsignedOf<T>>(lo);
    FillInts<T>(key, counter, lo, range, out->data<T>(), shape.num_elements(), ctx->intra_op_pool());
  }
};

#define TX_REGISTER_STATELESS_INT(T)                                                                 \
  TX_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomUniformFullIntV2").TypeConstraint<T>("dtype"), \
                     StatelessRandomFullIntOp<T>);                                                   \
  TX_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomUniformIntV2").TypeConstraint<T>("dtype"),     \
                     StatelessRandomIntOp<T>)
TX_REGISTER_STATELESS_INT(int32_t);
TX_REGISTER_STATELESS_INT(int64_t);
TX_REGISTER_STATELESS_INT(uint32_t);
TX_REGISTER_STATELESS_INT(uint64_t);
#undef TX_REGISTER_STATELESS_INT

// Note [Seed scrambling]
// StatelessRandomGetKeyCounter derives a stream from a shape-[2] seed as TensorFlow's does: the two
// seeds, sign-extended to unsigned 64-bit words, form the 128-bit counter (seed[0] low) of one
// Philox4x32-10 block under the fixed key kScrambleKey; the block's words 0-1 are the 64-bit key
// and words 2-3 the high 64 bits of the counter (low 64 bits 0). tx.random's stateless functions
// make the same derivation in Python when the seed is a constant (Note [Stateless seeds] in
// core/src/tensorflux/_src/random_ops.py), so a seed gives the same values either way.
constexpr PhiloxKey kScrambleKey = {0x3EC8F720u, 0x02461E29u};

template <typename Tseed>
class StatelessRandomGetKeyCounterOp : public OpKernel {
 public:
  explicit StatelessRandomGetKeyCounterOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<Tseed>::value));
    const Tensor& seed = ctx->input(0);
    if (seed.rank() != 1 || seed.dim(0) != 2)
      return ctx->SetStatus(InvalidArgument("[", name(), "] seed must have shape [2], got ", seed.shape().ToString()));
    const uint64_t s0 = static_cast<uint64_t>(static_cast<int64_t>(seed.data<Tseed>()[0]));
    const uint64_t s1 = static_cast<uint64_t>(static_cast<int64_t>(seed.data<Tseed>()[1]));
    const PhiloxBlock mix = Philox4x32(MakeCounter(s0, s1), kScrambleKey);
    Tensor* key = nullptr;
    Tensor* counter = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({1}), &key));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, TensorShape({2}), &counter));
    key->data<uint64_t>()[0] = static_cast<uint64_t>(mix[0]) | (static_cast<uint64_t>(mix[1]) << 32);
    counter->data<uint64_t>()[0] = 0;
    counter->data<uint64_t>()[1] = static_cast<uint64_t>(mix[2]) | (static_cast<uint64_t>(mix[3]) << 32);
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomGetKeyCounter").TypeConstraint<int32_t>("Tseed"),
                   StatelessRandomGetKeyCounterOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomGetKeyCounter").TypeConstraint<int64_t>("Tseed"),
                   StatelessRandomGetKeyCounterOp<int64_t>);

}  // namespace
}  // namespace cpu
}  // namespace tx

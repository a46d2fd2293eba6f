// CPU kernel for AddN: the elementwise sum of N tensors of one shape.
#include <algorithm>

#include "tensorflux/core/complex.h"
#include "tensorflux/kernels/cpu/binary_functors.h"
#include "tensorflux/kernels/cpu/broadcast.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// sum = inputs[0] + ... + inputs[N-1], accumulated in input order into one output buffer (input
// 0's or 1's, when it is held only here); integers wrap around.
template <typename T>
class AddNOp : public OpKernel {
 public:
  explicit AddNOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    const int n_in = ctx->num_inputs();
    for (int i = 0; i < n_in; ++i) {
      TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, DataTypeOf<T>::value));
      if (ctx->input(i).shape() != ctx->input(0).shape()) {
        ctx->SetStatus(InvalidArgument("Inputs to AddN must all have the same shape, but input 0 has shape ",
                                       ctx->input(0).shape().ToString(), " and input ", i, " has shape ",
                                       ctx->input(i).shape().ToString()));
        return;
      }
    }
    const TensorShape& shape = ctx->input(0).shape();
    Tensor* out = nullptr;
    int forwarded = -1;
    for (int i = 0; i < std::min(n_in, 2) && forwarded < 0; ++i)  // later inputs are read after z is written
      if (ctx->input(i).CanReuseBuffer()) forwarded = i;
    if (forwarded >= 0)
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->forward_input_or_allocate_output(forwarded, 0, shape, &out));
    else
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    T* z = out->data<T>();
    if (n_in == 1) {
      if (z != ctx->input(0).data<T>()) std::copy_n(ctx->input(0).data<T>(), shape.num_elements(), z);
      return;
    }
    // The first pass reads inputs 0 and 1 element by element before writing, so z may alias either.
    ParallelRange(ctx->intra_op_pool(), shape.num_elements(), n_in - 1, [&](int64_t b, int64_t e) {
      constexpr int64_t kBlock = 2048;  // stays in L1 across the N passes
      for (int64_t s = b; s < e; s += kBlock) {
        const int64_t len = std::min(kBlock, e - s);
        ApplyVV<T, AddFn>(ctx->input(0).data<T>() + s, ctx->input(1).data<T>() + s, z + s, len);
        for (int i = 2; i < n_in; ++i) ApplyVV<T, AddFn>(z + s, ctx->input(i).data<T>() + s, z + s, len);
      }
    });
  }
};

#define TX_REGISTER_ADD_N(T) TX_REGISTER_KERNEL(KernelDefBuilder("AddN").TypeConstraint<T>("T"), AddNOp<T>)
TX_REGISTER_ADD_N(float);
TX_REGISTER_ADD_N(double);
TX_REGISTER_ADD_N(int32_t);
TX_REGISTER_ADD_N(int64_t);
TX_REGISTER_ADD_N(uint8_t);
// Complex block.
TX_REGISTER_ADD_N(complex64);
TX_REGISTER_ADD_N(complex128);

}  // namespace
}  // namespace cpu
}  // namespace tx

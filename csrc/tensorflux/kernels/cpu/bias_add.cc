// CPU kernel for BiasAdd: adds a 1-D bias along the channel dimension (last for NHWC, 1 for NCHW).
#include <string>

#include "tensorflux/ops/conv_window.h"
#include "tensorflux/kernels/cpu/binary_functors.h"
#include "tensorflux/kernels/cpu/broadcast.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// output = value + bias broadcast along the channel dimension; reuses value's buffer when it can.
template <typename T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string format;
    c->SetStatus(c->GetAttr("data_format", &format));
    DataFormat f;
    if (c->status().ok()) c->SetStatus(ParseDataFormat("BiasAdd", format, &f));
    nchw_ = f.channels_first;
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    if (value.rank() < 2) {
      ctx->SetStatus(InvalidArgument("Input tensor must be at least 2D: ", value.shape().ToString()));
      return;
    }
    if (bias.rank() != 1) {
      ctx->SetStatus(InvalidArgument("Biases must be 1D: ", bias.shape().ToString()));
      return;
    }
    const int channel = nchw_ ? 1 : value.rank() - 1;
    const int64_t c = value.dim(channel);
    if (bias.dim(0) != c) {
      ctx->SetStatus(InvalidArgument("Must provide as many biases as the channel dimension (", channel,
                                     ") of the input tensor: ", bias.shape().ToString(), " vs. ",
                                     value.shape().ToString()));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->forward_input_or_allocate_output(0, 0, value.shape(), &out));
    if (value.num_elements() == 0) return;
    // View as [outer, C, inner] + [C, 1]: inner is 1 for NHWC.
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < channel; ++d) outer *= value.dim(d);
    for (int d = channel + 1; d < value.rank(); ++d) inner *= value.dim(d);
    BroadcastPlan plan;
    TX_CTX_RETURN_IF_ERROR(ctx, MakeBroadcastPlan(TensorShape({outer, c, inner}), TensorShape({c, 1}), &plan));
    RunBroadcast<T, AddFn>(plan, value.data<T>(), bias.data<T>(), out->data<T>(), ctx->intra_op_pool());
  }

 private:
  bool nchw_ = false;
};

TX_REGISTER_KERNEL(KernelDefBuilder("BiasAdd").TypeConstraint<float>("T"), BiasAddOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAdd").TypeConstraint<double>("T"), BiasAddOp<double>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAdd").TypeConstraint<int32_t>("T"), BiasAddOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAdd").TypeConstraint<int64_t>("T"), BiasAddOp<int64_t>);

// --- the other integer types ---
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAdd").TypeConstraint<uint8_t>("T"), BiasAddOp<uint8_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAdd").TypeConstraint<int8_t>("T"), BiasAddOp<int8_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAdd").TypeConstraint<int16_t>("T"), BiasAddOp<int16_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAdd").TypeConstraint<uint16_t>("T"), BiasAddOp<uint16_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAdd").TypeConstraint<uint32_t>("T"), BiasAddOp<uint32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAdd").TypeConstraint<uint64_t>("T"), BiasAddOp<uint64_t>);

// --- half and bfloat16: RunBroadcast widens blocks of both operands, adds in float32 and rounds
// each sum once (Note [16-bit floats]), the values of the widened float32 kernel without its
// float copies of the operands ---
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAdd").TypeConstraint<Half>("T"), BiasAddOp<Half>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAdd").TypeConstraint<BFloat16>("T"), BiasAddOp<BFloat16>);

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernel for BiasAddGrad: sums out_backprop over every dimension but the channel one.
#include <string>
#include <type_traits>
#include <vector>

#include "tensorflux/ops/conv_window.h"
#include "tensorflux/kernels/cpu/blocked_sums.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/convert16.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// output[C] = sum of out_backprop viewed as [outer, C, inner] over outer and inner (inner is 1
// for NHWC). Floats accumulate in double, integers in int64 (wrapping to T like TensorFlow's sums);
// half and bfloat16 sums are rounded to float32 and then to T, as the float32 kernel on widened
// inputs rounded them (Note [16-bit floats]).
template <typename T>
class BiasAddGradOp : public OpKernel {
 public:
  using Acc = std::conditional_t<kIsFloating<T>, double, int64_t>;

  explicit BiasAddGradOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string format;
    c->SetStatus(c->GetAttr("data_format", &format));
    DataFormat f;
    if (c->status().ok()) c->SetStatus(ParseDataFormat("BiasAddGrad", format, &f));
    nchw_ = f.channels_first;
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& dy = ctx->input(0);
    if (dy.rank() < 2) {
      ctx->SetStatus(InvalidArgument("BiasAddGrad: out_backprop must be at least 2-dimensional, got shape ",
                                     dy.shape().ToString()));
      return;
    }
    const int channel = nchw_ ? 1 : dy.rank() - 1;
    const int64_t c = dy.dim(channel);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < channel; ++d) outer *= dy.dim(d);
    for (int d = channel + 1; d < dy.rank(); ++d) inner *= dy.dim(d);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({c}), &out));
    if (c == 0) return;
    std::vector<Acc> sums(c);
    const T* x = dy.data<T>();
    BlockedSums<Acc>(ctx->intra_op_pool(), outer, c * inner, c, sums.data(), [&](int64_t b, int64_t e, Acc* acc) {
      for (int64_t o = b; o < e; ++o) {
        const T* row = x + o * c * inner;
        if (inner == 1) {
          for (int64_t ch = 0; ch < c; ++ch) acc[ch] += Widen(row[ch]);
          continue;
        }
        for (int64_t ch = 0; ch < c; ++ch) {
          Acc s = 0;
          for (int64_t i = 0; i < inner; ++i) s += Widen(row[ch * inner + i]);
          acc[ch] += s;
        }
      }
    });
    T* y = out->data<T>();
    for (int64_t ch = 0; ch < c; ++ch) {
      if constexpr (kIsFloat16<T>)
        y[ch] = Narrow<T>(static_cast<float>(sums[ch]));
      else
        y[ch] = static_cast<T>(sums[ch]);
    }
  }

 private:
  bool nchw_ = false;
};

TX_REGISTER_KERNEL(KernelDefBuilder("BiasAddGrad").TypeConstraint<float>("T"), BiasAddGradOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAddGrad").TypeConstraint<double>("T"), BiasAddGradOp<double>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAddGrad").TypeConstraint<int32_t>("T"), BiasAddGradOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAddGrad").TypeConstraint<int64_t>("T"), BiasAddGradOp<int64_t>);

// --- the other integer types ---
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAddGrad").TypeConstraint<uint8_t>("T"), BiasAddGradOp<uint8_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAddGrad").TypeConstraint<int8_t>("T"), BiasAddGradOp<int8_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAddGrad").TypeConstraint<int16_t>("T"), BiasAddGradOp<int16_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAddGrad").TypeConstraint<uint16_t>("T"), BiasAddGradOp<uint16_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAddGrad").TypeConstraint<uint32_t>("T"), BiasAddGradOp<uint32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAddGrad").TypeConstraint<uint64_t>("T"), BiasAddGradOp<uint64_t>);

// --- half and bfloat16: summed in double from the 16-bit values directly (no float copy of the
// input), rounded as the widened float32 kernel rounded them ---
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAddGrad").TypeConstraint<Half>("T"), BiasAddGradOp<Half>);
TX_REGISTER_KERNEL(KernelDefBuilder("BiasAddGrad").TypeConstraint<BFloat16>("T"), BiasAddGradOp<BFloat16>);

}  // namespace
}  // namespace cpu
}  // namespace tx

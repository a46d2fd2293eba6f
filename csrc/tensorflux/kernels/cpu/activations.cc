// CPU kernels for the elementwise activations Relu6, Elu, Selu, LeakyRelu, Softplus, Softsign.
// half and bfloat16 compute in float and round once (Note [16-bit floats]).
#include <algorithm>
#include <cmath>

#include "tensorflux/kernels/cpu/activation_functors.h"
#include "tensorflux/kernels/cpu/convert16.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// y = Fn(x) elementwise; `cost` is the rough per-element work for the parallel split.
template <typename T, typename Fn, int kCost>
class ActivationOp : public OpKernel {
 public:
  explicit ActivationOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& xt = ctx->input(0);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->forward_input_or_allocate_output(0, 0, xt.shape(), &out));
    const T* x = xt.data<T>();
    T* y = out->data<T>();
    const Fn fn;
    ParallelRange(ctx->intra_op_pool(), xt.num_elements(), kCost, [&](int64_t b, int64_t e) {
      if constexpr (kIsFloat16<T>) {  // Note [16-bit floats]
        MapFloatBlocks(x + b, y + b, e - b, [&](float* v, int64_t m) {
          for (int64_t i = 0; i < m; ++i) v[i] = fn(v[i]);
        });
      } else {
        for (int64_t i = b; i < e; ++i) y[i] = fn(x[i]);
      }
    });
  }
};

// LeakyRelu: x where x > 0, alpha * x elsewhere.
template <typename T>
class LeakyReluOp : public OpKernel {
 public:
  explicit LeakyReluOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("alpha", &alpha_)); }
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& xt = ctx->input(0);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->forward_input_or_allocate_output(0, 0, xt.shape(), &out));
    const T* x = xt.data<T>();
    T* y = out->data<T>();
    using C = ComputeType<T>;
    const LeakyReluFn<C> fn{static_cast<C>(alpha_)};
    ParallelRange(ctx->intra_op_pool(), xt.num_elements(), 1, [&](int64_t b, int64_t e) {
      if constexpr (kIsFloat16<T>) {  // Note [16-bit floats]
        MapFloatBlocks(x + b, y + b, e - b, [&](float* v, int64_t m) {
          for (int64_t i = 0; i < m; ++i) v[i] = fn(v[i]);
        });
      } else {
        for (int64_t i = b; i < e; ++i) y[i] = fn(x[i]);
      }
    });
  }

 private:
  float alpha_ = 0.2f;
};

#define TX_ACT(OP, FN, COST, T) \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<T>("T"), ActivationOp<T, FN, COST>)
TX_ACT("Relu6", Relu6Fn, 1, float);
TX_ACT("Relu6", Relu6Fn, 1, double);
TX_ACT("Relu6", Relu6Fn, 1, int32_t);
TX_ACT("Relu6", Relu6Fn, 1, int64_t);
TX_ACT("Elu", EluFn, 16, float);
TX_ACT("Elu", EluFn, 16, double);
TX_ACT("Selu", SeluFn, 16, float);
TX_ACT("Selu", SeluFn, 16, double);
TX_ACT("Softplus", SoftplusFn, 32, float);
TX_ACT("Softplus", SoftplusFn, 32, double);
TX_ACT("Softsign", SoftsignFn, 4, float);
TX_ACT("Softsign", SoftsignFn, 4, double);
TX_REGISTER_KERNEL(KernelDefBuilder("LeakyRelu").TypeConstraint<float>("T"), LeakyReluOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("LeakyRelu").TypeConstraint<double>("T"), LeakyReluOp<double>);

// --- half and bfloat16 (computed in float, Note [16-bit floats]) and the other integer types ---
#define TX_ACT_F16(OP, FN, COST) \
  TX_ACT(OP, FN, COST, Half);    \
  TX_ACT(OP, FN, COST, BFloat16)
TX_ACT_F16("Relu6", Relu6Fn, 2);
TX_ACT_F16("Elu", EluFn, 17);
TX_ACT_F16("Selu", SeluFn, 17);
TX_ACT_F16("Softplus", SoftplusFn, 33);
TX_ACT_F16("Softsign", SoftsignFn, 5);
TX_ACT("Relu6", Relu6Fn, 1, int8_t);
TX_ACT("Relu6", Relu6Fn, 1, int16_t);
TX_ACT("Relu6", Relu6Fn, 1, uint8_t);
TX_ACT("Relu6", Relu6Fn, 1, uint16_t);
TX_ACT("Relu6", Relu6Fn, 1, uint32_t);
TX_ACT("Relu6", Relu6Fn, 1, uint64_t);
#undef TX_ACT_F16
#undef TX_ACT
TX_REGISTER_KERNEL(KernelDefBuilder("LeakyRelu").TypeConstraint<Half>("T"), LeakyReluOp<Half>);
TX_REGISTER_KERNEL(KernelDefBuilder("LeakyRelu").TypeConstraint<BFloat16>("T"), LeakyReluOp<BFloat16>);

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernels for elementwise unary ops: Relu.
#include <type_traits>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// max(x, 0); NaN stays NaN, as in TensorFlow.
struct ReluFn {
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_unsigned_v<T>) return x;
    else return x < T(0) ? T(0) : x;
  }
};

// y = Op(x) elementwise, written into x's buffer when it is held only here.
template <typename T, typename Op>
class UnaryOp : public OpKernel {
 public:
  explicit UnaryOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& xt = ctx->input(0);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->forward_input_or_allocate_output(0, 0, xt.shape(), &out));
    const T* x = xt.data<T>();
    T* y = out->data<T>();
    ParallelRange(ctx->intra_op_pool(), out->num_elements(), 1, [&](int64_t b, int64_t e) {
#pragma GCC ivdep
      for (int64_t i = b; i < e; ++i) y[i] = Op::Apply(x[i]);
    });
  }
};

#define TX_REGISTER_UNARY(OP, FN, T) TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<T>("T"), UnaryOp<T, FN>)
TX_REGISTER_UNARY("Relu", ReluFn, float);
TX_REGISTER_UNARY("Relu", ReluFn, double);
TX_REGISTER_UNARY("Relu", ReluFn, int32_t);
TX_REGISTER_UNARY("Relu", ReluFn, int64_t);
TX_REGISTER_UNARY("Relu", ReluFn, uint8_t);

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernels for AddV2, Add, Sub, Mul and RealDiv with NumPy broadcasting.
#include <type_traits>

#include "tensorflux/kernels/cpu/binary_functors.h"
#include "tensorflux/kernels/cpu/broadcast.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// True when some element of y[0..n) is zero.
template <typename T>
bool AnyZero(const T* y, int64_t n) {
  bool any = false;
  for (int64_t i = 0; i < n; ++i) any |= (y[i] == T(0));
  return any;
}

// Writes into an input's buffer when that input has the output's element count and is held only
// here (Note [Buffer forwarding]); otherwise allocates.
Status ForwardOrAllocate(OpKernelContext* ctx, const TensorShape& out_shape, Tensor** out) {
  const int64_t n = out_shape.num_elements();
  for (int in = 0; in < 2; ++in) {
    const Tensor& t = ctx->input(in);
    if (t.num_elements() == n && t.CanReuseBuffer()) return ctx->forward_input_or_allocate_output(in, 0, out_shape, out);
  }
  return ctx->allocate_output(0, out_shape, out);
}

// z = Op(x, y) elementwise with broadcasting; fast paths for equal shapes and one-element inputs.
template <typename T, typename Op>
class BinaryOp : public OpKernel {
 public:
  explicit BinaryOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    const Tensor& xt = ctx->input(0);
    const Tensor& yt = ctx->input(1);
    if constexpr (std::is_same_v<Op, DivFn> && std::is_integral_v<T>) {
      if (AnyZero(yt.data<T>(), yt.num_elements())) {
        ctx->SetStatus(InvalidArgument("Integer division by zero"));
        return;
      }
    }
    // Equal shapes: one flat loop (the common case, checked before planning).
    if (xt.shape() == yt.shape()) {
      Tensor* out = nullptr;
      TX_CTX_RETURN_IF_ERROR(ctx, ForwardOrAllocate(ctx, xt.shape(), &out));
      const T* x = xt.data<T>();
      const T* y = yt.data<T>();
      T* z = out->data<T>();
      ParallelRange(ctx->intra_op_pool(), out->num_elements(), Cost(),
                    [&](int64_t b, int64_t e) { ApplyVV<T, Op>(x + b, y + b, z + b, e - b); });
      return;
    }
    BroadcastPlan plan;
    TX_CTX_RETURN_IF_ERROR(ctx, MakeBroadcastPlan(xt.shape(), yt.shape(), &plan));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ForwardOrAllocate(ctx, plan.out_shape, &out));
    const int64_t n = out->num_elements();
    if (n == 0) return;
    const T* x = xt.data<T>();
    const T* y = yt.data<T>();
    T* z = out->data<T>();
    if (xt.num_elements() == 1) {  // scalar op tensor: y already has the output's element order
      const T xs = x[0];
      ParallelRange(ctx->intra_op_pool(), n, Cost(),
                    [&](int64_t b, int64_t e) { ApplySV<T, Op>(xs, y + b, z + b, e - b); });
    } else if (yt.num_elements() == 1) {
      const T ys = y[0];
      ParallelRange(ctx->intra_op_pool(), n, Cost(),
                    [&](int64_t b, int64_t e) { ApplyVS<T, Op>(x + b, ys, z + b, e - b); });
    } else {
      RunBroadcast<T, Op>(plan, x, y, z, ctx->intra_op_pool());
    }
  }

 private:
  // Relative cost per element: division is several times dearer than the rest.
  static constexpr int64_t Cost() { return std::is_same_v<Op, DivFn> ? (std::is_integral_v<T> ? 16 : 4) : 1; }
};

#define TX_REGISTER_BINARY(OP, FN, T) \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<T>("T"), BinaryOp<T, FN>)
#define TX_REGISTER_BINARY_ALL(OP, FN)    \
  TX_REGISTER_BINARY(OP, FN, float);      \
  TX_REGISTER_BINARY(OP, FN, double);     \
  TX_REGISTER_BINARY(OP, FN, int32_t);    \
  TX_REGISTER_BINARY(OP, FN, int64_t);    \
  TX_REGISTER_BINARY(OP, FN, uint8_t)

TX_REGISTER_BINARY_ALL("AddV2", AddFn);
TX_REGISTER_BINARY_ALL("Add", AddFn);
TX_REGISTER_BINARY_ALL("Sub", SubFn);
TX_REGISTER_BINARY_ALL("Mul", MulFn);
TX_REGISTER_BINARY_ALL("RealDiv", DivFn);

}  // namespace
}  // namespace cpu
}  // namespace tx

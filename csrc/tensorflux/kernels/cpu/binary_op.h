// The CPU kernel template shared by the binary elementwise ops with NumPy broadcasting:
// BinaryOp<T, Fn> computes z = Fn::Apply(x, y) (binary_functors.h describes Fn's contract).
#pragma once

#include <type_traits>

#include "tensorflux/kernels/cpu/binary_functors.h"
#include "tensorflux/kernels/cpu/broadcast.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// Whether a binary functor declares its relative per-element cost as `kCost`.
template <typename Op, typename = void>
struct HasCost : std::false_type {};
template <typename Op>
struct HasCost<Op, std::void_t<decltype(Op::kCost)>> : std::true_type {};

// Relative cost per element of Op on T: a functor's own kCost when it declares one; division,
// modulo and pow are several times dearer than the rest.
template <typename T, typename Op>
constexpr int64_t BinaryCost() {
  if constexpr (HasCost<Op>::value) return Op::kCost;
  constexpr bool dear = std::is_same_v<Op, DivFn> || std::is_same_v<Op, FloorDivFn> || std::is_same_v<Op, FloorModFn>;
  if constexpr (std::is_same_v<Op, PowFn>) return std::is_integral_v<T> ? 8 : 16;
  return dear ? (std::is_integral_v<T> ? 16 : 4) : 1;
}

// The error for integer inputs y[0..n) that Op rejects, or OK.
template <typename T, typename Op>
inline Status CheckY(const T* y, int64_t n) {
  if constexpr (std::is_integral_v<T> && Op::kCheck == IntCheck::kNonZero) {
    bool any = false;
    for (int64_t i = 0; i < n; ++i) any |= (y[i] == T(0));
    if (any) return InvalidArgument("Integer division by zero");
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && Op::kCheck == IntCheck::kNonNegative) {
    bool any = false;
    for (int64_t i = 0; i < n; ++i) any |= (y[i] < T(0));
    if (any) return InvalidArgument("Integers to negative integer powers are not allowed");
  }
  return Status::OK();
}

// Writes into an input's buffer when that input has the output's dtype and element count and is
// held only here (Note [Buffer forwarding]); otherwise allocates.
template <typename T, typename Out>
inline Status ForwardOrAllocate(OpKernelContext* ctx, const TensorShape& out_shape, Tensor** out) {
  if constexpr (std::is_same_v<T, Out>) {
    const int64_t n = out_shape.num_elements();
    for (int in = 0; in < 2; ++in) {
      const Tensor& t = ctx->input(in);
      if (t.num_elements() == n && t.CanReuseBuffer())
        return ctx->forward_input_or_allocate_output(in, 0, out_shape, out);
    }
  }
  return ctx->allocate_output(0, out_shape, out);
}

// z = Op(x, y) elementwise with broadcasting; fast paths for equal shapes and one-element inputs.
// Equal and NotEqual read incompatible_shape_error: when false, shapes that do not broadcast
// give a scalar (false for Equal, true for NotEqual) instead of an error, as in TensorFlow.
template <typename T, typename Op>
class BinaryOp : public OpKernel {
 public:
  using Out = BinaryOutT<T, Op>;

  explicit BinaryOp(OpKernelConstruction* c) : OpKernel(c) {
    if constexpr (std::is_same_v<Op, EqualFn> || std::is_same_v<Op, NotEqualFn>)
      c->SetStatus(c->GetAttr("incompatible_shape_error", &incompatible_shape_error_));
  }
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    const Tensor& xt = ctx->input(0);
    const Tensor& yt = ctx->input(1);
    TX_CTX_RETURN_IF_ERROR(ctx, (CheckY<T, Op>(yt.data<T>(), yt.num_elements())));
    // Equal shapes: one flat loop (the common case, checked before planning).
    if (xt.shape() == yt.shape()) {
      Tensor* out = nullptr;
      TX_CTX_RETURN_IF_ERROR(ctx, (ForwardOrAllocate<T, Out>(ctx, xt.shape(), &out)));
      const T* x = xt.data<T>();
      const T* y = yt.data<T>();
      Out* z = out->data<Out>();
      ParallelRange(ctx->intra_op_pool(), out->num_elements(), Cost(),
                    [&](int64_t b, int64_t e) { ApplyVV<T, Op>(x + b, y + b, z + b, e - b); });
      return;
    }
    BroadcastPlan plan;
    Status s = MakeBroadcastPlan(xt.shape(), yt.shape(), &plan);
    if (!s.ok() && !incompatible_shape_error_) {
      Tensor* out = nullptr;
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(), &out));
      out->data<bool>()[0] = std::is_same_v<Op, NotEqualFn>;
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, s);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, (ForwardOrAllocate<T, Out>(ctx, plan.out_shape, &out)));
    const int64_t n = out->num_elements();
    if (n == 0) return;
    const T* x = xt.data<T>();
    const T* y = yt.data<T>();
    Out* z = out->data<Out>();
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
  static constexpr int64_t Cost() { return BinaryCost<T, Op>(); }

  bool incompatible_shape_error_ = true;
};

}  // namespace cpu
}  // namespace tx

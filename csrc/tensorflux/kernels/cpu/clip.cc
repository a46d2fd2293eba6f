// CPU kernel for ClipByValue.
#include <type_traits>

#include "tensorflux/kernels/cpu/broadcast.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/widened_kernel.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Note [Clip broadcasting]
// TensorFlow's kernel takes clip values that are scalars or of t's shape, and tf.clip_by_value
// (built from Minimum and Maximum) any that broadcast to t's shape without enlarging it. This
// kernel takes the latter: output = max(min(t, clip_value_max), clip_value_min), of t's shape.
// Scalar bounds run in one pass; others in two broadcast passes. A NaN in t stays NaN; with
// min > max every element becomes min, as in TensorFlow.

// min(x, hi) and max(x, lo), keeping a NaN x.
struct ClipHiFn {
  template <typename T>
  static T Apply(T x, T hi) {
    return x > hi ? hi : x;
  }
};
struct ClipLoFn {
  template <typename T>
  static T Apply(T x, T lo) {
    return x < lo ? lo : x;
  }
};

template <typename T>
class ClipByValueOp : public OpKernel {
 public:
  explicit ClipByValueOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < 3; ++i) TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, DataTypeOf<T>::value));
    const Tensor& t = ctx->input(0);
    const Tensor& lo = ctx->input(1);
    const Tensor& hi = ctx->input(2);
    BroadcastPlan lo_plan, hi_plan;
    for (int i = 1; i <= 2; ++i) {
      BroadcastPlan& plan = i == 1 ? lo_plan : hi_plan;
      Status s = MakeBroadcastPlan(t.shape(), ctx->input(i).shape(), &plan);
      if (!s.ok() || plan.out_shape != t.shape()) {
        ctx->SetStatus(InvalidArgument(i == 1 ? "clip_value_min" : "clip_value_max", " of shape ",
                                       ctx->input(i).shape().ToString(), " does not broadcast to the shape of t, ",
                                       t.shape().ToString()));
        return;
      }
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->forward_input_or_allocate_output(0, 0, t.shape(), &out));
    const int64_t n = t.num_elements();
    if (n == 0) return;
    const T* x = t.data<T>();
    T* z = out->data<T>();
    if (lo.num_elements() == 1 && hi.num_elements() == 1) {
      const T l = lo.data<T>()[0], h = hi.data<T>()[0];
      ParallelRange(ctx->intra_op_pool(), n, 1, [&](int64_t b, int64_t e) {
#pragma GCC ivdep
        for (int64_t i = b; i < e; ++i) z[i] = ClipLoFn::Apply(ClipHiFn::Apply(x[i], h), l);
      });
      return;
    }
    RunBroadcast<T, ClipHiFn>(hi_plan, x, hi.data<T>(), z, ctx->intra_op_pool());
    RunBroadcast<T, ClipLoFn>(lo_plan, z, lo.data<T>(), z, ctx->intra_op_pool());
  }
};

#define TX_REGISTER_CLIP(T) TX_REGISTER_KERNEL(KernelDefBuilder("ClipByValue").TypeConstraint<T>("T"), ClipByValueOp<T>)
TX_REGISTER_CLIP(float);
TX_REGISTER_CLIP(double);
TX_REGISTER_CLIP(int32_t);
TX_REGISTER_CLIP(int64_t);
TX_REGISTER_CLIP(uint8_t);

// --- the other integer types ---
TX_REGISTER_CLIP(int8_t);
TX_REGISTER_CLIP(int16_t);
TX_REGISTER_CLIP(uint16_t);

// --- half and bfloat16: the float32 kernel on widened inputs, outputs rounded once
// (Note [Widened kernels]) ---
TX_REGISTER_WIDENED("ClipByValue", "T");

}  // namespace
}  // namespace cpu
}  // namespace tx

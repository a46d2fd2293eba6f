// The CPU kernel template shared by the unary elementwise ops: UnaryOp<T, Fn, Out> computes
// y = Fn(x) through Fn::Run over contiguous ranges, and Map<Fn> derives Run from Fn::Apply.
#pragma once

#include <type_traits>

#include "tensorflux/kernels/cpu/convert16.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// Functors give Apply(x) for one element; Map<Fn> turns that into the array loop the kernel
// calls (Fn::Run), and vectorized functors define Run for float themselves.
template <typename Fn>
struct Map {
  static constexpr int64_t kCost = 1;
  template <typename T, typename Out>
  static void Run(const T* x, Out* y, int64_t n) {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) y[i] = Fn::Apply(x[i]);
  }
};

// Op on half or bfloat16 arrays: blocks are widened to float, Op::Run maps them, and each result
// is rounded once (Note [16-bit floats]); predicates (Out = bool) write their results directly.
template <typename Op>
struct Widened {
  static constexpr int64_t kCost = Op::kCost + 1;
  template <typename T, typename Out>
  static void Run(const T* x, Out* y, int64_t n) {
    if constexpr (std::is_same_v<T, Out>) {
      MapFloatBlocks(x, y, n, [](float* buf, int64_t m) { Op::Run(buf, buf, m); });
    } else {
      float buf[kConvertBlock];
      for (int64_t b = 0; b < n; b += kConvertBlock) {
        const int64_t m = n - b < kConvertBlock ? n - b : kConvertBlock;
        ToFloat(x + b, buf, m);
        Op::Run(buf, y + b, m);
      }
    }
  }
};

// y = Op(x) elementwise, written into x's buffer when it is held only here and Out is T.
template <typename T, typename Op, typename Out = T>
class UnaryOp : public OpKernel {
 public:
  explicit UnaryOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& xt = ctx->input(0);
    Tensor* out = nullptr;
    if constexpr (std::is_same_v<T, Out>)
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->forward_input_or_allocate_output(0, 0, xt.shape(), &out));
    else
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, xt.shape(), &out));
    const T* x = xt.data<T>();
    Out* y = out->data<Out>();
    ParallelRange(ctx->intra_op_pool(), out->num_elements(), Op::kCost,
                  [&](int64_t b, int64_t e) { Op::Run(x + b, y + b, e - b); });
  }
};

}  // namespace cpu
}  // namespace tx

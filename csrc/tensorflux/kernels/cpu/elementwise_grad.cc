// CPU kernels for the elementwise gradient ops: ReluGrad, Relu6Grad, EluGrad, SeluGrad,
// LeakyReluGrad, SoftplusGrad, SoftsignGrad (gradients, features|outputs) and SigmoidGrad,
// TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad (y, dy). Results equal TensorFlow's formulas
// operation for operation (ReluGrad multiplies, so a NaN or inf gradient where features <= 0 gives
// NaN, as there), and every inner loop is a flat loop gcc vectorizes.
//
// Built without errno and trapping semantics (as unary.cc) so the selects around divisions
// (SqrtGrad's dy == 0 case) are if-converted into vector blends.
#pragma GCC optimize("no-math-errno", "no-trapping-math")
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "tensorflux/kernels/cpu/convert16.h"
#include "tensorflux/kernels/cpu/elementwise_grad_functors.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/vec_math.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// z = Fn(a, b) elementwise over two inputs of one shape (no broadcasting, as in TensorFlow); the
// output takes over either input's buffer when that input is held only here (Note [Buffer forwarding]).
template <typename T, typename Fn>
class ElementwiseGradOp : public OpKernel {
 public:
  explicit ElementwiseGradOp(OpKernelConstruction* c) : OpKernel(c) {
    const auto& args = c->node().op_def().input_arg;
    arg0_ = args[0].name;
    arg1_ = args[1].name;
    c->SetStatus(fn_.Init(c));
  }
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    const Tensor& at = ctx->input(0);
    const Tensor& bt = ctx->input(1);
    if (at.shape() != bt.shape()) {
      ctx->SetStatus(InvalidArgument("Inputs '", arg0_, "' and '", arg1_, "' must have the same shape, but ", arg0_,
                                     " has shape ", at.shape().ToString(), " and ", arg1_, " has shape ",
                                     bt.shape().ToString()));
      return;
    }
    Tensor* out = nullptr;
    const int reuse = bt.CanReuseBuffer() && !at.CanReuseBuffer() ? 1 : 0;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->forward_input_or_allocate_output(reuse, 0, at.shape(), &out));
    const T* a = at.data<T>();
    const T* b = bt.data<T>();
    T* z = out->data<T>();
    ParallelRange(ctx->intra_op_pool(), out->num_elements(), Fn::kCost, [&](int64_t lo, int64_t hi) {
      if constexpr (kIsFloat16<T>)
        RunWidened(a + lo, b + lo, z + lo, hi - lo);
      else
        fn_.Run(a + lo, b + lo, z + lo, hi - lo);
    });
  }

  // Fn on 16-bit floats: float blocks in, one rounding per result (Note [16-bit floats]).
  void RunWidened(const T* a, const T* b, T* z, int64_t n) const {
    float af[kConvertBlock], bf[kConvertBlock];
    for (int64_t s = 0; s < n; s += kConvertBlock) {
      const int64_t m = std::min(kConvertBlock, n - s);
      ToFloat(a + s, af, m);
      ToFloat(b + s, bf, m);
      fn_.Run(af, bf, af, m);
      FromFloat(af, z + s, m);
    }
  }

 private:
  Fn fn_;
  std::string arg0_, arg1_;
};

#define TX_REGISTER_GRAD(OP, FN, T) \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<T>("T"), ElementwiseGradOp<T, FN>)
#define TX_REGISTER_GRAD_FLOATS(OP, FN) \
  TX_REGISTER_GRAD(OP, FN, float);      \
  TX_REGISTER_GRAD(OP, FN, double)
#define TX_REGISTER_GRAD_REAL(OP, FN) \
  TX_REGISTER_GRAD_FLOATS(OP, FN);    \
  TX_REGISTER_GRAD(OP, FN, int32_t);  \
  TX_REGISTER_GRAD(OP, FN, int64_t);  \
  TX_REGISTER_GRAD(OP, FN, uint8_t)

TX_REGISTER_GRAD_REAL("ReluGrad", ReluGradFn);
TX_REGISTER_GRAD_REAL("Relu6Grad", Relu6GradFn);
TX_REGISTER_GRAD_FLOATS("LeakyReluGrad", LeakyReluGradFn);
TX_REGISTER_GRAD_FLOATS("EluGrad", EluGradFn);
TX_REGISTER_GRAD_FLOATS("SeluGrad", SeluGradFn);
TX_REGISTER_GRAD_FLOATS("SoftplusGrad", SoftplusGradFn);
TX_REGISTER_GRAD_FLOATS("SoftsignGrad", SoftsignGradFn);
TX_REGISTER_GRAD_FLOATS("SigmoidGrad", SigmoidGradFn);
TX_REGISTER_GRAD_FLOATS("TanhGrad", TanhGradFn);
TX_REGISTER_GRAD_FLOATS("SqrtGrad", SqrtGradFn);
TX_REGISTER_GRAD_FLOATS("RsqrtGrad", RsqrtGradFn);
TX_REGISTER_GRAD_FLOATS("ReciprocalGrad", ReciprocalGradFn);

// --- half and bfloat16 (computed in float, Note [16-bit floats]) and the other integer types ---
#define TX_REGISTER_GRAD_F16(OP, FN) \
  TX_REGISTER_GRAD(OP, FN, Half);    \
  TX_REGISTER_GRAD(OP, FN, BFloat16)
#define TX_REGISTER_GRAD_NARROW(OP, FN) \
  TX_REGISTER_GRAD(OP, FN, int8_t);     \
  TX_REGISTER_GRAD(OP, FN, int16_t);    \
  TX_REGISTER_GRAD(OP, FN, uint16_t);   \
  TX_REGISTER_GRAD(OP, FN, uint32_t);   \
  TX_REGISTER_GRAD(OP, FN, uint64_t)
TX_REGISTER_GRAD_F16("ReluGrad", ReluGradFn);
TX_REGISTER_GRAD_NARROW("ReluGrad", ReluGradFn);
TX_REGISTER_GRAD_F16("Relu6Grad", Relu6GradFn);
TX_REGISTER_GRAD_NARROW("Relu6Grad", Relu6GradFn);
TX_REGISTER_GRAD_F16("LeakyReluGrad", LeakyReluGradFn);
TX_REGISTER_GRAD_F16("EluGrad", EluGradFn);
TX_REGISTER_GRAD_F16("SeluGrad", SeluGradFn);
TX_REGISTER_GRAD_F16("SoftplusGrad", SoftplusGradFn);
TX_REGISTER_GRAD_F16("SoftsignGrad", SoftsignGradFn);
TX_REGISTER_GRAD_F16("SigmoidGrad", SigmoidGradFn);
TX_REGISTER_GRAD_F16("TanhGrad", TanhGradFn);
TX_REGISTER_GRAD_F16("SqrtGrad", SqrtGradFn);
TX_REGISTER_GRAD_F16("RsqrtGrad", RsqrtGradFn);
TX_REGISTER_GRAD_F16("ReciprocalGrad", ReciprocalGradFn);
#undef TX_REGISTER_GRAD_NARROW
#undef TX_REGISTER_GRAD_F16
#undef TX_REGISTER_GRAD_REAL
#undef TX_REGISTER_GRAD_FLOATS
#undef TX_REGISTER_GRAD

}  // namespace
}  // namespace cpu
}  // namespace tx

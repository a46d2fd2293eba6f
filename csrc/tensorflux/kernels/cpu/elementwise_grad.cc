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
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/vec_math.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Functors map two input arrays (in the op's argument order) to the output: Run(a, b, z, n) with
// z possibly aliasing a or b element for element. kCost is the rough work per element.
// Functors without attrs derive from NoAttrs; the kernel calls Init once at construction.
struct NoAttrs {
  Status Init(OpKernelConstruction*) { return Status::OK(); }
};

// Note [Gradient as a factor]
// TensorFlow computes the piecewise gradients as selects, e.g. LeakyReluGrad is
// select(features > 0, gradients, gradients * alpha). Here each is gradients * factor, with the
// factor 1 on the pass-through side: g * 1 == g exactly (NaN and inf included), so the results are
// bit-identical and the loop is one compare, one blend and one multiply per vector.

// gradients * (features > 0).
struct ReluGradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* g, const T* f, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = g[i] * static_cast<T>(f[i] > T(0));
  }
};

// gradients * (0 < features < 6).
struct Relu6GradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* g, const T* f, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = g[i] * static_cast<T>((f[i] > T(0)) & (f[i] < T(6)));
  }
};

// gradients where features > 0, gradients * alpha elsewhere (Note [Gradient as a factor]).
struct LeakyReluGradFn {
  static constexpr int64_t kCost = 1;
  float alpha = 0.2f;
  Status Init(OpKernelConstruction* c) { return c->GetAttr("alpha", &alpha); }
  template <typename T>
  void Run(const T* g, const T* f, T* z, int64_t n) const {
    const T a = static_cast<T>(alpha);
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = g[i] * (f[i] > T(0) ? T(1) : a);
  }
};

// gradients * (outputs + 1) where outputs < 0, gradients elsewhere (Note [Gradient as a factor]).
struct EluGradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* g, const T* y, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = g[i] * (y[i] < T(0) ? y[i] + T(1) : T(1));
  }
};

// gradients * (outputs + scale * alpha) where outputs < 0, gradients * scale elsewhere.
struct SeluGradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* g, const T* y, T* z, int64_t n) const {
    constexpr T kScale = T(1.0507009873554804934193349852946);
    constexpr T kScaleAlpha = T(1.7580993408473768599402175208123);
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = g[i] * (y[i] < T(0) ? y[i] + kScaleAlpha : kScale);
  }
};

// gradients / (exp(-features) + 1), exp on vec_math's vector code in chunks of a stack buffer.
struct SoftplusGradFn : NoAttrs {
  static constexpr int64_t kCost = 10;
  template <typename T>
  void Run(const T* g, const T* f, T* z, int64_t n) const {
    constexpr int64_t kChunk = 512;
    alignas(64) T e[kChunk];
    for (int64_t b = 0; b < n; b += kChunk) {
      const int64_t m = std::min(kChunk, n - b);
      for (int64_t i = 0; i < m; ++i) e[i] = -f[b + i];
      VecExpArray(e, T(0), e, m);
#pragma GCC ivdep
      for (int64_t i = 0; i < m; ++i) z[b + i] = g[b + i] / (e[i] + T(1));
    }
  }
};

// gradients / (1 + |features|)^2.
struct SoftsignGradFn : NoAttrs {
  static constexpr int64_t kCost = 4;
  template <typename T>
  void Run(const T* g, const T* f, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) {
      const T d = std::fabs(f[i]) + T(1);
      z[i] = g[i] / (d * d);
    }
  }
};

// dy * y * (1 - y).
struct SigmoidGradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* y, const T* dy, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = dy[i] * y[i] * (T(1) - y[i]);
  }
};

// dy * (1 - y * y).
struct TanhGradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* y, const T* dy, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = dy[i] * (T(1) - y[i] * y[i]);
  }
};

// Note [Zero gradient stays zero]
// SqrtGrad, RsqrtGrad and ReciprocalGrad give 0 where dy == 0 whatever y is (y = 0 or inf would
// otherwise make 0 * inf = NaN), as TensorFlow does, so a zero upstream gradient never turns NaN.

// 0.5 * dy / y (Note [Zero gradient stays zero]).
struct SqrtGradFn : NoAttrs {
  static constexpr int64_t kCost = 4;
  template <typename T>
  void Run(const T* y, const T* dy, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = dy[i] == T(0) ? T(0) : (T(0.5) * dy[i]) / y[i];
  }
};

// -0.5 * (dy * y) * (y * y) (Note [Zero gradient stays zero]).
struct RsqrtGradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* y, const T* dy, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = dy[i] == T(0) ? T(0) : T(-0.5) * (dy[i] * y[i]) * (y[i] * y[i]);
  }
};

// -y * y * dy (Note [Zero gradient stays zero]).
struct ReciprocalGradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* y, const T* dy, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = dy[i] == T(0) ? T(0) : -y[i] * y[i] * dy[i];
  }
};

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
      if constexpr (kIsFloat16<T>) RunWidened(a + lo, b + lo, z + lo, hi - lo);
      else fn_.Run(a + lo, b + lo, z + lo, hi - lo);
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

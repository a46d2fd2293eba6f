// CPU kernels for the inverse and hyperbolic trigonometric maps (Asin, Acos, Atan, Sinh, Cosh,
// Asinh, Acosh, Atanh), Rint, IsInf, the gamma-family maps (Lgamma, Digamma) and the scaled
// Bessel functions (BesselI0e, BesselI1e), on float32
// and float64 through libm (special functions in double, rounded to float32).
#include <cmath>

#include "tensorflux/kernels/cpu/special_functions.h"
#include "tensorflux/kernels/cpu/unary_op.h"

namespace tx {
namespace cpu {
namespace {

// A libm map with a relative per-element cost.
#define TX_LIBM_FN(NAME, EXPR, COST)       \
  struct NAME : Map<NAME> {                \
    static constexpr int64_t kCost = COST; \
    template <typename T>                  \
    static T Apply(T x) {                  \
      return EXPR;                         \
    }                                      \
  }
TX_LIBM_FN(AsinFn, std::asin(x), 16);
TX_LIBM_FN(AcosFn, std::acos(x), 16);
TX_LIBM_FN(AtanFn, std::atan(x), 16);
TX_LIBM_FN(SinhFn, std::sinh(x), 16);
TX_LIBM_FN(CoshFn, std::cosh(x), 16);
TX_LIBM_FN(AsinhFn, std::asinh(x), 16);
TX_LIBM_FN(AcoshFn, std::acosh(x), 16);
TX_LIBM_FN(AtanhFn, std::atanh(x), 16);
// Nearest integer, halves to even.
TX_LIBM_FN(RintFn, std::nearbyint(x), 1);
TX_LIBM_FN(LgammaFn, static_cast<T>(std::lgamma(static_cast<double>(x))), 32);
TX_LIBM_FN(DigammaFn, static_cast<T>(special::Digamma(static_cast<double>(x))), 32);
TX_LIBM_FN(BesselI0eFn, static_cast<T>(special::BesselI0e(static_cast<double>(x))), 64);
TX_LIBM_FN(BesselI1eFn, static_cast<T>(special::BesselI1e(static_cast<double>(x))), 64);
#undef TX_LIBM_FN

struct IsInfFn : Map<IsInfFn> {
  template <typename T>
  static bool Apply(T x) {
    return std::isinf(x);
  }
};

#define TX_REGISTER_FLOATS(OP, FN)                                                         \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<float>("T"), UnaryOp<float, FN>); \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<double>("T"), UnaryOp<double, FN>)

TX_REGISTER_FLOATS("Asin", AsinFn);
TX_REGISTER_FLOATS("Acos", AcosFn);
TX_REGISTER_FLOATS("Atan", AtanFn);
TX_REGISTER_FLOATS("Sinh", SinhFn);
TX_REGISTER_FLOATS("Cosh", CoshFn);
TX_REGISTER_FLOATS("Asinh", AsinhFn);
TX_REGISTER_FLOATS("Acosh", AcoshFn);
TX_REGISTER_FLOATS("Atanh", AtanhFn);
TX_REGISTER_FLOATS("Rint", RintFn);
TX_REGISTER_FLOATS("Lgamma", LgammaFn);
TX_REGISTER_FLOATS("Digamma", DigammaFn);
TX_REGISTER_FLOATS("BesselI0e", BesselI0eFn);
TX_REGISTER_FLOATS("BesselI1e", BesselI1eFn);
TX_REGISTER_KERNEL(KernelDefBuilder("IsInf").TypeConstraint<float>("T"), UnaryOp<float, IsInfFn, bool>);
TX_REGISTER_KERNEL(KernelDefBuilder("IsInf").TypeConstraint<double>("T"), UnaryOp<double, IsInfFn, bool>);
#undef TX_REGISTER_FLOATS

// --- half and bfloat16 (computed in float, Note [16-bit floats]); TensorFlow has the gamma and
// Bessel maps for half only ---
#define TX_REGISTER_HALF(OP, FN) \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<Half>("T"), UnaryOp<Half, Widened<FN>>)
#define TX_REGISTER_F16(OP, FN) \
  TX_REGISTER_HALF(OP, FN);     \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<BFloat16>("T"), UnaryOp<BFloat16, Widened<FN>>)
TX_REGISTER_F16("Asin", AsinFn);
TX_REGISTER_F16("Acos", AcosFn);
TX_REGISTER_F16("Atan", AtanFn);
TX_REGISTER_F16("Sinh", SinhFn);
TX_REGISTER_F16("Cosh", CoshFn);
TX_REGISTER_F16("Asinh", AsinhFn);
TX_REGISTER_F16("Acosh", AcoshFn);
TX_REGISTER_F16("Atanh", AtanhFn);
TX_REGISTER_HALF("Lgamma", LgammaFn);
TX_REGISTER_HALF("Digamma", DigammaFn);
TX_REGISTER_HALF("BesselI0e", BesselI0eFn);
TX_REGISTER_HALF("BesselI1e", BesselI1eFn);
TX_REGISTER_KERNEL(KernelDefBuilder("IsInf").TypeConstraint<Half>("T"), UnaryOp<Half, Widened<IsInfFn>, bool>);
TX_REGISTER_KERNEL(KernelDefBuilder("IsInf").TypeConstraint<BFloat16>("T"), UnaryOp<BFloat16, Widened<IsInfFn>, bool>);
#undef TX_REGISTER_F16
#undef TX_REGISTER_HALF

}  // namespace
}  // namespace cpu
}  // namespace tx

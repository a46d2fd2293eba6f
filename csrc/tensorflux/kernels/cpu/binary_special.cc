// CPU kernels for the binary maps with special-value rules (Atan2, Xlogy, Xlog1py, Xdivy,
// DivNoNan, MulNoNan, NextAfter) and the two-argument special functions (Zeta, Polygamma, Igamma,
// Igammac, IgammaGradA, RandomGammaGrad), on float32 and float64 with NumPy broadcasting.
#include <cmath>

#include "tensorflux/kernels/cpu/binary_op.h"
#include "tensorflux/kernels/cpu/special_functions.h"
#include "tensorflux/kernels/cpu/special_incomplete.h"

namespace tx {
namespace cpu {
namespace {

// A floating-point binary map with a relative per-element cost.
#define TX_FLOAT_BINARY_FN(NAME, EXPR, COST)            \
  struct NAME {                                         \
    static constexpr IntCheck kCheck = IntCheck::kNone; \
    static constexpr int64_t kCost = COST;              \
    template <typename T>                               \
    static T Apply(T x, T y) {                          \
      return EXPR;                                      \
    }                                                   \
  }
// atan(x / y) in the quadrant of (y, x); here `x` is the op's first input (named y in the OpDef).
TX_FLOAT_BINARY_FN(Atan2Fn, std::atan2(x, y), 16);
// x * log(y), 0 where x == 0 (even when y is 0 or NaN).
TX_FLOAT_BINARY_FN(XlogyFn, x == T(0) ? T(0) : x * std::log(y), 8);
TX_FLOAT_BINARY_FN(Xlog1pyFn, x == T(0) ? T(0) : x * std::log1p(y), 16);
TX_FLOAT_BINARY_FN(XdivyFn, x == T(0) ? T(0) : x / y, 4);
// x / y, 0 where y == 0.
TX_FLOAT_BINARY_FN(DivNoNanFn, y == T(0) ? T(0) : x / y, 4);
// x * y, 0 where y == 0 (even when x is infinite or NaN).
TX_FLOAT_BINARY_FN(MulNoNanFn, y == T(0) ? T(0) : x * y, 1);
TX_FLOAT_BINARY_FN(NextAfterFn, std::nextafter(x, y), 4);
TX_FLOAT_BINARY_FN(ZetaFn, static_cast<T>(special::Zeta(static_cast<double>(x), static_cast<double>(y))), 64);
TX_FLOAT_BINARY_FN(PolygammaFn, static_cast<T>(special::Polygamma(static_cast<double>(x), static_cast<double>(y))), 64);
// The incomplete gamma functions, the derivative of P in a, and a Gamma(alpha) sample's
// derivative in alpha (Note [Incomplete gamma with its a-derivative] in special_incomplete.h).
TX_FLOAT_BINARY_FN(IgammaFn, static_cast<T>(special::Igamma(static_cast<double>(x), static_cast<double>(y))), 128);
TX_FLOAT_BINARY_FN(IgammacFn, static_cast<T>(special::Igammac(static_cast<double>(x), static_cast<double>(y))), 128);
TX_FLOAT_BINARY_FN(IgammaGradAFn, static_cast<T>(special::IgammaGradA(static_cast<double>(x), static_cast<double>(y))),
                   128);
TX_FLOAT_BINARY_FN(RandomGammaGradFn,
                   static_cast<T>(special::GammaSampleGradAlpha(static_cast<double>(x), static_cast<double>(y))), 128);
#undef TX_FLOAT_BINARY_FN

#define TX_REGISTER_FLOATS(OP, FN)                                                          \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<float>("T"), BinaryOp<float, FN>); \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<double>("T"), BinaryOp<double, FN>)

TX_REGISTER_FLOATS("Atan2", Atan2Fn);
TX_REGISTER_FLOATS("Xlogy", XlogyFn);
TX_REGISTER_FLOATS("Xlog1py", Xlog1pyFn);
TX_REGISTER_FLOATS("Xdivy", XdivyFn);
TX_REGISTER_FLOATS("DivNoNan", DivNoNanFn);
TX_REGISTER_FLOATS("MulNoNan", MulNoNanFn);
TX_REGISTER_FLOATS("NextAfter", NextAfterFn);
TX_REGISTER_FLOATS("Zeta", ZetaFn);
TX_REGISTER_FLOATS("Polygamma", PolygammaFn);
TX_REGISTER_FLOATS("Igamma", IgammaFn);
TX_REGISTER_FLOATS("Igammac", IgammacFn);
TX_REGISTER_FLOATS("IgammaGradA", IgammaGradAFn);
TX_REGISTER_FLOATS("RandomGammaGrad", RandomGammaGradFn);
#undef TX_REGISTER_FLOATS

// --- half and bfloat16 (computed in float, Note [16-bit floats]) ---
#define TX_REGISTER_F16(OP, FN)                                                           \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<Half>("T"), BinaryOp<Half, FN>); \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<BFloat16>("T"), BinaryOp<BFloat16, FN>)
TX_REGISTER_F16("Atan2", Atan2Fn);
TX_REGISTER_F16("Xlogy", XlogyFn);
TX_REGISTER_F16("Xlog1py", Xlog1pyFn);
TX_REGISTER_F16("Xdivy", XdivyFn);
TX_REGISTER_F16("DivNoNan", DivNoNanFn);
TX_REGISTER_F16("MulNoNan", MulNoNanFn);
#undef TX_REGISTER_F16

}  // namespace
}  // namespace cpu
}  // namespace tx

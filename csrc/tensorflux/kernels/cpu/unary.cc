// CPU kernels for the elementwise unary ops: Relu, Neg, Abs, Sign, Square, Sqrt, Rsqrt,
// Reciprocal, Floor, Ceil, Round, IsNan, IsFinite, LogicalNot, and the transcendental maps (Exp,
// Expm1, Log, Log1p, Sin, Cos, Tan, Tanh, Sigmoid, Erf, Erfc, Erfinv), which run on vec_math.h for float32.
//
// This file is built without errno and trapping semantics (nothing here reads errno or enables FP
// traps), so gcc vectorizes floor and ceil and inlines sqrt instead of calling libm per element. The pragma
// comes first so that every function in the file, inline ones from headers too, shares it.
#pragma GCC optimize("no-math-errno", "no-trapping-math")
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "tensorflux/kernels/cpu/unary_functors.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// erfinv(y) in double: Giles' float fit as the start, then Newton steps on erf (on log erfc in
// the tails, where 1 - |y| is exact and erf's slope vanishes) until the step is below 1 ulp.
double ErfinvDouble(double y) {
  const double ay = std::fabs(y);
  if (!(ay <= 1.0)) return std::numeric_limits<double>::quiet_NaN();
  if (ay == 1.0) return std::copysign(std::numeric_limits<double>::infinity(), y);
  if (ay == 0.0) return y;
  // Below 1 in float too (and above float's smallest normal), so the start is finite and non-zero.
  float start = std::min(std::max(static_cast<float>(ay), 1e-30f), 0.99999994f);
  vec::Map<vec::Fn::kErfinv>(&start, &start, 1);
  double x = start;
  const double kTwoOverSqrtPi = 1.1283791670955126;
  const double tail = 1.0 - ay;  // exact for ay >= 0.5
  for (int it = 0; it < 16; ++it) {
    double step;
    if (ay > 0.5) {
      const double c = std::erfc(x);
      // d/dx log erfc(x) = -2/sqrt(pi) exp(-x^2) / erfc(x).
      step = (std::log(c) - std::log(tail)) / (-kTwoOverSqrtPi * std::exp(-x * x) / c);
    } else {
      step = (std::erf(x) - ay) / (kTwoOverSqrtPi * std::exp(-x * x));
    }
    x -= step;
    if (std::fabs(step) <= 1e-16 * x) break;
  }
  return std::copysign(x, y);
}

namespace {

#define TX_REGISTER_UNARY(OP, FN, T, ...) \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<T>("T"), UnaryOp<T, FN, ##__VA_ARGS__>)
#define TX_REGISTER_UNARY_FLOATS(OP, FN) \
  TX_REGISTER_UNARY(OP, FN, float);      \
  TX_REGISTER_UNARY(OP, FN, double)
#define TX_REGISTER_UNARY_SIGNED(OP, FN) \
  TX_REGISTER_UNARY_FLOATS(OP, FN);      \
  TX_REGISTER_UNARY(OP, FN, int32_t);    \
  TX_REGISTER_UNARY(OP, FN, int64_t)

TX_REGISTER_UNARY_SIGNED("Relu", ReluFn);
TX_REGISTER_UNARY("Relu", ReluFn, uint8_t);
TX_REGISTER_UNARY_SIGNED("Neg", NegFn);
TX_REGISTER_UNARY_SIGNED("Abs", AbsFn);
TX_REGISTER_UNARY_SIGNED("Sign", SignFn);
TX_REGISTER_UNARY_SIGNED("Square", SquareFn);
TX_REGISTER_UNARY("Square", SquareFn, uint8_t);
TX_REGISTER_UNARY_SIGNED("Round", RoundFn);
TX_REGISTER_UNARY_FLOATS("Sqrt", SqrtFn);
TX_REGISTER_UNARY_FLOATS("Rsqrt", RsqrtFn);
TX_REGISTER_UNARY_FLOATS("Reciprocal", ReciprocalFn);  // TensorFlow has no integer CPU kernel either
TX_REGISTER_UNARY_FLOATS("Floor", FloorFn);
TX_REGISTER_UNARY_FLOATS("Ceil", CeilFn);
TX_REGISTER_UNARY_FLOATS("Exp", ExpFn);
TX_REGISTER_UNARY_FLOATS("Expm1", Expm1Fn);
TX_REGISTER_UNARY_FLOATS("Log", LogFn);
TX_REGISTER_UNARY_FLOATS("Log1p", Log1pFn);
TX_REGISTER_UNARY_FLOATS("Sin", SinFn);
TX_REGISTER_UNARY_FLOATS("Cos", CosFn);
TX_REGISTER_UNARY_FLOATS("Tan", TanFn);
TX_REGISTER_UNARY_FLOATS("Tanh", TanhFn);
TX_REGISTER_UNARY_FLOATS("Sigmoid", SigmoidFn);
TX_REGISTER_UNARY_FLOATS("Erf", ErfFn);
TX_REGISTER_UNARY_FLOATS("Erfc", ErfcFn);
TX_REGISTER_UNARY_FLOATS("Erfinv", ErfinvFn);
TX_REGISTER_UNARY("IsNan", IsNanFn, float, bool);
TX_REGISTER_UNARY("IsNan", IsNanFn, double, bool);
TX_REGISTER_UNARY("IsFinite", IsFiniteFn, float, bool);
TX_REGISTER_UNARY("IsFinite", IsFiniteFn, double, bool);
TX_REGISTER_KERNEL(KernelDefBuilder("LogicalNot"), UnaryOp<bool, LogicalNotFn>);

// --- 16-bit floats (computed in float, Note [16-bit floats]) and the narrow/unsigned integers ---
#define TX_REGISTER_UNARY_F16(OP, FN)                                                             \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<Half>("T"), UnaryOp<Half, Widened<FN>>); \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<BFloat16>("T"), UnaryOp<BFloat16, Widened<FN>>)
#define TX_REGISTER_PREDICATE_F16(OP, FN)                                                               \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<Half>("T"), UnaryOp<Half, Widened<FN>, bool>); \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<BFloat16>("T"), UnaryOp<BFloat16, Widened<FN>, bool>)
#define TX_REGISTER_UNARY_I8_I16(OP, FN) \
  TX_REGISTER_UNARY(OP, FN, int8_t);     \
  TX_REGISTER_UNARY(OP, FN, int16_t)
#define TX_REGISTER_UNARY_UNSIGNED(OP, FN) \
  TX_REGISTER_UNARY(OP, FN, uint16_t);     \
  TX_REGISTER_UNARY(OP, FN, uint32_t);     \
  TX_REGISTER_UNARY(OP, FN, uint64_t)

TX_REGISTER_UNARY_F16("Relu", ReluFn);
TX_REGISTER_UNARY_I8_I16("Relu", ReluFn);
TX_REGISTER_UNARY_UNSIGNED("Relu", ReluFn);
TX_REGISTER_UNARY_F16("Neg", NegFn);
TX_REGISTER_UNARY_I8_I16("Neg", NegFn);
TX_REGISTER_UNARY_F16("Abs", AbsFn);
TX_REGISTER_UNARY_I8_I16("Abs", AbsFn);
TX_REGISTER_UNARY_F16("Sign", SignFn);
TX_REGISTER_UNARY_I8_I16("Sign", SignFn);
TX_REGISTER_UNARY_F16("Square", SquareFn);
TX_REGISTER_UNARY_I8_I16("Square", SquareFn);
TX_REGISTER_UNARY_UNSIGNED("Square", SquareFn);
TX_REGISTER_UNARY_F16("Round", RoundFn);
TX_REGISTER_UNARY_F16("Sqrt", SqrtFn);
TX_REGISTER_UNARY_F16("Rsqrt", RsqrtFn);
TX_REGISTER_UNARY_F16("Reciprocal", ReciprocalFn);
TX_REGISTER_UNARY_F16("Floor", FloorFn);
TX_REGISTER_UNARY_F16("Ceil", CeilFn);
TX_REGISTER_UNARY_F16("Exp", ExpFn);
TX_REGISTER_UNARY_F16("Expm1", Expm1Fn);
TX_REGISTER_UNARY_F16("Log", LogFn);
TX_REGISTER_UNARY_F16("Log1p", Log1pFn);
TX_REGISTER_UNARY_F16("Sin", SinFn);
TX_REGISTER_UNARY_F16("Cos", CosFn);
TX_REGISTER_UNARY_F16("Tan", TanFn);
TX_REGISTER_UNARY_F16("Tanh", TanhFn);
TX_REGISTER_UNARY_F16("Sigmoid", SigmoidFn);
TX_REGISTER_UNARY_F16("Erf", ErfFn);
TX_REGISTER_UNARY_F16("Erfc", ErfcFn);
TX_REGISTER_PREDICATE_F16("IsNan", IsNanFn);
TX_REGISTER_PREDICATE_F16("IsFinite", IsFiniteFn);
#undef TX_REGISTER_UNARY_UNSIGNED
#undef TX_REGISTER_UNARY_I8_I16
#undef TX_REGISTER_PREDICATE_F16
#undef TX_REGISTER_UNARY_F16

}  // namespace
}  // namespace cpu
}  // namespace tx

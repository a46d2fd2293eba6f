// The elementwise unary functors of unary.cc (Relu, Neg, Abs, Sign, Square, Reciprocal, Floor,
// Ceil, Round, IsNan, IsFinite, LogicalNot and the transcendental maps on vec_math.h), shared with
// the loop-fusion kernel so that a fused op computes exactly what its own kernel computes. Include
// it after `#pragma GCC optimize("no-math-errno", "no-trapping-math")`, as unary.cc does.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "tensorflux/kernels/cpu/binary_functors.h"
#include "tensorflux/kernels/cpu/unary_op.h"
#include "tensorflux/kernels/cpu/vec_math.h"

namespace tx {
namespace cpu {

// max(x, 0); NaN stays NaN, as in TensorFlow.
struct ReluFn : Map<ReluFn> {
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_unsigned_v<T>)
      return x;
    else
      return x < T(0) ? T(0) : x;
  }
};
// -x; integers wrap (-MIN == MIN).
struct NegFn : Map<NegFn> {
  template <typename T>
  static T Apply(T x) {
    return SubFn::Apply(T(0), x);
  }
};
// |x|; integers wrap (|MIN| == MIN).
struct AbsFn : Map<AbsFn> {
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_floating_point_v<T>)
      return std::fabs(x);
    else
      return x < T(0) ? NegFn::Apply(x) : x;
  }
};
// -1, 0 or 1 (-0 gives +0, as in TensorFlow; NaN stays NaN).
struct SignFn : Map<SignFn> {
  template <typename T>
  static T Apply(T x) {
    return x > T(0) ? T(1) : (x < T(0) ? T(-1) : (x == x ? T(0) : x));
  }
};
struct SquareFn : Map<SquareFn> {
  template <typename T>
  static T Apply(T x) {
    return MulFn::Apply(x, x);
  }
};
struct ReciprocalFn : Map<ReciprocalFn> {
  template <typename T>
  static T Apply(T x) {
    return T(1) / x;
  }
};
struct FloorFn : Map<FloorFn> {
  template <typename T>
  static T Apply(T x) {
    return std::floor(x);
  }
};
struct CeilFn : Map<CeilFn> {
  template <typename T>
  static T Apply(T x) {
    return std::ceil(x);
  }
};
// Nearest integer, halves to even (the default rounding mode); integers are unchanged.
struct RoundFn : Map<RoundFn> {
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_integral_v<T>)
      return x;
    else
      return std::nearbyint(x);
  }
};
struct IsNanFn : Map<IsNanFn> {
  template <typename T>
  static bool Apply(T x) {
    return x != x;
  }
};
struct IsFiniteFn : Map<IsFiniteFn> {
  template <typename T>
  static bool Apply(T x) {
    return x - x == x - x;
  }  // inf - inf and NaN are NaN
};
struct LogicalNotFn : Map<LogicalNotFn> {
  static bool Apply(bool x) { return !x; }
};

// erfinv(y) in double, to 1 ulp (defined in unary.cc).
double ErfinvDouble(double y);

// A transcendental map: vec_math's vector version for float, libm (or VecExp) for double.
#define TX_VEC_FN(NAME, VEC, DOUBLE_EXPR, COST)                                      \
  struct NAME {                                                                      \
    static constexpr int64_t kCost = COST;                                           \
    static void Run(const float* x, float* y, int64_t n) { vec::Map<VEC>(x, y, n); } \
    static void Run(const double* x, double* y, int64_t n) {                         \
      for (int64_t i = 0; i < n; ++i) {                                              \
        const double v = x[i];                                                       \
        y[i] = DOUBLE_EXPR;                                                          \
      }                                                                              \
    }                                                                                \
  }
TX_VEC_FN(ExpFn, vec::Fn::kExp, VecExp(v), 8);
TX_VEC_FN(Expm1Fn, vec::Fn::kExpm1, std::expm1(v), 16);
TX_VEC_FN(LogFn, vec::Fn::kLog, std::log(v), 8);
TX_VEC_FN(Log1pFn, vec::Fn::kLog1p, std::log1p(v), 16);
TX_VEC_FN(SinFn, vec::Fn::kSin, std::sin(v), 16);
TX_VEC_FN(CosFn, vec::Fn::kCos, std::cos(v), 16);
TX_VEC_FN(TanFn, vec::Fn::kTan, std::tan(v), 16);
TX_VEC_FN(TanhFn, vec::Fn::kTanh, std::tanh(v), 16);
TX_VEC_FN(SigmoidFn, vec::Fn::kSigmoid, 1.0 / (1.0 + VecExp(-v)), 8);
TX_VEC_FN(ErfFn, vec::Fn::kErf, std::erf(v), 16);
TX_VEC_FN(ErfcFn, vec::Fn::kErfc, std::erfc(v), 16);
TX_VEC_FN(ErfinvFn, vec::Fn::kErfinv, ErfinvDouble(v), 24);
TX_VEC_FN(SqrtFn, vec::Fn::kSqrt, std::sqrt(v), 1);
TX_VEC_FN(RsqrtFn, vec::Fn::kRsqrt, 1.0 / std::sqrt(v), 2);
#undef TX_VEC_FN

}  // namespace cpu
}  // namespace tx

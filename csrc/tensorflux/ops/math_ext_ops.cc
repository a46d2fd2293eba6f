// Elementwise math beyond the basic set (signatures identical to TensorFlow's): inverse and
// hyperbolic trigonometry, Rint and IsInf, the gamma family (Lgamma, Digamma, Polygamma, Zeta,
// the incomplete gamma functions Igamma and Igammac with IgammaGradA),
// the scaled Bessel functions BesselI0e and BesselI1e, and binary maps with special-value rules
// (Atan2, Xlogy, Xlog1py, Xdivy, DivNoNan, MulNoNan, NextAfter), all with NumPy broadcasting for
// two inputs.
#include <string>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// x: T -> y: T of the same shape; `types` is the body of T's allowed-type list.
OpDefBuilder UnaryMap(const char* name, const char* types, const char* summary) {
  return OpDefBuilder(name)
      .Input("x: T")
      .Output("y: T")
      .Attr(std::string("T: {") + types + "}")
      .SetShapeFn(shape_fns::UnchangedShape)
      .Summary(summary);
}

// a: T, b: T -> out: T with broadcasting, the three argument names as in TensorFlow's OpDef.
OpDefBuilder BinaryMap(const char* name, const char* a, const char* b, const char* out, const char* types,
                       const char* summary) {
  return OpDefBuilder(name)
      .Input(std::string(a) + ": T")
      .Input(std::string(b) + ": T")
      .Output(std::string(out) + ": T")
      .Attr(std::string("T: {") + types + "}")
      .SetShapeFn(shape_fns::BroadcastBinaryOp)
      .Summary(summary);
}

constexpr char kFloatComplex[] = "bfloat16, half, float, double, complex64, complex128";
constexpr char kFloats[] = "bfloat16, half, float, double";
// The order TensorFlow lists these types in for Xlogy, Xlog1py and Xdivy.
constexpr char kXlogyTypes[] = "half, bfloat16, float, double, complex64, complex128";

}  // namespace

TX_REGISTER_OP_FROM(UnaryMap("Asin", kFloatComplex, "Returns the inverse sine of x elementwise."));
TX_REGISTER_OP_FROM(UnaryMap("Acos", kFloatComplex, "Returns the inverse cosine of x elementwise."));
TX_REGISTER_OP_FROM(UnaryMap("Atan", kFloatComplex, "Returns the inverse tangent of x elementwise."));
TX_REGISTER_OP_FROM(UnaryMap("Sinh", kFloatComplex, "Returns the hyperbolic sine of x elementwise."));
TX_REGISTER_OP_FROM(UnaryMap("Cosh", kFloatComplex, "Returns the hyperbolic cosine of x elementwise."));
TX_REGISTER_OP_FROM(UnaryMap("Asinh", kFloatComplex, "Returns the inverse hyperbolic sine of x elementwise."));
TX_REGISTER_OP_FROM(UnaryMap("Acosh", kFloatComplex, "Returns the inverse hyperbolic cosine of x elementwise."));
TX_REGISTER_OP_FROM(UnaryMap("Atanh", kFloatComplex, "Returns the inverse hyperbolic tangent of x elementwise."));
TX_REGISTER_OP_FROM(UnaryMap("Rint", kFloats, "Returns the integer nearest to x elementwise, halves to even."));
TX_REGISTER_OP_FROM(UnaryMap("Lgamma", kFloats, "Returns log |Gamma(x)| elementwise."));
TX_REGISTER_OP_FROM(UnaryMap("Digamma", kFloats, "Returns psi(x), the derivative of lgamma, elementwise."));
TX_REGISTER_OP_FROM(UnaryMap("BesselI0e", kFloats,
                             "Returns exp(-|x|) I0(x), the scaled modified Bessel function of order 0."));
TX_REGISTER_OP_FROM(UnaryMap("BesselI1e", kFloats,
                             "Returns exp(-|x|) I1(x), the scaled modified Bessel function of order 1."));

TX_REGISTER_OP("IsInf")
    .Input("x: T")
    .Output("y: bool")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Returns whether x is +inf or -inf elementwise.");

TX_REGISTER_OP_FROM(BinaryMap("Atan2", "y", "x", "z", kFloats,
                              "Returns the angle of the point (x, y) from the positive x axis, elementwise."));
TX_REGISTER_OP_FROM(BinaryMap("Xlogy", "x", "y", "z", kXlogyTypes, "Returns x * log(y) elementwise, 0 where x == 0."));
TX_REGISTER_OP_FROM(BinaryMap("Xlog1py", "x", "y", "z", kXlogyTypes,
                              "Returns x * log1p(y) elementwise, 0 where x == 0."));
TX_REGISTER_OP_FROM(BinaryMap("Xdivy", "x", "y", "z", kXlogyTypes, "Returns x / y elementwise, 0 where x == 0."));
TX_REGISTER_OP_FROM(BinaryMap("DivNoNan", "x", "y", "z", "half, float, bfloat16, double, complex64, complex128",
                              "Returns x / y elementwise, 0 where y == 0."));
TX_REGISTER_OP_FROM(BinaryMap("MulNoNan", "x", "y", "z", kFloatComplex,
                              "Returns x * y elementwise, 0 where y == 0 even if x is infinite or NaN."));
TX_REGISTER_OP("NextAfter")
    .Input("x1: T")
    .Input("x2: T")
    .Output("output: T")
    .Attr("T: {double, float} = DT_FLOAT")
    .SetShapeFn(shape_fns::BroadcastBinaryOp)
    .Summary("Returns the next representable value after x1 in the direction of x2, elementwise.");
TX_REGISTER_OP_FROM(BinaryMap("Zeta", "x", "q", "z", "float, double",
                              "Returns the Hurwitz zeta function sum_k (q + k)^-x elementwise."));
TX_REGISTER_OP_FROM(BinaryMap("Polygamma", "a", "x", "z", "float, double",
                              "Returns the a-th derivative of digamma at x elementwise (a a non-negative integer)."));
TX_REGISTER_OP_FROM(BinaryMap("Igamma", "a", "x", "z", "bfloat16, half, float, double",
                              "Returns the regularized lower incomplete gamma function P(a, x) elementwise."));
TX_REGISTER_OP_FROM(BinaryMap("Igammac", "a", "x", "z", "bfloat16, half, float, double",
                              "Returns the regularized upper incomplete gamma function Q(a, x) elementwise."));
TX_REGISTER_OP_FROM(BinaryMap("IgammaGradA", "a", "x", "z", "float, double",
                              "Returns the derivative of Igamma(a, x) with respect to a, elementwise."));

}  // namespace tx

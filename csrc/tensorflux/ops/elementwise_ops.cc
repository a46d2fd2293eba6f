// Elementwise ops (signatures identical to TensorFlow's): binary arithmetic with NumPy
// broadcasting, unary maps, comparisons and logical ops (bool results), and SelectV2.
#include <string>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// x, y: T -> z: T with broadcasting; `types` is the body of T's allowed-type list.
OpDefBuilder Binary(const char* name, const char* types, const char* summary) {
  return OpDefBuilder(name)
      .Input("x: T")
      .Input("y: T")
      .Output("z: T")
      .Attr(std::string("T: {") + types + "}")
      .SetShapeFn(shape_fns::BroadcastBinaryOp)
      .Summary(summary);
}

// x: T -> y: T of the same shape.
OpDefBuilder Unary(const char* name, const char* types, const char* summary) {
  return OpDefBuilder(name)
      .Input("x: T")
      .Output("y: T")
      .Attr(std::string("T: {") + types + "}")
      .SetShapeFn(shape_fns::UnchangedShape)
      .Summary(summary);
}

// x: T -> y: bool of the same shape.
OpDefBuilder Predicate(const char* name, const char* types, const char* summary) {
  return OpDefBuilder(name)
      .Input("x: T")
      .Output("y: bool")
      .Attr(std::string("T: {") + types + "}")
      .SetShapeFn(shape_fns::UnchangedShape)
      .Summary(summary);
}

// x, y: T -> z: bool with broadcasting (comparisons).
OpDefBuilder Compare(const char* name, const char* summary) {
  return OpDefBuilder(name)
      .Input("x: T")
      .Input("y: T")
      .Output("z: bool")
      .Attr("T: realnumbertype")
      .SetShapeFn(shape_fns::BroadcastBinaryOp)
      .Summary(summary);
}

// Equal and NotEqual: any T; with incompatible_shape_error=false, shapes that do not broadcast
// give a scalar result instead of an error, so the static shape is then unknown.
Status EqualityShape(InferenceContext* c) {
  bool incompatible_shape_error = true;
  TX_RETURN_IF_ERROR(c->GetAttr("incompatible_shape_error", &incompatible_shape_error));
  PartialShape out;
  Status s = BroadcastShapes(c->input(0), c->input(1), &out);
  if (!s.ok() && incompatible_shape_error) return s;
  c->set_output(0, s.ok() ? out : PartialShape::Unknown());
  return Status::OK();
}

OpDefBuilder Equality(const char* name, const char* summary) {
  return OpDefBuilder(name)
      .Input("x: T")
      .Input("y: T")
      .Output("z: bool")
      .Attr("T: type")
      .Attr("incompatible_shape_error: bool = true")
      .SetIsCommutative()
      .SetShapeFn(EqualityShape)
      .Summary(summary);
}

// x, y: bool -> z: bool with broadcasting.
OpDefBuilder Logical(const char* name, const char* summary) {
  return OpDefBuilder(name)
      .Input("x: bool")
      .Input("y: bool")
      .Output("z: bool")
      .SetIsCommutative()
      .SetShapeFn(shape_fns::BroadcastBinaryOp)
      .Summary(summary);
}

// The broadcast of all three input shapes.
Status SelectV2Shape(InferenceContext* c) {
  PartialShape te, out;
  TX_RETURN_IF_ERROR(BroadcastShapes(c->input(1), c->input(2), &te));
  TX_RETURN_IF_ERROR(BroadcastShapes(c->input(0), te, &out));
  c->set_output(0, out);
  return Status::OK();
}

// TensorFlow's allowed-type lists (in its order), by the ops that share them.
constexpr char kAllNumeric[] =
    "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, complex64, complex128";
constexpr char kSignedNumeric[] = "bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128";
constexpr char kFloatComplex[] = "bfloat16, half, float, double, complex64, complex128";
constexpr char kFloats[] = "bfloat16, half, float, double";
constexpr char kReal[] = "bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64";

}  // namespace

// Binary arithmetic.
TX_REGISTER_OP_FROM(Binary("AddV2",
                           "bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, int64, "
                           "complex64, complex128",
                           "Returns x + y elementwise, with NumPy broadcasting.")
                        .SetIsCommutative()
                        .SetIsAggregate());
TX_REGISTER_OP_FROM(Binary("Add",
                           "bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, complex128, "
                           "string",
                           "Returns x + y elementwise, with NumPy broadcasting (the older form of AddV2)."));
TX_REGISTER_OP_FROM(Binary("Sub",
                           "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, complex64, "
                           "complex128, uint32, uint64",
                           "Returns x - y elementwise, with NumPy broadcasting."));
TX_REGISTER_OP_FROM(
    Binary("Mul", kAllNumeric, "Returns x * y elementwise, with NumPy broadcasting.").SetIsCommutative());
TX_REGISTER_OP_FROM(Binary("RealDiv", kAllNumeric,
                           "Returns x / y elementwise, with NumPy broadcasting (integers truncate toward zero)."));
TX_REGISTER_OP_FROM(Binary("Div", kAllNumeric,
                           "Returns x / y elementwise, with NumPy broadcasting (integers truncate toward zero)."));
TX_REGISTER_OP_FROM(Binary("FloorDiv", kAllNumeric,
                           "Returns floor(x / y) elementwise, with NumPy broadcasting (rounds toward -inf)."));
TX_REGISTER_OP_FROM(Binary("FloorMod",
                           "int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, half, float, double",
                           "Returns x - floor(x / y) * y elementwise: the remainder takes the sign of y."));
TX_REGISTER_OP_FROM(Binary("Pow", "bfloat16, float, half, double, int8, int16, int32, int64, complex64, complex128",
                           "Returns x to the power y elementwise; integers reject negative exponents."));
TX_REGISTER_OP_FROM(Binary("Maximum", kReal, "Returns max(x, y) elementwise (NaN if either is NaN)."));
TX_REGISTER_OP_FROM(Binary("Minimum", kReal, "Returns min(x, y) elementwise (NaN if either is NaN)."));
TX_REGISTER_OP_FROM(Binary("SquaredDifference", "bfloat16, half, float, double, int32, int64, complex64, complex128",
                           "Returns (x - y) * (x - y) elementwise, with NumPy broadcasting.")
                        .SetIsCommutative());

// Unary maps.
TX_REGISTER_OP_FROM(Unary("Neg", kSignedNumeric, "Returns -x elementwise."));
TX_REGISTER_OP_FROM(Unary("Abs", "bfloat16, half, float, double, int8, int16, int32, int64",
                          "Returns |x| elementwise."));
TX_REGISTER_OP_FROM(Unary("Sign", kSignedNumeric, "Returns -1, 0 or 1 by the sign of x elementwise (NaN stays NaN)."));
TX_REGISTER_OP_FROM(Unary("Square",
                          "bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
                          "complex64, complex128",
                          "Returns x * x elementwise."));
TX_REGISTER_OP_FROM(Unary("Sqrt", kFloatComplex, "Returns the square root of x elementwise."));
TX_REGISTER_OP_FROM(Unary("Rsqrt", kFloatComplex, "Returns 1 / sqrt(x) elementwise."));
TX_REGISTER_OP_FROM(Unary("Reciprocal", kSignedNumeric, "Returns 1 / x elementwise."));
TX_REGISTER_OP_FROM(Unary("Exp", kFloatComplex, "Returns e to the power x elementwise."));
TX_REGISTER_OP_FROM(Unary("Expm1", kFloatComplex, "Returns exp(x) - 1 elementwise, accurate near zero."));
TX_REGISTER_OP_FROM(Unary("Log", kFloatComplex, "Returns the natural logarithm of x elementwise."));
TX_REGISTER_OP_FROM(Unary("Log1p", kFloatComplex, "Returns log(1 + x) elementwise, accurate near zero."));
TX_REGISTER_OP_FROM(Unary("Sin", kFloatComplex, "Returns sin(x) elementwise."));
TX_REGISTER_OP_FROM(Unary("Cos", kFloatComplex, "Returns cos(x) elementwise."));
TX_REGISTER_OP_FROM(Unary("Tan", kFloatComplex, "Returns tan(x) elementwise."));
TX_REGISTER_OP_FROM(Unary("Tanh", kFloatComplex, "Returns the hyperbolic tangent of x elementwise."));
TX_REGISTER_OP_FROM(Unary("Sigmoid", kFloatComplex, "Returns 1 / (1 + exp(-x)) elementwise."));
TX_REGISTER_OP_FROM(Unary("Erf", kFloats, "Returns the Gauss error function of x elementwise."));
TX_REGISTER_OP_FROM(Unary("Erfc", kFloats, "Returns the complementary error function 1 - erf(x) elementwise."));
TX_REGISTER_OP_FROM(Unary("Erfinv", kFloats,
                          "Returns the inverse error function of x elementwise (NaN outside [-1, 1])."));
TX_REGISTER_OP_FROM(Unary("Floor", kFloats, "Returns the largest integer not greater than x elementwise."));
TX_REGISTER_OP_FROM(Unary("Ceil", kFloats, "Returns the smallest integer not less than x elementwise."));
TX_REGISTER_OP_FROM(Unary("Round", kSignedNumeric,
                          "Rounds x to the nearest integer elementwise, halves to even (banker's rounding)."));
TX_REGISTER_OP_FROM(Predicate("IsNan", kFloats, "Returns whether x is NaN elementwise."));
TX_REGISTER_OP_FROM(Predicate("IsFinite", kFloats, "Returns whether x is neither infinite nor NaN elementwise."));

// Comparisons and logical ops.
TX_REGISTER_OP_FROM(Equality("Equal", "Returns x == y elementwise, with NumPy broadcasting."));
TX_REGISTER_OP_FROM(Equality("NotEqual", "Returns x != y elementwise, with NumPy broadcasting."));
TX_REGISTER_OP_FROM(Compare("Less", "Returns x < y elementwise, with NumPy broadcasting."));
TX_REGISTER_OP_FROM(Compare("LessEqual", "Returns x <= y elementwise, with NumPy broadcasting."));
TX_REGISTER_OP_FROM(Compare("Greater", "Returns x > y elementwise, with NumPy broadcasting."));
TX_REGISTER_OP_FROM(Compare("GreaterEqual", "Returns x >= y elementwise, with NumPy broadcasting."));
TX_REGISTER_OP_FROM(Logical("LogicalAnd", "Returns x AND y elementwise, with NumPy broadcasting."));
TX_REGISTER_OP_FROM(Logical("LogicalOr", "Returns x OR y elementwise, with NumPy broadcasting."));

TX_REGISTER_OP("LogicalNot")
    .Input("x: bool")
    .Output("y: bool")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Returns NOT x elementwise.");

TX_REGISTER_OP("SelectV2")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectV2Shape)
    .Summary("Picks t where condition holds and e elsewhere, broadcasting all three inputs together.");

}  // namespace tx

// Bitwise ops on the integer types (BitwiseAnd/Or/Xor, LeftShift, RightShift, Invert,
// PopulationCount) and the truncating integer division ops (TruncateDiv, TruncateMod); signatures
// identical to TensorFlow's.
#include <string>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

constexpr char kIntegers[] = "int8, int16, int32, int64, uint8, uint16, uint32, uint64";

// x, y: T -> z: T with NumPy broadcasting.
OpDefBuilder BitwiseBinary(const char* name, const char* summary) {
  return OpDefBuilder(name)
      .Input("x: T")
      .Input("y: T")
      .Output("z: T")
      .Attr(std::string("T: {") + kIntegers + "}")
      .SetShapeFn(shape_fns::BroadcastBinaryOp)
      .Summary(summary);
}

}  // namespace

TX_REGISTER_OP_FROM(
    BitwiseBinary("BitwiseAnd", "Returns x & y elementwise, with NumPy broadcasting.").SetIsCommutative());
TX_REGISTER_OP_FROM(
    BitwiseBinary("BitwiseOr", "Returns x | y elementwise, with NumPy broadcasting.").SetIsCommutative());
TX_REGISTER_OP_FROM(
    BitwiseBinary("BitwiseXor", "Returns x ^ y elementwise, with NumPy broadcasting.").SetIsCommutative());
TX_REGISTER_OP_FROM(BitwiseBinary("LeftShift",
                                  "Returns x << y elementwise; y is clamped to [0, bits - 1] (bits of x's type)."));
TX_REGISTER_OP_FROM(BitwiseBinary(
    "RightShift", "Returns x >> y elementwise (arithmetic for signed x); y is clamped to [0, bits - 1]."));

TX_REGISTER_OP("Invert")
    .Input("x: T")
    .Output("y: T")
    .Attr(std::string("T: {") + kIntegers + "}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Flips every bit of x elementwise (~x).");

TX_REGISTER_OP("PopulationCount")
    .Input("x: T")
    .Output("y: uint8")
    .Attr(std::string("T: {") + kIntegers + "}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Counts the set bits of each element of x.");

TX_REGISTER_OP("TruncateDiv")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, complex64, "
        "complex128}")
    .SetShapeFn(shape_fns::BroadcastBinaryOp)
    .Summary("Returns x / y elementwise rounded toward zero, with NumPy broadcasting.");

TX_REGISTER_OP("TruncateMod")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {int32, int64, bfloat16, half, float, double}")
    .SetShapeFn(shape_fns::BroadcastBinaryOp)
    .Summary("Returns the remainder of x / y rounded toward zero (the sign of x), with NumPy broadcasting.");

}  // namespace tx

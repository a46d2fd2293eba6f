// CPU kernels for the binary elementwise ops with NumPy broadcasting: arithmetic (AddV2, Add,
// Sub, Mul, RealDiv, Div, FloorDiv, FloorMod, Pow, Maximum, Minimum, SquaredDifference),
// comparisons (bool results) and LogicalAnd / LogicalOr, on the real types TensorFlow's CPU
// kernels take.
#include <type_traits>

#include "tensorflux/kernels/cpu/binary_op.h"

namespace tx {
namespace cpu {
namespace {

#define TX_REGISTER_BINARY(OP, FN, T) TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<T>("T"), BinaryOp<T, FN>)
#define TX_REGISTER_BINARY_INTS(OP, FN) \
  TX_REGISTER_BINARY(OP, FN, int32_t);  \
  TX_REGISTER_BINARY(OP, FN, int64_t)
#define TX_REGISTER_BINARY_REAL(OP, FN) \
  TX_REGISTER_BINARY(OP, FN, float);    \
  TX_REGISTER_BINARY(OP, FN, double);   \
  TX_REGISTER_BINARY_INTS(OP, FN)
#define TX_REGISTER_BINARY_ALL(OP, FN) \
  TX_REGISTER_BINARY_REAL(OP, FN);     \
  TX_REGISTER_BINARY(OP, FN, uint8_t)

TX_REGISTER_BINARY_ALL("AddV2", AddFn);
TX_REGISTER_BINARY_ALL("Add", AddFn);
TX_REGISTER_BINARY_ALL("Sub", SubFn);
TX_REGISTER_BINARY_ALL("Mul", MulFn);
TX_REGISTER_BINARY_ALL("RealDiv", DivFn);
TX_REGISTER_BINARY_ALL("Div", DivFn);
TX_REGISTER_BINARY_ALL("FloorDiv", FloorDivFn);
TX_REGISTER_BINARY_ALL("FloorMod", FloorModFn);
TX_REGISTER_BINARY_REAL("Pow", PowFn);
TX_REGISTER_BINARY_ALL("Maximum", MaximumFn);
TX_REGISTER_BINARY_ALL("Minimum", MinimumFn);
TX_REGISTER_BINARY_REAL("SquaredDifference", SquaredDifferenceFn);

TX_REGISTER_BINARY_ALL("Equal", EqualFn);
TX_REGISTER_BINARY("Equal", EqualFn, bool);
TX_REGISTER_BINARY_ALL("NotEqual", NotEqualFn);
TX_REGISTER_BINARY("NotEqual", NotEqualFn, bool);
TX_REGISTER_BINARY_ALL("Less", LessFn);
TX_REGISTER_BINARY_ALL("LessEqual", LessEqualFn);
TX_REGISTER_BINARY_ALL("Greater", GreaterFn);
TX_REGISTER_BINARY_ALL("GreaterEqual", GreaterEqualFn);
TX_REGISTER_KERNEL(KernelDefBuilder("LogicalAnd"), BinaryOp<bool, LogicalAndFn>);
TX_REGISTER_KERNEL(KernelDefBuilder("LogicalOr"), BinaryOp<bool, LogicalOrFn>);

// --- 16-bit floats and the narrow and unsigned integers (TensorFlow's CPU type lists) ---
// half and bfloat16 compute in float and round once per element (Note [16-bit floats]).
#define TX_REGISTER_BINARY_F16(OP, FN) \
  TX_REGISTER_BINARY(OP, FN, Half);    \
  TX_REGISTER_BINARY(OP, FN, BFloat16)
// int8, int16 and uint16, uint32, uint64 (uint8 is registered above).
#define TX_REGISTER_BINARY_NARROW(OP, FN) \
  TX_REGISTER_BINARY(OP, FN, int8_t);     \
  TX_REGISTER_BINARY(OP, FN, int16_t);    \
  TX_REGISTER_BINARY(OP, FN, uint16_t);   \
  TX_REGISTER_BINARY(OP, FN, uint32_t);   \
  TX_REGISTER_BINARY(OP, FN, uint64_t)
#define TX_REGISTER_BINARY_MORE(OP, FN) \
  TX_REGISTER_BINARY_F16(OP, FN);       \
  TX_REGISTER_BINARY_NARROW(OP, FN)

TX_REGISTER_BINARY_MORE("AddV2", AddFn);
TX_REGISTER_BINARY_F16("Add", AddFn);
TX_REGISTER_BINARY("Add", AddFn, int8_t);
TX_REGISTER_BINARY("Add", AddFn, int16_t);
TX_REGISTER_BINARY_MORE("Sub", SubFn);
TX_REGISTER_BINARY_MORE("Mul", MulFn);
TX_REGISTER_BINARY_F16("RealDiv", DivFn);
TX_REGISTER_BINARY_MORE("Div", DivFn);
TX_REGISTER_BINARY_MORE("FloorDiv", FloorDivFn);
TX_REGISTER_BINARY_MORE("FloorMod", FloorModFn);
TX_REGISTER_BINARY_F16("Pow", PowFn);
TX_REGISTER_BINARY("Pow", PowFn, int8_t);
TX_REGISTER_BINARY("Pow", PowFn, int16_t);
TX_REGISTER_BINARY_MORE("Maximum", MaximumFn);
TX_REGISTER_BINARY_MORE("Minimum", MinimumFn);
TX_REGISTER_BINARY_F16("SquaredDifference", SquaredDifferenceFn);
TX_REGISTER_BINARY_MORE("Equal", EqualFn);
TX_REGISTER_BINARY_MORE("NotEqual", NotEqualFn);
TX_REGISTER_BINARY_MORE("Less", LessFn);
TX_REGISTER_BINARY_MORE("LessEqual", LessEqualFn);
TX_REGISTER_BINARY_MORE("Greater", GreaterFn);
TX_REGISTER_BINARY_MORE("GreaterEqual", GreaterEqualFn);
#undef TX_REGISTER_BINARY_MORE
#undef TX_REGISTER_BINARY_NARROW
#undef TX_REGISTER_BINARY_F16

}  // namespace
}  // namespace cpu
}  // namespace tx

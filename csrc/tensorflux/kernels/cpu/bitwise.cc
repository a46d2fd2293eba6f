// CPU kernels for the bitwise ops (BitwiseAnd/Or/Xor, LeftShift, RightShift, Invert,
// PopulationCount) and the truncating division ops (TruncateDiv, TruncateMod).
#include <climits>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "tensorflux/kernels/cpu/binary_op.h"
#include "tensorflux/kernels/cpu/unary_op.h"

namespace tx {
namespace cpu {
namespace {

// A bitwise map of two integers.
#define TX_BITWISE_FN(NAME, EXPR)                       \
  struct NAME {                                         \
    static constexpr IntCheck kCheck = IntCheck::kNone; \
    template <typename T>                               \
    static T Apply(T x, T y) {                          \
      return static_cast<T>(EXPR);                      \
    }                                                   \
  }
TX_BITWISE_FN(BitwiseAndFn, x& y);
TX_BITWISE_FN(BitwiseOrFn, x | y);
TX_BITWISE_FN(BitwiseXorFn, x ^ y);
#undef TX_BITWISE_FN

// The shift count y clamped to [0, bits of T - 1], as TensorFlow's kernels clamp it.
template <typename T>
inline unsigned ShiftCount(T y) {
  constexpr T kMax = static_cast<T>(sizeof(T) * CHAR_BIT - 1);
  if constexpr (std::is_signed_v<T>)
    if (y < 0) return 0;
  return static_cast<unsigned>(y > kMax ? kMax : y);
}

// x << clamp(y); bits shifted out are lost (done unsigned, so a signed x wraps).
struct LeftShiftFn {
  static constexpr IntCheck kCheck = IntCheck::kNone;
  template <typename T>
  static T Apply(T x, T y) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(x) << ShiftCount(y)));
  }
};

// x >> clamp(y); arithmetic (sign-filling) for signed x.
struct RightShiftFn {
  static constexpr IntCheck kCheck = IntCheck::kNone;
  template <typename T>
  static T Apply(T x, T y) {
    return static_cast<T>(x >> ShiftCount(y));
  }
};

// x / y rounded toward zero; integers require y != 0 (MIN / -1 wraps to MIN).
struct TruncateDivFn {
  static constexpr IntCheck kCheck = IntCheck::kNonZero;
  static constexpr int64_t kCost = 4;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_floating_point_v<T>)
      return std::trunc(x / y);
    else
      return DivFn::Apply(x, y);
  }
};

// x - trunc(x / y) * y: the remainder has x's sign; integers require y != 0.
struct TruncateModFn {
  static constexpr IntCheck kCheck = IntCheck::kNonZero;
  static constexpr int64_t kCost = 4;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_floating_point_v<T>)
      return std::fmod(x, y);
    else if constexpr (std::is_signed_v<T>)
      return y == -1 ? T(0) : static_cast<T>(x % y);  // MIN % -1 overflows in C
    else
      return static_cast<T>(x % y);
  }
};

struct InvertFn : Map<InvertFn> {
  template <typename T>
  static T Apply(T x) {
    return static_cast<T>(~x);
  }
};

struct PopulationCountFn : Map<PopulationCountFn> {
  template <typename T>
  static uint8_t Apply(T x) {
    return static_cast<uint8_t>(__builtin_popcountll(static_cast<std::make_unsigned_t<T>>(x)));
  }
};

#define TX_REGISTER_BINARY(OP, FN, T) TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<T>("T"), BinaryOp<T, FN>)
#define TX_REGISTER_INTEGER_KERNELS(T)                                                         \
  TX_REGISTER_BINARY("BitwiseAnd", BitwiseAndFn, T);                                           \
  TX_REGISTER_BINARY("BitwiseOr", BitwiseOrFn, T);                                             \
  TX_REGISTER_BINARY("BitwiseXor", BitwiseXorFn, T);                                           \
  TX_REGISTER_BINARY("LeftShift", LeftShiftFn, T);                                             \
  TX_REGISTER_BINARY("RightShift", RightShiftFn, T);                                           \
  TX_REGISTER_KERNEL(KernelDefBuilder("Invert").TypeConstraint<T>("T"), UnaryOp<T, InvertFn>); \
  TX_REGISTER_KERNEL(KernelDefBuilder("PopulationCount").TypeConstraint<T>("T"), UnaryOp<T, PopulationCountFn, uint8_t>)
TX_REGISTER_INTEGER_KERNELS(int8_t);
TX_REGISTER_INTEGER_KERNELS(int16_t);
TX_REGISTER_INTEGER_KERNELS(int32_t);
TX_REGISTER_INTEGER_KERNELS(int64_t);
TX_REGISTER_INTEGER_KERNELS(uint8_t);
TX_REGISTER_INTEGER_KERNELS(uint16_t);
TX_REGISTER_INTEGER_KERNELS(uint32_t);
TX_REGISTER_INTEGER_KERNELS(uint64_t);
#undef TX_REGISTER_INTEGER_KERNELS

// TruncateDiv on every real type TensorFlow's CPU kernels take (half and bfloat16 computed in
// float, Note [16-bit floats]); TruncateMod on int32, int64, float and double, as there.
TX_REGISTER_BINARY("TruncateDiv", TruncateDivFn, float);
TX_REGISTER_BINARY("TruncateDiv", TruncateDivFn, double);
TX_REGISTER_BINARY("TruncateDiv", TruncateDivFn, Half);
TX_REGISTER_BINARY("TruncateDiv", TruncateDivFn, BFloat16);
TX_REGISTER_BINARY("TruncateDiv", TruncateDivFn, int8_t);
TX_REGISTER_BINARY("TruncateDiv", TruncateDivFn, int16_t);
TX_REGISTER_BINARY("TruncateDiv", TruncateDivFn, int32_t);
TX_REGISTER_BINARY("TruncateDiv", TruncateDivFn, int64_t);
TX_REGISTER_BINARY("TruncateDiv", TruncateDivFn, uint8_t);
TX_REGISTER_BINARY("TruncateDiv", TruncateDivFn, uint16_t);
TX_REGISTER_BINARY("TruncateDiv", TruncateDivFn, uint32_t);
TX_REGISTER_BINARY("TruncateDiv", TruncateDivFn, uint64_t);
TX_REGISTER_BINARY("TruncateMod", TruncateModFn, float);
TX_REGISTER_BINARY("TruncateMod", TruncateModFn, double);
TX_REGISTER_BINARY("TruncateMod", TruncateModFn, int32_t);
TX_REGISTER_BINARY("TruncateMod", TruncateModFn, int64_t);
#undef TX_REGISTER_BINARY

}  // namespace
}  // namespace cpu
}  // namespace tx

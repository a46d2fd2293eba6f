// Elementwise binary functors with TensorFlow's semantics: integers wrap (two's complement),
// floor division and modulo round toward -inf, Maximum/Minimum propagate NaN, comparisons and
// logical ops give bool. Each has Apply(x, y); kCheck names what the kernel must reject first.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace tx {
namespace cpu {

// What a binary kernel checks in y before computing, for integer types only.
enum class IntCheck { kNone, kNonZero, kNonNegative };

// Unsigned type wide enough to do T's integer arithmetic without undefined overflow.
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

// std::make_unsigned_t<T> for integers, T itself otherwise.
template <typename T, bool = std::is_integral_v<T>>
struct UnsignedIfIntegral {
  using type = T;
};
template <typename T>
struct UnsignedIfIntegral<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using UnsignedIfIntegralT = typename UnsignedIfIntegral<T>::type;

// x + y; integers wrap around.
struct AddFn {
  static constexpr IntCheck kCheck = IntCheck::kNone;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(WrapType<T>(x) + WrapType<T>(y));
    else
      return x + y;
  }
};

// x - y; integers wrap around.
struct SubFn {
  static constexpr IntCheck kCheck = IntCheck::kNone;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(WrapType<T>(x) - WrapType<T>(y));
    else
      return x - y;
  }
};

// x * y; integers wrap around.
struct MulFn {
  static constexpr IntCheck kCheck = IntCheck::kNone;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(WrapType<T>(x) * WrapType<T>(y));
    else
      return x * y;
  }
};

// x / y; integers truncate toward zero. Requires y != 0 for integers (callers check first);
// MIN / -1 wraps to MIN.
struct DivFn {
  static constexpr IntCheck kCheck = IntCheck::kNonZero;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      return y == -1 ? static_cast<T>(WrapType<T>(0) - WrapType<T>(x)) : static_cast<T>(x / y);
    } else {
      return static_cast<T>(x / y);
    }
  }
};

// floor(x / y); integers round toward -inf (requires y != 0; MIN / -1 wraps to MIN).
struct FloorDivFn {
  static constexpr IntCheck kCheck = IntCheck::kNonZero;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      if (y == -1) return static_cast<T>(WrapType<T>(0) - WrapType<T>(x));
      const T q = static_cast<T>(x / y), r = static_cast<T>(x % y);
      return (r != 0 && ((r < 0) != (y < 0))) ? static_cast<T>(q - 1) : q;
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(x / y);
    } else {
      return std::floor(x / y);
    }
  }
};

// x - floor(x / y) * y: the remainder has y's sign (requires y != 0 for integers).
struct FloorModFn {
  static constexpr IntCheck kCheck = IntCheck::kNonZero;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      if (y == -1) return T(0);  // MIN % -1 overflows in C
      const T r = static_cast<T>(x % y);
      return (r != 0 && ((r < 0) != (y < 0))) ? static_cast<T>(r + y) : r;
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(x % y);
    } else {
      const T r = std::fmod(x, y);
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    }
  }
};

// x to the power y; integers square-and-multiply with wrap-around (requires y >= 0).
struct PowFn {
  static constexpr IntCheck kCheck = IntCheck::kNonNegative;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T>) {
      WrapType<T> result = 1, base = static_cast<WrapType<T>>(x);
      for (auto e = static_cast<std::make_unsigned_t<T>>(y); e != 0; e >>= 1) {
        if (e & 1) result = static_cast<WrapType<T>>(result * base);
        base = static_cast<WrapType<T>>(base * base);
      }
      return static_cast<T>(result);
    } else {
      return std::pow(x, y);
    }
  }
};

// max(x, y); NaN if either is NaN.
struct MaximumFn {
  static constexpr IntCheck kCheck = IntCheck::kNone;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T>)
      return x > y ? x : y;
    else
      return (x > y || x != x) ? x : y;
  }
};

// min(x, y); NaN if either is NaN.
struct MinimumFn {
  static constexpr IntCheck kCheck = IntCheck::kNone;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T>)
      return x < y ? x : y;
    else
      return (x < y || x != x) ? x : y;
  }
};

// (x - y)^2; integers wrap around.
struct SquaredDifferenceFn {
  static constexpr IntCheck kCheck = IntCheck::kNone;
  template <typename T>
  static T Apply(T x, T y) {
    const T d = SubFn::Apply(x, y);
    return MulFn::Apply(d, d);
  }
};

// Comparisons and logical ops: bool results.
#define TX_COMPARE_FN(NAME, EXPR)                       \
  struct NAME {                                         \
    static constexpr IntCheck kCheck = IntCheck::kNone; \
    template <typename T>                               \
    static bool Apply(T x, T y) {                       \
      return EXPR;                                      \
    }                                                   \
  }
TX_COMPARE_FN(EqualFn, x == y);
TX_COMPARE_FN(NotEqualFn, x != y);
TX_COMPARE_FN(LessFn, x < y);
TX_COMPARE_FN(LessEqualFn, x <= y);
TX_COMPARE_FN(GreaterFn, x > y);
TX_COMPARE_FN(GreaterEqualFn, x >= y);
TX_COMPARE_FN(LogicalAndFn, x&& y);
TX_COMPARE_FN(LogicalOrFn, x || y);
#undef TX_COMPARE_FN

}  // namespace cpu
}  // namespace tx

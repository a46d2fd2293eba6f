// Elementwise arithmetic functors with TensorFlow's integer semantics (two's-complement wrap).
#pragma once

#include <cstdint>
#include <type_traits>

namespace tx {
namespace cpu {

// Unsigned type wide enough to do T's integer arithmetic without undefined overflow.
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

// std::make_unsigned_t<T> for integers, T itself otherwise.
template <typename T, bool = std::is_integral_v<T>>
struct UnsignedIfIntegral { using type = T; };
template <typename T>
struct UnsignedIfIntegral<T, true> { using type = std::make_unsigned_t<T>; };
template <typename T>
using UnsignedIfIntegralT = typename UnsignedIfIntegral<T>::type;

// x + y; integers wrap around.
struct AddFn {
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(WrapType<T>(x) + WrapType<T>(y));
    else return x + y;
  }
};

// x - y; integers wrap around.
struct SubFn {
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(WrapType<T>(x) - WrapType<T>(y));
    else return x - y;
  }
};

// x * y; integers wrap around.
struct MulFn {
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(WrapType<T>(x) * WrapType<T>(y));
    else return x * y;
  }
};

// x / y; integers truncate toward zero. Requires y != 0 for integers (callers check first);
// MIN / -1 wraps to MIN.
struct DivFn {
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      return y == -1 ? static_cast<T>(WrapType<T>(0) - WrapType<T>(x)) : static_cast<T>(x / y);
    } else {
      return static_cast<T>(x / y);
    }
  }
};

}  // namespace cpu
}  // namespace tx

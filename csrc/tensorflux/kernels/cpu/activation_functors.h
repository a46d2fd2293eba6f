// The activation functors of activations.cc (Relu6, Elu, Selu, Softplus, Softsign, LeakyRelu),
// shared with the loop-fusion kernel so that a fused op computes exactly what its own kernel computes.
#pragma once

#include <algorithm>
#include <cmath>

namespace tx {
namespace cpu {

struct Relu6Fn {
  template <typename T>
  T operator()(T x) const {
    return std::min(std::max(x, T(0)), T(6));
  }
};
struct EluFn {
  template <typename T>
  T operator()(T x) const {
    return x > T(0) ? x : std::expm1(x);
  }
};
struct SeluFn {
  template <typename T>
  T operator()(T x) const {
    constexpr T kScale = T(1.0507009873554804934193349852946);
    constexpr T kScaleAlpha = T(1.7580993408473768599402175208123);
    return x > T(0) ? kScale * x : kScaleAlpha * std::expm1(x);
  }
};
// log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)), exact and overflow-free.
struct SoftplusFn {
  template <typename T>
  T operator()(T x) const {
    return std::max(x, T(0)) + std::log1p(std::exp(-std::abs(x)));
  }
};
struct SoftsignFn {
  template <typename T>
  T operator()(T x) const {
    return x / (T(1) + std::abs(x));
  }
};

// x where x > 0, alpha * x elsewhere.
template <typename T>
struct LeakyReluFn {
  T alpha;
  T operator()(T x) const { return x > T(0) ? x : alpha * x; }
};

}  // namespace cpu
}  // namespace tx

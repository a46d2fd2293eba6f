// The elementwise gradient functors of elementwise_grad.cc (ReluGrad, Relu6Grad, LeakyReluGrad,
// EluGrad, SeluGrad, SoftplusGrad, SoftsignGrad, SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad,
// ReciprocalGrad), shared with the loop-fusion kernel so that a fused op computes exactly what its
// own kernel computes. Include it after `#pragma GCC optimize("no-math-errno", "no-trapping-math")`,
// as elementwise_grad.cc does.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tensorflux/kernels/cpu/vec_math.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// Functors map two input arrays (in the op's argument order) to the output: Run(a, b, z, n) with
// z possibly aliasing a or b element for element. kCost is the rough work per element.
// Functors without attrs derive from NoAttrs; the kernel calls Init once at construction.
struct NoAttrs {
  Status Init(OpKernelConstruction*) { return Status::OK(); }
};

// Note [Gradient as a factor]
// TensorFlow computes the piecewise gradients as selects, e.g. LeakyReluGrad is
// select(features > 0, gradients, gradients * alpha). Here each is gradients * factor, with the
// factor 1 on the pass-through side: g * 1 == g exactly (NaN and inf included), so the results are
// bit-identical and the loop is one compare, one blend and one multiply per vector.

// gradients * (features > 0).
struct ReluGradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* g, const T* f, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = g[i] * static_cast<T>(f[i] > T(0));
  }
};

// gradients * (0 < features < 6).
struct Relu6GradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* g, const T* f, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = g[i] * static_cast<T>((f[i] > T(0)) & (f[i] < T(6)));
  }
};

// gradients where features > 0, gradients * alpha elsewhere (Note [Gradient as a factor]).
struct LeakyReluGradFn {
  static constexpr int64_t kCost = 1;
  float alpha = 0.2f;
  Status Init(OpKernelConstruction* c) { return c->GetAttr("alpha", &alpha); }
  template <typename T>
  void Run(const T* g, const T* f, T* z, int64_t n) const {
    const T a = static_cast<T>(alpha);
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = g[i] * (f[i] > T(0) ? T(1) : a);
  }
};

// gradients * (outputs + 1) where outputs < 0, gradients elsewhere (Note [Gradient as a factor]).
struct EluGradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* g, const T* y, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = g[i] * (y[i] < T(0) ? y[i] + T(1) : T(1));
  }
};

// gradients * (outputs + scale * alpha) where outputs < 0, gradients * scale elsewhere.
struct SeluGradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* g, const T* y, T* z, int64_t n) const {
    constexpr T kScale = T(1.0507009873554804934193349852946);
    constexpr T kScaleAlpha = T(1.7580993408473768599402175208123);
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = g[i] * (y[i] < T(0) ? y[i] + kScaleAlpha : kScale);
  }
};

// gradients / (exp(-features) + 1), exp on vec_math's vector code in chunks of a stack buffer.
struct SoftplusGradFn : NoAttrs {
  static constexpr int64_t kCost = 10;
  template <typename T>
  void Run(const T* g, const T* f, T* z, int64_t n) const {
    constexpr int64_t kChunk = 512;
    alignas(64) T e[kChunk];
    for (int64_t b = 0; b < n; b += kChunk) {
      const int64_t m = std::min(kChunk, n - b);
      for (int64_t i = 0; i < m; ++i) e[i] = -f[b + i];
      VecExpArray(e, T(0), e, m);
#pragma GCC ivdep
      for (int64_t i = 0; i < m; ++i) z[b + i] = g[b + i] / (e[i] + T(1));
    }
  }
};

// gradients / (1 + |features|)^2.
struct SoftsignGradFn : NoAttrs {
  static constexpr int64_t kCost = 4;
  template <typename T>
  void Run(const T* g, const T* f, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) {
      const T d = std::fabs(f[i]) + T(1);
      z[i] = g[i] / (d * d);
    }
  }
};

// dy * y * (1 - y).
struct SigmoidGradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* y, const T* dy, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = dy[i] * y[i] * (T(1) - y[i]);
  }
};

// dy * (1 - y * y).
struct TanhGradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* y, const T* dy, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = dy[i] * (T(1) - y[i] * y[i]);
  }
};

// Note [Zero gradient stays zero]
// SqrtGrad, RsqrtGrad and ReciprocalGrad give 0 where dy == 0 whatever y is (y = 0 or inf would
// otherwise make 0 * inf = NaN), as TensorFlow does, so a zero upstream gradient never turns NaN.

// 0.5 * dy / y (Note [Zero gradient stays zero]).
struct SqrtGradFn : NoAttrs {
  static constexpr int64_t kCost = 4;
  template <typename T>
  void Run(const T* y, const T* dy, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = dy[i] == T(0) ? T(0) : (T(0.5) * dy[i]) / y[i];
  }
};

// -0.5 * (dy * y) * (y * y) (Note [Zero gradient stays zero]).
struct RsqrtGradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* y, const T* dy, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = dy[i] == T(0) ? T(0) : T(-0.5) * (dy[i] * y[i]) * (y[i] * y[i]);
  }
};

// -y * y * dy (Note [Zero gradient stays zero]).
struct ReciprocalGradFn : NoAttrs {
  static constexpr int64_t kCost = 1;
  template <typename T>
  void Run(const T* y, const T* dy, T* z, int64_t n) const {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = dy[i] == T(0) ? T(0) : -y[i] * y[i] * dy[i];
  }
};

}  // namespace cpu
}  // namespace tx

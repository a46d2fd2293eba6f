// Explicitly vectorized folds for the min/max family (GCC vector extensions: gcc does not
// vectorize float max/min reductions on its own without -ffast-math).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tx {
namespace cpu {

// Folds x[0..n) with `f(acc, v)` (a max or min written as a ternary, applied to 32-byte vectors
// and to scalars) starting from `init`; sets *saw_nan when some element is NaN (floats only).
// NaN elements never win inside f, so the result is the extreme of the non-NaN elements.
template <typename T, typename F>
T VecExtreme(const T* x, int64_t n, T init, const F& f, bool* saw_nan) {
  constexpr int W = 32 / sizeof(T);
  typedef T V __attribute__((vector_size(32)));
  using MI = std::conditional_t<
      sizeof(T) == 8, int64_t,
      std::conditional_t<sizeof(T) == 4, int32_t, std::conditional_t<sizeof(T) == 2, int16_t, int8_t>>>;
  typedef MI M __attribute__((vector_size(32)));
  V acc[4];
  M nan[4] = {};
  for (int k = 0; k < 4; ++k)
    for (int w = 0; w < W; ++w) acc[k][w] = init;
  int64_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W)
    for (int k = 0; k < 4; ++k) {
      V v;
      std::memcpy(&v, x + i + k * W, sizeof(V));
      acc[k] = f(acc[k], v);
      if constexpr (std::is_floating_point_v<T>) nan[k] |= (v != v);
    }
  T s = init;
  MI any = 0;
  for (int k = 0; k < 4; ++k)
    for (int w = 0; w < W; ++w) {
      s = f(s, acc[k][w]);
      any |= nan[k][w];
    }
  for (; i < n; ++i) {
    s = f(s, x[i]);
    if constexpr (std::is_floating_point_v<T>) any |= x[i] != x[i];
  }
  *saw_nan = any != 0;
  return s;
}

}  // namespace cpu
}  // namespace tx

namespace tx {
namespace cpu {

// One pass over x[0..n) (4- or 8-byte T, n < 2^31 for 4-byte T) finding the first index of the
// extreme element under `better(v, best)` (a strict > or <, vector-capable; NaNs never better).
// Returns -1 when no element is better than `init` (every element NaN or equal to init).
template <typename T, typename B>
int64_t VecArgExtreme(const T* x, int64_t n, T init, const B& better) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "4- or 8-byte elements");
  constexpr int W = 32 / sizeof(T);
  using I = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;
  typedef T V __attribute__((vector_size(32)));
  typedef I IV __attribute__((vector_size(32)));
  V acc;
  IV idx, cur, step;
  for (int w = 0; w < W; ++w) {
    acc[w] = init;
    idx[w] = -1;
    cur[w] = static_cast<I>(w);
    step[w] = static_cast<I>(W);
  }
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    V v;
    std::memcpy(&v, x + i, sizeof(V));
    const IV m = better(v, acc);  // all-ones lanes where v wins
    acc = m ? v : acc;
    idx = m ? cur : idx;
    cur += step;
  }
  T best = init;
  int64_t best_i = -1;
  for (int w = 0; w < W; ++w) {  // lanes hold the first index of their own extreme
    if (idx[w] < 0) continue;
    if (best_i < 0 || better(acc[w], best) || (acc[w] == best && idx[w] < best_i)) {
      best = acc[w];
      best_i = idx[w];
    }
  }
  for (; i < n; ++i)
    if (better(x[i], best)) {
      best = x[i];
      best_i = i;
    }
  return best_i;
}

}  // namespace cpu
}  // namespace tx

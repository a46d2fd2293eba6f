// NumPy broadcasting for binary elementwise kernels: a plan with adjacent dimensions collapsed,
// and the loops that run it (Note [Broadcast plan]).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "tensorflux/core/shape.h"
#include "tensorflux/core/status.h"
#include "tensorflux/core/thread_pool.h"
#include "tensorflux/kernels/cpu/convert16.h"
#include "tensorflux/kernels/cpu/kernel_util.h"

namespace tx {
namespace cpu {

// How inputs x and y map onto their broadcast output. `dims` lists the output's dimensions after
// dropping size-1 ones and merging neighbours that broadcast the same way (outermost first, never
// empty); x_strides/y_strides give each input's element stride per dim, 0 where it is broadcast.
struct BroadcastPlan {
  TensorShape out_shape;
  std::vector<int64_t> dims, x_strides, y_strides;
};

// Builds the plan for shapes x and y; InvalidArgument("Incompatible shapes: [2,3] vs. [4]") when
// they do not broadcast.
Status MakeBroadcastPlan(const TensorShape& x, const TensorShape& y, BroadcastPlan* plan);

// What Op gives on T: T when Op maps T's compute type to itself (16-bit floats compute in float,
// Note [16-bit floats]), otherwise Op's result type (bool for comparisons).
template <typename T, typename Op>
using BinaryOutT =
    std::conditional_t<std::is_same_v<decltype(Op::Apply(ComputeType<T>(), ComputeType<T>())), ComputeType<T>>, T,
                       decltype(Op::Apply(ComputeType<T>(), ComputeType<T>()))>;

// z[i] = Op::Apply(xf[i], yf[i]) on 16-bit floats: `load(b, m, xf, yf)` widens elements [b, b + m)
// of both operands into float blocks; each result is rounded once (z may alias an input).
template <typename T, typename Op, typename Out, typename Load>
inline void Apply16(Out* z, int64_t n, const Load& load) {
  using R = decltype(Op::Apply(0.0f, 0.0f));
  float xf[kConvertBlock], yf[kConvertBlock];
  R r[kConvertBlock];
  for (int64_t b = 0; b < n; b += kConvertBlock) {
    const int64_t m = std::min(kConvertBlock, n - b);
    load(b, m, xf, yf);
#pragma GCC ivdep
    for (int64_t i = 0; i < m; ++i) r[i] = Op::Apply(xf[i], yf[i]);
    if constexpr (std::is_same_v<R, float>)
      FromFloat(r, z + b, m);
    else
      std::copy(r, r + m, z + b);
  }
}

// z[i] = Op::Apply(x[i], y[i]) for i < n (z may alias x or y). Out is T, or bool for comparisons.
template <typename T, typename Op, typename Out>
inline void ApplyVV(const T* x, const T* y, Out* z, int64_t n) {
  if constexpr (kIsFloat16<T>) {
    Apply16<T, Op>(z, n, [&](int64_t b, int64_t m, float* xf, float* yf) {
      ToFloat(x + b, xf, m);
      ToFloat(y + b, yf, m);
    });
  } else {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = Op::Apply(x[i], y[i]);
  }
}

// z[i] = Op::Apply(x, y[i]) for i < n (z may alias y).
template <typename T, typename Op, typename Out>
inline void ApplySV(T x, const T* y, Out* z, int64_t n) {
  if constexpr (kIsFloat16<T>) {
    const float xs = static_cast<float>(x);
    Apply16<T, Op>(z, n, [&](int64_t b, int64_t m, float* xf, float* yf) {
      std::fill(xf, xf + m, xs);
      ToFloat(y + b, yf, m);
    });
  } else {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = Op::Apply(x, y[i]);
  }
}

// z[i] = Op::Apply(x[i], y) for i < n (z may alias x).
template <typename T, typename Op, typename Out>
inline void ApplyVS(const T* x, T y, Out* z, int64_t n) {
  if constexpr (kIsFloat16<T>) {
    const float ys = static_cast<float>(y);
    Apply16<T, Op>(z, n, [&](int64_t b, int64_t m, float* xf, float* yf) {
      ToFloat(x + b, xf, m);
      std::fill(yf, yf + m, ys);
    });
  } else {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) z[i] = Op::Apply(x[i], y);
  }
}

// Runs a plan whose inner dimension is short and whose only other dimension repeats one input
// (the [N,C] + [C] pattern): that input is tiled to a longer row so the loop runs on long vectors.
template <typename T, typename Op, typename Out>
void RunTiled2D(const BroadcastPlan& p, const T* x, const T* y, Out* z, ThreadPool* pool) {
  const int64_t rows = p.dims[0], inner = p.dims[1];
  const bool x_repeats = p.x_strides[0] == 0;
  const T* full = x_repeats ? y : x;
  const T* row = x_repeats ? x : y;
  const int64_t k = std::max<int64_t>(1, 1024 / inner);  // rows per tile
  const int64_t tile_len = k * inner;
  std::unique_ptr<T[]> tile(new T[static_cast<size_t>(tile_len)]);  // not std::vector: T may be bool
  for (int64_t r = 0; r < k; ++r) std::copy(row, row + inner, tile.get() + r * inner);
  const int64_t tiles = rows / k;
  ParallelItems(pool, tiles, tile_len, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t off = t * tile_len;
      if (x_repeats)
        ApplyVV<T, Op>(tile.get(), full + off, z + off, tile_len);
      else
        ApplyVV<T, Op>(full + off, tile.get(), z + off, tile_len);
    }
  });
  const int64_t done = tiles * tile_len, rest = rows * inner - done;
  if (x_repeats)
    ApplyVV<T, Op>(tile.get(), full + done, z + done, rest);
  else
    ApplyVV<T, Op>(full + done, tile.get(), z + done, rest);
}

// Computes z = Op(x, y) over the plan's output (z is contiguous; it may alias an input of the
// output's shape). Splits rows over `pool` when the output is large.
template <typename T, typename Op, typename Out>
void RunBroadcast(const BroadcastPlan& p, const T* x, const T* y, Out* z, ThreadPool* pool) {
  const int r = static_cast<int>(p.dims.size());
  const int64_t inner = p.dims[r - 1];
  const int64_t sx = p.x_strides[r - 1], sy = p.y_strides[r - 1];
  if (r == 2 && inner < 256 && sx == 1 && sy == 1 && (p.x_strides[0] == 0) != (p.y_strides[0] == 0)) {
    RunTiled2D<T, Op>(p, x, y, z, pool);
    return;
  }
  int64_t rows = 1;
  for (int k = 0; k + 1 < r; ++k) rows *= p.dims[k];
  ParallelItems(pool, rows, inner, [&](int64_t begin, int64_t end) {
    // Decompose the first row index into per-dim indices and input offsets.
    std::vector<int64_t> idx(static_cast<size_t>(std::max(r - 1, 1)), 0);
    int64_t xo = 0, yo = 0, rem = begin;
    for (int k = r - 2; k >= 0; --k) {
      idx[k] = rem % p.dims[k];
      rem /= p.dims[k];
      xo += idx[k] * p.x_strides[k];
      yo += idx[k] * p.y_strides[k];
    }
    for (int64_t row = begin; row < end; ++row) {
      Out* zr = z + row * inner;
      if (sx != 0 && sy != 0)
        ApplyVV<T, Op>(x + xo, y + yo, zr, inner);
      else if (sx == 0 && sy != 0)
        ApplySV<T, Op>(x[xo], y + yo, zr, inner);
      else if (sx != 0)
        ApplyVS<T, Op>(x + xo, y[yo], zr, inner);
      else {
        ApplyVV<T, Op>(x + xo, y + yo, zr, 1);
        std::fill(zr + 1, zr + inner, zr[0]);
      }
      for (int k = r - 2; k >= 0; --k) {  // advance to the next row
        xo += p.x_strides[k];
        yo += p.y_strides[k];
        if (++idx[k] < p.dims[k]) break;
        xo -= p.x_strides[k] * p.dims[k];
        yo -= p.y_strides[k] * p.dims[k];
        idx[k] = 0;
      }
    }
  });
}

}  // namespace cpu
}  // namespace tx

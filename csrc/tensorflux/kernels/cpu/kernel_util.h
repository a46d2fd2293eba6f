// Small helpers shared by the CPU kernels: input validation and parallel ranges.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>

#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/core/thread_pool.h"
#include "tensorflux/runtime/op_kernel.h"

// Sets `expr`'s status on `ctx` and returns from the enclosing Compute when it is not OK.
#define TX_CTX_RETURN_IF_ERROR(ctx, expr) \
  do {                                    \
    ::tx::Status _tx_s = (expr);          \
    if (!_tx_s.ok()) {                    \
      (ctx)->SetStatus(_tx_s);            \
      return;                             \
    }                                     \
  } while (0)

namespace tx {
namespace cpu {

// Checks that input `i` has type `dtype` and a buffer large enough for its shape.
inline Status CheckInput(const OpKernelContext* ctx, int i, DataType dtype) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() != dtype)
    return InvalidArgument("input ", i, " has type ", DataTypeString(t.dtype()), " but the kernel expects ",
                           DataTypeString(dtype));
  if (t.num_elements() > 0 && (!t.initialized() || t.buffer()->size() < t.byte_size()))
    return InvalidArgument("input ", i, " of shape ", t.shape().ToString(), " holds no data or too little data");
  return Status::OK();
}

// Below this much work (about one unit per simple element operation) a kernel stays on one thread.
inline constexpr int64_t kParallelMinCost = 32768;
// Parallel ranges start at multiples of this many elements, keeping vector loops aligned.
inline constexpr int64_t kParallelGrain = 64;

// True when `n` items costing `cost` units each are worth splitting over `pool`.
inline bool WorthParallel(const ThreadPool* pool, int64_t n, int64_t cost) {
  if (pool == nullptr || pool->num_threads() == 0 || n < 2) return false;
  return n >= kParallelMinCost / std::max<int64_t>(cost, 1);
}

// Calls fn(begin, end) over disjoint ranges covering [0, n), on several threads of `pool` when
// n * cost_per_elem reaches kParallelMinCost; returns when every range is done.
template <typename F>
void ParallelRange(ThreadPool* pool, int64_t n, int64_t cost_per_elem, const F& fn) {
  if (n <= 0) return;
  if (!WorthParallel(pool, n, cost_per_elem)) {
    fn(int64_t{0}, n);
    return;
  }
  const int64_t units = (n + kParallelGrain - 1) / kParallelGrain;
  pool->ParallelFor(units, kParallelGrain * std::max<int64_t>(cost_per_elem, 1),
                    [&](int64_t b, int64_t e) { fn(b * kParallelGrain, std::min(n, e * kParallelGrain)); });
}

// Like ParallelRange but over `n` items of `cost` units each with no alignment (rows, blocks).
template <typename F>
void ParallelItems(ThreadPool* pool, int64_t n, int64_t cost, const F& fn) {
  if (n <= 0) return;
  if (!WorthParallel(pool, n, cost)) {
    fn(int64_t{0}, n);
    return;
  }
  pool->ParallelFor(n, std::max<int64_t>(cost, 1), [&](int64_t b, int64_t e) { fn(b, e); });
}

// Calls fn(begin, end) over blocks of `block` items covering [0, total), the intra-op threads
// claiming blocks one at a time: a thread the OS delays (the cores are shared) leaves its blocks
// to the others instead of holding up the whole op, as fixed per-thread ranges would.
// cost_per_item (~cycles) must be at most 2^30.
inline void ParallelClaims(ThreadPool* pool, int64_t total, int64_t block, int64_t cost_per_item,
                           const std::function<void(int64_t, int64_t)>& fn) {
  std::atomic<int64_t> next{0};
  const int64_t threads = pool->num_threads() + 1;
  // cost_per_item is at most 2^30, so this cannot overflow.
  const int64_t cost_per_thread = std::min<int64_t>(total / threads + 1, int64_t{1} << 20) * cost_per_item;
  pool->ParallelFor(threads, cost_per_thread, [&](int64_t, int64_t) {
    for (int64_t b = next.fetch_add(block); b < total; b = next.fetch_add(block)) fn(b, std::min(total, b + block));
  });
}

}  // namespace cpu
}  // namespace tx

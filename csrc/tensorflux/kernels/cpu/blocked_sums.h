// Parallel sums into a small vector: each block of items accumulates privately, then blocks add up.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"

namespace tx {
namespace cpu {

// Sets out[0, width) to the sum over items [0, n) of what fn(begin, end, acc) adds into its
// zeroed accumulator `acc` (width values) for the items in [begin, end). The items are split into
// at most one block per thread of `pool` (one block when the work is small), so the result does
// not depend on scheduling; `cost` is the work of one item.
template <typename Acc, typename F>
void BlockedSums(ThreadPool* pool, int64_t n, int64_t cost, int64_t width, Acc* out, const F& fn) {
  const int64_t blocks = WorthParallel(pool, n, cost) ? std::min<int64_t>(n, pool->num_threads() + 1) : int64_t{1};
  std::vector<Acc> sums(blocks * width, Acc(0));
  ParallelItems(pool, blocks, std::max<int64_t>(1, n / blocks) * cost, [&](int64_t b, int64_t e) {
    for (int64_t blk = b; blk < e; ++blk) fn(n * blk / blocks, n * (blk + 1) / blocks, sums.data() + blk * width);
  });
  std::copy(sums.begin(), sums.begin() + width, out);
  for (int64_t blk = 1; blk < blocks; ++blk) {
    const Acc* s = sums.data() + blk * width;
    for (int64_t i = 0; i < width; ++i) out[i] += s[i];
  }
}

}  // namespace cpu
}  // namespace tx

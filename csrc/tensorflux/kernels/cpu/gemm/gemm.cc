#include "tensorflux/kernels/cpu/gemm/gemm.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <thread>
#include <type_traits>
#include <vector>

#include "tensorflux/kernels/cpu/gemm/gemm_kernels.h"
#include "tensorflux/kernels/cpu/gemm/gemm_pack.h"

namespace tx {
namespace cpu {
namespace gemm {
namespace {

// Below this many multiply-adds a product runs on the calling thread alone (a parallel_for
// costs a few microseconds; 2^20 multiply-adds take about 30 on one AVX2 core).
constexpr double kMinParallelWork = double{1 << 20};
// Products with at most this many rows of C take the unpacked small-M path (Note [Own GEMM]),
// those with more than kRowsPerPass only when B is stored [k, n] or does not fit in L2. On the
// 2-core AMD EPYC (medians, one thread): 5 x 1024 x 1024 ran at 31 GFLOP/s packed and 41 in two
// passes over B, 8 x 1024 x 1024 at 37 and 49; with B stored [n, k], 8 x 256 x 256 at 39 packed
// and 25 in dot products.
constexpr int64_t kSmallM = 2 * kRowsPerPass;
// The same as kMinParallelWork for the small-M path, which streams B and is bound by memory: on
// the same machine two threads first matched one at 2^24 multiply-adds (4 x 4096 x 4096).
constexpr double kMinParallelSmallM = double{1 << 24};
// Bgemm products with at most this many columns of C take the narrow kernels (Note [bf16 GEMM]).
constexpr int64_t kNarrowN = 16;
// Rows of C per work item of the narrow kernels: a transposed A is read in runs of this many values.
constexpr int64_t kNarrowItemRows = 128;
// What packing one float of A costs, in multiply-adds of the tile kernels (Note [Own GEMM]).
constexpr int64_t kPackCostA = 16;
// Columns of B packed at once, row by row across their panels (long contiguous reads of B).
constexpr int64_t kGroupColumns = 128;
// Work items with at most this many B panels read A in place: packing it would cost more than it saves.
constexpr int64_t kMaxUnpackedAPanels = 4;
// Row blocks per thread the packed path aims for when threads share a product, and the fewest
// register tiles such a block has.
constexpr int64_t kItemsPerThread = 4;
constexpr int64_t kMinTilesPerBlock = 4;
// Largest packed B strip, in bytes (Note [Own GEMM]); buffers up to this size are kept per thread.
constexpr int64_t kMaxStripBytes = int64_t{8} << 20;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

// Data cache sizes in bytes; sysconf's where it reports them, else typical ones.
struct Caches {
  int64_t l1 = 32 << 10, l2 = 512 << 10, l3 = 8 << 20;
};

int64_t CacheSize(int name, int64_t fallback, int64_t lo, int64_t hi) {
  const long v = sysconf(name);
  return v <= 0 ? fallback : std::clamp<int64_t>(v, lo, hi);
}

const Caches& DetectedCaches() {
  static const Caches caches = [] {
    Caches c;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
    c.l1 = CacheSize(_SC_LEVEL1_DCACHE_SIZE, c.l1, 16 << 10, 256 << 10);
    c.l2 = CacheSize(_SC_LEVEL2_CACHE_SIZE, c.l2, 128 << 10, 8 << 20);
    c.l3 = CacheSize(_SC_LEVEL3_CACHE_SIZE, c.l3, 1 << 20, int64_t{512} << 20);
#endif
    return c;
  }();
  return caches;
}

// The largest blocks of one kernel set: kc rows of B per packed panel, mc rows of A per block.
struct Blocking {
  int64_t kc, mc;
};

// Blocking for mr x nr tiles, budgeting `bytes` bytes per packed value.
Blocking BlockingFor(int64_t mr, int64_t nr, int64_t bytes) {
  const Caches& c = DetectedCaches();
  Blocking b;
  b.kc = std::clamp<int64_t>(c.l1 / 2 / (bytes * nr) / 8 * 8, 64, 1024);
  b.mc = std::clamp<int64_t>(c.l2 / 2 / (bytes * b.kc) / mr * mr, mr, 64 * mr);
  return b;
}

// A 64-byte aligned buffer that grows on demand.
class Buffer {
 public:
  ~Buffer() { std::free(data_); }
  // Room for n values of T (contents are not kept).
  template <typename T>
  T* Get(int64_t n) {
    const int64_t bytes = RoundUp(n * int64_t{sizeof(T)}, 64);
    if (bytes > size_) {
      std::free(data_);
      data_ = std::aligned_alloc(64, static_cast<size_t>(bytes));
      size_ = data_ == nullptr ? 0 : bytes;
      if (data_ == nullptr) throw std::bad_alloc();
    }
    return static_cast<T*>(data_);
  }
  // Frees the memory when it holds more than `bytes`.
  void Trim(int64_t bytes) {
    if (size_ > bytes) std::free(data_), data_ = nullptr, size_ = 0;
  }

 private:
  void* data_ = nullptr;
  int64_t size_ = 0;
};

// Runs fn(item) for items [0, count) on `threads` threads, each claiming the next item.
template <typename F>
void ForItems(const GemmThreads* th, int threads, int64_t count, const F& fn) {
  if (threads <= 1 || count <= 1) {
    for (int64_t i = 0; i < count; ++i) fn(i);
    return;
  }
  std::atomic<int64_t> next{0};
  th->parallel_for(std::min<int64_t>(threads, count), [&](int64_t, int64_t) {
    for (int64_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) fn(i);
  });
}

// C = beta * C, reading C only when beta is not 0 (GemmArgs or BgemmArgs).
template <typename Args>
void ScaleC(const Args& g) {
  for (int64_t i = 0; i < g.m; ++i) {
    float* row = g.c + i * g.ldc;
    if (g.beta == 0.0f)
      std::fill(row, row + g.n, 0.0f);
    else if (g.beta != 1.0f)
      for (int64_t j = 0; j < g.n; ++j) row[j] *= g.beta;
  }
}

// The rows of op(A) = A^T for A stored [k, m] (rows lda apart), copied into `rows` (m * k values,
// rows k apart) for the dots kernels, which read rows of op(A).
template <typename T>
void GatherRowsOfTransposed(const T* a, int64_t lda, int64_t m, int64_t k, std::vector<T>* rows) {
  rows->resize(static_cast<size_t>(m * k));
  for (int64_t p = 0; p < k; ++p)
    for (int64_t i = 0; i < m; ++i) (*rows)[i * k + p] = a[p * lda + i];
}

// The few-row drivers' loop: C's n columns cut into chunks of whole `grain`s, one work item per
// chunk across `threads`, each running pass(j0, cols, i0, rows) over passes of up to
// kRowsPerPass of C's m rows.
template <typename Pass>
void ForSmallMPasses(const GemmThreads* th, int threads, int64_t m, int64_t n, int64_t grain, const Pass& pass) {
  const int64_t parts = std::min<int64_t>(threads > 1 ? threads * kItemsPerThread : 1, CeilDiv(n, grain));
  const int64_t per = RoundUp(CeilDiv(n, parts), grain);
  ForItems(th, threads, CeilDiv(n, per), [&](int64_t part) {
    const int64_t j0 = part * per, cols = std::min(per, n - j0);
    for (int64_t i0 = 0; i0 < m; i0 += kRowsPerPass)
      pass(j0, cols, i0, static_cast<int>(std::min<int64_t>(kRowsPerPass, m - i0)));
  });
}

// m <= kSmallM: the rows or dots kernels on A and B in place, up to kRowsPerPass rows of C per
// pass over B, threads splitting C's columns.
void SmallM(const KernelSet& ks, const GemmArgs& g, const GemmThreads* th, int threads) {
  std::vector<float> rows;
  const float* a = g.a;
  int64_t lda = g.lda;
  if (g.trans_b && g.trans_a) {  // the dots kernels read rows of op(A)
    GatherRowsOfTransposed(g.a, g.lda, g.m, g.k, &rows);
    a = rows.data();
    lda = g.k;
  }
  // Column chunks: whole cache lines of C, or 8 dot products.
  ForSmallMPasses(th, threads, g.m, g.n, g.trans_b ? 8 : 16, [&](int64_t j0, int64_t cols, int64_t i0, int m) {
    float* c = g.c + i0 * g.ldc + j0;
    if (g.trans_b) {
      ks.dots(m, cols, g.k, g.alpha, a + i0 * lda, lda, g.b + j0 * g.ldb, g.ldb, g.beta, c, g.ldc);
    } else {
      ks.rows(m, cols, g.k, g.alpha, g.trans_a ? a + i0 : a + i0 * lda, g.trans_a ? 1 : lda, g.trans_a ? lda : 1,
              g.b + j0, g.ldb, g.beta, c, g.ldc);
    }
  });
}

// How the packed path cuts one strip of C into work items: row blocks of `rows` rows (a
// multiple of mr) by column chunks of `panels` B panels.
struct Split {
  int64_t rows, panels, row_blocks, chunks;
};

// The split T = pm x pn with the least work on the busiest thread (Note [Own GEMM]).
template <typename Ops>
Split PlanSplit(const Ops& ks, const Blocking& bl, int64_t m, int64_t k, int64_t panels, int threads) {
  const int64_t tiles = CeilDiv(m, ks.mr);
  int64_t best_pm = 1;
  double best_cost = 0;
  for (int64_t t = threads; t >= 1; --t) {
    if (threads % t != 0) continue;
    // Neither side is cut finer than its tiles.
    const int64_t pm = std::min(t, tiles), pn = std::min<int64_t>(threads / t, panels);
    const double compute = double(CeilDiv(tiles, pm) * ks.mr) * double(CeilDiv(panels, pn) * ks.nr) * double(k);
    const double cost = compute + double(kPackCostA) * double(CeilDiv(m, pm)) * double(k);
    if (t == threads || cost < best_cost) best_pm = t, best_cost = cost;
  }
  const int64_t pm = std::min(best_pm, tiles), pn = std::min<int64_t>(threads / best_pm, panels);
  Split s;
  // Several row blocks per thread when threads share the work, so a thread the OS stops holds
  // up only a small item (the others claim the rest), but each of kMinTilesPerBlock tiles at
  // least, as a B panel brought into L1 serves only the tiles of one block.
  const int64_t per_thread = threads > 1 ? kItemsPerThread : 1;
  s.row_blocks = std::max(CeilDiv(m, bl.mc), std::min(pm * per_thread, std::max(pm, tiles / kMinTilesPerBlock)));
  s.rows = RoundUp(CeilDiv(m, s.row_blocks), ks.mr);
  s.row_blocks = CeilDiv(m, s.rows);
  s.panels = CeilDiv(panels, pn);
  s.chunks = CeilDiv(panels, s.panels);
  return s;
}

// The packed path (Note [Own GEMM]) over `ops`, one element type's packers and tile kernel (the
// *Packing structs below): ops.mr, ops.nr, Ops::P (the packed panels' type), Ops::kKStep (panels
// hold K rounded up to a multiple of it), Ops::kBlockBytes (bytes per value in the kc and mc
// budgets), PackA, PackB, Tile, and with Ops::kInPlaceA, TileInPlace (a tile on A as stored).
template <typename Ops, typename Args>
void Packed(const Ops& ops, const Args& g, const GemmThreads* th, int threads) {
  using P = typename Ops::P;
  const Blocking bl = BlockingFor(ops.mr, ops.nr, Ops::kBlockBytes);
  const int64_t mr = ops.mr, nr = ops.nr, group = std::max<int64_t>(1, kGroupColumns / nr);
  auto panel_k = [](int64_t kcb) { return RoundUp(kcb, Ops::kKStep); };
  // K blocks of (nearly) equal length, a multiple of 8 each but the last.
  const int64_t kc = RoundUp(CeilDiv(g.k, CeilDiv(g.k, bl.kc)), 8);
  const int64_t kblocks = CeilDiv(g.k, kc);
  // Column strips of equal width whose packed B fits the strip budget.
  const int64_t budget = std::min(DetectedCaches().l3 / 2, kMaxStripBytes) / int64_t{sizeof(P)};
  int64_t nc = std::max(nr, budget / std::max<int64_t>(g.k, 1) / nr * nr);
  nc = RoundUp(CeilDiv(g.n, CeilDiv(g.n, nc)), nr);
  thread_local Buffer strip_buffer;  // the calling thread's; the workers fill and read it
  for (int64_t j0 = 0; j0 < g.n; j0 += nc) {
    const int64_t ns = std::min(nc, g.n - j0), panels = CeilDiv(ns, nr), groups = CeilDiv(panels, group);
    P* strip = strip_buffer.Get<P>(panel_k(g.k) * panels * nr);
    // Panel (pb, jp): K block pb of panel jp, kcb x nr values; the panels of a group are adjacent.
    auto panel = [&](int64_t pb, int64_t jp) {
      return strip + pb * kc * panels * nr + jp * panel_k(std::min(kc, g.k - pb * kc)) * nr;
    };
    // Each group of panels is packed by the first thread that needs it: 0 = not yet, 1 = being
    // packed, 2 = ready.
    std::unique_ptr<std::atomic<int>[]> state(new std::atomic<int>[kblocks * groups]);
    for (int64_t i = 0; i < kblocks * groups; ++i) state[i].store(0, std::memory_order_relaxed);
    // Whether group gr of K block pb is packed, packing it when no thread has started to; with
    // `wait`, waits for a thread that has (it is running, so it finishes).
    auto packed = [&](int64_t pb, int64_t gr, bool wait) {
      std::atomic<int>& s = state[pb * groups + gr];
      if (s.load(std::memory_order_acquire) == 2) return true;
      int expected = 0;
      if (s.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
        const int64_t k0 = pb * kc, c0 = gr * group * nr;
        ops.PackB(g, k0, std::min(kc, g.k - k0), j0 + c0, std::min(group * nr, ns - c0), panel(pb, gr * group));
        s.store(2, std::memory_order_release);
        return true;
      }
      while (wait && s.load(std::memory_order_acquire) != 2) std::this_thread::yield();
      return wait;
    };
    const Split sp = PlanSplit(ops, bl, g.m, g.k, panels, threads);
    // Few panels per item: A is read in place rather than packed for them, where the kernels can.
    const bool pack_a = !Ops::kInPlaceA || sp.panels > kMaxUnpackedAPanels;
    ForItems(th, threads, sp.row_blocks * sp.chunks, [&](int64_t item) {
      const int64_t rb = item / sp.chunks, i0 = rb * sp.rows, i1 = std::min(g.m, i0 + sp.rows);
      const int64_t p0 = (item % sp.chunks) * sp.panels, p1 = std::min(panels, p0 + sp.panels);
      // Threads on other row blocks of the chunk start at other panels, so they pack different ones.
      const int64_t rotate = (rb % threads) * (p1 - p0) / threads;
      thread_local Buffer a_buffer;
      thread_local std::vector<int64_t> deferred;
      P* a_block = pack_a ? a_buffer.Get<P>(RoundUp(i1 - i0, mr) * panel_k(kc)) : nullptr;
      for (int64_t pb = 0; pb < kblocks; ++pb) {
        const int64_t k0 = pb * kc, kcb = std::min(kc, g.k - k0);
        const float beta = pb == 0 ? g.beta : 1.0f;
        if (pack_a) ops.PackA(g, i0, i1 - i0, k0, kcb, a_block);
        // The panels in order (from `rotate`), those whose group another thread is packing last.
        auto run_panel = [&](int64_t jp) {
          const P* bp = panel(pb, jp);
          const int64_t j = j0 + jp * nr;
          const int cols = static_cast<int>(std::min(nr, g.n - j));
          for (int64_t ir = i0; ir < i1; ir += mr) {
            const int rows = static_cast<int>(std::min(mr, i1 - ir));
            float* cp = g.c + ir * g.ldc + j;
            if (pack_a)
              ops.Tile(kcb, a_block + (ir - i0) * panel_k(kcb), bp, cp, g.ldc, g.alpha, beta, rows, cols);
            else if constexpr (Ops::kInPlaceA)
              ops.TileInPlace(g, ir, k0, kcb, bp, cp, beta, rows, cols);
          }
        };
        deferred.clear();
        for (int64_t q = 0; q < p1 - p0; ++q) {
          const int64_t jp = p0 + (q + rotate) % (p1 - p0);
          if (packed(pb, jp / group, false))
            run_panel(jp);
          else
            deferred.push_back(jp);
        }
        for (int64_t jp : deferred) {
          packed(pb, jp / group, true);
          run_panel(jp);
        }
      }
    });
  }
  strip_buffer.Trim(kMaxStripBytes);
}

// The tiles of a KernelSet's float32 kernels on packed panels.
struct FloatTiles {
  using P = float;
  static constexpr int64_t kKStep = 1;
  static constexpr int64_t kBlockBytes = sizeof(float);
  const KernelSet& ks;
  int mr = ks.mr, nr = ks.nr;
  void Tile(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float alpha, float beta, int rows,
            int cols) const {
    ks.tile(kc, a, ks.mr, b, c, ldc, alpha, beta, rows, cols);
  }
};

// The float32 kernels of a KernelSet on float32 operands.
struct FloatPacking : FloatTiles {
  static constexpr bool kInPlaceA = true;
  void PackA(const GemmArgs& g, int64_t i0, int64_t rows, int64_t k0, int64_t kc, float* dst) const {
    gemm::PackA(ks, g.trans_a, g.a, g.lda, i0, rows, k0, kc, dst);
  }
  void PackB(const GemmArgs& g, int64_t k0, int64_t kc, int64_t j0, int64_t cols, float* dst) const {
    gemm::PackB(ks, g.trans_b, g.b, g.ldb, k0, kc, j0, cols, dst);
  }
  void TileInPlace(const GemmArgs& g, int64_t ir, int64_t k0, int64_t kc, const float* b, float* c, float beta,
                   int rows, int cols) const {
    if (g.trans_a)
      ks.tile(kc, g.a + k0 * g.lda + ir, g.lda, b, c, g.ldc, g.alpha, beta, rows, cols);
    else
      ks.tile_row_major_a(kc, g.a + ir * g.lda + k0, g.lda, b, c, g.ldc, g.alpha, beta, rows, cols);
  }
};

// The stored bfloat16 bits of `x` (BFloat16 is its bits).
const uint16_t* Bits(const BFloat16* x) { return reinterpret_cast<const uint16_t*>(x); }

// The VDPBF16PS kernels on bfloat16 operands (Note [bf16 GEMM]).
struct PairPacking {
  using P = uint16_t;
  static constexpr int64_t kKStep = 2;
  // Half a value's 2 bytes: kc = 512 and mc = 896 (32 KiB L1, 1 MiB L2) ran square 1024 and
  // 2048 about 10% faster than kc = 256, mc = 896 on the AMD EPYC (Note [bf16 GEMM]).
  static constexpr int64_t kBlockBytes = 1;
  static constexpr bool kInPlaceA = false;
  const Bf16KernelSet& ks;
  int mr = ks.mr, nr = ks.nr;
  void PackA(const BgemmArgs& g, int64_t i0, int64_t rows, int64_t k0, int64_t kc, uint16_t* dst) const {
    for (int64_t r = 0; r < rows; r += mr, dst += RoundUp(kc, kKStep) * mr) {
      const int count = static_cast<int>(std::min<int64_t>(mr, rows - r));
      if (g.trans_a)  // op(A)'s rows are A's columns
        ks.interleave_a(Bits(g.a) + k0 * g.lda + i0 + r, g.lda, count, kc, dst);
      else
        ks.gather_a(Bits(g.a) + (i0 + r) * g.lda + k0, g.lda, count, kc, dst);
    }
  }
  void PackB(const BgemmArgs& g, int64_t k0, int64_t kc, int64_t j0, int64_t cols, uint16_t* dst) const {
    for (int64_t q = 0; q * nr < cols; ++q, dst += RoundUp(kc, kKStep) * nr) {
      const int count = static_cast<int>(std::min<int64_t>(nr, cols - q * nr));
      if (g.trans_b)  // op(B)'s columns are B's rows
        ks.gather_b(Bits(g.b) + (j0 + q * nr) * g.ldb + k0, g.ldb, count, kc, dst);
      else
        ks.interleave_b(Bits(g.b) + k0 * g.ldb + j0 + q * nr, g.ldb, count, kc, dst);
    }
  }
  void Tile(int64_t kc, const uint16_t* a, const uint16_t* b, float* c, int64_t ldc, float alpha, float beta, int rows,
            int cols) const {
    ks.tile(kc, a, b, c, ldc, alpha, beta, rows, cols);
  }
};

// Few rows of C on the VDPBF16PS kernels (Note [bf16 GEMM]): nothing packed but op(A)'s pairs
// (B stored [k, n]) or rows (A stored [k, m] with B stored [n, k]); up to kRowsPerPass rows of C
// per pass over B, threads splitting C's columns.
void SmallMPairs(const Bf16KernelSet& ks, const BgemmArgs& g, const GemmThreads* th, int threads) {
  const uint16_t *a = Bits(g.a), *b = Bits(g.b);
  const int64_t pairs = CeilDiv(g.k, 2);
  std::vector<int32_t> a_pairs;  // pass i0's pairs at i0 * pairs: [q][row of the pass]
  std::vector<uint16_t> a_rows;  // the dots kernels read rows of op(A)
  int64_t lda = g.lda;
  auto op_a = [&](int64_t i, int64_t p) -> uint32_t { return g.trans_a ? a[p * g.lda + i] : a[i * g.lda + p]; };
  if (!g.trans_b) {
    a_pairs.resize(static_cast<size_t>(g.m * pairs));
    for (int64_t i0 = 0; i0 < g.m; i0 += kRowsPerPass) {
      const int64_t rows = std::min<int64_t>(kRowsPerPass, g.m - i0);
      for (int64_t q = 0; q < pairs; ++q)
        for (int64_t i = 0; i < rows; ++i) {
          const uint32_t hi = 2 * q + 1 < g.k ? op_a(i0 + i, 2 * q + 1) : 0;
          a_pairs[i0 * pairs + q * rows + i] = static_cast<int32_t>(op_a(i0 + i, 2 * q) | hi << 16);
        }
    }
  } else if (g.trans_a) {
    GatherRowsOfTransposed(a, g.lda, g.m, g.k, &a_rows);
    a = a_rows.data();
    lda = g.k;
  }
  // Column chunks: whole blocks of the rows kernels (128 columns), or 8 dot products.
  ForSmallMPasses(th, threads, g.m, g.n, g.trans_b ? 8 : 128, [&](int64_t j0, int64_t cols, int64_t i0, int m) {
    float* c = g.c + i0 * g.ldc + j0;
    if (g.trans_b)
      ks.dots(m, cols, g.k, a + i0 * lda, lda, b + j0 * g.ldb, g.ldb, c, g.ldc, g.alpha, g.beta);
    else
      ks.rows(m, cols, g.k, a_pairs.data() + i0 * pairs, b + j0, g.ldb, c, g.ldc, g.alpha, g.beta);
  });
}

// At most 16 columns of C on the VDPBF16PS kernels (Note [bf16 GEMM]): op(B) packed once into
// one panel 16 pairs wide, op(A) read in place (A stored [m, k]) or interleaved into pairs per
// block of narrow_mr rows; threads split the row blocks.
void NarrowPairs(const Bf16KernelSet& ks, const BgemmArgs& g, const GemmThreads* th, int threads) {
  const uint16_t *a = Bits(g.a), *b = Bits(g.b);
  constexpr int kWidth = 16;
  thread_local Buffer b_buffer;
  uint16_t* panel_b = b_buffer.Get<uint16_t>(RoundUp(g.k, 2) * kWidth);
  const int cols = static_cast<int>(g.n);
  if (g.trans_b)
    ks.gather16(b, g.ldb, cols, g.k, panel_b);
  else
    ks.interleave16(b, g.ldb, cols, g.k, panel_b);
  // Items of whole row blocks; a transposed A is interleaved an item at a time, reading kNarrowItemRows
  // values of each of its rows.
  const int64_t mr = ks.narrow_mr, blocks = CeilDiv(g.m, mr);
  const int64_t per = std::min(kNarrowItemRows / mr, threads > 1 ? CeilDiv(blocks, threads * kItemsPerThread) : blocks);
  ForItems(th, threads, CeilDiv(blocks, per), [&](int64_t item) {
    thread_local Buffer a_buffer;
    const int64_t i0 = item * per * mr, i1 = std::min(g.m, i0 + per * mr), panel = RoundUp(g.k, 2) * kWidth;
    uint16_t* pa = nullptr;
    if (g.trans_a) {  // op(A)'s rows are A's columns: pairs of A's rows interleaved
      pa = a_buffer.Get<uint16_t>(CeilDiv(i1 - i0, kWidth) * panel);
      ks.interleave16(a + i0, g.lda, static_cast<int>(i1 - i0), g.k, pa);
    }
    for (int64_t r = i0; r < i1; r += mr) {
      const int rows = static_cast<int>(std::min(mr, i1 - r));
      float* c = g.c + r * g.ldc;
      if (g.trans_a)
        ks.narrow(rows, g.k, pa + (r - i0) / kWidth * panel, 2, 2 * kWidth, false, panel_b, c, g.ldc, g.alpha, g.beta,
                  cols);
      else
        ks.narrow(rows, g.k, a + r * g.lda, g.lda, 2, g.k % 2 != 0, panel_b, c, g.ldc, g.alpha, g.beta, cols);
    }
    a_buffer.Trim(kMaxStripBytes);  // a thread keeps no more than a strip's worth (as b_buffer)
  });
  b_buffer.Trim(kMaxStripBytes);
}

// dst[i * cols + j] = float(src[i * ld + j]) for i < rows, j < cols (exact).
void WidenBlock(const BFloat16* src, int64_t ld, int64_t rows, int64_t cols, float* dst) {
  for (int64_t i = 0; i < rows; ++i) {
    const uint16_t* s = Bits(src + i * ld);
    float* d = dst + i * cols;
    for (int64_t j = 0; j < cols; ++j) {
      const uint32_t bits = uint32_t{s[j]} << 16;
      std::memcpy(d + j, &bits, sizeof(bits));
    }
  }
}

// The float32 kernels of a KernelSet on bfloat16 operands (Note [bf16 GEMM]): each block the
// float32 packers would read is widened into a thread's buffer first, then packed from there.
struct WidenedPacking : FloatTiles {
  static constexpr bool kInPlaceA = false;
  void PackA(const BgemmArgs& g, int64_t i0, int64_t rows, int64_t k0, int64_t kc, float* dst) const {
    thread_local Buffer wide;
    if (g.trans_a) {  // A's rows [k0, k0 + kc), columns [i0, i0 + rows)
      float* w = wide.Get<float>(kc * rows);
      WidenBlock(g.a + k0 * g.lda + i0, g.lda, kc, rows, w);
      gemm::PackA(ks, true, w, rows, 0, rows, 0, kc, dst);
    } else {
      float* w = wide.Get<float>(rows * kc);
      WidenBlock(g.a + i0 * g.lda + k0, g.lda, rows, kc, w);
      gemm::PackA(ks, false, w, kc, 0, rows, 0, kc, dst);
    }
  }
  void PackB(const BgemmArgs& g, int64_t k0, int64_t kc, int64_t j0, int64_t cols, float* dst) const {
    thread_local Buffer wide;
    float* w = wide.Get<float>(kc * cols);
    if (g.trans_b) {  // B's rows [j0, j0 + cols), columns [k0, k0 + kc)
      WidenBlock(g.b + j0 * g.ldb + k0, g.ldb, cols, kc, w);
      gemm::PackB(ks, true, w, kc, 0, kc, 0, cols, dst);
    } else {
      WidenBlock(g.b + k0 * g.ldb + j0, g.ldb, kc, cols, w);
      gemm::PackB(ks, false, w, cols, 0, kc, 0, cols, dst);
    }
  }
};

const KernelSet& KernelsFor(Isa isa) {
  const KernelSet* ks = nullptr;
  if (isa == Isa::kAvx512)
    ks = Avx512Kernels();
  else if (isa == Isa::kAvx2)
    ks = Avx2Kernels();
  return ks != nullptr ? *ks : *GenericKernels();
}

void Run(const KernelSet& ks, const GemmArgs& g, const GemmThreads* th) {
  if (g.m <= 0 || g.n <= 0) return;
  if (g.k <= 0 || g.alpha == 0.0f) return ScaleC(g);
  const double work = double(g.m) * double(g.n) * double(g.k);
  const bool small_m = g.m <= kRowsPerPass || (g.m <= kSmallM && (!g.trans_b || g.n * g.k * 4 > DetectedCaches().l2));
  const bool parallel =
      th != nullptr && th->threads > 1 && th->parallel_for && work >= (small_m ? kMinParallelSmallM : kMinParallelWork);
  const int threads = parallel ? th->threads : 1;
  if (small_m) return SmallM(ks, g, th, threads);
  Packed(FloatPacking{{ks}}, g, th, threads);
}

// Threads for `work` multiply-adds on the packed path: th's, or 1 when the product is small.
int PackedThreads(const GemmThreads* th, double work) {
  return th != nullptr && th->threads > 1 && th->parallel_for && work >= kMinParallelWork ? th->threads : 1;
}

template <typename Ops>
void RunBgemm(const Ops& ops, const BgemmArgs& g, const GemmThreads* th) {
  if (g.m <= 0 || g.n <= 0) return;
  if (g.k <= 0 || g.alpha == 0.0f) return ScaleC(g);
  const double work = double(g.m) * double(g.n) * double(g.k);
  if constexpr (std::is_same_v<Ops, PairPacking>) {  // Note [bf16 GEMM]: few rows, narrow C
    // Up to 8 rows in two passes over B: 6 and 8 x 1024 x 1024 ran at 100-116 GFLOP/s against
    // 75-94 packed; with B stored [n, k] too (VDPBF16PS dot products need no transposing).
    if (g.m <= kSmallM) {
      const bool parallel = th != nullptr && th->threads > 1 && th->parallel_for && work >= kMinParallelSmallM;
      return SmallMPairs(ops.ks, g, th, parallel ? th->threads : 1);
    }
    if (g.n <= kNarrowN) return NarrowPairs(ops.ks, g, th, PackedThreads(th, work));
  }
  Packed(ops, g, th, PackedThreads(th, work));
}

}  // namespace

GemmThreads PoolThreads(ThreadPool* pool) {
  GemmThreads t;
  if (pool == nullptr || pool->num_threads() == 0) return t;
  t.threads = pool->num_threads() + 1;
  t.parallel_for = [pool](int64_t count, const std::function<void(int64_t, int64_t)>& body) {
    pool->ParallelFor(count, int64_t{1} << 30, body);  // one range per thread: the GEMM balances the work
  };
  return t;
}

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kAvx512: return "avx512";
    case Isa::kAvx2: return "avx2";
    default: return "generic";
  }
}

bool IsaSupported(Isa isa) {
  switch (isa) {
    case Isa::kGeneric: return true;
#if defined(__x86_64__) && defined(__GNUC__)
    case Isa::kAvx2: return Avx2Kernels() != nullptr && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::kAvx512: return Avx512Kernels() != nullptr && __builtin_cpu_supports("avx512f");
#endif
    default: return false;
  }
}

Isa BestIsa() {
  static const Isa best = IsaSupported(Isa::kAvx512) ? Isa::kAvx512
      : IsaSupported(Isa::kAvx2)                     ? Isa::kAvx2
                                                     : Isa::kGeneric;
  return best;
}

void Sgemm(const GemmArgs& args, const GemmThreads* threads) { Run(KernelsFor(BestIsa()), args, threads); }

void SgemmWithKernels(const KernelSet& kernels, const GemmArgs& args, const GemmThreads* threads) {
  Run(kernels, args, threads);
}

void SgemmWithIsa(Isa isa, const GemmArgs& args, const GemmThreads* threads) {
  Run(KernelsFor(IsaSupported(isa) ? isa : BestIsa()), args, threads);
}

const char* BgemmPathName(BgemmPath path) { return path == BgemmPath::kDotBf16 ? "dpbf16" : "widened"; }

bool BgemmPathSupported(BgemmPath path) {
  if (path == BgemmPath::kWidened) return true;
#if defined(__x86_64__) && defined(__GNUC__)
  return Avx512Bf16Kernels() != nullptr && __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

BgemmPath BestBgemmPath() {
  static const BgemmPath best = BgemmPathSupported(BgemmPath::kDotBf16) ? BgemmPath::kDotBf16 : BgemmPath::kWidened;
  return best;
}

void BgemmWithPath(BgemmPath path, const BgemmArgs& args, const GemmThreads* threads) {
  if (path == BgemmPath::kDotBf16 && BgemmPathSupported(path))
    return RunBgemm(PairPacking{*Avx512Bf16Kernels()}, args, threads);
  RunBgemm(WidenedPacking{{KernelsFor(BestIsa())}}, args, threads);
}

void Bgemm(const BgemmArgs& args, const GemmThreads* threads) { BgemmWithPath(BestBgemmPath(), args, threads); }

void BgemmWidenedWithKernels(const KernelSet& kernels, const BgemmArgs& args, const GemmThreads* threads) {
  RunBgemm(WidenedPacking{{kernels}}, args, threads);
}

}  // namespace gemm
}  // namespace cpu
}  // namespace tx

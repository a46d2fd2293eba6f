// Our single-precision GEMM: C = alpha * op(A) * op(B) + beta * C on packed panels, cache-blocked
// from the detected cache sizes, with register-tile kernels for AVX-512, AVX2+FMA and portable
// code chosen at run time (Note [Own GEMM]); and the same for bfloat16 A and B with float32 sums
// and C (Note [bf16 GEMM]).
#pragma once

#include <cstdint>
#include <functional>

#include "tensorflux/core/float16.h"
#include "tensorflux/core/thread_pool.h"

namespace tx {
namespace cpu {
namespace gemm {

// One product: C[m, n] = alpha * op(A)[m, k] * op(B)[k, n] + beta * C, A and B of type T, C of
// float. Matrices are row-major with rows lda, ldb, ldc apart; trans_a means A is stored [k, m]
// (op(A) = A^T), trans_b that B is stored [n, k]. With beta == 0, C is only written (NaN or
// garbage in C does not matter); with k == 0 or alpha == 0, A and B are not read and C becomes
// beta * C. C must not overlap A or B.
template <typename T>
struct ProductArgs {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  const T* a = nullptr;
  int64_t lda = 0;
  const T* b = nullptr;
  int64_t ldb = 0;
  float beta = 0.0f;
  float* c = nullptr;
  int64_t ldc = 0;
};

// A float32 product.
struct GemmArgs : ProductArgs<float> {};

// Runs body(begin, end) over disjoint ranges covering [0, count), on up to `threads` threads at
// once (the caller's included), and returns when every range is done. The GEMM never waits for
// another range inside body, so a runner may also run the ranges one after another.
struct GemmThreads {
  int threads = 1;
  std::function<void(int64_t count, const std::function<void(int64_t, int64_t)>& body)> parallel_for;
};

// GemmThreads on `pool`'s workers and the caller (pool may be null: the caller alone).
GemmThreads PoolThreads(ThreadPool* pool);

// Computes `args` (Note [Own GEMM]); `threads` may be null (the caller's thread alone).
void Sgemm(const GemmArgs& args, const GemmThreads* threads = nullptr);

// The instruction-set levels of the kernels.
enum class Isa { kGeneric, kAvx2, kAvx512 };

// "generic", "avx2" or "avx512".
const char* IsaName(Isa isa);
// Whether this build has kernels for `isa` and this CPU runs them.
bool IsaSupported(Isa isa);
// The level Sgemm uses: the widest supported one.
Isa BestIsa();

// Sgemm on the kernels of `isa` (which must be supported), for tests and benchmarks of each level.
void SgemmWithIsa(Isa isa, const GemmArgs& args, const GemmThreads* threads = nullptr);

// A product of bfloat16 matrices, accumulated in float32 (Note [bf16 GEMM]).
struct BgemmArgs : ProductArgs<BFloat16> {};

// The ways Bgemm can compute (Note [bf16 GEMM]).
enum class BgemmPath {
  kDotBf16,  // VDPBF16PS on bfloat16 pairs (AVX512_BF16)
  kWidened,  // the float32 kernels of BestIsa() on panels widened while packing
};

// "dpbf16" or "widened".
const char* BgemmPathName(BgemmPath path);
// Whether this build and CPU run `path` (kWidened always does).
bool BgemmPathSupported(BgemmPath path);
// The path Bgemm takes: kDotBf16 where supported.
BgemmPath BestBgemmPath();

// Computes `args` (Note [bf16 GEMM]); `threads` may be null (the caller's thread alone).
void Bgemm(const BgemmArgs& args, const GemmThreads* threads = nullptr);
// Bgemm on `path` (which must be supported), for tests and benchmarks of each path.
void BgemmWithPath(BgemmPath path, const BgemmArgs& args, const GemmThreads* threads = nullptr);

}  // namespace gemm
}  // namespace cpu
}  // namespace tx

// Note [Own GEMM]
// The packed path follows Goto and van de Geijn (as BLIS, MLAS and OpenBLAS do). C is cut into
// register tiles of mr x nr (AVX-512 14 x 32, AVX2 6 x 16, portable 6 x 8 on 4-lane vectors); a
// tile kernel keeps its mr * nr / W accumulators in vector registers over a kc-long slice of K,
// each step loading nr / W vectors of B and broadcasting mr values of A (gemm_tiles.h).
//  - B: op(B) is packed into panels nr columns wide, kc rows per K block, zero past n; a panel
//    (kc x nr) stays in L1 while the tiles of its column meet it, so kc = L1/2 / (4 nr) (256
//    with a 32 KiB L1 and nr = 16). Panels are packed 128 columns at a time, row by row, so B is
//    read in long runs. The packed K x nc strip is shared by the threads and stays in the last
//    level cache: nc = min(L3/2, 8 MiB) / (4 K).
//  - A: each work item packs the rows of op(A) it owns into panels mr rows tall, kc columns at a
//    time; that mc x kc block stays in L2 while it meets every B panel of the item, so mc =
//    L2/2 / (4 kc). An item with at most 4 B panels (n <= 64 on AVX2) reads A in place instead:
//    packing would cost more than it saves. Cache sizes come from sysconf
//    (_SC_LEVEL1_DCACHE_SIZE, ...), with 32 KiB / 512 KiB / 8 MiB where it reports nothing.
//  - Transposes are absorbed by packing: a panel is filled by copying rows or gathering columns
//    (8 x 8 register transposes on x86) of the stored matrix, so the tile kernels see one layout.
//    Edge tiles run a kernel instantiated for their row count and write only the columns inside
//    C; packed panels are zero-padded, so no kernel reads outside the operands.
//  - alpha and beta are applied when a tile is stored after its first K block (beta == 0 stores
//    without reading C); later K blocks add to C.
//  - Threads: the work items of a strip are row blocks x column chunks of C. For T threads the
//    split T = pm x pn minimizes the tiles of the busiest thread plus the A packing it costs
//    (splitting N makes every chunk pack the same rows of A), so 128 x 784 x 512 splits M and
//    49 x 4608 x 512 splits N; M is then cut into about 4 row blocks per thread, so a thread the
//    OS stops holds up little. Threads claim items from a counter. A group of B panels is packed
//    by the first thread that needs it (an atomic flag each); a thread finding one being packed
//    runs its other panels first and waits only at the end, for a thread that is running. One
//    parallel_for per strip; products below 2^20 multiply-adds run on the calling thread.
//  - Few rows of C (m <= 4, and m <= 8 unless B is stored [n, k] and fits in L2; batch-1
//    serving): nothing is packed. With B stored [k, n], B is streamed row by row (8 rows per pass
//    for one row of C) into sums kept in an aligned L1 buffer, as a matrix-vector product streams
//    its matrix; with B stored [n, k], rows of A and B meet in dot products. Up to 4 rows of C per
//    pass over B. Threads split the columns of C, from 2^24 multiply-adds (memory bound below).
// Dispatch: one source per level, compiled under `#pragma GCC target` (gemm_x86.cc; the engine's
// flags stay as they are), as vec_math.h and conv_direct.cc do, and chosen once by
// __builtin_cpu_supports. SgemmWithIsa forces a level, so tests cover every level the CPU runs.

// Note [bf16 GEMM]
// Bgemm multiplies bfloat16 matrices into float32 sums with the packed path of Note [Own GEMM]
// (gemm.cc's Packed is one template over the element type: the same blocking, strips, work items
// and threads), on one of two kernel families:
//  - kDotBf16, where the CPU has AVX512_BF16 (Zen 4, Sapphire Rapids): VDPBF16PS multiplies 16
//    pairs of bfloat16 by 16 pairs and adds each pair's two products to a float32 lane. Panels
//    hold K in pairs, odd K padded with a zero: a B panel is, for each pair q, 32 columns x 2
//    values (q's two rows of op(B) interleaved, 128 bytes, two zmm); an A panel, for each q, 14
//    rows' pairs (one 32-bit broadcast per row). The tile is 14 x 32 float32 sums in 28 zmm, with
//    two B vectors and a broadcast, so a step of the kernel does 14 x 32 x 2 multiply-adds with 2
//    loads of B. Rows of a stored matrix become the pairs of a panel by masked 32-bit gathers (A
//    stored [m, k], B stored [n, k]), columns by interleaving two rows with 16-bit unpacks (A
//    stored [k, m], B stored [k, n]). Panels are 2 bytes per value, and the blocking budgets 1:
//    kc = L1/2 / nr = 512 with a 32 KiB L1, so a B panel fills L1 (the budgets of 2 bytes, kc =
//    256, ran square 1024 and 2048 about 10% slower, 160-170 vs 180-185 GFLOP/s on one thread).
//    VDPBF16PS ignores MXCSR: it rounds to nearest even, reads denormal bfloat16 inputs as zero
//    and flushes denormal float32 results to zero (bgemm_test's DenormalsFlushOnDotPath shows
//    both). Sums whose magnitudes stay above 2^-126 are float32 sums with two roundings per pair,
//    as accurate as float32 FMA accumulation; denormal inputs and results become 0.
//  - kWidened, elsewhere: the float32 kernels of BestIsa() on panels widened while packing: each
//    block the float32 packers read is widened (exactly, a shift) into a per-thread buffer and
//    packed from there, so no whole-operand float32 copy is made. The products are those of
//    float32 FMA, denormals kept. On the AMD EPYC (AVX-512, one thread, shared machine) it ran as
//    fast as the widen-whole + OpenBLAS path of matmul.cc (85-103 vs 94-99 GFLOP/s on square
//    256-2048 and 128 x 784 x 512), so either serves a CPU without AVX512_BF16.
// On kDotBf16, two shapes leave the packed path for kernels on the same instruction, VDPBF16PS,
// so with the same contract: float32 sums of exact bfloat16 products, two roundings per pair,
// denormal inputs read as zero and denormal running sums flushed (bgemm_test checks every
// kernel against float64 sums and DenormalsFlushOnDotPath shows the flush on each of them):
//  - Few rows (m <= 8; batch-1 serving): nothing of B is packed, up to 4 rows of C per pass over
//    B, threads splitting C's columns from 2^24 multiply-adds (as Sgemm's few-row path). With B
//    stored [k, n], op(A)'s pairs are copied once (k / 2 32-bit values a row, zero-padded for an
//    odd k) and B is read as stored, 128 columns (64 for 3 and 4 rows) down all of K: rows 2q
//    and 2q + 1 become pairs in registers by one two-source 16-bit permute (VPERMT2W) per 16
//    columns, each met by one broadcast A pair per row; a sum is one VDPBF16PS chain over q, as
//    in a tile. With B stored [n, k], rows of op(A) and of B meet in dot products, 32 values of K
//    per VDPBF16PS (masked loads past k): each of 16 lanes sums the pairs 16 apart, and the 16
//    lane sums are then added by float32 adds (MXCSR's rounding; those adds keep a denormal
//    total of normal lane sums). A stored [k, m] is first copied into rows (m * k values).
//  - Narrow C (n <= 16, m > 8; an MLP's output layer and its weight gradient): op(B) is packed
//    once into one panel 16 pairs wide (32 bytes per value of K) and tiles of 16 x 16 sums (16
//    zmm: one B load and 16 broadcasts a pair) store through lane masks. A stored [m, k] is read
//    in place (32-bit broadcasts; the odd last value alone, 16 bits paired with a zero, so no
//    read passes a row); A stored [k, m] is interleaved into pairs 128 columns (8 tiles) at a
//    time, reading its rows in 256-byte runs: 16 columns at a time (32-byte runs 1 KiB apart)
//    ran 512 x 128 x 10 at 72-78 GFLOP/s, 128 at a time at 79-90. A K of 10 (the backward dX of
//    such a layer) stays packed: it ran 83-116, ahead of sgemm's 60-75.
// Measured (AMD EPYC, one thread, thread CPU time, gemm_kernel_bench --bf16, two alternating
// runs of the old and new binaries; GFLOP/s, old -> new, then our Sgemm and OpenBLAS sgemm on
// the same values as float32): 1 x 1024 x 1024 5-15 -> 46 (Sgemm 28-30, OpenBLAS 5);
// the same with B stored [n, k] 6-7 -> 63-76 (27-32, 2-3); 1 x 784 x 512 18-20 -> 71-90 (31-38,
// 26-29); 4 x 1024 x 1024 51-57 -> 124-162 (35-59, 18-20); 8 x 1024 x 1024 94 -> 108-113 (23-35,
// 27); 128 x 512 x 10 31-32 -> 112-133 (29-32, 67-71); 512 x 128 x 10 with A stored [k, m]
// 45 -> 79-92 (31-33, 82-89). See Note [16-bit GEMM] in kernels/cpu/matmul.cc for where Bgemm
// is used.

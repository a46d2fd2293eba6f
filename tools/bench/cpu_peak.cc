// The machine's clock and fp32 FMA throughput, measured: what gemm_bench.py divides by to give
// "% of peak". Prints one "key value" line per result:
//   isa avx512|avx2|sse       the widest FMA path this CPU runs (CPUID)
//   clock_ghz G               the core clock while busy: a chain of dependent integer adds (one
//                             cycle each on every x86 core since the P6) over its wall time
//   fma_gflops_T G            fp32 GFLOP/s of T threads (1 .. the CPU count) running a register-only
//                             loop of independent FMAs (12 accumulators: more than latency x ports)
//   flops_per_cycle F         fma_gflops_1 / clock_ghz: 2 x lanes x FMA issue per cycle of one core
// No memory is touched in the timed loops, so the numbers are the cores' limit, not the caches'.
//
// Build (gemm_bench.py does this itself, into a temporary folder):
//   c++ -O2 -std=c++17 -pthread tools/bench/cpu_peak.cc -o /tmp/cpu_peak
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace {

constexpr int64_t kAddsPerIteration = 100;
constexpr int kAccumulators = 12;  // the FMA loop's independent sums (TX_FMA_LOOP)

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Runs `iterations` x 100 dependent adds; returns the seconds taken.
double AddChain(int64_t iterations) {
  uint64_t x = 0;
  auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < iterations; ++i) {
#define TX_ADD10                                                                                               \
  "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, " \
  "%0\n\tadd $1, %0\n\tadd $1, %0\n\t"
    asm volatile(TX_ADD10 TX_ADD10 TX_ADD10 TX_ADD10 TX_ADD10 TX_ADD10 TX_ADD10 TX_ADD10 TX_ADD10 TX_ADD10 : "+r"(x));
#undef TX_ADD10
  }
  return Seconds(start);
}

// `iterations` x 12 independent FMAs on vectors of type V (set1, fmadd: its intrinsics), in
// named accumulators so they stay in registers; the empty asm keeps each FMA (no folding), and the
// sum goes to `sink`.
#define TX_FMA_LOOP(V, set1, fmadd)                                                             \
  const V a = set1(0.999999f), b = set1(1e-7f);                                                 \
  V c0 = set1(0), c1 = set1(1), c2 = set1(2), c3 = set1(3), c4 = set1(4), c5 = set1(5);         \
  V c6 = set1(6), c7 = set1(7), c8 = set1(8), c9 = set1(9), c10 = set1(10), c11 = set1(11);     \
  for (int64_t i = 0; i < iterations; ++i) {                                                    \
    c0 = fmadd(c0, a, b), c1 = fmadd(c1, a, b), c2 = fmadd(c2, a, b), c3 = fmadd(c3, a, b);     \
    c4 = fmadd(c4, a, b), c5 = fmadd(c5, a, b), c6 = fmadd(c6, a, b), c7 = fmadd(c7, a, b);     \
    c8 = fmadd(c8, a, b), c9 = fmadd(c9, a, b), c10 = fmadd(c10, a, b), c11 = fmadd(c11, a, b); \
    asm volatile("" : "+x"(c0), "+x"(c1), "+x"(c2), "+x"(c3), "+x"(c4), "+x"(c5));              \
    asm volatile("" : "+x"(c6), "+x"(c7), "+x"(c8), "+x"(c9), "+x"(c10), "+x"(c11));            \
  }                                                                                             \
  V total = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)) + ((c8 + c9) + (c10 + c11));      \
  float out[sizeof(V) / sizeof(float)];                                                         \
  std::memcpy(out, &total, sizeof(V));                                                          \
  *sink = out[0];

__attribute__((target("avx512f"))) void Fma512Loop(int64_t iterations, float* sink) {
  TX_FMA_LOOP(__m512, _mm512_set1_ps, _mm512_fmadd_ps)
}
__attribute__((target("avx2,fma"))) void Fma256Loop(int64_t iterations, float* sink) {
  TX_FMA_LOOP(__m256, _mm256_set1_ps, _mm256_fmadd_ps)
}
#undef TX_FMA_LOOP
static_assert(kAccumulators == 12, "TX_FMA_LOOP has twelve accumulators, c0 .. c11");

// fp32 GFLOP/s of `threads` threads, each running `iterations` of the loop.
double FmaGflops(void (*loop)(int64_t, float*), int lanes, int threads, int64_t iterations) {
  std::vector<float> sinks(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) pool.emplace_back(loop, iterations, &sinks[static_cast<size_t>(t)]);
  for (auto& t : pool) t.join();
  const double s = Seconds(start);
  return 2.0 * lanes * kAccumulators * static_cast<double>(iterations) * threads / s / 1e9;
}

}  // namespace

int main() {
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (!avx512 && !avx2) {
    std::printf("isa sse\n");  // no FMA: nothing to measure here
    return 0;
  }
  std::printf("isa %s\n", avx512 ? "avx512" : "avx2");
  AddChain(2000000);  // wake the core up to its busy clock
  double best = 1e30;
  const int64_t add_iterations = 4000000;  // 4e8 adds: about 0.1 s
  for (int r = 0; r < 5; ++r) best = std::min(best, AddChain(add_iterations));
  const double ghz = static_cast<double>(add_iterations * kAddsPerIteration) / best / 1e9;
  std::printf("clock_ghz %.3f\n", ghz);
  auto loop = avx512 ? Fma512Loop : Fma256Loop;
  const int lanes = avx512 ? 16 : 8;
  const int cpus = static_cast<int>(std::thread::hardware_concurrency());
  double one = 0;
  for (int threads = 1; threads <= std::max(cpus, 1); ++threads) {
    double g = 0;
    for (int r = 0; r < 5; ++r) g = std::max(g, FmaGflops(loop, lanes, threads, 20000000));
    if (threads == 1) one = g;
    std::printf("fma_gflops_%d %.1f\n", threads, g);
  }
  std::printf("flops_per_cycle %.1f\n", one / ghz);
  return 0;
}

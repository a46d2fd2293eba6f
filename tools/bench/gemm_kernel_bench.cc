// Our float32 GEMM (csrc/tensorflux/kernels/cpu/gemm) against OpenBLAS, the engine's BLAS, in one
// run: GFLOP/s (2 m n k / median seconds) on one and on two threads, ours / OpenBLAS, and ours /
// the engine's current OpenBLAS path (kernels/cpu/blas.cc, replicated here).
// Each result is checked against OpenBLAS's before it is timed. Samples of the two alternate, so
// both see the same machine load; OpenBLAS's workers spin for a while after a call, so a pause
// follows each of its multi-threaded samples before ours run.
//
// Build (from the repository root; the engine's flags, no engine build needed):
//   D=$(python -c "import scipy_openblas32, os; print(os.path.dirname(scipy_openblas32.__file__))")
//   g++ -O3 -march=x86-64-v3 -mtune=znver3 -std=c++17 -Icsrc -Icsrc/include -I$D/include
//     tools/bench/gemm_kernel_bench.cc csrc/tensorflux/kernels/cpu/gemm/*.cc
//     csrc/tensorflux/core/thread_pool.cc -L$D/lib -lscipy_openblas -Wl,-rpath,$D/lib -lpthread
//     -o /tmp/gemm_bench
//   /tmp/gemm_bench [--cpu-time] [--bf16] [filter]   # filter: only the shapes whose name contains it
// With --bf16, the bfloat16 table instead (one thread): Bgemm on its best path and on the widened
// path, the matmul kernel's widen-whole + OpenBLAS path (Note [16-bit GEMM]), our Sgemm and
// OpenBLAS sgemm on the same values as float32.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tensorflux/core/thread_pool.h"
#include "tensorflux/kernels/cpu/gemm/gemm.h"

namespace {

using tx::cpu::gemm::GemmArgs;
using tx::cpu::gemm::GemmThreads;

constexpr int kSamples = 9;
constexpr double kSampleSeconds = 0.02;
// OpenBLAS's workers spin up to about 2^28 cycles after a call; ours wait this long before running.
constexpr auto kOpenBlasSettle = std::chrono::milliseconds(200);

struct Shape {
  const char* name;
  bool ta, tb;
  int64_t m, n, k;
};

std::string CpuModel() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

// With --cpu-time, one-thread samples count the calling thread's CPU time instead of wall time,
// so time the OS gives to other processes on a shared machine is left out.
bool g_cpu_time = false;

// Seconds: wall time, or this thread's CPU time when `cpu`.
double Now(bool cpu) {
  if (cpu) {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Seconds per call of fn, for `inner` calls per sample.
template <typename F>
double Sample(const F& fn, int inner, bool cpu = false) {
  const double t0 = Now(cpu);
  for (int i = 0; i < inner; ++i) fn();
  return (Now(cpu) - t0) / inner;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// BlasGemm and PoolGemm of kernels/cpu/blas.cc, which the engine runs today: sgemv for one row
// or column (Note [Matrix-vector products]), else sgemm; on a pool, the longer side of C split in
// one block per thread, each block a single-threaded OpenBLAS call.
void EngineBlas(const Shape& s, const float* a, int64_t lda, const float* b, int64_t ldb, float* c) {
  const auto ta = s.ta ? CblasTrans : CblasNoTrans, tb = s.tb ? CblasTrans : CblasNoTrans;
  if (s.m == 1)
    return scipy_cblas_sgemv(CblasRowMajor, s.tb ? CblasNoTrans : CblasTrans, s.tb ? s.n : s.k, s.tb ? s.k : s.n, 1.0f,
                             b, ldb, a, s.ta ? lda : 1, 0.0f, c, 1);
  scipy_cblas_sgemm(CblasRowMajor, ta, tb, s.m, s.n, s.k, 1.0f, a, lda, b, ldb, 0.0f, c, s.n);
}

void EnginePool(tx::ThreadPool* pool, const Shape& s, const float* a, int64_t lda, const float* b, int64_t ldb,
                float* c) {
  const int64_t threads = pool->num_threads() + 1;
  const bool gemv = s.m == 1 || s.n == 1;
  if (s.m * s.n * s.k < (gemv ? int64_t{1} << 24 : int64_t{1} << 20)) return EngineBlas(s, a, lda, b, ldb, c);
  const bool by_rows = s.m >= s.n;
  const int64_t len = by_rows ? s.m : s.n, align = by_rows ? 4 : 16;
  const int64_t block = std::max<int64_t>(align, (len / threads + align - 1) / align * align);
  const int64_t parts = (len + block - 1) / block;
  pool->ParallelFor(parts, s.m * s.n * s.k / parts, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t lo = p * block, hi = std::min(len, lo + block);
      Shape part = s;
      if (by_rows) {
        part.m = hi - lo;
        EngineBlas(part, a + (s.ta ? lo : lo * lda), lda, b, ldb, c + lo * s.n);
      } else {
        part.n = hi - lo;
        // Sub-blocks of C keep C's row length: sgemm with ldc = s.n.
        scipy_cblas_sgemm(CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans, s.tb ? CblasTrans : CblasNoTrans, s.m,
                          part.n, s.k, 1.0f, a, lda, b + (s.tb ? lo * ldb : lo), ldb, 0.0f, c + lo, s.n);
      }
    }
  });
}

// GFLOP/s of our GEMM and of OpenBLAS on `threads` threads (its own), and of the engine's
// current path (EngineBlas on one thread, EnginePool on two).
struct Result {
  double ours, blas, engine;
};

Result Measure(const Shape& s, int threads, tx::ThreadPool* pool) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const int64_t lda = s.ta ? s.m : s.k, ldb = s.tb ? s.k : s.n;
  std::vector<float> a(s.m * s.k), b(s.k * s.n), c(s.m * s.n), ref(s.m * s.n), eng(s.m * s.n);
  for (float& x : a) x = u(rng);
  for (float& x : b) x = u(rng);
  const GemmThreads th = tx::cpu::gemm::PoolThreads(threads > 1 ? pool : nullptr);
  GemmArgs g;
  g.trans_a = s.ta, g.trans_b = s.tb, g.m = s.m, g.n = s.n, g.k = s.k;
  g.a = a.data(), g.lda = lda, g.b = b.data(), g.ldb = ldb, g.c = c.data(), g.ldc = s.n;
  auto ours = [&] { tx::cpu::gemm::Sgemm(g, &th); };
  auto blas = [&] {
    scipy_openblas_set_num_threads(threads);
    scipy_cblas_sgemm(CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans, s.tb ? CblasTrans : CblasNoTrans, s.m, s.n, s.k,
                      1.0f, a.data(), lda, b.data(), ldb, 0.0f, ref.data(), s.n);
  };
  auto engine = [&] {
    scipy_openblas_set_num_threads(1);
    if (threads > 1)
      EnginePool(pool, s, a.data(), lda, b.data(), ldb, eng.data());
    else
      EngineBlas(s, a.data(), lda, b.data(), ldb, eng.data());
  };
  blas();
  engine();
  ours();
  // Largest difference relative to the largest |C|: rounding differences grow with sqrt(k).
  double diff = 0, scale = 1e-30;
  for (size_t i = 0; i < c.size(); ++i) {
    diff = std::max<double>(diff, std::max(std::fabs(c[i] - ref[i]), std::fabs(eng[i] - ref[i])));
    scale = std::max<double>(scale, std::fabs(ref[i]));
  }
  if (diff > 1e-6 * std::sqrt(double(s.k)) * scale)
    std::printf("MISMATCH %s: difference %g of %g\n", s.name, diff, scale);
  auto inner_for = [](double seconds) {
    return std::max(1, static_cast<int>(kSampleSeconds / std::max(seconds, 1e-9)));
  };
  const int inner_ours = inner_for(Sample(ours, 1)), inner_blas = inner_for(Sample(blas, 1));
  const int inner_engine = inner_for(Sample(engine, 1));
  std::vector<double> t_ours, t_blas, t_engine;
  for (int r = 0; r < kSamples; ++r) {
    const bool cpu = g_cpu_time && threads == 1;
    t_ours.push_back(Sample(ours, inner_ours, cpu));
    t_engine.push_back(Sample(engine, inner_engine, cpu));
    t_blas.push_back(Sample(blas, inner_blas, cpu));
    if (threads > 1) std::this_thread::sleep_for(kOpenBlasSettle);
  }
  const double flops = 2.0 * double(s.m) * double(s.n) * double(s.k) * 1e-9;
  return {flops / Median(t_ours), flops / Median(t_blas), flops / Median(t_engine)};
}

// GFLOP/s on one thread of the bfloat16 products and of float32 ones on the same values.
void MeasureBf16(const Shape& s) {
  using tx::BFloat16;
  namespace gemm = tx::cpu::gemm;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const int64_t lda = s.ta ? s.m : s.k, ldb = s.tb ? s.k : s.n;
  std::vector<BFloat16> a16(s.m * s.k), b16(s.k * s.n);
  std::vector<float> a(a16.size()), b(b16.size()), c(s.m * s.n), ref(s.m * s.n);
  for (size_t i = 0; i < a.size(); ++i) a16[i] = BFloat16(u(rng)), a[i] = static_cast<float>(a16[i]);
  for (size_t i = 0; i < b.size(); ++i) b16[i] = BFloat16(u(rng)), b[i] = static_cast<float>(b16[i]);
  gemm::BgemmArgs g;
  g.trans_a = s.ta, g.trans_b = s.tb, g.m = s.m, g.n = s.n, g.k = s.k;
  g.a = a16.data(), g.lda = lda, g.b = b16.data(), g.ldb = ldb, g.c = c.data(), g.ldc = s.n;
  GemmArgs f;
  f.trans_a = s.ta, f.trans_b = s.tb, f.m = s.m, f.n = s.n, f.k = s.k;
  f.a = a.data(), f.lda = lda, f.b = b.data(), f.ldb = ldb, f.c = c.data(), f.ldc = s.n;
  std::vector<float> wa(a.size()), wb(b.size());
  auto blas_on = [&](const float* x, const float* y) {
    scipy_cblas_sgemm(CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans, s.tb ? CblasTrans : CblasNoTrans, s.m, s.n, s.k,
                      1.0f, x, lda, y, ldb, 0.0f, ref.data(), s.n);
  };
  auto widen = [](const std::vector<BFloat16>& x, std::vector<float>* y) {
    for (size_t i = 0; i < x.size(); ++i) (*y)[i] = static_cast<float>(x[i]);
  };
  const std::vector<std::function<void()>> runs = {
      [&] { gemm::Bgemm(g); },
      [&] { gemm::BgemmWithPath(gemm::BgemmPath::kWidened, g); },
      [&] {  // the matmul kernel's path: widen both operands whole, then sgemm
        widen(a16, &wa), widen(b16, &wb), blas_on(wa.data(), wb.data());
      },
      [&] { gemm::Sgemm(f); },
      [&] { blas_on(a.data(), b.data()); },
  };
  scipy_openblas_set_num_threads(1);
  blas_on(a.data(), b.data());
  gemm::Bgemm(g);
  double diff = 0, scale = 1e-30;
  for (size_t i = 0; i < c.size(); ++i)
    diff = std::max<double>(diff, std::fabs(c[i] - ref[i])), scale = std::max<double>(scale, std::fabs(ref[i]));
  if (diff > 1e-6 * std::sqrt(double(s.k)) * scale)
    std::printf("MISMATCH %s: difference %g of %g\n", s.name, diff, scale);
  std::vector<int> inner;
  for (const auto& run : runs)
    inner.push_back(std::max(1, static_cast<int>(kSampleSeconds / std::max(Sample(run, 1), 1e-9))));
  std::vector<std::vector<double>> t(runs.size());
  for (int r = 0; r < kSamples; ++r)  // interleaved, so all see the same load
    for (size_t i = 0; i < runs.size(); ++i) t[i].push_back(Sample(runs[i], inner[i], g_cpu_time));
  const double flops = 2.0 * double(s.m) * double(s.n) * double(s.k) * 1e-9;
  std::printf("%-28s", s.name);
  for (const auto& ti : t) std::printf(" %8.1f", flops / Median(ti));
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string filter;
  bool bf16 = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--cpu-time")
      g_cpu_time = true;
    else if (std::string(argv[i]) == "--bf16")
      bf16 = true;
    else
      filter = argv[i];
  }
  if (bf16) {
    std::printf("cpu: %s; bf16 path: %s; GFLOP/s on one thread, medians of %d samples (%s)\n", CpuModel().c_str(),
                tx::cpu::gemm::BgemmPathName(tx::cpu::gemm::BestBgemmPath()), kSamples,
                g_cpu_time ? "thread CPU time" : "wall time");
    std::printf("%-28s %8s %8s %8s %8s %8s\n", "shape (M x K x N)", "bgemm", "widened", "wide+ob", "sgemm", "oblas");
    for (const Shape& s : std::vector<Shape>{{"square 256", false, false, 256, 256, 256},
                                             {"square 1024", false, false, 1024, 1024, 1024},
                                             {"square 2048", false, false, 2048, 2048, 2048},
                                             {"mlp fwd 128x784x512", false, false, 128, 512, 784},
                                             {"mlp dW A^T B 784x128x512", true, false, 784, 512, 128},
                                             {"mlp dX A B^T 128x512x784", false, true, 128, 784, 512},
                                             {"mlp fwd 128x512x10", false, false, 128, 10, 512},
                                             {"mlp dW A^T B 512x128x10", true, false, 512, 10, 128},
                                             {"mlp dX A B^T 128x10x512", false, true, 128, 512, 10},
                                             {"mlp dX A B^T 128x10x784", false, true, 128, 784, 10},
                                             {"batch-1 1x1024x1024", false, false, 1, 1024, 1024},
                                             {"batch-1 A B^T 1x1024x1024", false, true, 1, 1024, 1024},
                                             {"batch-1 A^T B 1x1024x1024", true, false, 1, 1024, 1024},
                                             {"batch-1 1x784x512", false, false, 1, 512, 784},
                                             {"batch-2 2x1024x1024", false, false, 2, 1024, 1024},
                                             {"batch-4 4x1024x1024", false, false, 4, 1024, 1024},
                                             {"batch-6 6x1024x1024", false, false, 6, 1024, 1024},
                                             {"batch-8 8x1024x1024", false, false, 8, 1024, 1024},
                                             {"batch-32 32x1024x1024", false, false, 32, 1024, 1024}})
      if (filter.empty() || std::string(s.name).find(filter) != std::string::npos) MeasureBf16(s);
    return 0;
  }
  // name: M x K x N (op(A) is M x K, op(B) K x N); "A^T B" and "A B^T" are stored transposed.
  const std::vector<Shape> shapes = {
      {"square 64", false, false, 64, 64, 64},
      {"square 128", false, false, 128, 128, 128},
      {"square 256", false, false, 256, 256, 256},
      {"square 512", false, false, 512, 512, 512},
      {"square 1024", false, false, 1024, 1024, 1024},
      {"square 2048", false, false, 2048, 2048, 2048},
      {"mlp fwd 128x784x512", false, false, 128, 512, 784},
      {"mlp fwd 128x512x512", false, false, 128, 512, 512},
      {"mlp fwd 128x512x10", false, false, 128, 10, 512},
      {"mlp dW A^T B 784x128x512", true, false, 784, 512, 128},
      {"mlp dW A^T B 512x128x512", true, false, 512, 512, 128},
      {"mlp dW A^T B 512x128x10", true, false, 512, 10, 128},
      {"mlp dX A B^T 128x512x784", false, true, 128, 784, 512},
      {"mlp dX A B^T 128x512x512", false, true, 128, 512, 512},
      {"mlp dX A B^T 128x10x512", false, true, 128, 512, 10},
      {"batch-1 1x1024x1024", false, false, 1, 1024, 1024},
      {"batch-4 4x1024x1024", false, false, 4, 1024, 1024},
      {"batch-1 A B^T 1x1024x1024", false, true, 1, 1024, 1024},
      {"conv 3136x576x64", false, false, 3136, 64, 576},
      {"conv 49x4608x512", false, false, 49, 512, 4608},
  };
  std::printf("cpu: %s (%u hardware threads); our kernels: %s\n", CpuModel().c_str(),
              std::thread::hardware_concurrency(), tx::cpu::gemm::IsaName(tx::cpu::gemm::BestIsa()));
  std::printf("%s\n", scipy_openblas_get_config());
  std::printf(
      "ours: Sgemm; oblas: OpenBLAS sgemm on its own 1 or 2 threads; engine: blas.cc today (sgemv for one row,\n"
      "else sgemm; 2t: C split over a 2-thread ThreadPool, single-threaded OpenBLAS per block). GFLOP/s, medians\n"
      "of %d samples (%s on one thread, wall time on two).\n",
      kSamples, g_cpu_time ? "thread CPU time" : "wall time");
  std::printf("%-28s %7s %7s %7s %6s %6s | %7s %7s %7s %6s %6s\n", "shape (M x K x N)", "ours1t", "oblas", "engine",
              "/oblas", "/eng", "ours2t", "oblas", "engine", "/oblas", "/eng");
  tx::ThreadPool pool(1);  // with the caller: two threads
  for (const Shape& s : shapes) {
    if (!filter.empty() && std::string(s.name).find(filter) == std::string::npos) continue;
    const Result one = Measure(s, 1, nullptr), two = Measure(s, 2, &pool);
    std::printf("%-28s %7.1f %7.1f %7.1f %6.2f %6.2f | %7.1f %7.1f %7.1f %6.2f %6.2f\n", s.name, one.ours, one.blas,
                one.engine, one.ours / one.blas, one.ours / one.engine, two.ours, two.blas, two.engine,
                two.ours / two.blas, two.ours / two.engine);
    std::fflush(stdout);
  }
  return 0;
}

// Tests of the bfloat16 GEMM (Bgemm, Note [bf16 GEMM] in kernels/cpu/gemm/gemm.h): each path this
// CPU runs (VDPBF16PS pairs; float32 kernels of every level on panels widened while packing),
// forced one at a time, against float64 sums of the same bfloat16 values: the four transpose
// combinations, sizes 1 to 300 with odd K, padded leading dimensions, alpha and beta, k == 0,
// empty C, NaN in C with beta == 0, serial and pooled threads, and the shapes of the few-row and
// narrow kernels (m = 1 to 9, n = 1 to 17, K = 1 and 10). Values stay far from the denormal
// range, which VDPBF16PS flushes to zero; DenormalsFlushOnDotPath documents that flush on each
// of its kernels.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "test_util.h"
#include "tensorflux/core/float16.h"
#include "tensorflux/core/thread_pool.h"
#include "tensorflux/kernels/cpu/gemm/gemm.h"
#include "tensorflux/kernels/cpu/gemm/gemm_kernels.h"

using namespace tx::cpu::gemm;
using tx::BFloat16;

namespace {

constexpr float kGuard = -777.0f;  // C's margins and row padding: must stay untouched
constexpr double kEps32 = 1.0 / (1 << 23);  // float32 epsilon: the sums are float32

// One way to run Bgemm: a forced path, or the widened path on one float32 kernel set.
struct Path {
  std::string name;
  std::function<void(const BgemmArgs&, const GemmThreads*)> run;
};

// The paths this CPU runs; the dot path is reported as skipped where it cannot run.
std::vector<Path> TestedPaths() {
  std::vector<Path> out;
  if (BgemmPathSupported(BgemmPath::kDotBf16))
    out.push_back(
        {"dpbf16", [](const BgemmArgs& g, const GemmThreads* t) { BgemmWithPath(BgemmPath::kDotBf16, g, t); }});
  else
    std::printf("  SKIPPED: the dpbf16 path (this CPU or build lacks AVX512_BF16)\n");
  std::vector<const KernelSet*> sets = {GenericKernels()};
  if (IsaSupported(Isa::kAvx2)) sets.push_back(Avx2Kernels());
  if (IsaSupported(Isa::kAvx2) && Avx512ShapedAvx2Kernels() != nullptr) sets.push_back(Avx512ShapedAvx2Kernels());
  if (IsaSupported(Isa::kAvx512)) sets.push_back(Avx512Kernels());
  for (const KernelSet* ks : sets)
    out.push_back({std::string("widened ") + ks->name,
                   [ks](const BgemmArgs& g, const GemmThreads* t) { BgemmWidenedWithKernels(*ks, g, t); }});
  return out;
}

struct Shape {
  int64_t m, n, k;
  bool ta = false, tb = false;
  float alpha = 1.0f, beta = 0.0f;
  int64_t pad = 0;  // extra elements per row of A, B and C
};

// A rows x cols bfloat16 matrix, rows ld apart, allocated to exactly (rows - 1) * ld + cols values:
// uniform in [-1, 1], magnitudes below 2^-16 raised to it (products stay normal float32).
std::vector<BFloat16> RandomBf16(int64_t rows, int64_t cols, int64_t ld, std::mt19937* rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<BFloat16> v(static_cast<size_t>(rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols));
  for (BFloat16& x : v) {
    float f = u(*rng);
    if (std::fabs(f) < 1.0f / 65536) f = std::copysign(1.0f / 65536, f);
    x = BFloat16(f);
  }
  return v;
}

double Value(BFloat16 x) { return static_cast<double>(static_cast<float>(x)); }

// Runs `s` on `path` and compares C with float64 sums of the bfloat16 values, within k + 4 float32
// roundings of the magnitudes summed; prints the first mismatch.
bool Check(const Path& path, const Shape& s, const GemmThreads* threads = nullptr) {
  std::mt19937 rng(static_cast<unsigned>(s.m * 7907 + s.n * 137 + s.k * 19 + s.ta * 2 + s.tb));
  const int64_t lda = std::max<int64_t>(1, (s.ta ? s.m : s.k) + s.pad);
  const int64_t ldb = std::max<int64_t>(1, (s.tb ? s.k : s.n) + s.pad), ldc = std::max<int64_t>(1, s.n + s.pad);
  const std::vector<BFloat16> a = RandomBf16(s.ta ? s.k : s.m, s.ta ? s.m : s.k, lda, &rng);
  const std::vector<BFloat16> b = RandomBf16(s.tb ? s.n : s.k, s.tb ? s.k : s.n, ldb, &rng);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> before(static_cast<size_t>(s.m * s.n));
  for (float& x : before) x = u(rng);
  const int64_t margin = ldc + 5;
  std::vector<float> buf(static_cast<size_t>(s.m * ldc + 2 * margin), kGuard);
  float* c = buf.data() + margin;
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j)
      c[i * ldc + j] = s.beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : before[i * s.n + j];
  BgemmArgs g;
  g.trans_a = s.ta, g.trans_b = s.tb, g.m = s.m, g.n = s.n, g.k = s.k, g.alpha = s.alpha, g.beta = s.beta;
  g.a = a.data(), g.lda = lda, g.b = b.data(), g.ldb = ldb, g.c = c, g.ldc = ldc;
  path.run(g, threads);
  auto report = [&](const char* what, int64_t i, int64_t j, double got, double want) {
    std::printf(
        "  %s m=%lld n=%lld k=%lld ta=%d tb=%d alpha=%g beta=%g pad=%lld threads=%d: %s at (%lld, %lld): "
        "%.9g, want %.9g\n",
        path.name.c_str(), (long long)s.m, (long long)s.n, (long long)s.k, s.ta, s.tb, s.alpha, s.beta,
        (long long)s.pad, threads == nullptr ? 1 : threads->threads, what, (long long)i, (long long)j, got, want);
    return false;
  };
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < s.n; ++j) {
      double sum = 0, mag = 0;
      for (int64_t p = 0; p < s.k; ++p) {
        const double x = Value(a[s.ta ? p * lda + i : i * lda + p]), y = Value(b[s.tb ? j * ldb + p : p * ldb + j]);
        sum += x * y;
        mag += std::fabs(x * y);
      }
      const double prev = s.beta == 0.0f ? 0.0 : before[i * s.n + j];
      const double want = s.alpha * sum + s.beta * prev;
      const double tol = double(s.k + 4) * kEps32 * (std::fabs(s.alpha) * mag + std::fabs(s.beta * prev)) + 1e-30;
      if (!(std::fabs(c[i * ldc + j] - want) <= tol)) return report("C", i, j, c[i * ldc + j], want);
    }
    for (int64_t j = s.n; j < ldc; ++j)
      if (c[i * ldc + j] != kGuard) return report("write in the row padding", i, j, c[i * ldc + j], kGuard);
  }
  for (int64_t x = 0; x < margin; ++x) {
    if (buf[x] != kGuard) return report("write before C", -1, x, buf[x], kGuard);
    if (buf[buf.size() - 1 - x] != kGuard) return report("write after C", s.m, x, buf[buf.size() - 1 - x], kGuard);
  }
  return true;
}

// `s` in each transpose combination; the number of mismatches.
int CheckAllTransposes(const Path& path, Shape s, const GemmThreads* threads = nullptr) {
  int bad = 0;
  for (int t = 0; t < 4; ++t) {
    s.ta = (t & 1) != 0, s.tb = (t & 2) != 0;
    bad += Check(path, s, threads) ? 0 : 1;
  }
  return bad;
}

// Odd and even sizes around the tiles (14 x 32, 6 x 16, 6 x 8), K pairs and K blocks.
const int64_t kSizes[] = {1, 2, 3, 5, 7, 13, 14, 15, 17, 31, 32, 33, 63, 65, 127, 129, 255, 257, 300};
constexpr int kCount = sizeof(kSizes) / sizeof(kSizes[0]);

// Claims 3 threads and runs the ranges one by one on the caller.
GemmThreads OneByOne() {
  GemmThreads t;
  t.threads = 3;
  t.parallel_for = [](int64_t count, const std::function<void(int64_t, int64_t)>& body) {
    for (int64_t i = 0; i < count; ++i) body(i, i + 1);
  };
  return t;
}

}  // namespace

TEST(BgemmSquareSizesEveryTranspose) {
  for (const Path& path : TestedPaths()) {
    int bad = 0;
    for (int64_t s : kSizes) bad += CheckAllTransposes(path, {s, s, s});
    EXPECT_EQ(bad, 0);
  }
}

TEST(BgemmMixedSizesOddK) {
  for (const Path& path : TestedPaths()) {
    int bad = 0;
    for (int i = 0; i < kCount; ++i)
      bad += CheckAllTransposes(path, {kSizes[i], kSizes[(i + 7) % kCount], kSizes[(i + 3) % kCount]});
    for (int64_t k : {1, 3, 9, 15, 63, 129, 299}) bad += CheckAllTransposes(path, {29, 47, k});
    // K over several blocks with an odd last one.
    bad += CheckAllTransposes(path, {20, 40, 1001});
    EXPECT_EQ(bad, 0);
  }
}

TEST(BgemmPaddedLeadingDimensions) {
  for (const Path& path : TestedPaths()) {
    int bad = 0;
    for (int64_t pad : {1, 2, 5, 33}) {
      bad += CheckAllTransposes(path, {45, 70, 131, false, false, 1.0f, 0.0f, pad});
      bad += CheckAllTransposes(path, {3, 33, 8, false, false, 1.0f, 0.0f, pad});
    }
    EXPECT_EQ(bad, 0);
  }
}

TEST(BgemmAlphaAndBeta) {
  for (const Path& path : TestedPaths()) {
    int bad = 0;
    for (float alpha : {1.0f, -0.5f, 3.0f})
      for (float beta : {0.0f, 1.0f, 0.25f, -2.0f}) {
        bad += CheckAllTransposes(path, {33, 65, 77, false, false, alpha, beta, 1});
        bad += CheckAllTransposes(path, {2, 17, 300, false, false, alpha, beta, 0});
      }
    EXPECT_EQ(bad, 0);
  }
}

TEST(BgemmEmptyAndZeroK) {
  for (const Path& path : TestedPaths()) {
    int bad = 0;
    // k == 0: C = beta * C (zeros over the NaN when beta == 0); m or n == 0: C untouched.
    for (float beta : {0.0f, 1.0f, -0.5f})
      for (const Shape& s : {Shape{9, 40, 0}, Shape{2, 40, 0}, Shape{40, 10, 0}})
        bad += CheckAllTransposes(path, {s.m, s.n, 0, false, false, 2.0f, beta, 3});
    bad += CheckAllTransposes(path, {0, 10, 9});
    bad += CheckAllTransposes(path, {3, 0, 9});
    bad += CheckAllTransposes(path, {0, 9, 9});
    bad += CheckAllTransposes(path, {9, 0, 9});
    bad += CheckAllTransposes(path, {0, 0, 0});
    EXPECT_EQ(bad, 0);
  }
}

TEST(BgemmAlphaZeroReadsNeitherAnorB) {
  for (const Path& path : TestedPaths()) {
    const BFloat16 nan = BFloat16::FromBits(0x7fc0);
    std::vector<BFloat16> a(30 * 20, nan), b(20 * 40, nan);
    std::vector<float> c(30 * 40, 4.0f);
    BgemmArgs g;
    g.m = 30, g.n = 40, g.k = 20, g.alpha = 0.0f, g.beta = -0.5f;
    g.a = a.data(), g.lda = 20, g.b = b.data(), g.ldb = 40, g.c = c.data(), g.ldc = 40;
    path.run(g, nullptr);
    EXPECT_TRUE(std::all_of(c.begin(), c.end(), [](float x) { return x == -2.0f; }));
  }
}

TEST(BgemmFewRowsEveryShape) {
  // The few-row kernels (m <= 8: B read in place, in pairs or in dot products), m = 1 to 9 with
  // every width up to 17, K of one, one pair, an odd count and 10, odd leading dimensions.
  for (const Path& path : TestedPaths()) {
    int bad = 0;
    for (int64_t m = 1; m <= 9; ++m)
      for (int64_t n = 1; n <= 17; ++n)
        for (int64_t k : {1, 2, 10, 33})
          for (int64_t pad : {0, 1}) bad += CheckAllTransposes(path, {m, n, k, false, false, 1.0f, 0.0f, pad});
    for (int64_t m : {1, 2, 3, 4, 5, 7, 8})
      for (int64_t n : {31, 100, 129, 300})
        for (int64_t k : {63, 255, 1001}) bad += CheckAllTransposes(path, {m, n, k, false, false, 1.0f, 0.0f, 3});
    for (float beta : {1.0f, -0.5f}) bad += CheckAllTransposes(path, {3, 140, 77, false, false, -2.0f, beta, 1});
    EXPECT_EQ(bad, 0);
  }
}

TEST(BgemmNarrowEveryShape) {
  // The narrow kernels (n <= 16, m > 8: one B panel 16 pairs wide, A in place or interleaved):
  // row counts around their 16-row tile and 128-row items, widths 1 to 17, K of 1, 10 and odd.
  for (const Path& path : TestedPaths()) {
    int bad = 0;
    for (int64_t m : {9, 15, 16, 17, 33, 129, 300})
      for (int64_t n = 1; n <= 17; ++n)
        for (int64_t k : {1, 10, 127})
          for (int64_t pad : {0, 1}) bad += CheckAllTransposes(path, {m, n, k, false, false, 1.0f, 0.0f, pad});
    for (int64_t k : {2, 3, 512, 1001}) bad += CheckAllTransposes(path, {128, 10, k});
    bad += CheckAllTransposes(path, {512, 10, 128});
    for (float beta : {1.0f, 0.25f}) bad += CheckAllTransposes(path, {45, 10, 65, false, false, 3.0f, beta, 2});
    EXPECT_EQ(bad, 0);
  }
}

TEST(BgemmThreads) {
  // The engine's pool (3 threads) and a one-by-one runner; shapes that split M, N or both, and
  // one over several K blocks and B strips.
  tx::ThreadPool pool(2);
  const GemmThreads pooled = PoolThreads(&pool), serial = OneByOne();
  for (const Path& path : TestedPaths()) {
    int bad = 0;
    for (const GemmThreads* th : {&pooled, &serial}) {
      for (const Shape& s : {Shape{128, 100, 97}, Shape{49, 300, 301}, Shape{300, 24, 200},
                             Shape{131, 65, 129, false, false, 0.5f, 1.0f, 3}})
        bad += CheckAllTransposes(path, s, th);
      bad += Check(path, {9, 4100, 1100, false, true}, th) ? 0 : 1;
      // Few rows and narrow C past their thresholds for threads (2^24 and 2^20 multiply-adds).
      bad += CheckAllTransposes(path, {4, 4100, 1100, false, false, 1.0f, 0.5f, 1}, th);
      bad += CheckAllTransposes(path, {2000, 10, 1001, false, false, 1.0f, 0.0f, 1}, th);
    }
    EXPECT_EQ(bad, 0);
  }
}

TEST(BgemmForcedPathsAndDefault) {
  // Bgemm takes the best path, and gives what BgemmWithPath on it gives, bit for bit.
  EXPECT_TRUE(BgemmPathSupported(BgemmPath::kWidened));
  EXPECT_TRUE(BgemmPathSupported(BestBgemmPath()));
  std::printf("  best path: %s\n", BgemmPathName(BestBgemmPath()));
  const int64_t m = 37, n = 45, k = 301;
  std::vector<BFloat16> a(m * k), b(k * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = BFloat16(std::sin(0.1f * float(i)));
  for (size_t i = 0; i < b.size(); ++i) b[i] = BFloat16(std::cos(0.07f * float(i)));
  std::vector<float> want(m * n), got(m * n, 1.0f);
  BgemmArgs g;
  g.m = m, g.n = n, g.k = k, g.a = a.data(), g.lda = k, g.b = b.data(), g.ldb = n, g.ldc = n;
  g.c = want.data();
  BgemmWithPath(BestBgemmPath(), g);
  g.c = got.data();
  Bgemm(g);
  EXPECT_TRUE(want == got);
}

TEST(DenormalsFlushOnDotPath) {
  // VDPBF16PS reads denormal bfloat16 inputs as zero and flushes denormal float32 results to zero
  // (Note [bf16 GEMM]), on each of its kernels (few rows with B stored [k, n] or [n, k], narrow,
  // packed tiles); the widened path keeps both, as float32 arithmetic does.
  const BFloat16 tiny = BFloat16::FromBits(0x0001);  // 2^-133, a denormal input
  const BFloat16 small = BFloat16(std::ldexp(1.0f, -70)), one = BFloat16(1.0f);
  for (const int64_t m : {2, 20})
    for (const int64_t n : {2, 40})
      for (const bool tb : {false, true}) {
        // Row 0 of op(A): tiny (a denormal input); row 1: 2^-70 (times column 1's 2^-70: 2^-140, a
        // denormal result); other rows 1. Column 0 of op(B): 1, column 1: 2^-70, others 1; k = 1.
        std::vector<BFloat16> a(m, one), b(n, one);
        a[0] = tiny, a[1] = small, b[1] = small;
        for (BgemmPath path : {BgemmPath::kDotBf16, BgemmPath::kWidened}) {
          if (!BgemmPathSupported(path)) continue;
          std::vector<float> c(m * n, 1.0f);
          BgemmArgs g;
          g.trans_b = tb, g.m = m, g.n = n, g.k = 1;
          g.a = a.data(), g.lda = 1, g.b = b.data(), g.ldb = tb ? 1 : n, g.c = c.data(), g.ldc = n;
          BgemmWithPath(path, g);
          const bool flush = path == BgemmPath::kDotBf16;
          EXPECT_EQ(c[0], flush ? 0.0f : std::ldexp(1.0f, -133));
          EXPECT_EQ(c[n + 1], flush ? 0.0f : std::ldexp(1.0f, -140));
          EXPECT_EQ(c[n], std::ldexp(1.0f, -70));  // 2^-70 * 1: normal, on both paths
          if (n > 2) EXPECT_EQ(c[2 * n - 1], std::ldexp(1.0f, -70));
        }
      }
}

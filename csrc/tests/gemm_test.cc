// Tests of our GEMM (kernels/cpu/gemm): every instruction-set level this CPU runs, forced one at a
// time, against float64 sums: the four transpose combinations, odd sizes around the tile and
// block edges, padded leading dimensions, alpha and beta, k == 0, NaN in C with beta == 0, and
// thread runners. A and B are allocated to their exact extent, so a sanitizer build catches any
// read past them; C has a sentinel margin that must stay untouched.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "test_util.h"
#include "tensorflux/core/thread_pool.h"
#include "tensorflux/kernels/cpu/gemm/gemm.h"
#include "tensorflux/kernels/cpu/gemm/gemm_kernels.h"

using namespace tx::cpu::gemm;

namespace {

constexpr float kSentinel = 12345.0f;
constexpr double kEps = 1.0 / (1 << 23);  // float32 epsilon

// The kernel sets this CPU runs: each level, and AVX2 code in the AVX-512 tile shape (14 x 32)
// with the AVX-512 packers where AVX2 runs; the levels it cannot run are reported as skipped.
std::vector<const KernelSet*> TestedKernels() {
  static bool reported = false;
  std::vector<const KernelSet*> out = {GenericKernels()};
  if (IsaSupported(Isa::kAvx2)) out.push_back(Avx2Kernels());
  if (IsaSupported(Isa::kAvx2) && Avx512ShapedAvx2Kernels() != nullptr) out.push_back(Avx512ShapedAvx2Kernels());
  if (IsaSupported(Isa::kAvx512)) out.push_back(Avx512Kernels());
  for (Isa isa : {Isa::kAvx2, Isa::kAvx512})
    if (!IsaSupported(isa) && !reported)
      std::printf("  SKIPPED: the %s kernels (this CPU or build lacks them)\n", IsaName(isa));
  reported = true;
  return out;
}

struct Case {
  int64_t m, n, k;
  bool ta = false, tb = false;
  float alpha = 1.0f, beta = 0.0f;
  int64_t pad = 0;  // extra floats per row of A, B and C
};

// Rows x cols with rows ld apart, allocated to exactly (rows - 1) * ld + cols floats.
std::vector<float> RandomMatrix(int64_t rows, int64_t cols, int64_t ld, std::mt19937* rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols));
  for (float& x : v) x = u(*rng);
  return v;
}

// Runs `c` on the kernels `ks` with `threads` and compares with float64 sums within (k + 4) float32
// roundings of the magnitudes involved; prints the first mismatch.
bool Check(const KernelSet* ks, const Case& c, const GemmThreads* threads = nullptr) {
  std::mt19937 rng(static_cast<unsigned>(c.m * 7919 + c.n * 131 + c.k * 17 + c.ta * 2 + c.tb));
  const int64_t a_rows = c.ta ? c.k : c.m, a_cols = c.ta ? c.m : c.k;
  const int64_t b_rows = c.tb ? c.n : c.k, b_cols = c.tb ? c.k : c.n;
  const int64_t lda = std::max<int64_t>(1, a_cols + c.pad), ldb = std::max<int64_t>(1, b_cols + c.pad);
  const int64_t ldc = std::max<int64_t>(1, c.n + c.pad);
  const std::vector<float> a = RandomMatrix(a_rows, a_cols, lda, &rng), b = RandomMatrix(b_rows, b_cols, ldb, &rng);
  // C with a sentinel row before and after; with beta == 0 it holds NaN, which must not leak.
  const int64_t margin = ldc + 3;
  std::vector<float> cbuf(static_cast<size_t>(c.m * ldc + 2 * margin), kSentinel);
  float* cm = cbuf.data() + margin;
  std::vector<float> c0 = RandomMatrix(c.m, c.n, c.n, &rng);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j)
      cm[i * ldc + j] = c.beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : c0[i * c.n + j];
  GemmArgs g;
  g.trans_a = c.ta, g.trans_b = c.tb, g.m = c.m, g.n = c.n, g.k = c.k, g.alpha = c.alpha, g.beta = c.beta;
  g.a = a.data(), g.lda = lda, g.b = b.data(), g.ldb = ldb, g.c = cm, g.ldc = ldc;
  SgemmWithKernels(*ks, g, threads);
  auto fail = [&](const char* what, int64_t i, int64_t j, double got, double want) {
    std::printf(
        "  %s m=%lld n=%lld k=%lld ta=%d tb=%d alpha=%g beta=%g pad=%lld threads=%d: %s at (%lld, %lld): %g, "
        "want %g\n",
        ks->name, (long long)c.m, (long long)c.n, (long long)c.k, c.ta, c.tb, c.alpha, c.beta, (long long)c.pad,
        threads == nullptr ? 1 : threads->threads, what, (long long)i, (long long)j, got, want);
    return false;
  };
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      double sum = 0, mag = 0;
      for (int64_t p = 0; p < c.k; ++p) {
        const double x = a[c.ta ? p * lda + i : i * lda + p], y = b[c.tb ? j * ldb + p : p * ldb + j];
        sum += x * y;
        mag += std::fabs(x * y);
      }
      const double prev = c.beta == 0.0f ? 0.0 : c0[i * c.n + j];
      const double want = c.alpha * sum + c.beta * prev;
      const double tol = double(c.k + 4) * kEps * (std::fabs(c.alpha) * mag + std::fabs(c.beta * prev)) + 1e-30;
      const double got = cm[i * ldc + j];
      if (!(std::fabs(got - want) <= tol)) return fail("C", i, j, got, want);
    }
    for (int64_t j = c.n; j < ldc; ++j)
      if (cm[i * ldc + j] != kSentinel) return fail("write in the row padding", i, j, cm[i * ldc + j], kSentinel);
  }
  for (int64_t x = 0; x < margin; ++x) {
    if (cbuf[x] != kSentinel) return fail("write before C", -1, x, cbuf[x], kSentinel);
    const float after = cbuf[cbuf.size() - 1 - x];
    if (after != kSentinel) return fail("write after C", c.m, x, after, kSentinel);
  }
  return true;
}

// Every transpose combination of `c`; counts the mismatches into *bad.
void CheckTransposes(const KernelSet* ks, Case c, int* bad, const GemmThreads* threads = nullptr) {
  for (int t = 0; t < 4; ++t) {
    c.ta = (t & 1) != 0;
    c.tb = (t & 2) != 0;
    if (!Check(ks, c, threads)) ++*bad;
  }
}

const int64_t kSizes[] = {1, 2, 3, 5, 7, 13, 17, 31, 33, 63, 65, 127, 129, 255, 257, 1000};
constexpr int kNumSizes = sizeof(kSizes) / sizeof(kSizes[0]);

// A thread runner that runs the ranges one after another on the caller, claiming to have 4 threads.
GemmThreads SerialRunner() {
  GemmThreads t;
  t.threads = 4;
  t.parallel_for = [](int64_t count, const std::function<void(int64_t, int64_t)>& body) {
    for (int64_t i = 0; i < count; ++i) body(i, i + 1);
  };
  return t;
}

}  // namespace

TEST(SquareOddSizesEveryTranspose) {
  for (const KernelSet* ks : TestedKernels()) {
    int bad = 0;
    for (int64_t s : kSizes)
      if (s <= 257) CheckTransposes(ks, {s, s, s}, &bad);
    EXPECT_EQ(bad, 0);
  }
}

TEST(MixedOddSizesEveryTranspose) {
  // Each size as m, n and k against other sizes; 1000 only where the others keep the reference cheap.
  for (const KernelSet* ks : TestedKernels()) {
    int bad = 0;
    for (int i = 0; i < kNumSizes; ++i) {
      const int64_t m = kSizes[i], n = kSizes[(i + 5) % kNumSizes], k = kSizes[(i + 11) % kNumSizes];
      if (m * n * k <= (int64_t{1} << 24)) CheckTransposes(ks, {m, n, k}, &bad);
    }
    for (const Case& c : {Case{1000, 33, 17}, Case{7, 1000, 65}, Case{13, 31, 1000}, Case{4, 1000, 257},
                          Case{1, 257, 1000}, Case{65, 129, 1000}, Case{1000, 5, 63}})
      CheckTransposes(ks, c, &bad);
    EXPECT_EQ(bad, 0);
  }
}

TEST(SmallMRowsAndDots) {
  // m <= 8 takes the unpacked kernels (4 rows per pass): every row count, column tails below one
  // vector, long K; B stored [n, k] larger than L2 for m > 4.
  for (const KernelSet* ks : TestedKernels()) {
    int bad = 0;
    for (const Case& c : {Case{6, 700, 800}, Case{8, 900, 700}}) CheckTransposes(ks, c, &bad);
    for (int64_t m = 1; m <= 9; ++m)
      for (int64_t n : {1, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 129, 200})
        for (int64_t k : {1, 2, 7, 16, 33, 300}) CheckTransposes(ks, {m, n, k}, &bad);
    EXPECT_EQ(bad, 0);
  }
}

TEST(PaddedLeadingDimensions) {
  for (const KernelSet* ks : TestedKernels()) {
    int bad = 0;
    for (int64_t pad : {1, 3, 16, 37}) {
      CheckTransposes(ks, {45, 70, 300, false, false, 1.0f, 0.0f, pad}, &bad);
      CheckTransposes(ks, {3, 70, 33, false, false, 1.0f, 0.0f, pad}, &bad);
      CheckTransposes(ks, {129, 31, 257, false, false, 1.0f, 0.0f, pad}, &bad);
    }
    EXPECT_EQ(bad, 0);
  }
}

TEST(AlphaAndBeta) {
  for (const KernelSet* ks : TestedKernels()) {
    int bad = 0;
    for (float alpha : {1.0f, -0.5f, 2.0f})
      for (float beta : {0.0f, 1.0f, 0.25f, -1.0f})
        for (const Case& shape : {Case{33, 65, 300}, Case{2, 40, 17}, Case{17, 17, 600}}) {
          Case c = shape;
          c.alpha = alpha, c.beta = beta, c.pad = 2;
          CheckTransposes(ks, c, &bad);
        }
    EXPECT_EQ(bad, 0);
  }
}

TEST(EmptyAndZeroK) {
  for (const KernelSet* ks : TestedKernels()) {
    int bad = 0;
    // k == 0: C = beta * C (zeros when beta == 0, though C held NaN); m or n == 0: nothing written.
    for (float beta : {0.0f, 1.0f, 0.5f}) {
      CheckTransposes(ks, {5, 7, 0, false, false, 1.0f, beta, 1}, &bad);
      CheckTransposes(ks, {70, 40, 0, false, false, 2.0f, beta}, &bad);
    }
    CheckTransposes(ks, {0, 5, 5}, &bad);
    CheckTransposes(ks, {5, 0, 5}, &bad);
    CheckTransposes(ks, {0, 0, 0}, &bad);
    EXPECT_EQ(bad, 0);
  }
}

TEST(AlphaZeroReadsNeitherAnorB) {
  // BLAS semantics: alpha == 0 scales C by beta; NaN in A and B does not reach C.
  for (const KernelSet* ks : TestedKernels()) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> a(40 * 30, nan), b(30 * 20, nan), c(40 * 20, 3.0f);
    GemmArgs g;
    g.m = 40, g.n = 20, g.k = 30, g.alpha = 0.0f, g.beta = 0.5f;
    g.a = a.data(), g.lda = 30, g.b = b.data(), g.ldb = 20, g.c = c.data(), g.ldc = 20;
    SgemmWithKernels(*ks, g, nullptr);
    bool ok = true;
    for (float x : c) ok = ok && x == 1.5f;
    EXPECT_TRUE(ok);
  }
}

TEST(ThreadRunners) {
  // The engine's pool (3 threads), a runner that runs its ranges one by one, shapes that split M,
  // N or both, several K blocks and several B strips.
  tx::ThreadPool pool(2);
  const GemmThreads pooled = PoolThreads(&pool), serial = SerialRunner();
  for (const KernelSet* ks : TestedKernels()) {
    int bad = 0;
    for (const GemmThreads* th : {&pooled, &serial}) {
      for (const Case& c : {Case{128, 100, 96}, Case{49, 300, 700}, Case{300, 24, 200}, Case{4, 1000, 300},
                            Case{3, 40, 900}, Case{257, 65, 129, false, false, 0.5f, 1.0f, 3}})
        CheckTransposes(ks, c, &bad, th);
      // K * N past one strip of packed B (8 MiB): two strips.
      if (!Check(ks, {7, 2100, 1100}, th)) ++bad;
      // Small-M products with enough work for threads (2^24 multiply-adds), in one and two passes.
      CheckTransposes(ks, {2, 4100, 2100}, &bad, th);
      if (!Check(ks, {7, 4100, 700}, th) || !Check(ks, {7, 4100, 700, false, true}, th)) ++bad;
    }
    EXPECT_EQ(bad, 0);
  }
}

TEST(PoolWithoutWorkersRunsOnCaller) {
  tx::ThreadPool none(0);
  const GemmThreads t = PoolThreads(&none);
  EXPECT_EQ(t.threads, 1);
  EXPECT_TRUE(Check(GenericKernels(), {64, 64, 64}, &t));
}

TEST(ForcedIsaRunsThatLevel) {
  // SgemmWithIsa gives exactly what the level's kernels give; Sgemm what the best level's give.
  EXPECT_TRUE(IsaSupported(BestIsa()));
  EXPECT_TRUE(IsaSupported(Isa::kGeneric));
  std::printf("  best level: %s\n", IsaName(BestIsa()));
  const int64_t m = 37, n = 45, k = 300;
  std::vector<float> a(m * k), b(k * n), want(m * n), got(m * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.1f * float(i));
  for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.07f * float(i));
  GemmArgs g;
  g.m = m, g.n = n, g.k = k, g.a = a.data(), g.lda = k, g.b = b.data(), g.ldb = n, g.ldc = n;
  const KernelSet* kernels[] = {GenericKernels(), Avx2Kernels(), Avx512Kernels()};
  for (Isa isa : {Isa::kGeneric, Isa::kAvx2, Isa::kAvx512}) {
    if (!IsaSupported(isa)) continue;
    g.c = want.data();
    SgemmWithKernels(*kernels[static_cast<int>(isa)], g, nullptr);
    g.c = got.data();
    SgemmWithIsa(isa, g);
    EXPECT_TRUE(want == got);
    if (isa == BestIsa()) {
      std::fill(got.begin(), got.end(), 0.0f);
      Sgemm(g);
      EXPECT_TRUE(want == got);
    }
  }
}

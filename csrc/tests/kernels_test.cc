// Tests of the CPU kernels (array, math, nn ops) run directly on hand-built nodes, against
// hand-computed references: broadcasting, reductions, matmul, softmax, casts, error paths.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "kernel_test_util.h"
#include "test_util.h"
#include "tensorflux/kernels/cpu/vec_math.h"

using namespace tx;
using namespace tx_test;

namespace {

AttrMap Attrs(std::initializer_list<std::pair<const std::string, AttrValue>> kv) { return AttrMap(kv); }

template <typename T>
std::vector<T> Iota(int64_t n, std::function<T(int64_t)> f) {
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = f(i);
  return v;
}

// Maps output index `o` of `out` to the flat index of an input of shape `in` under broadcasting.
int64_t BroadcastIndex(const TensorShape& out, const TensorShape& in, int64_t o) {
  int64_t idx = 0, stride = 1;
  for (int k = out.rank() - 1, j = in.rank() - 1; k >= 0; --k, --j) {
    const int64_t c = o % out.dim(k);
    o /= out.dim(k);
    if (j >= 0) {
      if (in.dim(j) != 1) idx += c * stride;
      stride *= in.dim(j);
    }
  }
  return idx;
}

TensorShape BroadcastShape(const TensorShape& a, const TensorShape& b) {
  const int r = std::max(a.rank(), b.rank());
  std::vector<int64_t> d(r);
  for (int k = 0; k < r; ++k) {
    const int ia = k - (r - a.rank()), ib = k - (r - b.rank());
    const int64_t da = ia >= 0 ? a.dim(ia) : 1, db = ib >= 0 ? b.dim(ib) : 1;
    d[k] = da == 1 ? db : da;
  }
  return TensorShape(d);
}

// Runs `op` on x (shape xs) and y (shape ys) and compares with f applied through a reference broadcast.
template <typename T>
void CheckBinary(const std::string& op, const TensorShape& xs, const TensorShape& ys, std::function<T(T, T)> f) {
  std::vector<T> x = Iota<T>(xs.num_elements(), [](int64_t i) { return static_cast<T>(T(i % 17) - T(8)) / T(2); });
  std::vector<T> y = Iota<T>(ys.num_elements(), [](int64_t i) { return T((i % 13) + 1) * T(i % 2 ? -1 : 1); });
  OpTester t;
  std::vector<Tensor> out;
  Status s = t.RunOp(op, {MakeTensor<T>(xs, x), MakeTensor<T>(ys, y)}, {}, &out);
  EXPECT_OK(s);
  if (!s.ok()) return;
  const TensorShape os = BroadcastShape(xs, ys);
  EXPECT_TRUE(out[0].shape() == os);
  std::vector<T> got = Values<T>(out[0]);
  int bad = 0;
  for (int64_t o = 0; o < os.num_elements() && o < static_cast<int64_t>(got.size()); ++o) {
    const T want = f(x[BroadcastIndex(os, xs, o)], y[BroadcastIndex(os, ys, o)]);
    if (!(got[o] == want) && bad++ < 3)
      std::printf("  %s %s vs %s at %lld: got %g want %g\n", op.c_str(), xs.ToString().c_str(), ys.ToString().c_str(),
                  static_cast<long long>(o), static_cast<double>(got[o]), static_cast<double>(want));
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(static_cast<int64_t>(got.size()), os.num_elements());
}

const std::vector<std::pair<TensorShape, TensorShape>>& ShapePairs() {
  static const std::vector<std::pair<TensorShape, TensorShape>> pairs = {
      {{2, 3}, {2, 3}},
      {{2, 1, 3}, {4, 3}},
      {{4, 3}, {2, 1, 3}},
      {{3}, {2, 3}},
      {{2, 3}, {3}},
      {{5, 1}, {1, 7}},
      {{1}, {4, 4}},
      {{4, 4}, {}},
      {{}, {4}},
      {{2, 3, 4}, {2, 1, 4}},
      {{2, 1, 4, 1}, {3, 1, 5}},
      {{100, 7}, {7}},
      {{7}, {100, 7}},
      {{1000, 3}, {1000, 1}},
      {{0, 3}, {3}},
      {{300, 250}, {250}},
      {{300, 250}, {300, 1}},
      {{1, 1}, {3}},
      {{1 << 16}, {1 << 16}},
      {{2, 1, 300}, {2, 200, 300}},
      {{64, 64, 32}, {64, 1, 32}},
      {{}, {}},
  };
  return pairs;
}

}  // namespace

TEST(BinaryFloatAllShapes) {
  for (const auto& p : ShapePairs()) {
    CheckBinary<float>("AddV2", p.first, p.second, [](float a, float b) { return a + b; });
    CheckBinary<float>("Sub", p.first, p.second, [](float a, float b) { return a - b; });
    CheckBinary<float>("Mul", p.first, p.second, [](float a, float b) { return a * b; });
    CheckBinary<float>("RealDiv", p.first, p.second, [](float a, float b) { return a / b; });
  }
}

TEST(BinaryOtherTypes) {
  for (const auto& p : ShapePairs()) {
    CheckBinary<double>("Add", p.first, p.second, [](double a, double b) { return a + b; });
    CheckBinary<int32_t>("Sub", p.first, p.second, [](int32_t a, int32_t b) { return a - b; });
    CheckBinary<int64_t>("Mul", p.first, p.second, [](int64_t a, int64_t b) { return a * b; });
    CheckBinary<int32_t>("RealDiv", p.first, p.second, [](int32_t a, int32_t b) { return a / b; });
  }
  CheckBinary<uint8_t>("AddV2", {4, 5}, {5}, [](uint8_t a, uint8_t b) { return uint8_t(a + b); });
}

TEST(BinaryHandComputedBroadcast) {
  OpTester t;
  std::vector<Tensor> out;
  // [2,1,3] + [4,3] -> [2,4,3]
  Tensor x = MakeTensor<float>({2, 1, 3}, {1, 2, 3, 10, 20, 30});
  Tensor y = MakeTensor<float>({4, 3}, {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3});
  EXPECT_OK(t.RunOp("AddV2", {x, y}, {}, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({2, 4, 3}));
  std::vector<float> want = {1, 2, 3, 2, 3, 4, 3, 4, 5, 4, 5, 6, 10, 20, 30, 11, 21, 31, 12, 22, 32, 13, 23, 33};
  EXPECT_TRUE(Values<float>(out[0]) == want);
}

TEST(BinaryErrors) {
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_ERROR(
      t.RunOp("AddV2", {MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}), MakeTensor<float>({4}, {1, 2, 3, 4})}, {}, &out),
      "Incompatible shapes: [2,3] vs. [4]");
  EXPECT_ERROR(t.RunOp("RealDiv", {MakeTensor<int32_t>({3}, {1, 2, 3}), MakeTensor<int32_t>({3}, {1, 0, 3})}, {}, &out),
               "Integer division by zero");
  // Wrong runtime dtype (a mis-fed input) is an error, not a crash.
  Node* n = nullptr;
  EXPECT_OK(t.AddOp("Mul", {Ph(DT_FLOAT), Ph(DT_FLOAT)}, {}, &n));
  EXPECT_ERROR(t.Run(n, {MakeTensor<int32_t>({1}, {1}), MakeTensor<float>({1}, {1})}, &out), "has type int32");
  EXPECT_ERROR(t.Run(n, {Tensor(), MakeTensor<float>({1}, {1})}, &out), "has type invalid");
}

TEST(BinaryIntegerSemantics) {
  OpTester t;
  std::vector<Tensor> out;
  const int32_t kMin = std::numeric_limits<int32_t>::min(), kMax = std::numeric_limits<int32_t>::max();
  EXPECT_OK(t.RunOp("RealDiv", {MakeTensor<int32_t>({4}, {-7, 7, kMin, 9}), MakeTensor<int32_t>({4}, {2, -2, -1, 3})},
                    {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({-3, -3, kMin, 3}));
  EXPECT_OK(t.RunOp("AddV2", {MakeTensor<int32_t>({2}, {kMax, kMin}), MakeTensor<int32_t>({}, {1})}, {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({kMin, kMin + 1}));
  EXPECT_OK(t.RunOp("Mul", {MakeTensor<uint8_t>({2}, {16, 3}), MakeTensor<uint8_t>({2}, {16, 5})}, {}, &out));
  EXPECT_TRUE(Values<uint8_t>(out[0]) == std::vector<uint8_t>({0, 15}));
}

TEST(BinaryForwardsSoleInputBuffer) {
  OpTester t;
  Node* n = nullptr;
  EXPECT_OK(t.AddOp("Mul", {Ph(DT_FLOAT), Ph(DT_FLOAT)}, {}, &n));
  std::vector<Tensor> out;
  Tensor x = MakeTensor<float>({3}, {1, 2, 3});
  Tensor y = MakeTensor<float>({2, 3}, {1, 1, 1, 2, 2, 2});
  const void* ybuf = y.raw_data();
  std::vector<Tensor> in;
  in.push_back(x);  // still referenced here: not reusable
  in.push_back(std::move(y));  // held only by the kernel's input: reusable
  EXPECT_OK(t.Run(n, std::move(in), &out));
  EXPECT_EQ(out[0].raw_data(), ybuf);
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({1, 2, 3, 2, 4, 6}));
  // A shared input is never overwritten.
  Tensor z = MakeTensor<float>({3}, {1, 2, 3});
  EXPECT_OK(t.Run(n, {z, z}, &out));
  EXPECT_TRUE(out[0].raw_data() != z.raw_data());
  EXPECT_TRUE(Values<float>(z) == std::vector<float>({1, 2, 3}));
}

// ---------------------------------------------------------------------------- MatMul

template <typename T>
void CheckMatMul(int64_t m, int64_t k, int64_t n, bool ta, bool tb, double tol) {
  TensorShape as = ta ? TensorShape({k, m}) : TensorShape({m, k});
  TensorShape bs = tb ? TensorShape({n, k}) : TensorShape({k, n});
  std::vector<T> a = Iota<T>(m * k, [](int64_t i) { return T((i * 7) % 11) - T(5); });
  std::vector<T> b = Iota<T>(k * n, [](int64_t i) { return T((i * 5) % 9) - T(4); });
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_OK(t.RunOp("MatMul", {MakeTensor<T>(as, a), MakeTensor<T>(bs, b)},
                    Attrs({{"transpose_a", AttrValue::Bool(ta)}, {"transpose_b", AttrValue::Bool(tb)}}), &out));
  if (out.empty() || !out[0].initialized()) return;
  EXPECT_TRUE(out[0].shape() == TensorShape({m, n}));
  std::vector<T> c = Values<T>(out[0]);
  int bad = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (int64_t p = 0; p < k; ++p)
        want += double(ta ? a[p * m + i] : a[i * k + p]) * double(tb ? b[j * k + p] : b[p * n + j]);
      if (std::fabs(double(c[i * n + j]) - want) > tol && bad++ < 3)
        std::printf("  MatMul %lldx%lldx%lld ta=%d tb=%d at (%lld,%lld): got %g want %g\n", (long long)m, (long long)k,
                    (long long)n, ta, tb, (long long)i, (long long)j, double(c[i * n + j]), want);
    }
  EXPECT_EQ(bad, 0);
}

TEST(MatMulAllTransposes) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      CheckMatMul<float>(3, 4, 5, ta, tb, 1e-4);
      CheckMatMul<double>(3, 4, 5, ta, tb, 1e-9);
      CheckMatMul<int32_t>(3, 4, 5, ta, tb, 0);
      CheckMatMul<int64_t>(3, 4, 5, ta, tb, 0);
      // Sizes crossing the integer kernel's block edges (64 rows, 256 deep, 512 wide).
      CheckMatMul<int32_t>(131, 259, 517, ta, tb, 0);
      CheckMatMul<float>(70, 300, 90, ta, tb, 1e-2);
      CheckMatMul<double>(1, 33, 1, ta, tb, 1e-9);
    }
  CheckMatMul<int64_t>(65, 3, 2, false, false, 0);
}

TEST(MatMulEdgeCasesAndErrors) {
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_OK(t.RunOp("MatMul", {MakeTensor<float>({2, 0}, {}), MakeTensor<float>({0, 3}, {})}, {}, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({2, 3}));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>(6, 0.0f));
  EXPECT_OK(t.RunOp("MatMul", {MakeTensor<float>({0, 4}, {}), MakeTensor<float>({4, 3}, std::vector<float>(12, 1))}, {},
                    &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({0, 3}));
  EXPECT_ERROR(t.RunOp("MatMul",
                       {MakeTensor<float>({2, 3}, std::vector<float>(6, 1)),
                        MakeTensor<float>({4, 5}, std::vector<float>(20, 1))},
                       {}, &out),
               "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]");
  EXPECT_ERROR(
      t.RunOp("MatMul",
              {MakeTensor<float>({6}, std::vector<float>(6, 1)), MakeTensor<float>({4, 5}, std::vector<float>(20, 1))},
              {}, &out),
      "In[0] is not a matrix");
}

// ---------------------------------------------------------------------------- BiasAdd, Relu

TEST(BiasAddBothFormats) {
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_OK(t.RunOp("BiasAdd", {MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}), MakeTensor<float>({3}, {10, 20, 30})},
                    {}, &out));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({11, 22, 33, 14, 25, 36}));
  // NCHW [2,3,2,2]: bias along dim 1.
  std::vector<int32_t> v(24, 1);
  EXPECT_OK(t.RunOp("BiasAdd", {MakeTensor<int32_t>({2, 3, 2, 2}, v), MakeTensor<int32_t>({3}, {10, 20, 30})},
                    Attrs({{"data_format", AttrValue::String("NCHW")}}), &out));
  std::vector<int32_t> want;
  for (int nn = 0; nn < 2; ++nn)
    for (int c = 0; c < 3; ++c)
      for (int s = 0; s < 4; ++s) want.push_back(1 + 10 * (c + 1));
  EXPECT_TRUE(Values<int32_t>(out[0]) == want);
  // Large NHWC (parallel, tiled bias rows).
  const int64_t rows = 5000, ch = 7;
  std::vector<float> big = Iota<float>(rows * ch, [](int64_t i) { return float(i % 100); });
  EXPECT_OK(t.RunOp("BiasAdd", {MakeTensor<float>({rows, ch}, big), MakeTensor<float>({ch}, {1, 2, 3, 4, 5, 6, 7})}, {},
                    &out));
  std::vector<float> got = Values<float>(out[0]);
  int bad = 0;
  for (int64_t i = 0; i < rows * ch; ++i) bad += got[i] != big[i] + float(i % ch + 1);
  EXPECT_EQ(bad, 0);
}

TEST(BiasAddErrors) {
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_ERROR(
      t.RunOp("BiasAdd",
              {MakeTensor<float>({2, 3}, std::vector<float>(6, 1)), MakeTensor<float>({4}, std::vector<float>(4, 1))},
              {}, &out),
      "Must provide as many biases");
  EXPECT_ERROR(t.RunOp("BiasAdd", {MakeTensor<float>({3}, {1, 2, 3}), MakeTensor<float>({3}, {1, 2, 3})}, {}, &out),
               "at least 2D");
  EXPECT_ERROR(
      t.RunOp("BiasAdd", {MakeTensor<float>({1, 3}, {1, 2, 3}), MakeTensor<float>({1, 3}, {1, 2, 3})}, {}, &out),
      "Biases must be 1D");
}

TEST(Relu) {
  OpTester t;
  std::vector<Tensor> out;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_OK(t.RunOp("Relu", {MakeTensor<float>({5}, {-2, -0.5f, 0, 3, nan})}, {}, &out));
  std::vector<float> r = Values<float>(out[0]);
  EXPECT_TRUE(r.size() == 5 && r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 3 && std::isnan(r[4]));
  EXPECT_OK(t.RunOp("Relu", {MakeTensor<int64_t>({3}, {-5, 0, 7})}, {}, &out));
  EXPECT_TRUE(Values<int64_t>(out[0]) == std::vector<int64_t>({0, 0, 7}));
  std::vector<double> big = Iota<double>(100000, [](int64_t i) { return double(i % 7) - 3.0; });
  EXPECT_OK(t.RunOp("Relu", {MakeTensor<double>({100000}, big)}, {}, &out));
  std::vector<double> got = Values<double>(out[0]);
  int bad = 0;
  for (size_t i = 0; i < big.size(); ++i) bad += got[i] != std::max(0.0, big[i]);
  EXPECT_EQ(bad, 0);
}

// ---------------------------------------------------------------------------- Softmax

TEST(VecExpMatchesStdExp) {
  int bad_f = 0, bad_d = 0;
  for (double x = -110; x <= 95; x += 0.01337) {
    const float xf = static_cast<float>(x);
    const float gf = cpu::VecExp(xf), wf = std::exp(xf);
    const bool ok_f = std::isinf(wf) ? std::isinf(gf)
                                     : std::fabs(gf - wf) <= 4e-7f * wf + std::numeric_limits<float>::denorm_min() * 4;
    if (!ok_f && bad_f++ < 3) std::printf("  VecExp(float %g) = %g, want %g\n", xf, gf, wf);
  }
  for (double x = -750; x <= 712; x += 0.0917) {
    const double gd = cpu::VecExp(x), wd = std::exp(x);
    const bool ok_d = std::isinf(wd) ? std::isinf(gd)
                                     : std::fabs(gd - wd) <= 4e-16 * wd + std::numeric_limits<double>::denorm_min() * 4;
    if (!ok_d && bad_d++ < 3) std::printf("  VecExp(double %g) = %g, want %g\n", x, gd, wd);
  }
  EXPECT_EQ(bad_f, 0);
  EXPECT_EQ(bad_d, 0);
  EXPECT_TRUE(std::isnan(cpu::VecExp(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(cpu::VecExp(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_TRUE(std::isinf(cpu::VecExp(std::numeric_limits<double>::infinity())));
  EXPECT_EQ(cpu::VecExp(0.0f), 1.0f);
}

template <typename T>
void CheckSoftmax(int64_t rows, int64_t cols, double tol) {
  std::vector<T> x = Iota<T>(rows * cols, [](int64_t i) { return T((i * 37) % 101) / T(7) - T(6); });
  if (rows * cols > 2) x[1] = T(1000);  // stability: a huge logit must not overflow
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_OK(t.RunOp("Softmax", {MakeTensor<T>({rows, cols}, x)}, {}, &out));
  std::vector<T> y = Values<T>(out[0]);
  if (y.size() != x.size()) return;
  int bad = 0;
  for (int64_t r = 0; r < rows; ++r) {
    double m = -1e300, sum = 0, ysum = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, double(x[r * cols + c]));
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(double(x[r * cols + c]) - m);
    for (int64_t c = 0; c < cols; ++c) {
      const double want = std::exp(double(x[r * cols + c]) - m) / sum;
      ysum += y[r * cols + c];
      if (std::fabs(y[r * cols + c] - want) > tol && bad++ < 3)
        std::printf("  softmax (%lld,%lld): got %g want %g\n", (long long)r, (long long)c, double(y[r * cols + c]),
                    want);
    }
    if (std::fabs(ysum - 1.0) > tol * 10 && bad++ < 3)
      std::printf("  softmax row %lld sums to %g\n", (long long)r, ysum);
  }
  EXPECT_EQ(bad, 0);
}

TEST(SoftmaxRows) {
  CheckSoftmax<float>(2, 3, 1e-6);
  CheckSoftmax<float>(1, 1, 1e-7);
  CheckSoftmax<float>(7, 37, 1e-6);
  CheckSoftmax<double>(5, 100, 1e-14);
  CheckSoftmax<float>(512, 1000, 1e-6);  // parallel path
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_OK(t.RunOp("Softmax", {MakeTensor<float>({3}, {1, 2, 3})}, {}, &out));
  std::vector<float> y = Values<float>(out[0]);
  const double e1 = std::exp(-2.0), e2 = std::exp(-1.0), s = e1 + e2 + 1;
  EXPECT_NEAR(y[0], e1 / s, 1e-7);
  EXPECT_NEAR(y[2], 1 / s, 1e-7);
  EXPECT_ERROR(t.RunOp("Softmax", {MakeTensor<float>({}, {1})}, {}, &out), "logits must have >= 1 dimension");
  EXPECT_OK(t.RunOp("Softmax", {MakeTensor<float>({0, 4}, {})}, {}, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({0, 4}));
}

// ---------------------------------------------------------------------------- Sum, Mean

// Reference reduction in double: sums x (shape s) over `axes` (normalized, unique).
std::vector<double> RefReduce(const TensorShape& s, const std::vector<double>& x, const std::vector<int>& axes,
                              bool mean) {
  std::vector<bool> red(s.rank(), false);
  for (int a : axes) red[a] = true;
  std::vector<int64_t> od;
  int64_t count = 1;
  for (int d = 0; d < s.rank(); ++d) {
    if (red[d])
      count *= s.dim(d);
    else
      od.push_back(s.dim(d));
  }
  TensorShape os(od);
  std::vector<double> out(os.num_elements(), 0.0);
  for (int64_t i = 0; i < s.num_elements(); ++i) {
    int64_t rem = i, o = 0, stride = 1;
    for (int d = s.rank() - 1; d >= 0; --d) {
      const int64_t c = rem % s.dim(d);
      rem /= s.dim(d);
      if (!red[d]) {
        o += c * stride;
        stride *= s.dim(d);
      }
    }
    out[o] += x[i];
  }
  if (mean)
    for (double& v : out) v /= double(count);
  return out;
}

template <typename T>
void CheckReduce(const std::string& op, const TensorShape& s, std::vector<int64_t> axes, bool keep, double rtol) {
  std::vector<T> x = Iota<T>(s.num_elements(), [](int64_t i) { return T((i * 31) % 23) - T(7); });
  std::vector<double> xd(x.begin(), x.end());
  std::vector<int> norm;
  for (int64_t a : axes) norm.push_back(static_cast<int>(a < 0 ? a + s.rank() : a));
  std::vector<double> want = RefReduce(s, xd, norm, op == "Mean");
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_OK(t.RunOp(op, {MakeTensor<T>(s, x), MakeTensor<int64_t>({static_cast<int64_t>(axes.size())}, axes)},
                    Attrs({{"keep_dims", AttrValue::Bool(keep)}}), &out));
  if (out.empty() || !out[0].initialized()) return;
  std::vector<int64_t> od;
  for (int d = 0; d < s.rank(); ++d) {
    bool r = std::find(norm.begin(), norm.end(), d) != norm.end();
    if (!r)
      od.push_back(s.dim(d));
    else if (keep)
      od.push_back(1);
  }
  EXPECT_TRUE(out[0].shape() == TensorShape(od));
  std::vector<T> got = Values<T>(out[0]);
  EXPECT_EQ(got.size(), want.size());
  int bad = 0;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    double w = want[i];
    if (std::is_integral_v<T>) w = std::trunc(w);
    if (std::fabs(double(got[i]) - w) > rtol * (1 + std::fabs(w)) && bad++ < 3)
      std::printf("  %s %s axes[0]=%lld at %zu: got %g want %g\n", op.c_str(), s.ToString().c_str(),
                  axes.empty() ? -99LL : (long long)axes[0], i, double(got[i]), w);
  }
  EXPECT_EQ(bad, 0);
}

TEST(ReduceAxisCombinations) {
  const TensorShape s({2, 3, 4});
  const std::vector<std::vector<int64_t>> axis_sets = {{0},    {1},      {2},       {-1},  {0, 2},
                                                       {2, 0}, {-3, -2}, {0, 1, 2}, {1, 2}};
  for (const auto& axes : axis_sets)
    for (bool keep : {false, true}) {
      CheckReduce<float>("Sum", s, axes, keep, 1e-6);
      CheckReduce<float>("Mean", s, axes, keep, 1e-6);
      CheckReduce<int32_t>("Sum", s, axes, keep, 0);
      CheckReduce<int64_t>("Mean", s, axes, keep, 0);
      CheckReduce<double>("Mean", TensorShape({3, 1, 5, 2}), axes, keep, 1e-12);
    }
}

TEST(ReduceLargeShapes) {
  // Full, row, column, narrow-column and alternating reductions large enough to split.
  CheckReduce<float>("Sum", {1 << 20}, {0}, false, 1e-5);
  CheckReduce<double>("Mean", {1 << 20}, {0}, false, 1e-12);
  CheckReduce<float>("Sum", {300, 5000}, {1}, false, 1e-5);
  CheckReduce<float>("Sum", {5000, 300}, {0}, false, 1e-5);
  CheckReduce<float>("Mean", {200000, 3}, {0}, true, 1e-5);
  CheckReduce<int32_t>("Sum", {100000, 5}, {-2}, false, 0);
  CheckReduce<float>("Sum", {40, 50, 60, 7}, {0, 2}, false, 1e-5);
  CheckReduce<float>("Sum", {40, 50, 60, 7}, {1, 3}, true, 1e-5);
  CheckReduce<int64_t>("Sum", {9, 1000, 70}, {0, 1, 2}, false, 0);
  CheckReduce<uint8_t>("Mean", {1000, 130}, {1}, false, 0);
}

TEST(ReduceSemantics) {
  OpTester t;
  std::vector<Tensor> out;
  // Empty axes list: identity, sharing the buffer.
  Tensor x = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  EXPECT_OK(t.RunOp("Sum", {x, MakeTensor<int32_t>({0}, {})}, {}, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({2, 2}) && out[0].raw_data() == x.raw_data());
  // Scalar axis, int32.
  EXPECT_OK(t.RunOp("Sum", {x, MakeTensor<int32_t>({}, {1})}, Attrs({{"keep_dims", AttrValue::Bool(true)}}), &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({2, 1}) && Values<float>(out[0]) == std::vector<float>({3, 7}));
  // Integer mean truncates toward zero and does not overflow a narrow type.
  EXPECT_OK(t.RunOp("Mean", {MakeTensor<int32_t>({2}, {-3, 0}), MakeTensor<int32_t>({1}, {0})}, {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({-1}));
  EXPECT_OK(t.RunOp("Mean", {MakeTensor<uint8_t>({2}, {200, 200}), MakeTensor<int32_t>({1}, {0})}, {}, &out));
  EXPECT_TRUE(Values<uint8_t>(out[0]) == std::vector<uint8_t>({200}));
  // Integer sum wraps like TensorFlow's.
  EXPECT_OK(t.RunOp("Sum", {MakeTensor<uint8_t>({2}, {200, 100}), MakeTensor<int32_t>({1}, {0})}, {}, &out));
  EXPECT_TRUE(Values<uint8_t>(out[0]) == std::vector<uint8_t>({44}));
  // Empty input: sum 0, float mean NaN, integer mean 0.
  EXPECT_OK(t.RunOp("Sum", {MakeTensor<float>({0, 3}, {}), MakeTensor<int32_t>({1}, {0})}, {}, &out));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({0, 0, 0}));
  EXPECT_OK(t.RunOp("Mean", {MakeTensor<float>({0}, {}), MakeTensor<int32_t>({1}, {0})}, {}, &out));
  EXPECT_TRUE(std::isnan(Values<float>(out[0])[0]));
  EXPECT_OK(t.RunOp("Mean", {MakeTensor<int32_t>({0}, {}), MakeTensor<int32_t>({1}, {0})}, {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({0}));
}

TEST(ReduceErrors) {
  OpTester t;
  std::vector<Tensor> out;
  Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_ERROR(t.RunOp("Sum", {x, MakeTensor<int32_t>({1}, {2})}, {}, &out),
               "Invalid reduction dimension 2 for input with 2 dimension(s)");
  EXPECT_ERROR(t.RunOp("Mean", {x, MakeTensor<int64_t>({1}, {-3})}, {}, &out), "Invalid reduction dimension -3");
  EXPECT_ERROR(t.RunOp("Sum", {x, MakeTensor<int32_t>({2}, {1, -1})}, {}, &out),
               "Axes contains duplicate dimension: 1");
}

// ---------------------------------------------------------------------------- Reshape

TEST(ReshapeSharesBuffer) {
  OpTester t;
  std::vector<Tensor> out;
  Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_OK(t.RunOp("Reshape", {x, MakeTensor<int32_t>({2}, {3, -1})}, {}, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({3, 2}));
  EXPECT_EQ(out[0].raw_data(), x.raw_data());
  EXPECT_OK(t.RunOp("Reshape", {x, MakeTensor<int64_t>({1}, {-1})}, {}, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({6}));
  EXPECT_OK(t.RunOp("Reshape", {MakeTensor<bool>({2}, {true, false}), MakeTensor<int32_t>({3}, {1, 2, 1})}, {}, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({1, 2, 1}) && out[0].dtype() == DT_BOOL);
  EXPECT_OK(t.RunOp("Reshape", {MakeTensor<float>({0, 3}, {}), MakeTensor<int32_t>({2}, {-1, 0})}, {}, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({3, 0}));
  EXPECT_OK(t.RunOp("Reshape", {MakeTensor<float>({1}, {5}), MakeTensor<int32_t>({0}, {})}, {}, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({}));
}

TEST(ReshapeErrors) {
  OpTester t;
  std::vector<Tensor> out;
  Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_ERROR(t.RunOp("Reshape", {x, MakeTensor<int32_t>({1}, {4})}, {}, &out),
               "Input to reshape is a tensor with 6 values, but the requested shape has 4");
  EXPECT_ERROR(t.RunOp("Reshape", {x, MakeTensor<int32_t>({2}, {-1, 4})}, {}, &out), "requires a multiple of 4");
  EXPECT_ERROR(t.RunOp("Reshape", {x, MakeTensor<int32_t>({2}, {-1, -1})}, {}, &out),
               "Only one input size may be -1, not both 0 and 1");
  EXPECT_ERROR(t.RunOp("Reshape", {x, MakeTensor<int32_t>({2}, {-2, -3})}, {}, &out), "must be non-negative");
  EXPECT_ERROR(t.RunOp("Reshape", {x, MakeTensor<int32_t>({1, 2}, {2, 3})}, {}, &out), "sizes input must be 1-D");
  EXPECT_ERROR(t.RunOp("Reshape", {x, MakeTensor<int32_t>({2}, {-1, 0})}, {}, &out), "requested shape has 0");
}

// ---------------------------------------------------------------------------- Cast

template <typename Dst, typename Src>
std::vector<Dst> RunCast(const std::vector<Src>& v) {
  OpTester t;
  std::vector<Tensor> out;
  Status s = t.RunOp("Cast", {MakeTensor<Src>({static_cast<int64_t>(v.size())}, v)},
                     Attrs({{"DstT", AttrValue::Type(DataTypeOf<Dst>::value)}}), &out);
  EXPECT_OK(s);
  return s.ok() ? Values<Dst>(out[0]) : std::vector<Dst>();
}

TEST(CastSemantics) {
  EXPECT_TRUE((RunCast<int32_t, float>({1.9f, -1.9f, 0.5f, -0.0f}) == std::vector<int32_t>({1, -1, 0, 0})));
  EXPECT_TRUE((RunCast<uint8_t, float>({300.7f, -1.5f, 255.0f}) == std::vector<uint8_t>({44, 255, 255})));
  EXPECT_TRUE((RunCast<bool, float>({0.0f, -0.0f, 0.1f, -3.0f}) == std::vector<bool>({false, false, true, true})));
  EXPECT_TRUE((RunCast<bool, int64_t>({0, 5, -1}) == std::vector<bool>({false, true, true})));
  EXPECT_TRUE((RunCast<float, bool>({true, false}) == std::vector<float>({1.0f, 0.0f})));
  EXPECT_TRUE((RunCast<int32_t, int64_t>({(int64_t(1) << 32) + 7, -1}) == std::vector<int32_t>({7, -1})));
  EXPECT_TRUE((RunCast<double, int32_t>({-3, 4}) == std::vector<double>({-3.0, 4.0})));
  EXPECT_TRUE(
      (RunCast<float, double>({0.1, 1e300}) == std::vector<float>({0.1f, std::numeric_limits<float>::infinity()})));
  EXPECT_TRUE((RunCast<uint16_t, int8_t>({-1, 5}) == std::vector<uint16_t>({65535, 5})));
  EXPECT_TRUE((RunCast<int64_t, uint32_t>({4000000000u}) == std::vector<int64_t>({4000000000LL})));
  EXPECT_TRUE((RunCast<uint64_t, double>({3.99, 1e19}) == std::vector<uint64_t>({3, 10000000000000000000ULL})));
  {  // The Truncate attr is accepted (it only matters for 16-bit float targets).
    OpTester t;
    std::vector<Tensor> out;
    EXPECT_OK(t.RunOp("Cast", {MakeTensor<double>({2}, {2.5, -2.5})},
                      Attrs({{"DstT", AttrValue::Type(DT_INT32)}, {"Truncate", AttrValue::Bool(true)}}), &out));
    EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({2, -2}));
  }
  // Large input (parallel path).
  std::vector<double> big = Iota<double>(100000, [](int64_t i) { return double(i) - 0.5; });
  std::vector<int64_t> got = RunCast<int64_t, double>(big);
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) bad += got[i] != static_cast<int64_t>(big[i]);
  EXPECT_EQ(bad, 0);
}

TEST(CastKernelsForAllPairs) {
  const DataType types[] = {DT_FLOAT, DT_DOUBLE, DT_INT32,  DT_INT64,  DT_UINT8, DT_INT8,
                            DT_INT16, DT_UINT16, DT_UINT32, DT_UINT64, DT_BOOL};
  OpTester t;
  int missing = 0;
  for (DataType s : types)
    for (DataType d : types) {
      Node* n = nullptr;
      EXPECT_OK(t.AddOp("Cast", {Ph(s)}, Attrs({{"DstT", AttrValue::Type(d)}}), &n));
      if (n && !KernelRegistry::Global()->HasKernel(n, kDeviceCPU)) ++missing;
      std::vector<Tensor> out;
      Tensor x;
      EXPECT_OK(Tensor::Allocate(s, {3}, &x));
      std::memset(x.raw_data(), 1, x.byte_size());
      if (n) EXPECT_OK(t.Run(n, {x}, &out));
      if (n && !out.empty()) EXPECT_TRUE(out[0].dtype() == d && out[0].shape() == TensorShape({3}));
    }
  EXPECT_EQ(missing, 0);
  OpTester t2;
  std::vector<Tensor> out;
  Tensor same = MakeTensor<int32_t>({2}, {1, 2});
  EXPECT_OK(t2.RunOp("Cast", {same}, Attrs({{"DstT", AttrValue::Type(DT_INT32)}}), &out));
  EXPECT_EQ(out[0].raw_data(), same.raw_data());
}

// ---------------------------------------------------------------------------- Const, Placeholder, Identity, NoOp

TEST(ConstSharesItsValue) {
  OpTester t;
  Tensor v = MakeTensor<int64_t>({2}, {7, 8});
  Node* n = nullptr;
  EXPECT_OK(
      t.AddOp("Const", {}, Attrs({{"value", AttrValue::FromTensor(v)}, {"dtype", AttrValue::Type(DT_INT64)}}), &n));
  std::vector<Tensor> out;
  EXPECT_OK(t.Run(n, {}, &out));
  EXPECT_EQ(out[0].raw_data(), v.raw_data());
  EXPECT_TRUE(Values<int64_t>(out[0]) == std::vector<int64_t>({7, 8}));
  EXPECT_OK(t.Run(n, {}, &out));  // again: same buffer, no copy
  EXPECT_EQ(out[0].raw_data(), v.raw_data());
}

TEST(PlaceholderMustBeFed) {
  OpTester t;
  Node* n = nullptr;
  EXPECT_OK(t.AddOp("Placeholder", {},
                    Attrs({{"dtype", AttrValue::Type(DT_FLOAT)}, {"shape", AttrValue::Shape(PartialShape({2, -1}))}}),
                    &n));
  std::vector<Tensor> out;
  EXPECT_ERROR(t.Run(n, {}, &out),
               "You must feed a value for placeholder tensor 'op' with dtype float and shape [2,?]");
  Node* m = nullptr;
  EXPECT_OK(t.AddOp("Placeholder", {}, Attrs({{"dtype", AttrValue::Type(DT_INT32)}}), &m));
  Status s = t.Run(m, {}, &out);
  EXPECT_TRUE(s.code() == Code::kInvalidArgument &&
              s.message() == "You must feed a value for placeholder tensor 'op_1' with dtype int32");
}

TEST(IdentityAndNoOp) {
  OpTester t;
  std::vector<Tensor> out;
  Tensor b = MakeTensor<bool>({3}, {true, false, true});
  EXPECT_OK(t.RunOp("Identity", {b}, {}, &out));
  EXPECT_EQ(out[0].raw_data(), b.raw_data());
  Node* n = nullptr;
  EXPECT_OK(t.AddOp("NoOp", {}, {}, &n));
  EXPECT_OK(t.Run(n, {}, &out));
  EXPECT_EQ(out.size(), 0u);
}

TEST(CheapKernelsAreMarked) {
  OpTester t;
  auto expensive = [&](const std::string& op, std::vector<InputSpec> in, AttrMap attrs) {
    Node* n = nullptr;
    Status s = t.AddOp(op, in, std::move(attrs), &n);
    std::unique_ptr<OpKernel> k;
    if (s.ok()) s = KernelRegistry::Global()->CreateKernel(n, kDeviceCPU, &k);
    EXPECT_OK(s);
    return k ? k->IsExpensive() : true;
  };
  EXPECT_TRUE(!expensive("Identity", {Ph(DT_FLOAT)}, {}));
  EXPECT_TRUE(!expensive("AddV2", {Ph(DT_FLOAT), Ph(DT_FLOAT)}, {}));
  EXPECT_TRUE(!expensive("Relu", {Ph(DT_FLOAT)}, {}));
  EXPECT_TRUE(!expensive("Reshape", {Ph(DT_FLOAT), Ph(DT_INT32)}, {}));
  EXPECT_TRUE(!expensive("Cast", {Ph(DT_FLOAT)}, Attrs({{"DstT", AttrValue::Type(DT_INT32)}})));
  EXPECT_TRUE(!expensive("NoOp", {}, {}));
  EXPECT_TRUE(expensive("MatMul", {Ph(DT_FLOAT), Ph(DT_FLOAT)}, {}));
  EXPECT_TRUE(expensive("Sum", {Ph(DT_FLOAT), Ph(DT_INT32)}, {}));
  EXPECT_TRUE(expensive("Softmax", {Ph(DT_FLOAT)}, {}));
}

// Tests of the elementwise math kernels run directly on hand-built nodes: float32 accuracy of the
// vectorized transcendental kernels in ulp against double-precision libm (Note [Vector float32]),
// special values, TensorFlow's integer semantics and errors, comparisons, SelectV2, AddN and
// ClipByValue broadcasting.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "test_util.h"
#include "tensorflux/kernels/cpu/vec_math.h"

using namespace tx;
using namespace tx_test;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// |got - want| in units of the float spacing at want (NaN and infinities must match exactly).
double UlpError(float got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : 1e9;
  const float w = static_cast<float>(want);
  if (std::isinf(w)) return got == w ? 0 : 1e9;
  const float aw = std::fabs(w);
  const double spacing =
      aw < std::numeric_limits<float>::min() ? std::numeric_limits<float>::denorm_min() : std::nextafter(aw, kInf) - aw;
  return std::fabs(static_cast<double>(got) - want) / spacing;
}

// Every 997th float bit pattern of [lo, hi] (lo, hi of one sign), as one tensor.
std::vector<float> Floats(float lo, float hi) {
  std::vector<float> v;
  for (float x = lo; x <= hi;) {
    v.push_back(x);
    uint32_t u;
    std::memcpy(&u, &x, 4);
    u = x >= 0 ? u + 997 : u - 997;
    std::memcpy(&x, &u, 4);
  }
  return v;
}

// Runs float32 `op` over [lo, hi] and both signs' mirror when `symmetric`; returns the worst ulp
// error against `ref` evaluated in double.
double WorstUlp(const std::string& op, double (*ref)(double), float lo, float hi, bool symmetric) {
  std::vector<float> x = Floats(lo, hi);
  if (symmetric) {
    const size_t n = x.size();
    for (size_t i = 0; i < n; ++i) x.push_back(-x[i]);
  }
  OpTester t;
  std::vector<Tensor> out;
  Status s = t.RunOp(op, {MakeTensor<float>({static_cast<int64_t>(x.size())}, x)}, {}, &out);
  EXPECT_OK(s);
  if (!s.ok()) return 1e9;
  const std::vector<float> y = Values<float>(out[0]);
  double worst = 0;
  float at = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = UlpError(y[i], ref(x[i]));
    if (e > worst) worst = e, at = x[i];
  }
  std::printf("  %-8s [%g, %g]%s: %zu inputs, worst %.2f ulp at %.9g\n", op.c_str(), lo, hi,
              symmetric ? " and mirror" : "", x.size(), worst, at);
  return worst;
}

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

TEST(Float32TranscendentalAccuracy) {
  struct Case {
    const char* op;
    double (*ref)(double);
    float lo, hi;
    bool symmetric;
    double max_ulp;
  };
  const Case cases[] = {
      {"Exp", [](double x) { return std::exp(x); }, 1e-30f, 88.7f, true, 2},
      {"Log", [](double x) { return std::log(x); }, 1e-45f, 3e38f, false, 2},
      {"Log1p", [](double x) { return std::log1p(x); }, 1e-30f, 3e38f, false, 3},
      {"Log1p", [](double x) { return std::log1p(x); }, -0.9999f, -1e-30f, false, 3},
      {"Expm1", [](double x) { return std::expm1(x); }, 1e-30f, 88.7f, true, 3},
      {"Tanh", [](double x) { return std::tanh(x); }, 1e-30f, 20.0f, true, 6},  // TensorFlow's: 5.8
      {"Sigmoid", Sigmoid, 1e-30f, 100.0f, true, 3},
      {"Erf", [](double x) { return std::erf(x); }, 1e-30f, 10.0f, true, 2},
      {"Sin", [](double x) { return std::sin(x); }, 1e-30f, 10.0f, true, 2},
      {"Cos", [](double x) { return std::cos(x); }, 1e-30f, 10.0f, true, 2},
      {"Tan", [](double x) { return std::tan(x); }, 1e-30f, 10.0f, true, 3},
      {"Sqrt", [](double x) { return std::sqrt(x); }, 1e-45f, 3e38f, false, 0.5},  // correctly rounded
      {"Rsqrt", [](double x) { return 1 / std::sqrt(x); }, 1e-30f, 1e30f, false, 1.5},
  };
  // Both instruction sets where the CPU has AVX-512 (they share the code, not the compilation).
  const bool avx512 = cpu::vec::UseAvx512();
  for (bool use : {false, true}) {
    if (use && !avx512) continue;
    cpu::vec::UseAvx512() = use;
    std::printf("  %s:\n", use ? "AVX-512" : "AVX2");
    for (const Case& c : cases) EXPECT_TRUE(WorstUlp(c.op, c.ref, c.lo, c.hi, c.symmetric) <= c.max_ulp);
  }
  cpu::vec::UseAvx512() = avx512;
}

// Large trigonometric arguments: absolute error stays tiny up to the libm fallback, and beyond.
TEST(TrigLargeArguments) {
  const std::vector<float> x = Floats(10.0f, 1e30f);
  for (const char* op : {"Sin", "Cos"}) {
    OpTester t;
    std::vector<Tensor> out;
    EXPECT_OK(t.RunOp(op, {MakeTensor<float>({static_cast<int64_t>(x.size())}, x)}, {}, &out));
    const std::vector<float> y = Values<float>(out[0]);
    double worst = 0;
    for (size_t i = 0; i < y.size() && i < x.size(); ++i) {
      const double want = op[0] == 'S' ? std::sin(static_cast<double>(x[i])) : std::cos(static_cast<double>(x[i]));
      worst = std::max(worst, std::fabs(y[i] - want));
    }
    EXPECT_TRUE(worst < 1e-6);
  }
}

// Special values for every float32 and float64 transcendental kernel (they share no code).
template <typename T>
void CheckSpecials() {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const std::vector<T> x = {T(0), -T(0), inf, -inf, nan, T(-1), T(1e-30)};
  struct Want {
    const char* op;
    std::vector<T> y;
  };
  const Want wants[] = {
      {"Exp", {1, 1, inf, 0, nan, T(std::exp(-1.0)), 1}},
      {"Log", {-inf, -inf, inf, nan, nan, nan, T(std::log(1e-30))}},
      {"Log1p", {0, -T(0), inf, nan, nan, -inf, T(1e-30)}},
      {"Expm1", {0, -T(0), inf, -1, nan, T(std::expm1(-1.0)), T(1e-30)}},
      {"Tanh", {0, 0, 1, -1, nan, T(std::tanh(-1.0)), T(1e-30)}},
      {"Sigmoid", {0.5, 0.5, 1, 0, nan, T(Sigmoid(-1.0)), 0.5}},
      {"Erf", {0, -T(0), 1, -1, nan, T(std::erf(-1.0)), T(std::erf(1e-30))}},
      {"Sin", {0, -T(0), nan, nan, nan, T(std::sin(-1.0)), T(1e-30)}},
      {"Cos", {1, 1, nan, nan, nan, T(std::cos(-1.0)), 1}},
      {"Tan", {0, -T(0), nan, nan, nan, T(std::tan(-1.0)), T(1e-30)}},
  };
  for (const Want& w : wants) {
    OpTester t;
    std::vector<Tensor> out;
    EXPECT_OK(t.RunOp(w.op, {MakeTensor<T>({static_cast<int64_t>(x.size())}, x)}, {}, &out));
    const std::vector<T> y = Values<T>(out[0]);
    for (size_t i = 0; i < y.size(); ++i) {
      const bool ok = std::isnan(w.y[i]) ? std::isnan(y[i])
                                         : (y[i] == w.y[i] || std::fabs(y[i] - w.y[i]) <= 4e-7 * std::fabs(w.y[i]));
      if (!ok) std::printf("  %s(%g) = %g, want %g\n", w.op, double(x[i]), double(y[i]), double(w.y[i]));
      EXPECT_TRUE(ok);
    }
    EXPECT_EQ(y.size(), x.size());
  }
}

TEST(TranscendentalSpecialValues) {
  CheckSpecials<float>();
  CheckSpecials<double>();
}

TEST(RoundingHalvesToEven) {
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_OK(t.RunOp("Round", {MakeTensor<float>({7}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, kInf})}, {}, &out));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({0, 2, 2, -0.0f, -2, 2, kInf}));
  EXPECT_OK(t.RunOp("Round", {MakeTensor<int32_t>({3}, {-3, 0, 7})}, {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({-3, 0, 7}));
  EXPECT_OK(t.RunOp("Floor", {MakeTensor<double>({3}, {-1.5, 1.5, -0.0})}, {}, &out));
  EXPECT_TRUE(Values<double>(out[0]) == std::vector<double>({-2, 1, -0.0}));
  EXPECT_OK(t.RunOp("Ceil", {MakeTensor<float>({3}, {-1.5f, 1.5f, 3.0f})}, {}, &out));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({-1, 2, 3}));
}

TEST(IntegerFloorDivAndMod) {
  OpTester t;
  std::vector<Tensor> out;
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  const Tensor x = MakeTensor<int32_t>({5}, {7, -7, 7, -7, kMin});
  const Tensor y = MakeTensor<int32_t>({5}, {2, 2, -2, -2, -1});
  EXPECT_OK(t.RunOp("FloorDiv", {x, y}, {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({3, -4, -4, 3, kMin}));
  EXPECT_OK(t.RunOp("FloorMod", {x, y}, {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({1, 1, -1, -1, 0}));
  EXPECT_OK(t.RunOp("Div", {x, y}, {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({3, -3, -3, 3, kMin}));
  EXPECT_OK(
      t.RunOp("FloorMod", {MakeTensor<float>({4}, {5, -5, 5, 0}), MakeTensor<float>({4}, {3, 3, -3, -3})}, {}, &out));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({2, 1, -1, 0}));
  EXPECT_OK(t.RunOp("FloorDiv", {MakeTensor<float>({2}, {-5, 1}), MakeTensor<float>({2}, {3, 0})}, {}, &out));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({-2, kInf}));
  for (const char* op : {"Div", "FloorDiv", "FloorMod"}) {
    EXPECT_ERROR(t.RunOp(op, {MakeTensor<int64_t>({2}, {1, 2}), MakeTensor<int64_t>({}, {0})}, {}, &out),
                 "Integer division by zero");
  }
}

TEST(IntegerPow) {
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_OK(t.RunOp("Pow", {MakeTensor<int32_t>({5}, {2, 3, -2, 0, 3}), MakeTensor<int32_t>({5}, {3, 0, 3, 0, 41})}, {},
                    &out));
  // 3^41 wraps modulo 2^32, as in TensorFlow.
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({8, 1, -8, 1, 2069870691}));
  EXPECT_ERROR(t.RunOp("Pow", {MakeTensor<int64_t>({2}, {2, 2}), MakeTensor<int64_t>({2}, {1, -1})}, {}, &out),
               "Integers to negative integer powers are not allowed");
}

TEST(MaximumMinimumPropagateNan) {
  OpTester t;
  std::vector<Tensor> out;
  const Tensor x = MakeTensor<float>({3}, {kNan, 1, 2});
  const Tensor y = MakeTensor<float>({3}, {1, kNan, 1});
  EXPECT_OK(t.RunOp("Maximum", {x, y}, {}, &out));
  std::vector<float> v = Values<float>(out[0]);
  EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]) && v[2] == 2);
  EXPECT_OK(t.RunOp("Minimum", {x, y}, {}, &out));
  v = Values<float>(out[0]);
  EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]) && v[2] == 1);
}

TEST(ComparisonsGiveBool) {
  OpTester t;
  std::vector<Tensor> out;
  const Tensor x = MakeTensor<float>({2, 2}, {1, 2, 3, kNan});
  const Tensor y = MakeTensor<float>({2}, {2, 2});
  const std::pair<const char*, std::vector<bool>> cases[] = {
      {"Less", {true, false, false, false}},    {"LessEqual", {true, true, false, false}},
      {"Greater", {false, false, true, false}}, {"GreaterEqual", {false, true, true, false}},
      {"Equal", {false, true, false, false}},   {"NotEqual", {true, false, true, true}}};
  for (const auto& [op, want] : cases) {
    EXPECT_OK(t.RunOp(op, {x, y}, {}, &out));
    EXPECT_EQ(out[0].dtype(), DT_BOOL);
    EXPECT_TRUE(out[0].shape() == TensorShape({2, 2}));
    EXPECT_TRUE(Values<bool>(out[0]) == want);
  }
  // incompatible_shape_error=false: a scalar false (Equal) or true (NotEqual) instead of an error.
  const Tensor a = MakeTensor<int32_t>({2}, {1, 2}), b = MakeTensor<int32_t>({3}, {1, 2, 3});
  AttrMap loose = {{"incompatible_shape_error", AttrValue::Bool(false)}};
  EXPECT_OK(t.RunOp("Equal", {a, b}, loose, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape() && Values<bool>(out[0]) == std::vector<bool>({false}));
  EXPECT_OK(t.RunOp("NotEqual", {a, b}, loose, &out));
  EXPECT_TRUE(Values<bool>(out[0]) == std::vector<bool>({true}));
  EXPECT_ERROR(t.RunOp("Equal", {a, b}, {}, &out), "Incompatible shapes: [2] vs. [3]");
}

TEST(LogicalOps) {
  OpTester t;
  std::vector<Tensor> out;
  const Tensor x = MakeTensor<bool>({2, 2}, {true, true, false, false});
  const Tensor y = MakeTensor<bool>({2}, {true, false});
  EXPECT_OK(t.RunOp("LogicalAnd", {x, y}, {}, &out));
  EXPECT_TRUE(Values<bool>(out[0]) == std::vector<bool>({true, false, false, false}));
  EXPECT_OK(t.RunOp("LogicalOr", {x, y}, {}, &out));
  EXPECT_TRUE(Values<bool>(out[0]) == std::vector<bool>({true, true, true, false}));
  EXPECT_OK(t.RunOp("LogicalNot", {y}, {}, &out));
  EXPECT_TRUE(Values<bool>(out[0]) == std::vector<bool>({false, true}));
}

TEST(SelectV2BroadcastsAllThree) {
  OpTester t;
  std::vector<Tensor> out;
  // condition [2,1], t [3], e scalar -> [2,3]
  EXPECT_OK(
      t.RunOp("SelectV2",
              {MakeTensor<bool>({2, 1}, {true, false}), MakeTensor<float>({3}, {1, 2, 3}), MakeTensor<float>({}, {-1})},
              {}, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({2, 3}));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({1, 2, 3, -1, -1, -1}));
  // Same shapes.
  EXPECT_OK(t.RunOp("SelectV2",
                    {MakeTensor<bool>({3}, {false, true, false}), MakeTensor<int64_t>({3}, {1, 2, 3}),
                     MakeTensor<int64_t>({3}, {4, 5, 6})},
                    {}, &out));
  EXPECT_TRUE(Values<int64_t>(out[0]) == std::vector<int64_t>({4, 2, 6}));
  EXPECT_ERROR(t.RunOp("SelectV2",
                       {MakeTensor<bool>({2}, {true, false}), MakeTensor<float>({3}, {1, 2, 3}),
                        MakeTensor<float>({3}, {1, 2, 3})},
                       {}, &out),
               "must be broadcastable");
}

TEST(AddN) {
  OpTester t;
  std::vector<Tensor> out;
  Node* n = nullptr;
  // A node with one list input of N = 3 Placeholders.
  NodeSpec spec;
  spec.name = "sum";
  spec.op_type = "AddN";
  NodeSpec::InputArg list;
  list.is_list = true;
  for (int i = 0; i < 3; ++i) {
    Node* ph = nullptr;
    NodeSpec p;
    p.name = "p" + std::to_string(i);
    p.op_type = "Placeholder";
    p.attrs["dtype"] = AttrValue::Type(DT_FLOAT);
    EXPECT_OK(t.graph().AddNode(std::move(p), &ph));
    list.values.push_back({ph, 0});
  }
  spec.inputs.push_back(list);
  const Status added = t.graph().AddNode(std::move(spec), &n);
  EXPECT_OK(added);
  if (!added.ok()) return;
  const int64_t big = 100000;  // large enough to split over the pool
  std::vector<float> a(big), b(big), c(big);
  for (int64_t i = 0; i < big; ++i) a[i] = float(i), b[i] = 1.0f, c[i] = -0.5f * float(i);
  EXPECT_OK(t.Run(n, {MakeTensor<float>({big}, a), MakeTensor<float>({big}, b), MakeTensor<float>({big}, c)}, &out));
  const std::vector<float> got = Values<float>(out[0]);
  int bad = 0;
  for (int64_t i = 0; i < big && i < static_cast<int64_t>(got.size()); ++i) bad += got[i] != 0.5f * float(i) + 1.0f;
  EXPECT_EQ(bad, 0);
  EXPECT_ERROR(
      t.Run(n, {MakeTensor<float>({2}, {1, 2}), MakeTensor<float>({2}, {1, 2}), MakeTensor<float>({1}, {1})}, &out),
      "must all have the same shape");
}

TEST(ClipByValueBroadcastsBounds) {
  OpTester t;
  std::vector<Tensor> out;
  const Tensor x = MakeTensor<float>({2, 3}, {-5, 0, 5, kNan, 1, 9});
  EXPECT_OK(t.RunOp("ClipByValue", {x, MakeTensor<float>({}, {-1}), MakeTensor<float>({}, {2})}, {}, &out));
  std::vector<float> v = Values<float>(out[0]);
  EXPECT_TRUE(v[0] == -1 && v[1] == 0 && v[2] == 2 && std::isnan(v[3]) && v[4] == 1 && v[5] == 2);
  // Per-column bounds [3] and per-row bounds [2,1] broadcast to [2,3].
  EXPECT_OK(
      t.RunOp("ClipByValue", {x, MakeTensor<float>({3}, {-6, 1, 6}), MakeTensor<float>({2, 1}, {4, 0})}, {}, &out));
  v = Values<float>(out[0]);
  EXPECT_TRUE(v[0] == -5 && v[1] == 1 && v[2] == 6 && std::isnan(v[3]) && v[4] == 1 && v[5] == 6);
  EXPECT_ERROR(t.RunOp("ClipByValue", {x, MakeTensor<float>({2}, {0, 0}), MakeTensor<float>({}, {1})}, {}, &out),
               "clip_value_min of shape [2] does not broadcast to the shape of t, [2,3]");
  EXPECT_ERROR(t.RunOp("ClipByValue",
                       {MakeTensor<float>({3}, {1, 2, 3}), MakeTensor<float>({}, {0}),
                        MakeTensor<float>({2, 3}, {1, 1, 1, 1, 1, 1})},
                       {}, &out),
               "clip_value_max of shape [2,3]");
}

TEST(UnaryIntegerSemantics) {
  OpTester t;
  std::vector<Tensor> out;
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  const Tensor x = MakeTensor<int32_t>({4}, {kMin, -3, 0, 5});
  EXPECT_OK(t.RunOp("Neg", {x}, {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({kMin, 3, 0, -5}));
  EXPECT_OK(t.RunOp("Abs", {x}, {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({kMin, 3, 0, 5}));
  EXPECT_OK(t.RunOp("Sign", {x}, {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({-1, -1, 0, 1}));
  EXPECT_OK(t.RunOp("IsNan", {MakeTensor<double>({3}, {0.0, std::nan(""), kInf})}, {}, &out));
  EXPECT_TRUE(Values<bool>(out[0]) == std::vector<bool>({false, true, false}));
  EXPECT_OK(t.RunOp("IsFinite", {MakeTensor<float>({3}, {0.0f, kNan, -kInf})}, {}, &out));
  EXPECT_TRUE(Values<bool>(out[0]) == std::vector<bool>({true, false, false}));
}

}  // namespace

// Tests of the reduction, linear algebra and shape/utility ops: shape-function tables and
// kernel values and error paths.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "test_util.h"
#include "tensorflux/framework/op_registry.h"

using namespace tx;  // NOLINT
using namespace tx_test;  // NOLINT

namespace {

Tensor I32(std::vector<int32_t> v) { return MakeTensor<int32_t>({static_cast<int64_t>(v.size())}, v); }
Tensor S32(int32_t v) { return MakeTensor<int32_t>({}, {v}); }
Tensor SF(float v) { return MakeTensor<float>({}, {v}); }
InputSpec F(PartialShape s) { return Ph(DT_FLOAT, std::move(s)); }
const PartialShape kUnknown;
const PartialShape kScalar = PartialShape(std::vector<int64_t>{});

struct ShapeCase {
  std::string op;
  std::vector<InputSpec> inputs;
  AttrMap attrs;
  std::string want;  // output 0's shape, or "!" followed by a substring of the error
};

void RunShapeCases(const std::vector<ShapeCase>& cases) {
  for (const ShapeCase& c : cases) {
    OpTester t;
    Node* n = nullptr;
    Status s = t.AddOp(c.op, c.inputs, c.attrs, &n);
    std::string got;
    if (!s.ok())
      got = "!" + s.message();
    else
      got = n->num_outputs() > 0 ? t.graph().OutputShape({n, 0}).ToString() : "(none)";
    const bool is_error = !c.want.empty() && c.want[0] == '!';
    const bool ok = is_error ? (got[0] == '!' && got.find(c.want.substr(1)) != std::string::npos) : got == c.want;
    if (!ok) std::printf("  shape case %s: got '%s', want '%s'\n", c.op.c_str(), got.c_str(), c.want.c_str());
    EXPECT_TRUE(ok);
  }
}

AttrMap A(std::initializer_list<std::pair<const std::string, AttrValue>> kv) { return AttrMap(kv); }

// Runs `op` on `inputs` (fed, unknown static shapes) and returns the status; outputs in *out.
Status Run(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs, std::vector<Tensor>* out) {
  OpTester t;
  return t.RunOp(op, std::move(inputs), std::move(attrs), out);
}

}  // namespace

TEST(RegistrationsHaveSummaryAndShapeFn) {
  for (const char* name : {"Prod",
                           "Max",
                           "Min",
                           "All",
                           "Any",
                           "ArgMax",
                           "ArgMin",
                           "Cumsum",
                           "BatchMatMulV2",
                           "Fill",
                           "ZerosLike",
                           "OnesLike",
                           "Range",
                           "Shape",
                           "Size",
                           "Rank",
                           "IdentityN",
                           "StopGradient",
                           "PreventGradient",
                           "Snapshot",
                           "CheckNumerics"}) {
    const OpRegistration* r = OpRegistry::Global()->LookUp(name);
    EXPECT_TRUE(r != nullptr);
    if (r == nullptr) continue;
    EXPECT_TRUE(!r->def.summary.empty());
    EXPECT_TRUE(r->shape_fn != nullptr);
  }
}

TEST(ShapeFunctionsReductions) {
  RunShapeCases({
      {"Max", {F({2, 3, 4}), Cst(I32({1}))}, {}, "[2,4]"},
      {"Prod", {F({2, 3, 4}), Cst(I32({0, -1}))}, A({{"keep_dims", AttrValue::Bool(true)}}), "[1,3,1]"},
      {"Min", {F({2, 3}), Cst(I32({2}))}, {}, "!Invalid reduction dimension 2"},
      {"All", {Ph(DT_BOOL, PartialShape({2, 3})), Cst(I32({}))}, {}, "[2,3]"},
      {"Any", {Ph(DT_BOOL, PartialShape({2, -1})), Ph(DT_INT32)}, A({{"keep_dims", AttrValue::Bool(true)}}), "[?,?]"},
      {"Any", {Ph(DT_BOOL, PartialShape({2, 3})), Ph(DT_INT32, PartialShape({1, 1}))}, {}, "!at most rank 1"},
      {"ArgMax", {F({2, 3, 4}), Cst(S32(1))}, {}, "[2,4]"},
      {"ArgMin", {F({2, 3, 4}), Cst(S32(-1))}, {}, "[2,3]"},
      {"ArgMax", {F({2, 3}), Ph(DT_INT32, kScalar)}, {}, "[?]"},
      {"ArgMax", {F({2, 3}), Cst(S32(2))}, {}, "!Expected dimension in the range [-2, 2), but got 2"},
      {"ArgMax", {F({2, 3}), Cst(I32({0}))}, {}, "!must be rank 0"},
      {"ArgMin", {F(kScalar), Cst(S32(0))}, {}, "!rank at least 1"},
      {"Cumsum", {F({2, 3}), Cst(S32(1))}, {}, "[2,3]"},
      {"Cumsum", {F({2, 3}), Cst(S32(-3))}, {}, "!Expected scan axis in the range [-2, 2), but got -3"},
      {"Cumsum", {F({2, 3}), Cst(I32({1}))}, {}, "!must be rank 0"},
  });
}

TEST(ShapeFunctionsBatchMatMul) {
  AttrMap adj = A({{"adj_x", AttrValue::Bool(true)}, {"adj_y", AttrValue::Bool(true)}});
  RunShapeCases({
      {"BatchMatMulV2", {F({2, 3, 4}), F({2, 4, 5})}, {}, "[2,3,5]"},
      {"BatchMatMulV2", {F({3, 4}), F({7, 1, 4, 5})}, {}, "[7,1,3,5]"},
      {"BatchMatMulV2", {F({6, 1, 3, 4}), F({5, 4, 2})}, {}, "[6,5,3,2]"},
      {"BatchMatMulV2", {F({2, 4, 3}), F({2, 5, 4})}, adj, "[2,3,5]"},
      {"BatchMatMulV2", {F({-1, 3, 4}), F({4, -1})}, {}, "[?,3,?]"},
      {"BatchMatMulV2", {F(kUnknown), F({4, 5})}, {}, "<unknown>"},
      {"BatchMatMulV2", {F({2, 3, 4}), F({2, 5, 5})}, {}, "!Matrix size-incompatible"},
      {"BatchMatMulV2", {F({2, 3, 4}), F({3, 4, 5})}, {}, "!broadcastable batch dimensions"},
      {"BatchMatMulV2", {F({4}), F({4, 5})}, {}, "!at least rank 2"},
  });
}

TEST(ShapeFunctionsShapeOps) {
  RunShapeCases({
      {"Fill", {Cst(I32({2, 3})), F(kScalar)}, {}, "[2,3]"},
      {"Fill", {Ph(DT_INT32, PartialShape({3})), F(kScalar)}, {}, "[?,?,?]"},
      {"Fill", {Cst(I32({2, -1})), F(kScalar)}, {}, "!Fill dimensions must be >= 0"},
      {"Fill", {Cst(I32({2})), F({1})}, {}, "!must be rank 0"},
      {"Fill", {Ph(DT_INT32, PartialShape({2, 2})), F(kScalar)}, {}, "!must be rank 1"},
      {"ZerosLike", {F({4, -1})}, {}, "[4,?]"},
      {"OnesLike", {F({4})}, {}, "[4]"},
      {"Range", {Cst(S32(0)), Cst(S32(10)), Cst(S32(3))}, {}, "[4]"},
      {"Range", {Cst(S32(10)), Cst(S32(0)), Cst(S32(-4))}, {}, "[3]"},
      {"Range", {Cst(SF(1.5f)), Cst(SF(4.0f)), Cst(SF(0.5f))}, {}, "[5]"},
      {"Range", {Ph(DT_INT32, kScalar), Cst(S32(10)), Cst(S32(3))}, {}, "[?]"},
      {"Range", {Cst(S32(0)), Cst(S32(10)), Cst(S32(0))}, {}, "!Requires delta != 0"},
      {"Range", {Cst(S32(0)), Cst(S32(10)), Cst(S32(-1))}, {}, "!Requires start >= limit when delta < 0"},
      {"Range", {Cst(S32(5)), Cst(S32(1)), Cst(S32(1))}, {}, "!Requires start <= limit when delta > 0"},
      {"Range", {Cst(I32({0})), Cst(S32(1)), Cst(S32(1))}, {}, "!must be rank 0"},
      {"Shape", {F({2, -1, 3})}, {}, "[3]"},
      {"Shape", {F(kUnknown)}, {}, "[?]"},
      {"Size", {F({2, 3})}, {}, "[]"},
      {"Rank", {F(kUnknown)}, {}, "[]"},
      {"StopGradient", {F({2, 3})}, {}, "[2,3]"},
      {"PreventGradient", {F({2})}, {}, "[2]"},
      {"Snapshot", {F({-1})}, {}, "[?]"},
      {"CheckNumerics", {F({5})}, A({{"message", AttrValue::String("m")}}), "[5]"},
  });
}

TEST(ReductionKernels) {
  std::vector<Tensor> out;
  Tensor x = MakeTensor<float>({2, 3}, {1, 5, -2, 4, 0.5f, 3});
  EXPECT_OK(Run("Max", {x, I32({1})}, {}, &out));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({5, 4}));
  EXPECT_OK(Run("Min", {x, I32({0})}, {}, &out));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({1, 0.5f, -2}));
  EXPECT_OK(Run("Prod", {x, I32({0, 1})}, {}, &out));
  EXPECT_NEAR(Values<float>(out[0])[0], 1 * 5 * -2 * 4 * 0.5f * 3, 1e-4);
  Tensor nan = MakeTensor<float>({3}, {1, std::nanf(""), 3});
  EXPECT_OK(Run("Max", {nan, I32({0})}, {}, &out));
  EXPECT_TRUE(std::isnan(Values<float>(out[0])[0]));
  Tensor b = MakeTensor<bool>({2, 2}, {true, false, true, true});
  EXPECT_OK(Run("All", {b, I32({1})}, {}, &out));
  EXPECT_TRUE(Values<bool>(out[0]) == std::vector<bool>({false, true}));
  EXPECT_OK(Run("Any", {b, I32({0})}, {}, &out));
  EXPECT_TRUE(Values<bool>(out[0]) == std::vector<bool>({true, true}));
  // A large full reduction takes the split path.
  std::vector<int32_t> big(1 << 20);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<int32_t>((i * 7919) % 1000003);
  EXPECT_OK(Run("Max", {MakeTensor<int32_t>({1 << 20}, big), I32({0})}, {}, &out));
  EXPECT_EQ(Values<int32_t>(out[0])[0], *std::max_element(big.begin(), big.end()));
  // Errors.
  EXPECT_ERROR(Run("Max", {x, I32({2})}, {}, &out), "Invalid reduction dimension 2");
  EXPECT_ERROR(Run("Prod", {x, I32({1, -1})}, {}, &out), "duplicate dimension");
  EXPECT_ERROR(Run("Min", {x, MakeTensor<int32_t>({1, 1}, {0})}, {}, &out), "at most rank 1");
}

TEST(ArgAndScanKernels) {
  std::vector<Tensor> out;
  Tensor x = MakeTensor<float>({2, 3}, {1, 5, 5, std::nanf(""), 0.5f, 3});
  EXPECT_OK(Run("ArgMax", {x, S32(1)}, {}, &out));
  EXPECT_TRUE(Values<int64_t>(out[0]) == std::vector<int64_t>({1, 2}));
  EXPECT_OK(Run("ArgMin", {x, S32(0)}, A({{"output_type", AttrValue::Type(DT_INT32)}}), &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({0, 1, 1}));
  EXPECT_ERROR(Run("ArgMax", {x, S32(2)}, {}, &out), "Expected dimension in the range");
  EXPECT_ERROR(Run("ArgMax", {x, I32({0, 1})}, {}, &out), "dimension must be an integer scalar");
  EXPECT_ERROR(Run("ArgMax", {MakeTensor<float>({0, 3}, {}), S32(0)}, {}, &out), "is empty");
  Tensor c = MakeTensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_OK(
      Run("Cumsum", {c, S32(1)}, A({{"exclusive", AttrValue::Bool(true)}, {"reverse", AttrValue::Bool(true)}}), &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({5, 3, 0, 11, 6, 0}));
  EXPECT_OK(Run("Cumsum", {c, S32(0)}, {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({1, 2, 3, 5, 7, 9}));
  EXPECT_ERROR(Run("Cumsum", {c, S32(2)}, {}, &out), "Expected scan axis in the range");
  EXPECT_ERROR(Run("Cumsum", {c, I32({0})}, {}, &out), "axis must be an int32 or int64 scalar");
}

TEST(BatchMatMulKernel) {
  std::vector<Tensor> out;
  // [2,2,3] x [3,1] broadcast over the batch.
  Tensor x = MakeTensor<float>({2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0});
  Tensor y = MakeTensor<float>({3, 1}, {1, 1, 2});
  EXPECT_OK(Run("BatchMatMulV2", {x, y}, {}, &out));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({9, 21, 1, 1}));
  EXPECT_EQ(out[0].shape(), TensorShape({2, 2, 1}));
  Tensor xi = MakeTensor<int64_t>({1, 2, 2}, {1, 2, 3, 4});
  Tensor yi = MakeTensor<int64_t>({3, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0, 2, 0, 0, 2});
  EXPECT_OK(Run("BatchMatMulV2", {xi, yi}, A({{"adj_x", AttrValue::Bool(true)}}), &out));
  EXPECT_TRUE(Values<int64_t>(out[0]) == std::vector<int64_t>({1, 3, 2, 4, 3, 1, 4, 2, 2, 6, 4, 8}));
  EXPECT_ERROR(Run("BatchMatMulV2", {x, MakeTensor<float>({2, 1}, {1, 1})}, {}, &out), "Matrix size-incompatible");
  EXPECT_ERROR(Run("BatchMatMulV2", {MakeTensor<float>({3}, {1, 2, 3}), y}, {}, &out), "ndims must be >= 2");
  EXPECT_ERROR(Run("BatchMatMulV2",
                   {MakeTensor<float>({2, 1, 3}, std::vector<float>(6, 1)),
                    MakeTensor<float>({3, 3, 1}, std::vector<float>(9, 1))},
                   {}, &out),
               "compatible batch dimensions");
}

TEST(ShapeOpKernels) {
  std::vector<Tensor> out;
  EXPECT_OK(Run("Fill", {I32({2, 2}), SF(7)}, {}, &out));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>(4, 7));
  EXPECT_ERROR(Run("Fill", {I32({2, -1}), SF(7)}, {}, &out), "Fill dimensions must be >= 0");
  EXPECT_ERROR(Run("Fill", {I32({2}), MakeTensor<float>({1}, {1})}, {}, &out), "value must be a scalar");
  EXPECT_ERROR(Run("Fill", {MakeTensor<int64_t>({3}, {int64_t{1} << 40, int64_t{1} << 40, 1 << 20}), SF(7)}, {}, &out),
               "overflows");
  EXPECT_OK(Run("OnesLike", {MakeTensor<int32_t>({3}, {5, 6, 7})}, {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({1, 1, 1}));
  EXPECT_OK(Run("ZerosLike", {MakeTensor<double>({2}, {5, 6})}, {}, &out));
  EXPECT_TRUE(Values<double>(out[0]) == std::vector<double>({0, 0}));
  EXPECT_OK(Run("Range", {S32(3), S32(-4), S32(-3)}, {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({3, 0, -3}));
  EXPECT_ERROR(Run("Range", {S32(0), S32(5), S32(0)}, {}, &out), "Requires delta != 0");
  EXPECT_ERROR(Run("Range", {S32(0), S32(5), S32(-1)}, {}, &out), "Requires start >= limit when delta < 0");
  EXPECT_ERROR(Run("Range", {SF(0), SF(1e30f), SF(1)}, {}, &out), "too large");
  EXPECT_ERROR(Run("Range", {I32({0, 1}), S32(5), S32(1)}, {}, &out), "must be a scalar");
  EXPECT_OK(Run("Shape", {MakeTensor<float>({2, 0, 3}, {})}, {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({2, 0, 3}));
  EXPECT_OK(Run("Size", {MakeTensor<float>({2, 3}, std::vector<float>(6))},
                A({{"out_type", AttrValue::Type(DT_INT64)}}), &out));
  EXPECT_TRUE(Values<int64_t>(out[0]) == std::vector<int64_t>({6}));
  EXPECT_OK(Run("Rank", {MakeTensor<float>({2, 3}, std::vector<float>(6))}, {}, &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({2}));
  Tensor bad = MakeTensor<float>({3}, {1, std::numeric_limits<float>::infinity(), std::nanf("")});
  EXPECT_ERROR(Run("CheckNumerics", {bad}, A({{"message", AttrValue::String("check me")}}), &out),
               "check me : Tensor had Inf and NaN values");
  EXPECT_OK(Run("CheckNumerics", {SF(1)}, A({{"message", AttrValue::String("m")}}), &out));
  EXPECT_OK(Run("Snapshot", {SF(2)}, {}, &out));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({2}));
}

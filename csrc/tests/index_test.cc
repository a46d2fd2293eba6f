// Tests of the gather/scatter/index ops: shape-function table (shapes in, shape or error out) and
// kernel values and error paths for Gather, GatherV2, GatherNd, ScatterNd, OneHot, Where, TopKV2.
#include <algorithm>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "test_util.h"
#include "tensorflux/framework/op_registry.h"

using namespace tx;
using namespace tx_test;

namespace {

Tensor I32(std::vector<int32_t> v) { return MakeTensor<int32_t>({static_cast<int64_t>(v.size())}, v); }
Tensor I64(std::vector<int64_t> v) { return MakeTensor<int64_t>({static_cast<int64_t>(v.size())}, v); }
Tensor S32(int32_t v) { return MakeTensor<int32_t>(TensorShape(std::vector<int64_t>{}), {v}); }
Tensor SF(float v) { return MakeTensor<float>(TensorShape(std::vector<int64_t>{}), {v}); }
InputSpec F(PartialShape s) { return Ph(DT_FLOAT, std::move(s)); }
InputSpec I(PartialShape s) { return Ph(DT_INT32, std::move(s)); }
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
    std::string got = s.ok() ? t.graph().OutputShape({n, 0}).ToString() : "!" + s.message();
    const bool is_error = !c.want.empty() && c.want[0] == '!';
    const bool ok = is_error ? (got[0] == '!' && got.find(c.want.substr(1)) != std::string::npos) : got == c.want;
    if (!ok) std::printf("  shape case %s: got '%s', want '%s'\n", c.op.c_str(), got.c_str(), c.want.c_str());
    EXPECT_TRUE(ok);
  }
}

AttrMap A(std::initializer_list<std::pair<const std::string, AttrValue>> kv) { return AttrMap(kv); }

}  // namespace

TEST(GatherShapes) {
  RunShapeCases({
      {"Gather", {F({5, 3}), I({2, 4})}, {}, "[2,4,3]"},
      {"Gather", {F({5}), Cst(I32({4, 0}))}, {}, "[2]"},
      {"Gather", {F({5}), Cst(I32({4, 5}))}, {}, "!indices[1] = 5 is not in [0, 5)"},
      {"Gather", {F(kScalar), I({2})}, {}, "!params must be at least 1 dimensional"},
      {"Gather", {F(PartialShape()), I({2})}, {}, "<unknown>"},
      {"GatherV2", {F({5, 3, 2}), I({4}), Cst(S32(1))}, {}, "[5,4,2]"},
      {"GatherV2", {F({5, 3, 2}), I({4, 6}), Cst(S32(-1))}, {}, "[5,3,4,6]"},
      {"GatherV2", {F({5, 3, 2}), I(kScalar), Cst(S32(0))}, {}, "[3,2]"},
      {"GatherV2", {F({5, 3, 2}), I({4}), I(kScalar)}, {}, "[?,?,?]"},
      {"GatherV2", {F({5, 3, 2}), I({4}), Cst(S32(3))}, {}, "!Expected axis in the range [-3, 3), but got 3"},
      {"GatherV2", {F({5, 3, 2}), I({4}), Cst(I32({0}))}, {}, "!axis must be a scalar"},
      {"GatherV2", {F({5, 3, 2}), I({5, 7}), Cst(S32(1))}, A({{"batch_dims", AttrValue::Int(1)}}), "[5,7,2]"},
      {"GatherV2", {F({5, 3, 2}), I({5, 7}), Cst(S32(2))}, A({{"batch_dims", AttrValue::Int(-1)}}), "[5,3,7]"},
      {"GatherV2",
       {F({5, 3, 2}), I({4, 7}), Cst(S32(1))},
       A({{"batch_dims", AttrValue::Int(1)}}),
       "!params.shape[0] = 5 must equal indices.shape[0] = 4"},
      {"GatherV2",
       {F({5, 3, 2}), I({5, 7}), Cst(S32(0))},
       A({{"batch_dims", AttrValue::Int(1)}}),
       "!batch_dims (1) must be less than or equal to axis (0)"},
      {"GatherV2",
       {F({5, 3}), I({5}), Cst(S32(1))},
       A({{"batch_dims", AttrValue::Int(2)}}),
       "!Expected batch_dims in the range [-1, 1], but got 2"},
      {"GatherV2", {F({5, 3}), Cst(I32({0, 3})), Cst(S32(1))}, {}, "!indices[1] = 3 is not in [0, 3)"},
  });
}

TEST(GatherNdScatterNdShapes) {
  Tensor idx = MakeTensor<int32_t>({2, 2}, {0, 1, 2, 0});
  RunShapeCases({
      {"GatherNd", {F({4, 3, 5}), I({7, 2})}, {}, "[7,5]"},
      {"GatherNd", {F({4, 3}), I({2, 3, 2})}, {}, "[2,3]"},
      {"GatherNd", {F({4, 3}), I({6, 0})}, {}, "[6,4,3]"},
      {"GatherNd",
       {F({4, 3}), I({6, 3})},
       {},
       "!index innermost dimension length must be <= params rank; saw: 3 vs. 2"},
      {"GatherNd", {F({4, 3}), I(kScalar)}, {}, "!indices must be at least 1 dimensional"},
      {"GatherNd", {F({2, 3}), Cst(idx)}, {}, "!indices[1] = [2, 0] does not index into param shape [2,3]"},
      {"GatherNd", {F({2, 3}), Cst(idx)}, A({{"bad_indices_policy", AttrValue::String("IGNORE")}}), "[2]"},
      {"GatherNd",
       {F({2, 3}), Cst(idx)},
       A({{"bad_indices_policy", AttrValue::String("WHATEVER")}}),
       "!bad_indices_policy must be one of"},
      {"ScatterNd", {I({4, 1}), F({4, 3}), Cst(I32({5, 3}))}, {}, "[5,3]"},
      {"ScatterNd", {I({4, 2}), F({4}), Cst(I32({5, 3}))}, {}, "[5,3]"},
      {"ScatterNd", {I({4, 2}), F({4}), I({2})}, {}, "[?,?]"},
      {"ScatterNd", {I({4, 1}), F({3, 3}), Cst(I32({5, 3}))}, {}, "!updates must have shape"},
      {"ScatterNd", {I({4, 3}), F({4}), Cst(I32({5, 3}))}, {}, "!index innermost dimension length must be <= rank"},
      {"ScatterNd", {Cst(idx), F({2}), Cst(I32({2, 3}))}, {}, "!indices[1] = [2, 0] does not index into shape [2,3]"},
      {"ScatterNd", {I({4, 1}), F({4}), Cst(I32({-5}))}, {}, "!invalid dimension -5"},
      {"ScatterNd", {I({1, 1}), F({1, 0}), Cst(I32({2, 0}))}, {}, "!Indices and updates specified for empty output"},
      {"ScatterNd", {I({0, 1}), F({0, 0}), Cst(I32({2, 0}))}, {}, "[2,0]"},
  });
}

TEST(OneHotWhereTopKShapes) {
  RunShapeCases({
      {"OneHot", {I({2, 3}), Cst(S32(4)), Cst(SF(1)), Cst(SF(0))}, {}, "[2,3,4]"},
      {"OneHot", {I({2, 3}), Cst(S32(4)), Cst(SF(1)), Cst(SF(0))}, A({{"axis", AttrValue::Int(0)}}), "[4,2,3]"},
      {"OneHot", {I({2, 3}), Cst(S32(4)), Cst(SF(1)), Cst(SF(0))}, A({{"axis", AttrValue::Int(1)}}), "[2,4,3]"},
      {"OneHot", {I({2, 3}), I(kScalar), Cst(SF(1)), Cst(SF(0))}, {}, "[2,3,?]"},
      {"OneHot", {I({2, 3}), Cst(S32(-1)), Cst(SF(1)), Cst(SF(0))}, {}, "!depth must be non-negative, got: -1"},
      {"OneHot",
       {I({2, 3}), Cst(S32(4)), Cst(SF(1)), Cst(SF(0))},
       A({{"axis", AttrValue::Int(3)}}),
       "!Expected axis to be -1 or between [0, 2], but got 3"},
      {"OneHot", {I({2}), Cst(S32(4)), F({2}), Cst(SF(0))}, {}, "!on_value must be a scalar"},
      {"Where", {Ph(DT_BOOL, PartialShape({2, 3}))}, {}, "[?,2]"},
      {"Where", {Ph(DT_FLOAT, kScalar)}, {}, "[?,0]"},
      {"Where", {Ph(DT_BOOL, PartialShape())}, {}, "[?,?]"},
      {"TopKV2", {F({3, 7}), Cst(S32(2))}, {}, "[3,2]"},
      {"TopKV2", {F({3, 7}), I(kScalar)}, {}, "[3,?]"},
      {"TopKV2", {F({3, 7}), Cst(S32(8))}, {}, "!input must have at least k columns. Had 7, needed 8"},
      {"TopKV2", {F({3, 7}), Cst(S32(-1))}, {}, "!Need k >= 0, got -1"},
      {"TopKV2", {F(kScalar), Cst(S32(1))}, {}, "!input must be at least 1 dimensional"},
      {"TopKV2", {F({3, 7}), Cst(I32({1}))}, {}, "!k must be a scalar"},
  });
}

TEST(GatherKernel) {
  OpTester t;
  std::vector<Tensor> out;
  Tensor params = MakeTensor<float>({3, 2}, {0, 1, 10, 11, 20, 21});
  EXPECT_OK(t.RunOp("GatherV2", {params, I32({2, 0, 2}), S32(0)}, {}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({3, 2}));
  EXPECT_TRUE((Values<float>(out[0]) == std::vector<float>{20, 21, 0, 1, 20, 21}));
  EXPECT_OK(t.RunOp("GatherV2", {params, I64({1, 1, 0}), S32(-1)}, {}, &out));
  EXPECT_TRUE((Values<float>(out[0]) == std::vector<float>{1, 1, 0, 11, 11, 10, 21, 21, 20}));
  // batch_dims = 1: row b picks its own columns.
  Tensor bidx = MakeTensor<int32_t>({3, 1}, {1, 0, 1});
  EXPECT_OK(t.RunOp("GatherV2", {params, bidx, S32(1)}, A({{"batch_dims", AttrValue::Int(1)}}), &out));
  EXPECT_TRUE((Values<float>(out[0]) == std::vector<float>{1, 10, 21}));
  EXPECT_OK(t.RunOp("Gather", {params, I32({1})}, {}, &out));
  EXPECT_TRUE((Values<float>(out[0]) == std::vector<float>{10, 11}));
  // Errors: no out-of-bounds reads.
  EXPECT_ERROR(t.RunOp("GatherV2", {params, I32({0, 1, 2, 7}), S32(0)}, {}, &out), "indices[3] = 7 is not in [0, 3)");
  EXPECT_ERROR(t.RunOp("GatherV2", {params, I32({-1}), S32(0)}, {}, &out), "indices[0] = -1 is not in [0, 3)");
  EXPECT_ERROR(t.RunOp("GatherV2", {params, I32({0}), S32(2)}, {}, &out), "Expected axis in the range [-2, 2)");
  EXPECT_ERROR(t.RunOp("GatherV2", {params, I32({0}), I32({0})}, {}, &out), "axis must be an integer scalar");
  EXPECT_ERROR(t.RunOp("Gather", {SF(1), I32({0})}, {}, &out), "params must be at least 1 dimensional");
  // Empty params dimension: any index is out of range; empty indices are fine.
  Tensor empty = MakeTensor<float>({0, 2}, {});
  EXPECT_ERROR(t.RunOp("GatherV2", {empty, I32({0}), S32(0)}, {}, &out), "indices[0] = 0 is not in [0, 0)");
  EXPECT_OK(t.RunOp("GatherV2", {empty, I32({}), S32(0)}, {}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({0, 2}));
}

TEST(GatherKernelLargeRowsParallel) {
  OpTester t(2);
  const int64_t rows = 1000, width = 300;
  std::vector<double> p(rows * width);
  for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<double>(i);
  std::vector<int64_t> idx(2000);
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int64_t>((i * 7919) % rows);
  std::vector<Tensor> out;
  EXPECT_OK(t.RunOp("GatherV2", {MakeTensor<double>({rows, width}, p), I64(idx), S32(0)}, {}, &out));
  bool ok = out[0].shape() == TensorShape({2000, width});
  for (size_t i = 0; ok && i < idx.size(); ++i)
    for (int64_t j = 0; j < width; ++j) ok = ok && out[0].data<double>()[i * width + j] == p[idx[i] * width + j];
  EXPECT_TRUE(ok);
}

TEST(GatherNdScatterNdKernels) {
  OpTester t;
  std::vector<Tensor> out;
  Tensor params = MakeTensor<int32_t>({2, 3}, {0, 1, 2, 10, 11, 12});
  EXPECT_OK(t.RunOp("GatherNd", {params, MakeTensor<int64_t>({2, 2}, {1, 2, 0, 1})}, {}, &out));
  EXPECT_TRUE((Values<int32_t>(out[0]) == std::vector<int32_t>{12, 1}));
  EXPECT_OK(t.RunOp("GatherNd", {params, MakeTensor<int32_t>({1, 1}, {1})}, {}, &out));
  EXPECT_TRUE((Values<int32_t>(out[0]) == std::vector<int32_t>{10, 11, 12}));
  EXPECT_ERROR(t.RunOp("GatherNd", {params, MakeTensor<int32_t>({2, 2}, {1, 2, 2, 0})}, {}, &out),
               "indices[1] = [2, 0] does not index into param shape [2,3]");
  EXPECT_OK(t.RunOp("GatherNd", {params, MakeTensor<int32_t>({2, 2}, {1, 2, 2, 0})},
                    A({{"bad_indices_policy", AttrValue::String("IGNORE")}}), &out));
  EXPECT_TRUE((Values<int32_t>(out[0]) == std::vector<int32_t>{12, 0}));
  EXPECT_ERROR(t.RunOp("GatherNd", {params, MakeTensor<int32_t>({1, 3}, {0, 0, 0})}, {}, &out),
               "index innermost dimension length must be <= params rank");
  // ScatterNd: duplicates add up.
  Tensor upd = MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_OK(t.RunOp("ScatterNd", {MakeTensor<int32_t>({3, 1}, {2, 0, 2}), upd, I32({3, 2})}, {}, &out));
  EXPECT_TRUE((Values<float>(out[0]) == std::vector<float>{3, 4, 0, 0, 6, 8}));
  EXPECT_ERROR(t.RunOp("ScatterNd", {MakeTensor<int32_t>({3, 1}, {2, 0, 3}), upd, I32({3, 2})}, {}, &out),
               "indices[2] = [3] does not index into shape [3,2]");
  EXPECT_OK(t.RunOp("ScatterNd", {MakeTensor<int32_t>({3, 1}, {2, 0, 3}), upd, I32({3, 2})},
                    A({{"bad_indices_policy", AttrValue::String("IGNORE")}}), &out));
  EXPECT_TRUE((Values<float>(out[0]) == std::vector<float>{3, 4, 0, 0, 1, 2}));
  EXPECT_ERROR(t.RunOp("ScatterNd", {MakeTensor<int32_t>({3, 1}, {0, 0, 0}), upd, I32({3, 3})}, {}, &out),
               "updates must have shape");
  EXPECT_ERROR(t.RunOp("ScatterNd", {MakeTensor<int32_t>({3, 1}, {0, 0, 0}), upd, I32({-3, 2})}, {}, &out),
               "shape must be non-negative");
  EXPECT_ERROR(t.RunOp("ScatterNd",
                       {MakeTensor<int64_t>({1, 1}, {0}), MakeTensor<float>({1}, {1}),
                        I64({4611686018427387904, 4611686018427387904})},
                       {}, &out),
               "shape must be non-negative with a representable element count");
}

TEST(OneHotWhereTopKKernels) {
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_OK(t.RunOp("OneHot", {I32({0, 2, -1, 5}), S32(3), SF(1), SF(0)}, {}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({4, 3}));
  EXPECT_TRUE((Values<float>(out[0]) == std::vector<float>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}));
  EXPECT_OK(t.RunOp("OneHot", {I32({0, 2}), S32(3), SF(5), SF(-1)}, A({{"axis", AttrValue::Int(0)}}), &out));
  EXPECT_TRUE((Values<float>(out[0]) == std::vector<float>{5, -1, -1, -1, -1, 5}));
  EXPECT_ERROR(t.RunOp("OneHot", {I32({0}), S32(-2), SF(1), SF(0)}, {}, &out), "depth must be non-negative");
  EXPECT_ERROR(t.RunOp("OneHot", {I32({0}), S32(2), MakeTensor<float>({2}, {1, 1}), SF(0)}, {}, &out),
               "on_value and off_value must be scalars");

  Tensor cond = MakeTensor<bool>({2, 3}, {true, false, true, false, false, true});
  EXPECT_OK(t.RunOp("Where", {cond}, {}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({3, 2}));
  EXPECT_TRUE((Values<int64_t>(out[0]) == std::vector<int64_t>{0, 0, 0, 2, 1, 2}));
  EXPECT_OK(t.RunOp("Where", {MakeTensor<float>({4}, {0.f, -0.f, 2.f, 0.f})}, {}, &out));
  EXPECT_TRUE((Values<int64_t>(out[0]) == std::vector<int64_t>{2}));

  Tensor x = MakeTensor<float>({2, 5}, {1, 5, 3, 5, 2, 9, 9, 9, 1, 0});
  EXPECT_OK(t.RunOp("TopKV2", {x, S32(3)}, {}, &out));
  EXPECT_TRUE((Values<float>(out[0]) == std::vector<float>{5, 5, 3, 9, 9, 9}));
  EXPECT_TRUE((Values<int32_t>(out[1]) == std::vector<int32_t>{1, 3, 2, 0, 1, 2}));
  EXPECT_OK(t.RunOp("TopKV2", {x, S32(1)}, A({{"index_type", AttrValue::Type(DT_INT64)}}), &out));
  EXPECT_TRUE((Values<int64_t>(out[1]) == std::vector<int64_t>{1, 0}));
  EXPECT_ERROR(t.RunOp("TopKV2", {x, S32(6)}, {}, &out), "input must have at least k columns. Had 5, needed 6");
  EXPECT_ERROR(t.RunOp("TopKV2", {x, S32(-1)}, {}, &out), "Need k >= 0, got -1");
}

TEST(TopKMatchesSortOnLargeRows) {
  OpTester t(2);
  const int64_t rows = 40, n = 3000, k = 17;
  std::vector<int32_t> v(rows * n);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>((i * 2654435761u) % 101);
  std::vector<Tensor> out;
  EXPECT_OK(t.RunOp("TopKV2", {MakeTensor<int32_t>({rows, n}, v), S32(static_cast<int32_t>(k))}, {}, &out));
  bool ok = true;
  for (int64_t r = 0; r < rows && ok; ++r) {
    std::vector<std::pair<int32_t, int64_t>> row;
    for (int64_t j = 0; j < n; ++j) row.push_back({-v[r * n + j], j});
    std::sort(row.begin(), row.end());
    for (int64_t j = 0; j < k; ++j)
      ok = ok && out[0].data<int32_t>()[r * k + j] == -row[j].first &&
          out[1].data<int32_t>()[r * k + j] == row[j].second;
  }
  EXPECT_TRUE(ok);
}

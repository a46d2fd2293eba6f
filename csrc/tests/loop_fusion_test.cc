// Tests of loop fusion (Note [Loop fusion]): the grouping pass, and fused plans giving the values
// and errors of unfused ones (broadcasts, scalars, unknown shapes, gradients, AddN, large loops).
#include <cmath>
#include <random>

#include "kernel_test_util.h"
#include "test_util.h"
#include "tensorflux/passes/loop_fusion.h"
#include "tensorflux/runtime/executor.h"

using namespace tx;
using tx_test::MakeTensor;
using tx_test::Values;

namespace {

FusionNode Fusible(std::vector<int> inputs, PartialShape shape = PartialShape({4})) {
  FusionNode n;
  n.fusible = true;
  n.dtype = DT_FLOAT;
  n.shape = std::move(shape);
  n.data_inputs = std::move(inputs);
  return n;
}

FusionNode Other(std::vector<int> inputs) {
  FusionNode n;
  n.data_inputs = std::move(inputs);
  return n;
}

TEST(ChainWithConstantsFusesWhole) {
  // x, then y_k = y_{k-1} + c_k with a constant made right before each add.
  std::vector<FusionNode> nodes = {Other({})};
  int y = 0;
  for (int k = 0; k < 10; ++k) {
    nodes.push_back(Other({}));  // the constant
    nodes.push_back(Fusible({y, static_cast<int>(nodes.size()) - 1}));
    y = static_cast<int>(nodes.size()) - 1;
  }
  auto groups = FindFusionGroups(nodes);
  EXPECT_EQ(groups.size(), 1u);
  if (!groups.empty()) EXPECT_EQ(groups[0].size(), 10u);
}

TEST(LateInputJoinsTheGroup) {
  // m*b1 early, g (computed late by a non-fusible chain) * c, then their sum: one group of three.
  std::vector<FusionNode> nodes = {Other({}), Other({}), Fusible({0, 1})};  // 2: m * b1
  nodes.push_back(Other({}));  // 3: the gradient's source
  for (int k = 0; k < 5; ++k) nodes.push_back(Other({static_cast<int>(nodes.size()) - 1}));  // 4..8
  nodes.push_back(Fusible({8, 1}));  // 9: g * c
  nodes.push_back(Fusible({2, 9}));  // 10: sum
  auto groups = FindFusionGroups(nodes);
  EXPECT_EQ(groups.size(), 1u);
  if (!groups.empty()) EXPECT_TRUE((groups[0] == std::vector<int>{2, 9, 10}));
}

TEST(GroupsNeverWaitForEachOther) {
  // a (A), b2 (B), a2 = f(a, b2) joins A, b1 = g(b2, a): joining B would make A wait for B and B
  // for A although no node waits for itself.
  std::vector<FusionNode> nodes = {Other({}), Fusible({0}), Fusible({0}), Fusible({1, 2}), Fusible({2, 1})};
  auto groups = FindFusionGroups(nodes);
  std::vector<int> group_of(nodes.size(), -1);
  for (size_t g = 0; g < groups.size(); ++g)
    for (int m : groups[g]) group_of[m] = static_cast<int>(g);
  // Group-level edges must form no cycle: with at most two groups, not both directions.
  bool ab = false, ba = false;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (int p : nodes[i].data_inputs) {
      if (p < 0 || group_of[p] < 0 || group_of[i] < 0 || group_of[p] == group_of[i]) continue;
      (group_of[p] < group_of[i] ? ab : ba) = true;
    }
  EXPECT_TRUE(!(ab && ba));
}

TEST(ShapeAndDtypeSplitGroups) {
  // 1: [4]; 2, 3: [2,4] (2 broadcasts 1 against an outside [2,4]); 4, 5: [4] in double.
  std::vector<FusionNode> nodes = {Other({}), Fusible({0}), Fusible({1, 0}, PartialShape({2, 4})),
                                   Fusible({2}, PartialShape({2, 4}))};
  nodes.push_back(Fusible({3}));
  nodes.back().dtype = DT_DOUBLE;
  nodes.push_back(Fusible({4}));
  nodes.back().dtype = DT_DOUBLE;
  auto groups = FindFusionGroups(nodes);
  EXPECT_EQ(groups.size(), 2u);
  if (groups.size() == 2) {
    EXPECT_TRUE((groups[0] == std::vector<int>{2, 3}));
    EXPECT_TRUE((groups[1] == std::vector<int>{4, 5}));
  }
}

// A graph builder over real ops.
struct G {
  Graph g;
  Node* Add(const std::string& op, std::vector<Endpoint> in, AttrMap attrs = {}) {
    NodeSpec s;
    s.name = g.UniqueName(op);
    s.op_type = op;
    s.attrs = std::move(attrs);
    if (op == "AddN") {
      NodeSpec::InputArg a;
      a.is_list = true;
      a.values = in;
      s.inputs.push_back(a);
    } else {
      for (const Endpoint& e : in) {
        NodeSpec::InputArg a;
        a.values.push_back(e);
        s.inputs.push_back(a);
      }
    }
    Node* n = nullptr;
    Status st = g.AddNode(std::move(s), &n);
    if (!st.ok()) {
      std::printf("AddNode %s: %s\n", op.c_str(), st.message().c_str());
      std::abort();
    }
    return n;
  }
  Endpoint Ph(PartialShape shape, DataType dt = DT_FLOAT) {
    return {Add("Placeholder", {}, {{"dtype", AttrValue::Type(dt)}, {"shape", AttrValue::Shape(shape)}}), 0};
  }
  Endpoint Const(Tensor t) {
    return {Add("Const", {}, {{"dtype", AttrValue::Type(t.dtype())}, {"value", AttrValue::FromTensor(t)}}), 0};
  }
  Endpoint Op(const std::string& op, std::vector<Endpoint> in, AttrMap attrs = {}) { return {Add(op, in, attrs), 0}; }
};

// Runs the plan for `fetches` with and without fusion; returns the statuses and outputs.
struct Both {
  Status fused_status, plain_status;
  std::vector<Tensor> fused, plain;
  int num_fused = 0;
};
Both RunBoth(Graph& g, const std::vector<Endpoint>& feeds, const std::vector<Tensor>& values,
             const std::vector<Endpoint>& fetches) {
  Both b;
  ThreadPool pool(1);
  for (bool fuse : {true, false}) {
    ExecutionPlan::Options o;
    o.remap = fuse;
    std::unique_ptr<ExecutionPlan> plan;
    Status s = ExecutionPlan::Build(g, feeds, fetches, {}, o, &plan);
    if (s.ok()) {
      if (fuse) b.num_fused = plan->num_fused_loops();
      s = plan->Run(values, nullptr, &pool, fuse ? &b.fused : &b.plain);
    }
    (fuse ? b.fused_status : b.plain_status) = s;
  }
  return b;
}

void ExpectSameValues(const Both& b, float tol) {
  EXPECT_OK(b.fused_status);
  EXPECT_OK(b.plain_status);
  EXPECT_EQ(b.fused.size(), b.plain.size());
  for (size_t k = 0; k < b.fused.size() && k < b.plain.size(); ++k) {
    EXPECT_TRUE(b.fused[k].shape() == b.plain[k].shape());
    std::vector<float> x = Values<float>(b.fused[k]), y = Values<float>(b.plain[k]);
    EXPECT_EQ(x.size(), y.size());
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      const bool same = (std::isnan(x[i]) && std::isnan(y[i])) || std::fabs(x[i] - y[i]) <= tol * (1 + std::fabs(y[i]));
      if (!same) {
        std::printf("  output %zu element %zu: fused %g, unfused %g\n", k, i, x[i], y[i]);
        EXPECT_TRUE(same);
        break;
      }
    }
  }
}

std::vector<float> Random(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = d(rng);
  return v;
}

TEST(ChainOfAddsIsOneKernel) {
  G b;
  Endpoint x = b.Ph(PartialShape({4})), y = x;
  for (int k = 0; k < 100; ++k) y = b.Op("AddV2", {y, b.Const(MakeTensor<float>(TensorShape({}), {1.0f}))});
  Both r = RunBoth(b.g, {x}, {MakeTensor<float>(TensorShape({4}), {0, 1, 2, 3})}, {y});
  EXPECT_EQ(r.num_fused, 1);
  ExpectSameValues(r, 0);
  EXPECT_TRUE((Values<float>(r.fused[0]) == std::vector<float>{100, 101, 102, 103}));
}

TEST(MixedOpsBroadcastsAndSeveralOutputs) {
  // [3,5] values with a [5] bias, a [3,1] column, a scalar and a transcendental in the middle;
  // an intermediate value is fetched too.
  G b;
  Endpoint x = b.Ph(PartialShape({3, 5})), bias = b.Ph(PartialShape({5})), col = b.Ph(PartialShape({3, 1}));
  Endpoint h = b.Op("AddV2", {x, bias});
  Endpoint t = b.Op("Tanh", {h});
  Endpoint u = b.Op("Mul", {t, col});
  Endpoint v = b.Op("Sub", {b.Const(MakeTensor<float>(TensorShape({}), {0.5f})), u});
  Endpoint w = b.Op("Maximum", {v, b.Op("Exp", {x})});
  Endpoint z = b.Op("LeakyRelu", {w}, {{"alpha", AttrValue::Float(0.1f)}});
  Both r =
      RunBoth(b.g, {x, bias, col},
              {MakeTensor<float>(TensorShape({3, 5}), Random(15, 1)), MakeTensor<float>(TensorShape({5}), Random(5, 2)),
               MakeTensor<float>(TensorShape({3, 1}), Random(3, 3))},
              {z, t});
  EXPECT_EQ(r.num_fused, 1);
  ExpectSameValues(r, 0);
}

TEST(GradientsAndAddN) {
  G b;
  Endpoint f = b.Ph(PartialShape({2, 3})), g = b.Ph(PartialShape({2, 3}));
  Endpoint y = b.Op("Sigmoid", {f});
  Endpoint d1 = b.Op("ReluGrad", {g, f});
  Endpoint d2 = b.Op("SigmoidGrad", {y, g});
  Endpoint d3 = b.Op("LeakyReluGrad", {g, f}, {{"alpha", AttrValue::Float(0.3f)}});
  Endpoint s = b.Op("AddN", {d1, d2, d3, g});
  Both r = RunBoth(
      b.g, {f, g},
      {MakeTensor<float>(TensorShape({2, 3}), Random(6, 4)), MakeTensor<float>(TensorShape({2, 3}), Random(6, 5))},
      {s});
  EXPECT_EQ(r.num_fused, 1);
  ExpectSameValues(r, 0);
}

TEST(LargeLoopsSplitIntoBlocks) {
  G b;
  const int64_t n = 100003;  // not a multiple of the block size
  Endpoint x = b.Ph(PartialShape({n})), row = b.Ph(PartialShape({1}));
  Endpoint y = x;
  for (int k = 0; k < 20; ++k)
    y = k % 2 ? b.Op("Sub", {y, b.Op("Mul", {x, row})}) : b.Op("AddV2", {b.Op("Mul", {y, row}), x});
  ThreadPool pool(2);
  std::vector<Tensor> fused, plain;
  for (bool fuse : {true, false}) {
    ExecutionPlan::Options o;
    o.remap = fuse;
    std::unique_ptr<ExecutionPlan> plan;
    EXPECT_OK(ExecutionPlan::Build(b.g, {x, row}, {y}, {}, o, &plan));
    if (fuse) EXPECT_EQ(plan->num_fused_loops(), 1);
    EXPECT_OK(
        plan->Run({MakeTensor<float>(TensorShape({n}), Random(n, 6)), MakeTensor<float>(TensorShape({1}), {0.75f})},
                  nullptr, &pool, fuse ? &fused : &plain));
  }
  EXPECT_TRUE(Values<float>(fused[0]) == Values<float>(plain[0]));
}

TEST(UnknownShapesDecideAtRunTime) {
  // Static shapes unknown: shapes that broadcast into the loop run fused; shapes that make a
  // member's output differ from the loop shape run the members' kernels; a bad broadcast fails
  // with the unfused plan's error, naming the node.
  G b;
  Endpoint x = b.Ph(PartialShape({-1})), y = b.Ph(PartialShape({-1}));
  Endpoint s = b.Op("AddV2", {x, y});
  Endpoint t = b.Op("Mul", {s, s});
  Endpoint u = b.Op("Neg", {t});
  Both ok = RunBoth(b.g, {x, y},
                    {MakeTensor<float>(TensorShape({3}), {1, 2, 3}), MakeTensor<float>(TensorShape({1}), {1})}, {u});
  EXPECT_EQ(ok.num_fused, 1);
  ExpectSameValues(ok, 0);
  Both bad = RunBoth(
      b.g, {x, y}, {MakeTensor<float>(TensorShape({3}), {1, 2, 3}), MakeTensor<float>(TensorShape({2}), {1, 2})}, {u});
  EXPECT_TRUE(!bad.fused_status.ok());
  EXPECT_EQ(bad.fused_status.code(), bad.plain_status.code());
  EXPECT_EQ(bad.fused_status.message(), bad.plain_status.message());
  EXPECT_TRUE(bad.fused_status.message().find("[" + s.node->name() + "]") == 0);
}

TEST(MemberShapesThatDifferRunUnfused) {
  // x [?] + y [?,?]: the add has y's rank, so the group's members disagree on their shape when y
  // is [2,3] and x [3]: the members' kernels run, with the same values.
  G b;
  Endpoint x = b.Ph(PartialShape({-1})), y = b.Ph(PartialShape({-1}));
  Endpoint e = b.Op("Exp", {x});
  Endpoint z = b.Op("AddV2", {e, y});
  Both r = RunBoth(b.g, {x, y},
                   {MakeTensor<float>(TensorShape({1}), {0.5f}), MakeTensor<float>(TensorShape({3}), {1, 2, 3})}, {z});
  EXPECT_EQ(r.num_fused, 1);
  ExpectSameValues(r, 0);
  EXPECT_TRUE(r.fused[0].shape() == TensorShape({3}));
}

TEST(UnknownRankChainFuses) {
  // A function body called eagerly knows no shapes: its chain still runs as one loop kernel.
  G b;
  Endpoint x = b.Ph(PartialShape()), y = x;
  for (int k = 0; k < 10; ++k)
    y = b.Op(k % 2 ? "Mul" : "AddV2", {y, b.Const(MakeTensor<float>(TensorShape({}), {1.5f}))});
  Both r = RunBoth(b.g, {x}, {MakeTensor<float>(TensorShape({2, 3}), Random(6, 7))}, {y});
  EXPECT_EQ(r.num_fused, 1);
  ExpectSameValues(r, 0);
  EXPECT_TRUE(r.fused[0].shape() == TensorShape({2, 3}));
}

TEST(DoublesFuseToo) {
  G b;
  Endpoint x = b.Ph(PartialShape({2}), DT_DOUBLE);
  Endpoint y = b.Op("Sqrt", {b.Op("Square", {x})});
  Both r = RunBoth(b.g, {x}, {MakeTensor<double>(TensorShape({2}), {-3.0, 4.0})}, {y});
  EXPECT_EQ(r.num_fused, 1);
  EXPECT_OK(r.fused_status);
  EXPECT_TRUE((Values<double>(r.fused[0]) == std::vector<double>{3.0, 4.0}));
}

}  // namespace

// Tests of the plan rewrites: which chains FindConvFusions fuses (Note [Conv2D epilogues]) and what
// FoldConstants folds (Note [Plan constant folding]); their run-time behaviour is tested from
// Python (core/tests/test_plan_rewrites.py).
#include "function_test_util.h"
#include "tensorflux/passes/constant_folding.h"
#include "tensorflux/passes/conv_fusion.h"

using namespace fn_test;

namespace {

std::vector<int> Identity(const Graph& g) {
  std::vector<int> canon(g.num_nodes());
  for (int i = 0; i < g.num_nodes(); ++i) canon[i] = i;
  return canon;
}

std::vector<ConvFusion> Fusions(const Graph& g, const std::vector<Endpoint>& fetches,
                                const std::vector<Endpoint>& fed = {}) {
  std::vector<char> needed(g.num_nodes(), 1);
  return FindConvFusions(
      g, needed, Identity(g),
      [&](const Endpoint& e) {
        for (const Endpoint& f : fed)
          if (f == e) return true;
        return false;
      },
      fetches);
}

Node* Conv(Graph& g, const std::string& name, Node* x, Node* w) {
  AttrValue strides = AttrValue::EmptyList();
  strides.list.i = {1, 1, 1, 1};
  return Add(g, "Conv2D", name, {{{x, 0}}, {{w, 0}}}, {{"strides", strides}, {"padding", AttrValue::String("SAME")}});
}

// x -> conv -> BiasAdd(b) -> Mul(s) -> Relu; returns the nodes in that order.
std::vector<Node*> Chain(Graph& g, const std::string& prefix, Node* x) {
  Node* w = Placeholder(g, prefix + "w", DT_FLOAT, PartialShape({3, 3, 4, 8}));
  Node* conv = Conv(g, prefix + "conv", x, w);
  Node* bias =
      Add(g, "BiasAdd", prefix + "bias", {{{conv, 0}}, {{Const(g, prefix + "b", F32(std::vector<float>(8))), 0}}});
  Node* mul = Add(g, "Mul", prefix + "mul", {{{Const(g, prefix + "s", F32(std::vector<float>(8))), 0}}, {{bias, 0}}});
  Node* relu = Add(g, "Relu", prefix + "relu", {{{mul, 0}}});
  return {conv, bias, mul, relu};
}

}  // namespace

TEST(ConvChainFusesUpToItsLastSingleReader) {
  Graph g;
  Node* x = Placeholder(g, "x", DT_FLOAT, PartialShape({1, 5, 5, 4}));
  std::vector<Node*> c = Chain(g, "", x);
  Node* after = Add(g, "Neg", "after", {{{c[3], 0}}});
  Add(g, "Neg", "after2", {{{c[3], 0}}});  // the last member may have many readers
  std::vector<ConvFusion> f = Fusions(g, {{after, 0}});
  EXPECT_EQ(f.size(), size_t{1});
  if (f.size() != 1) return;
  EXPECT_TRUE(f[0].conv == c[0]);
  EXPECT_EQ(f[0].members.size(), size_t{3});  // BiasAdd, Mul, Relu: the Relu has two readers
  EXPECT_TRUE(f[0].members.back() == c[3]);
}

TEST(FetchedFedOrSharedValuesEndTheChain) {
  Graph g;
  Node* x = Placeholder(g, "x", DT_FLOAT, PartialShape({1, 5, 5, 4}));
  std::vector<Node*> c = Chain(g, "", x);
  // Fetching the BiasAdd keeps it a value of its own: the chain is conv -> BiasAdd.
  std::vector<ConvFusion> f = Fusions(g, {{c[3], 0}, {c[1], 0}});
  EXPECT_EQ(f.size(), size_t{1});
  if (f.size() == 1) EXPECT_EQ(f[0].members.size(), size_t{1});
  // Feeding the Mul's output cuts the chain before it: conv -> BiasAdd -> Mul is fused but nothing reads past it.
  f = Fusions(g, {{c[3], 0}}, {{c[2], 0}});
  EXPECT_EQ(f.size(), size_t{1});
  if (f.size() == 1) EXPECT_EQ(f[0].members.size(), size_t{2});
  // A second reader of the conv output: nothing fuses.
  Add(g, "Neg", "second", {{{c[0], 0}}});
  EXPECT_EQ(Fusions(g, {{c[3], 0}}).size(), size_t{0});
}

TEST(ChainInputsRecordOperandSides) {
  Graph g;
  Node* x = Placeholder(g, "x", DT_FLOAT, PartialShape({1, 5, 5, 4}));
  std::vector<Node*> c = Chain(g, "", x);
  std::vector<ConvFusion> f = Fusions(g, {{c[3], 0}});
  EXPECT_EQ(f.size(), size_t{1});
  if (f.size() != 1) return;
  EXPECT_EQ(f[0].chain_inputs[0], 0);  // BiasAdd(value, bias)
  EXPECT_EQ(f[0].chain_inputs[1], 1);  // Mul(s, value)
}

TEST(TwoChainsMeetingAtAnAddShareNoMember) {
  Graph g;
  Node* x = Placeholder(g, "x", DT_FLOAT, PartialShape({1, 5, 5, 4}));
  std::vector<Node*> a = Chain(g, "a_", x), b = Chain(g, "b_", x);
  Node* sum = Add(g, "AddV2", "sum", {{{a[3], 0}}, {{b[3], 0}}});
  std::vector<ConvFusion> f = Fusions(g, {{sum, 0}});
  EXPECT_EQ(f.size(), size_t{2});
  if (f.size() != 2) return;
  EXPECT_EQ(f[0].members.back()->name(), std::string("sum"));  // the first chain takes the Add
  EXPECT_EQ(f[1].members.back()->name(), std::string("b_relu"));
}

TEST(ConstantsFoldAndFeedsOrStateStopThem) {
  Graph g;
  Node* c = Const(g, "c", F32({4.0f, 9.0f}));
  Node* r = Add(g, "Rsqrt", "r", {{{c, 0}}});
  Node* x = Placeholder(g, "x", DT_FLOAT, PartialShape({2}));
  Node* mixed = Add(g, "Mul", "mixed", {{{r, 0}}, {{x, 0}}});
  Node* shape = Const(g, "shape", Vec<int32_t>({2}, DT_INT32));
  Node* random = Add(g, "RandomUniform", "random", {{{shape, 0}}}, {{"dtype", AttrValue::Type(DT_FLOAT)}});
  std::vector<char> needed(g.num_nodes(), 1);
  auto none = [](const Endpoint&) { return false; };
  std::vector<std::vector<Tensor>> folded = FoldConstants(g, needed, Identity(g), none);
  EXPECT_EQ(folded[r->id()].size(), size_t{1});
  if (!folded[r->id()].empty()) EXPECT_EQ(folded[r->id()][0].data<float>()[1], 1.0f / 3.0f);
  EXPECT_TRUE(folded[mixed->id()].empty());  // reads a placeholder
  EXPECT_TRUE(folded[random->id()].empty());  // stateful
  EXPECT_TRUE(folded[x->id()].empty());
  // With c's output fed, neither c nor r folds.
  folded = FoldConstants(g, needed, Identity(g), [&](const Endpoint& e) { return e.node == c; });
  EXPECT_TRUE(folded[c->id()].empty() && folded[r->id()].empty());
}

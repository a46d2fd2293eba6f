// Tests of the plan's common subexpression elimination (Note [Plan CSE]): which nodes merge,
// and that a session running a graph with repeated subexpressions still computes every fetch.
#include "test_util.h"
#include "tensorflux/framework/graph.h"
#include "tensorflux/passes/cse.h"
#include "tensorflux/runtime/session.h"

using namespace tx;

namespace {

Node* Add(Graph& g, const std::string& op, const std::string& name, std::vector<Endpoint> inputs, AttrMap attrs = {}) {
  NodeSpec s;
  s.name = name;
  s.op_type = op;
  for (const Endpoint& e : inputs) s.inputs.push_back({{e}, false});
  s.attrs = std::move(attrs);
  Node* n = nullptr;
  Status st = g.AddNode(std::move(s), &n);
  if (!st.ok()) std::printf("AddNode %s failed: %s\n", name.c_str(), st.message().c_str());
  return n;
}

Tensor Floats(std::vector<float> v) {
  Tensor t;
  Tensor::Allocate(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}), &t);
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

Node* Const(Graph& g, const std::string& name, std::vector<float> v) {
  return Add(g, "Const", name, {}, {{"value", AttrValue::FromTensor(Floats(v))}, {"dtype", AttrValue::Type(DT_FLOAT)}});
}

Node* Input(Graph& g, const std::string& name) {
  return Add(g, "Placeholder", name, {},
             {{"dtype", AttrValue::Type(DT_FLOAT)}, {"shape", AttrValue::Shape(PartialShape({3}))}});
}

std::vector<int> Canon(const Graph& g, const std::vector<Endpoint>& fed = {}) {
  std::vector<char> needed(g.num_nodes(), 1);
  return FindCommonSubexpressions(g, needed, [&](const Endpoint& e) {
    for (const Endpoint& f : fed)
      if (f == e) return true;
    return false;
  });
}

}  // namespace

TEST(RepeatedSubexpressionsMerge) {
  Graph g;
  Node* x = Input(g, "x");
  Node* c1 = Const(g, "c1", {0.5f, 0.5f, 0.5f});
  Node* m1 = Add(g, "Mul", "m1", {{x, 0}, {c1, 0}});
  Node* c2 = Const(g, "c2", {0.5f, 0.5f, 0.5f});
  Node* m2 = Add(g, "Mul", "m2", {{x, 0}, {c2, 0}});
  Node* c3 = Const(g, "c3", {0.25f, 0.5f, 0.5f});  // another value
  Node* m3 = Add(g, "Mul", "m3", {{x, 0}, {c3, 0}});
  Node* m4 = Add(g, "Mul", "m4", {{c1, 0}, {x, 0}});  // another input order
  std::vector<int> canon = Canon(g, {{x, 0}});
  EXPECT_EQ(canon[c2->id()], c1->id());
  EXPECT_EQ(canon[m2->id()], m1->id());
  EXPECT_EQ(canon[c3->id()], c3->id());
  EXPECT_EQ(canon[m3->id()], m3->id());
  EXPECT_EQ(canon[m4->id()], m4->id());
  EXPECT_EQ(canon[x->id()], x->id());
}

TEST(StatefulPlaceholderAndFedNodesStay) {
  Graph g;
  Node* p1 = Input(g, "p1");
  Node* p2 = Input(g, "p2");
  Node* shape = Add(g, "Const", "shape", {},
                    {{"value", AttrValue::FromTensor([] {
                        Tensor t;
                        Tensor::Allocate(DT_INT32, TensorShape({1}), &t);
                        t.data<int32_t>()[0] = 3;
                        return t;
                      }())},
                     {"dtype", AttrValue::Type(DT_INT32)}});
  AttrMap ra = {{"dtype", AttrValue::Type(DT_FLOAT)}};
  Node* r1 = Add(g, "RandomUniform", "r1", {{shape, 0}}, ra);
  Node* r2 = Add(g, "RandomUniform", "r2", {{shape, 0}}, ra);
  Node* c1 = Const(g, "c1", {1, 2, 3});
  Node* c2 = Const(g, "c2", {1, 2, 3});
  std::vector<int> canon = Canon(g, {{c2, 0}});
  EXPECT_EQ(canon[p2->id()], p2->id());
  EXPECT_EQ(canon[r2->id()], r2->id());
  EXPECT_EQ(canon[c2->id()], c2->id());  // fed: the feed replaces only c2
  EXPECT_EQ(canon[p1->id()], p1->id());
  EXPECT_EQ(canon[r1->id()], r1->id());
}

TEST(SessionRunsGraphWithMergedNodes) {
  auto g = std::make_shared<Graph>();
  Node* x = Input(*g, "x");
  Node* y = x;
  std::vector<Node*> halves;
  for (int i = 0; i < 4; ++i) {
    Node* c = Const(*g, "half" + std::to_string(i), {0.5f, 0.5f, 0.5f});
    Node* h = Add(*g, "Mul", "xh" + std::to_string(i), {{x, 0}, {c, 0}});
    halves.push_back(h);
    y = Add(*g, "Sub", "y" + std::to_string(i), {{y, 0}, {h, 0}});
  }
  Node* c2 = Const(*g, "c2", {0.5f, 0.5f, 0.5f});
  Session s(g, SessionOptions());
  std::vector<Tensor> out;
  // Fetch the chain, two merged duplicates and a fed duplicate Const.
  EXPECT_OK(s.Run({{{x, 0}, Floats({2, 4, 8})}, {{c2, 0}, Floats({7, 7, 7})}},
                  {{y, 0}, {halves[0], 0}, {halves[3], 0}, {c2, 0}}, {}, &out));
  EXPECT_EQ(out.size(), 4u);
  const float want_y[] = {-2, -4, -8}, want_h[] = {1, 2, 4};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(out[0].data<float>()[i], want_y[i]);
    EXPECT_EQ(out[1].data<float>()[i], want_h[i]);
    EXPECT_EQ(out[2].data<float>()[i], want_h[i]);
    EXPECT_EQ(out[3].data<float>()[i], 7.0f);
  }
}

// Tests of the lowered (TensorFlow 1) control-flow ops: their shape functions (a table: input shapes
// in, output shape or error out), and GraphDef import rebuilding a hand-written loop into While and
// a cond into If (Note [Functionalize control flow]); the Python tests compare with TensorFlow.
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "test_util.h"
#include "tensorflux/framework/graph_def_io.h"
#include "tensorflux/framework/proto_codec.h"

using namespace tx;
using namespace tx_test;

namespace {

InputSpec F(PartialShape s) { return Ph(DT_FLOAT, std::move(s)); }
const PartialShape kScalar = PartialShape(std::vector<int64_t>{});

struct ShapeCase {
  std::string op;
  std::vector<InputSpec> inputs;
  AttrMap attrs;
  std::string want;  // "out0 out1 ...", or "!" followed by a substring of the error
  int list = 0;  // the first `list` inputs form one list argument (Merge's N * T)
};

void RunShapeCases(const std::vector<ShapeCase>& cases) {
  for (const ShapeCase& c : cases) {
    OpTester t;
    NodeSpec spec;
    spec.name = "op";
    spec.op_type = c.op;
    spec.attrs = c.attrs;
    NodeSpec::InputArg list;
    list.is_list = true;
    Status s;
    for (size_t i = 0; i < c.inputs.size() && s.ok(); ++i) {
      NodeSpec src;
      src.name = t.graph().UniqueName("in");
      src.op_type = "Placeholder";
      src.attrs["dtype"] = AttrValue::Type(c.inputs[i].dtype);
      src.attrs["shape"] = AttrValue::Shape(c.inputs[i].shape);
      Node* n = nullptr;
      s = t.graph().AddNode(std::move(src), &n);
      if (static_cast<int>(i) < c.list) {
        list.values.push_back({n, 0});
        if (static_cast<int>(i) == c.list - 1) spec.inputs.push_back(list);
      } else {
        NodeSpec::InputArg arg;
        arg.values.push_back({n, 0});
        spec.inputs.push_back(arg);
      }
    }
    Node* n = nullptr;
    if (s.ok()) s = t.graph().AddNode(std::move(spec), &n);
    std::string got;
    if (!s.ok()) {
      got = "!" + s.message();
    } else {
      for (int k = 0; k < n->num_outputs(); ++k) got += (k ? " " : "") + t.graph().OutputShape({n, k}).ToString();
    }
    const bool is_error = c.want[0] == '!';
    const bool ok = is_error ? (got[0] == '!' && got.find(c.want.substr(1)) != std::string::npos) : got == c.want;
    if (!ok) std::printf("  shape case %s: got '%s', want '%s'\n", c.op.c_str(), got.c_str(), c.want.c_str());
    EXPECT_TRUE(ok);
  }
}

AttrValue S(const char* s) { return AttrValue::String(s); }

}  // namespace

TEST(ShapeFunctionsLoweredControlFlow) {
  RunShapeCases({
      {"Switch", {F({2, -1}), Ph(DT_BOOL, kScalar)}, {}, "[2,?] [2,?]"},
      {"Switch", {F({2}), Ph(DT_BOOL, PartialShape({2}))}, {}, "!pred"},
      {"_SwitchN", {F({3}), Ph(DT_INT32, kScalar)}, {{"num_outs", AttrValue::Int(3)}}, "[3] [3] [3]"},
      {"_SwitchN", {F({3}), Ph(DT_INT32, PartialShape({1}))}, {{"num_outs", AttrValue::Int(2)}}, "!output_index"},
      {"Merge", {F({2, 3}), F({2, 4})}, {}, "[2,?] []", 2},
      {"Merge", {F({2, 3}), F({2, 3, 1})}, {}, "<unknown> []", 2},
      {"Merge", {F({5})}, {}, "[5] []", 1},
      {"Enter", {F({4, -1})}, {{"frame_name", S("f")}}, "[4,?]"},
      {"Enter", {F({4})}, {}, "!missing required attr 'frame_name'"},
      {"Exit", {F({1, 2})}, {}, "[1,2]"},
      {"NextIteration", {F(PartialShape())}, {}, "<unknown>"},
      {"LoopCond", {Ph(DT_BOOL, kScalar)}, {}, "[]"},
      {"LoopCond", {Ph(DT_BOOL, PartialShape({3}))}, {}, "!input"},
      {"LoopCond", {F(kScalar)}, {}, "!expects type bool"},
  });
}

namespace {

codec::NodeDefProto ND(const std::string& name, const std::string& op, std::vector<std::string> inputs, AttrMap attrs) {
  codec::NodeDefProto n;
  n.name = name;
  n.op = op;
  n.input = std::move(inputs);
  n.attr = std::move(attrs);
  return n;
}

AttrValue T(DataType t) { return AttrValue::Type(t); }

Tensor Int(int32_t v) { return MakeTensor<int32_t>(TensorShape(std::vector<int64_t>{}), {v}); }

// i = 0; while i < n: i = (i % 2 == 0) ? i + 1 : i + 3  (a cond inside a counting loop).
codec::GraphDefProto LoopWithCond() {
  codec::GraphDefProto g;
  auto i32 = [] { return AttrMap{{"T", T(DT_INT32)}}; };
  auto cst = [](int32_t v) { return AttrMap{{"dtype", T(DT_INT32)}, {"value", AttrValue::FromTensor(Int(v))}}; };
  g.node = {
      ND("n", "Placeholder", {}, {{"dtype", T(DT_INT32)}}),
      ND("zero", "Const", {}, cst(0)),
      ND("w/Enter", "Enter", {"zero"}, {{"T", T(DT_INT32)}, {"frame_name", S("w")}}),
      ND("w/n", "Enter", {"n"}, {{"T", T(DT_INT32)}, {"frame_name", S("w")}, {"is_constant", AttrValue::Bool(true)}}),
      ND("w/Merge", "Merge", {"w/Enter", "w/Next"}, {{"T", T(DT_INT32)}, {"N", AttrValue::Int(2)}}),
      ND("w/Less", "Less", {"w/Merge", "w/n"}, i32()),
      ND("w/LoopCond", "LoopCond", {"w/Less"}, {}),
      ND("w/Switch", "Switch", {"w/Merge", "w/LoopCond"}, i32()),
      ND("w/i", "Identity", {"w/Switch:1"}, i32()),
      ND("w/two", "Const", {"^w/i"}, cst(2)),
      ND("w/mod", "FloorMod", {"w/i", "w/two"}, i32()),
      ND("w/zero", "Const", {"^w/i"}, cst(0)),
      ND("w/even", "Equal", {"w/mod", "w/zero"}, i32()),
      ND("w/c/Switch", "Switch", {"w/i", "w/even"}, i32()),
      ND("w/c/one", "Const", {"^w/c/Switch"}, cst(1)),
      ND("w/c/add1", "AddV2", {"w/c/Switch:1", "w/c/one"}, i32()),
      ND("w/c/three", "Const", {"^w/c/Switch"}, cst(3)),
      ND("w/c/add3", "AddV2", {"w/c/Switch:0", "w/c/three"}, i32()),
      ND("w/c/Merge", "Merge", {"w/c/add3", "w/c/add1"}, {{"T", T(DT_INT32)}, {"N", AttrValue::Int(2)}}),
      ND("w/Next", "NextIteration", {"w/c/Merge"}, i32()),
      ND("w/Exit", "Exit", {"w/Switch"}, i32()),
  };
  return g;
}

}  // namespace

TEST(ImportRebuildsLoopAndCondAsWhileAndIf) {
  Graph g;
  ImportOptions opts;
  opts.return_outputs = {{"w/Exit", 0}};
  ImportResults r;
  EXPECT_OK(ImportGraphDef(codec::EncodeGraphDef(LoopWithCond()), opts, &g, &r));
  Node* exit = g.FindNode("w/Exit");
  EXPECT_TRUE(exit != nullptr && exit->op_type() == "Identity" && r.return_outputs[0].node == exit);
  Node* w = g.FindNode("w/While");
  EXPECT_TRUE(w != nullptr && w->op_type() == "StatelessWhile");
  if (w == nullptr) return;
  EXPECT_EQ(w->num_inputs(), 2);  // the loop variable and the invariant n
  EXPECT_TRUE(exit->input(0).node == w && exit->input(0).index == 0);
  EXPECT_TRUE(g.FindNode("w/Merge") == nullptr && g.FindNode("w/LoopCond") == nullptr);
  auto body = g.library().Find(w->attr("body")->func->name);
  EXPECT_TRUE(body != nullptr && body->name().rfind("w_body_", 0) == 0);
  bool has_if = false;
  for (const auto& n : body->node_def) has_if = has_if || n.op == "StatelessIf";
  EXPECT_TRUE(has_if);
  // The rebuilt graph exports and imports again unchanged.
  std::string bytes;
  EXPECT_OK(ExportGraphDef(g, &bytes));
  Graph again;
  EXPECT_OK(ImportGraphDef(bytes, ImportOptions(), &again, nullptr));
  EXPECT_EQ(again.num_nodes(), g.num_nodes());
}

TEST(ImportNamesTheNodeOfBadLoweredControlFlow) {
  codec::GraphDefProto bad = LoopWithCond();
  bad.node.pop_back();  // no Exit
  Graph g;
  Status s = ImportGraphDef(codec::EncodeGraphDef(bad), ImportOptions(), &g, nullptr);
  EXPECT_TRUE(s.code() == Code::kInvalidArgument &&
              s.message().rfind("[w/Enter] while loop frame 'w' has no Exit", 0) == 0);
  EXPECT_EQ(g.num_nodes(), 0);
  EXPECT_EQ(g.library().size(), 0);
}

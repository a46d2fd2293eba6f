// Tests of the functional control-flow ops (If, Case, While and their stateless forms): branch
// selection and TensorFlow's truth values, Case's out-of-range index, loops run to completion
// with their static shapes, and the errors that name the node and the function.
#include <atomic>

#include "function_test_util.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/runtime/op_kernel.h"

using namespace fn_test;

namespace {

AttrValue T(DataType t) { return AttrValue::Type(t); }

template <typename V>
Tensor Scalar(V v, DataType dt) {
  Tensor t;
  Status s = Tensor::Allocate(dt, TensorShape(std::vector<int64_t>{}), &t);
  if (s.ok()) *t.data<V>() = v;
  return t;
}

// A float -> float function computing `op`(x, x) (binary) or `op`(x) (unary).
FunctionDef UnaryFn(const std::string& name, const std::string& op, bool binary) {
  FunctionDef f;
  f.signature.name = name;
  f.signature.input_arg = {Arg("x", DT_FLOAT)};
  f.signature.output_arg = {Arg("y", DT_FLOAT)};
  std::vector<std::string> in = binary ? std::vector<std::string>{"x", "x"} : std::vector<std::string>{"x"};
  f.node_def = {ND("op", op, in, {{"T", T(DT_FLOAT)}})};
  f.ret["y"] = binary ? "op:z:0" : "op:y:0";
  return f;
}

// cond(i, s, n) = i <= n; body(i, s, n) = (i + 1, s + i, n): sums 1..n into s.
void AddSumLoop(FunctionLibrary& lib) {
  FunctionDef cond;
  cond.signature.name = "sum_cond";
  cond.signature.input_arg = {Arg("i", DT_INT32), Arg("s", DT_INT32), Arg("n", DT_INT32)};
  cond.signature.output_arg = {Arg("go", DT_BOOL)};
  cond.node_def = {ND("le", "LessEqual", {"i", "n"}, {{"T", T(DT_INT32)}})};
  cond.ret["go"] = "le:z:0";
  FunctionDef body;
  body.signature.name = "sum_body";
  body.signature.input_arg = cond.signature.input_arg;
  body.signature.output_arg = {Arg("i1", DT_INT32), Arg("s1", DT_INT32), Arg("n1", DT_INT32)};
  body.node_def = {
      ND("one", "Const", {}, {{"value", AttrValue::FromTensor(Scalar<int32_t>(1, DT_INT32))}, {"dtype", T(DT_INT32)}}),
      ND("inc", "AddV2", {"i", "one:output:0"}, {{"T", T(DT_INT32)}}),
      ND("acc", "AddV2", {"s", "i"}, {{"T", T(DT_INT32)}})};
  body.ret = {{"i1", "inc:z:0"}, {"s1", "acc:z:0"}, {"n1", "n"}};
  EXPECT_OK(lib.Add(cond));
  EXPECT_OK(lib.Add(body));
}

// A graph holding the float branch functions double (x + x), square (x * x) and negate (-x).
struct BranchGraph {
  std::shared_ptr<Graph> g = std::make_shared<Graph>();
  Node* x;
  BranchGraph() {
    EXPECT_OK(g->library().Add(UnaryFn("double", "AddV2", true)));
    EXPECT_OK(g->library().Add(UnaryFn("square", "Mul", true)));
    EXPECT_OK(g->library().Add(UnaryFn("negate", "Neg", false)));
    x = Placeholder(*g, "x", DT_FLOAT, PartialShape({2}));
  }
  Status If(const std::string& op, const std::string& name, Node* pred, Node** out,
            const std::string& then_fn = "double", std::vector<DataType> tout = {DT_FLOAT}) {
    return TryAdd(*g, op, name, {{{pred, 0}}, {{x, 0}}},
                  {{"Tout", Types(tout)}, {"then_branch", Func(then_fn)}, {"else_branch", Func("square")}}, out);
  }
  Status Case(const std::string& op, const std::string& name, Node* index, Node** out) {
    AttrValue branches = AttrValue::EmptyList();
    for (const char* f : {"double", "square", "negate"}) branches.list.func.push_back(*Func(f).func);
    return TryAdd(*g, op, name, {{{index, 0}}, {{x, 0}}}, {{"Tout", Types({DT_FLOAT})}, {"branches", branches}}, out);
  }
};

}  // namespace

TEST(IfRunsTheBranchTheConditionSelects) {
  for (const char* op : {"If", "StatelessIf"}) {
    BranchGraph bg;
    Node* pred = Placeholder(*bg.g, "pred", DT_BOOL, PartialShape::Unknown());
    Node* n = nullptr;
    EXPECT_OK(bg.If(op, "if", pred, &n));
    if (n == nullptr) continue;
    EXPECT_TRUE(bg.g->OutputShape({n, 0}) == PartialShape({2}));  // both branches keep [2]
    std::vector<Tensor> out;
    EXPECT_OK(Run(bg.g, {{{bg.x, 0}, F32({3, -2})}, {{pred, 0}, Scalar<bool>(true, DT_BOOL)}}, {{n, 0}}, &out));
    EXPECT_TRUE(out.size() == 1 && out[0].data<float>()[0] == 6 && out[0].data<float>()[1] == -4);
    EXPECT_OK(Run(bg.g, {{{bg.x, 0}, F32({3, -2})}, {{pred, 0}, Scalar<bool>(false, DT_BOOL)}}, {{n, 0}}, &out));
    EXPECT_TRUE(out.size() == 1 && out[0].data<float>()[0] == 9 && out[0].data<float>()[1] == 4);
  }
}

TEST(IfConditionFollowsTensorFlowTruthRules) {
  BranchGraph bg;
  Node* fpred = Placeholder(*bg.g, "fpred", DT_FLOAT, PartialShape::Unknown());
  Node* upred = Placeholder(*bg.g, "upred", DT_UINT16, PartialShape::Unknown());
  Node *nf = nullptr, *nu = nullptr;
  EXPECT_OK(bg.If("If", "iff", fpred, &nf));
  EXPECT_OK(bg.If("If", "ifu", upred, &nu));
  if (nf == nullptr || nu == nullptr) return;
  auto first = [&](Node* n, Node* pred, const Tensor& p, float* v) {
    std::vector<Tensor> out;
    Status s = Run(bg.g, {{{bg.x, 0}, F32({3, 1})}, {{pred, 0}, p}}, {{n, 0}}, &out);
    if (s.ok()) *v = out[0].data<float>()[0];
    return s;
  };
  float v = 0;
  EXPECT_OK(first(nf, fpred, Scalar<float>(0.5f, DT_FLOAT), &v));  // non-zero scalar: then
  EXPECT_EQ(v, 6.0f);
  EXPECT_OK(first(nf, fpred, Scalar<float>(0.0f, DT_FLOAT), &v));  // zero: else
  EXPECT_EQ(v, 9.0f);
  EXPECT_OK(first(nf, fpred, F32({0, 0}), &v));  // non-empty non-scalar: then, whatever its values
  EXPECT_EQ(v, 6.0f);
  EXPECT_OK(first(nf, fpred, F32({}), &v));  // empty: else
  EXPECT_EQ(v, 9.0f);
  EXPECT_OK(first(nu, upred, Vec<uint16_t>({0}, DT_UINT16), &v));  // a non-scalar of any type
  EXPECT_EQ(v, 6.0f);
  EXPECT_ERROR(first(nu, upred, Scalar<uint16_t>(1, DT_UINT16), &v),
               "[ifu] cond: a scalar uint16 cannot be converted to a boolean");
}

TEST(CaseRunsTheIndexedBranchAndTheLastOutOfRange) {
  for (const char* op : {"Case", "StatelessCase"}) {
    BranchGraph bg;
    Node* index = Placeholder(*bg.g, "index", DT_INT32, PartialShape::Unknown());
    Node* n = nullptr;
    EXPECT_OK(bg.Case(op, "case", index, &n));
    if (n == nullptr) continue;
    const std::vector<std::pair<int32_t, float>> expect = {{0, 4}, {1, 4}, {2, -2}, {3, -2}, {100, -2}, {-1, -2}};
    for (const auto& e : expect) {
      std::vector<Tensor> out;
      EXPECT_OK(
          Run(bg.g, {{{bg.x, 0}, F32({2, 5})}, {{index, 0}, Scalar<int32_t>(e.first, DT_INT32)}}, {{n, 0}}, &out));
      EXPECT_TRUE(out.size() == 1 && out[0].data<float>()[0] == e.second);
    }
  }
}

TEST(WhileSumsOneToN) {
  for (const char* op : {"While", "StatelessWhile"}) {
    auto g = std::make_shared<Graph>();
    AddSumLoop(g->library());
    Node* i = Const(*g, "i", Scalar<int32_t>(1, DT_INT32));
    Node* s = Const(*g, "s", Scalar<int32_t>(0, DT_INT32));
    Node* n = Placeholder(*g, "n", DT_INT32, PartialShape::Scalar());
    Node* w = nullptr;
    EXPECT_OK(TryAdd(
        *g, op, "loop", {{{i, 0}, {s, 0}, {n, 0}}},
        {{"T", Types({DT_INT32, DT_INT32, DT_INT32})}, {"cond", Func("sum_cond")}, {"body", Func("sum_body")}}, &w));
    if (w == nullptr) continue;
    for (int k = 0; k < 3; ++k) EXPECT_TRUE(g->OutputShape({w, k}) == PartialShape::Scalar());
    Session sess(g, SessionOptions());
    for (int32_t count : {10000, 0, 1}) {
      std::vector<Tensor> out;
      EXPECT_OK(sess.Run({{{n, 0}, Scalar<int32_t>(count, DT_INT32)}}, {{w, 0}, {w, 1}}, {}, &out));
      EXPECT_TRUE(out.size() == 2 && out[0].data<int32_t>()[0] == count + 1 &&
                  out[1].data<int32_t>()[0] == count * (count + 1) / 2);
    }
  }
}

TEST(WhileWithTwoLoopVariablesOfDifferentTypes) {
  // cond(x, k) = k < 5; body(x, k) = (x * x, k + 1): x ** 32 after five rounds.
  auto g = std::make_shared<Graph>();
  FunctionDef cond, body;
  cond.signature.name = "c";
  cond.signature.input_arg = {Arg("x", DT_DOUBLE), Arg("k", DT_INT64)};
  cond.signature.output_arg = {Arg("go", DT_BOOL)};
  cond.node_def = {
      ND("five", "Const", {}, {{"value", AttrValue::FromTensor(Scalar<int64_t>(5, DT_INT64))}, {"dtype", T(DT_INT64)}}),
      ND("lt", "Less", {"k", "five:output:0"}, {{"T", T(DT_INT64)}})};
  cond.ret["go"] = "lt:z:0";
  body.signature.name = "b";
  body.signature.input_arg = cond.signature.input_arg;
  body.signature.output_arg = {Arg("x1", DT_DOUBLE), Arg("k1", DT_INT64)};
  body.node_def = {
      ND("one", "Const", {}, {{"value", AttrValue::FromTensor(Scalar<int64_t>(1, DT_INT64))}, {"dtype", T(DT_INT64)}}),
      ND("sq", "Mul", {"x", "x"}, {{"T", T(DT_DOUBLE)}}),
      ND("inc", "AddV2", {"k", "one:output:0"}, {{"T", T(DT_INT64)}})};
  body.ret = {{"x1", "sq:z:0"}, {"k1", "inc:z:0"}};
  EXPECT_OK(g->library().Add(cond));
  EXPECT_OK(g->library().Add(body));
  Node* x = Placeholder(*g, "x", DT_DOUBLE, PartialShape({-1, 2}));
  Node* k = Const(*g, "k", Scalar<int64_t>(0, DT_INT64));
  Node* w = nullptr;
  EXPECT_OK(TryAdd(*g, "While", "loop", {{{x, 0}, {k, 0}}},
                   {{"T", Types({DT_DOUBLE, DT_INT64})}, {"cond", Func("c")}, {"body", Func("b")}}, &w));
  if (w == nullptr) return;
  EXPECT_TRUE(g->OutputShape({w, 0}) == PartialShape({-1, 2}));
  std::vector<Tensor> out;
  Tensor xv;
  EXPECT_OK(Tensor::Allocate(DT_DOUBLE, TensorShape({1, 2}), &xv));
  xv.data<double>()[0] = 1.0;
  xv.data<double>()[1] = 2.0;
  EXPECT_OK(Run(g, {{{x, 0}, xv}}, {{w, 0}, {w, 1}}, &out));
  EXPECT_TRUE(out.size() == 2 && out[0].data<double>()[0] == 1.0 && out[0].data<double>()[1] == 4294967296.0 &&
              out[1].data<int64_t>()[0] == 5);
}

TEST(ControlFlowErrorsNameNodeAndFunction) {
  BranchGraph bg;
  Node* pred = Placeholder(*bg.g, "pred", DT_BOOL, PartialShape::Scalar());
  Node* n = nullptr;
  EXPECT_ERROR(bg.If("If", "if_missing", pred, &n, "nope"),
               "[if_missing] then_branch: function 'nope' is not in the graph's function library");
  EXPECT_ERROR(bg.If("If", "if_types", pred, &n, "double", {DT_INT32}),
               "[if_types] then_branch: function 'double' returns [float] but the call expects [int32]");
  // A loop body returning one value for two loop variables.
  AddSumLoop(bg.g->library());
  Node* i = Const(*bg.g, "i", Scalar<int32_t>(1, DT_INT32));
  AttrMap attrs = {{"T", Types({DT_INT32, DT_INT32, DT_INT32})}, {"cond", Func("sum_cond")}, {"body", Func("double")}};
  EXPECT_ERROR(TryAdd(*bg.g, "While", "bad_body", {{{i, 0}, {i, 0}, {i, 0}}}, attrs, &n),
               "[bad_body] body: function 'double' takes 1 arguments [float] but the call passes 3");
  attrs["body"] = Func("sum_cond");  // the right arguments, but one bool result
  EXPECT_ERROR(TryAdd(*bg.g, "While", "bad_results", {{{i, 0}, {i, 0}, {i, 0}}}, attrs, &n),
               "[bad_results] body: function 'sum_cond' returns [bool] but the call expects [int32, int32, int32]");
  attrs["body"] = Func("sum_body");
  attrs["cond"] = Func("sum_body");
  EXPECT_ERROR(TryAdd(*bg.g, "While", "bad_cond", {{{i, 0}, {i, 0}, {i, 0}}}, attrs, &n),
               "[bad_cond] cond: function 'sum_body' returns 3 values; a loop condition returns one");
  attrs["cond"] = Func("missing_cond");
  EXPECT_ERROR(TryAdd(*bg.g, "StatelessWhile", "no_cond", {{{i, 0}, {i, 0}, {i, 0}}}, attrs, &n),
               "[no_cond] cond: function 'missing_cond' is not in the graph's function library");
}

// Note [Loop variables move into the body] (kernels/cpu/control_flow.cc): an op that may write its
// output into its input's buffer gets to do so for a loop variable in every iteration after the
// first, and through a function call op whose input it is the last reader of.
namespace {

std::atomic<int> g_forwarded{0};

// y = x + 1, written into x's buffer when the kernel holds the only reference (counted).
class ForwardCountOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const float* src = x.data<float>();
    Tensor* y;
    if (!ctx->forward_input_or_allocate_output(0, 0, x.shape(), &y).ok()) return;
    if (y->data<float>() == src) ++g_forwarded;
    for (int64_t i = 0; i < x.num_elements(); ++i) y->data<float>()[i] = src[i] + 1.0f;
  }
};

}  // namespace

TX_REGISTER_OP("CfTestForwardCount").Input("x: float").Output("y: float").SetShapeFn(shape_fns::UnchangedShape);
TX_REGISTER_KERNEL(KernelDefBuilder("CfTestForwardCount"), ForwardCountOp);

TEST(WhileHandsLoopVariablesToTheBodySoBuffersAreReused) {
  auto g = std::make_shared<Graph>();
  FunctionDef cond;
  cond.signature.name = "fw_cond";
  cond.signature.input_arg = {Arg("i", DT_INT32), Arg("acc", DT_FLOAT), Arg("n", DT_INT32)};
  cond.signature.output_arg = {Arg("go", DT_BOOL)};
  cond.node_def = {ND("lt", "Less", {"i", "n"}, {{"T", T(DT_INT32)}})};
  cond.ret["go"] = "lt:z:0";
  FunctionDef body;
  body.signature.name = "fw_body";
  body.signature.input_arg = cond.signature.input_arg;
  body.signature.output_arg = {Arg("i1", DT_INT32), Arg("acc1", DT_FLOAT), Arg("n1", DT_INT32)};
  body.node_def = {
      ND("one", "Const", {}, {{"value", AttrValue::FromTensor(Scalar<int32_t>(1, DT_INT32))}, {"dtype", T(DT_INT32)}}),
      ND("inc", "AddV2", {"i", "one:output:0"}, {{"T", T(DT_INT32)}}), ND("bump", "CfTestForwardCount", {"acc"}, {})};
  body.ret = {{"i1", "inc:z:0"}, {"acc1", "bump:y:0"}, {"n1", "n"}};
  EXPECT_OK(g->library().Add(cond));
  EXPECT_OK(g->library().Add(body));
  FunctionDef call_fn;
  call_fn.signature.name = "fw_call";
  call_fn.signature.input_arg = {Arg("x", DT_FLOAT)};
  call_fn.signature.output_arg = {Arg("y", DT_FLOAT)};
  call_fn.node_def = {ND("bump", "CfTestForwardCount", {"x"}, {})};
  call_fn.ret["y"] = "bump:y:0";
  EXPECT_OK(g->library().Add(call_fn));
  Node* i = Const(*g, "i", Scalar<int32_t>(0, DT_INT32));
  Node* acc = Placeholder(*g, "acc", DT_FLOAT, PartialShape({4}));
  Node* n = Const(*g, "n", Scalar<int32_t>(50, DT_INT32));
  Node* w = nullptr;
  EXPECT_OK(TryAdd(*g, "While", "loop", {{{i, 0}, {acc, 0}, {n, 0}}},
                   {{"T", Types({DT_INT32, DT_FLOAT, DT_INT32})}, {"cond", Func("fw_cond")}, {"body", Func("fw_body")}},
                   &w));
  Node* doubled = Add(*g, "AddV2", "doubled", {{{w, 1}}, {{w, 1}}}, {{"T", T(DT_FLOAT)}});
  Node* call = nullptr;
  EXPECT_OK(TryCall(*g, "call", "fw_call", {{doubled, 0}}, {DT_FLOAT}, &call));
  if (w == nullptr || call == nullptr) return;
  g_forwarded = 0;
  std::vector<Tensor> out;
  EXPECT_OK(Run(g, {{{acc, 0}, F32({0, 1, 2, 3})}}, {{call, 0}}, &out));
  EXPECT_TRUE(out.size() == 1 && out[0].data<float>()[0] == 101.0f && out[0].data<float>()[3] == 107.0f);
  // The first iteration copies the fed value; the 49 others and the call's body reuse buffers.
  EXPECT_EQ(g_forwarded.load(), 50);
}

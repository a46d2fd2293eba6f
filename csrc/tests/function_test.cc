// Tests of function instantiation and the call ops: bodies, attr placeholders, static shapes
// through calls, results, nested calls, variables passed by handle, control outputs, errors, and
// concurrent runs of nested calls on a small inter-op pool.
#include <atomic>
#include <thread>

#include "function_test_util.h"
#include "tensorflux/framework/function_instantiate.h"
#include "tensorflux/framework/graph_to_function.h"

using namespace fn_test;

namespace {

// A graph holding mul_add and a call of it on two [3] float placeholders.
struct CallGraph {
  std::shared_ptr<Graph> g = std::make_shared<Graph>();
  Node *x, *y, *call;
  explicit CallGraph(const std::string& op = "PartitionedCall") {
    Status s = g->library().Add(MulAddFunction());
    if (!s.ok()) std::printf("  %s\n", s.message().c_str());
    x = Placeholder(*g, "x", DT_FLOAT, PartialShape({3}));
    y = Placeholder(*g, "y", DT_FLOAT, PartialShape({-1}));
    s = TryCall(*g, "call", "mul_add", {{x, 0}, {y, 0}}, {DT_FLOAT}, &call, {}, op);
    if (!s.ok()) std::printf("  %s\n", s.message().c_str());
  }
};

}  // namespace

TEST(InstantiateBuildsTheBody) {
  FunctionLibrary lib;
  std::unique_ptr<FunctionBody> body;
  InstantiateOptions opts;
  opts.input_shapes = {PartialShape({2, 3}), PartialShape({3})};
  EXPECT_OK(InstantiateFunction(&lib, MulAddFunction(), {}, opts, &body));
  EXPECT_EQ(body->args.size(), 2u);
  EXPECT_EQ(body->args[0]->op_type(), std::string("_Arg"));
  EXPECT_EQ(body->rets.size(), 1u);
  EXPECT_EQ(body->rets[0].node->name(), std::string("add"));
  EXPECT_TRUE(body->graph->OutputShape(body->rets[0]) == PartialShape({2, 3}));
  EXPECT_TRUE(body->ret_types == std::vector<DataType>{DT_FLOAT});
}

TEST(AttrPlaceholdersAreBound) {
  FunctionDef f = MulAddFunction("poly");
  AttrDef t;
  t.name = "T";
  t.type = "type";
  f.signature.attr = {t};
  for (ArgDef* a : {&f.signature.input_arg[0], &f.signature.input_arg[1], &f.signature.output_arg[0]}) {
    a->type = DT_INVALID;
    a->type_attr = "T";
  }
  for (auto& n : f.node_def) n.attr["T"] = PlaceholderAttr("T");
  FunctionLibrary lib;
  std::unique_ptr<FunctionBody> body;
  EXPECT_OK(InstantiateFunction(&lib, f, {{"T", AttrValue::Type(DT_DOUBLE)}}, {}, &body));
  EXPECT_TRUE(body->arg_types == std::vector<DataType>({DT_DOUBLE, DT_DOUBLE}));
  EXPECT_EQ(body->rets[0].node->output_type(0), DT_DOUBLE);
  EXPECT_ERROR(InstantiateFunction(&lib, f, {}, {}, &body), "function 'poly': the call gives no value for attr 'T'");
  f.node_def[0].attr["T"] = PlaceholderAttr("U");
  EXPECT_ERROR(InstantiateFunction(&lib, f, {{"T", AttrValue::Type(DT_DOUBLE)}}, {}, &body),
               "[mul] attr 'T': attr placeholder '$U' names no attr of the function");
}

TEST(InstantiationErrorsNameFunctionAndNode) {
  FunctionLibrary lib;
  std::unique_ptr<FunctionBody> body;
  FunctionDef f = MulAddFunction();
  f.node_def[0].op = "NoSuchOp";
  EXPECT_ERROR(InstantiateFunction(&lib, f, {}, {}, &body),
               "function 'mul_add': [mul] op type not registered: 'NoSuchOp'");
  f = MulAddFunction();
  f.node_def[1].input[0] = "mul:nope:0";
  EXPECT_ERROR(InstantiateFunction(&lib, f, {}, {}, &body), "[add] 'mul:nope:0': op Mul has no output argument 'nope'");
  f = MulAddFunction();
  f.node_def[0].input[1] = "add:z:0";  // mul <-> add cycle
  EXPECT_ERROR(InstantiateFunction(&lib, f, {}, {}, &body), "the body contains a cycle");
  f = MulAddFunction();
  f.signature.output_arg[0].type = DT_INT32;
  EXPECT_ERROR(InstantiateFunction(&lib, f, {}, {}, &body),
               "output 'out' is declared int32 but ret 'add:z:0' is float");
  f = MulAddFunction();
  f.signature.input_arg[0].number_attr = "N";
  EXPECT_ERROR(InstantiateFunction(&lib, f, {}, {}, &body), "functions with list arguments are not supported");
}

TEST(CallRunsTheFunctionWithStaticShapes) {
  for (const char* op : {"PartitionedCall", "StatefulPartitionedCall"}) {
    CallGraph cg(op);
    EXPECT_TRUE(cg.call != nullptr);
    if (cg.call == nullptr) continue;
    EXPECT_TRUE(cg.g->OutputShape({cg.call, 0}) == PartialShape({3}));  // [3] broadcast with [?]
    std::vector<Tensor> out;
    EXPECT_OK(Run(cg.g, {{{cg.x, 0}, F32({1, 2, 3})}, {{cg.y, 0}, F32({4, 5, 6})}}, {{cg.call, 0}}, &out));
    EXPECT_TRUE(out.size() == 1 && out[0].data<float>()[0] == 5 && out[0].data<float>()[1] == 12 &&
                out[0].data<float>()[2] == 21);
  }
}

TEST(CallErrorsAtConstruction) {
  CallGraph cg;
  Node* n = nullptr;
  EXPECT_ERROR(TryCall(*cg.g, "c1", "missing", {{cg.x, 0}}, {DT_FLOAT}, &n),
               "[c1] function 'missing' is not in the graph's function library");
  EXPECT_ERROR(TryCall(*cg.g, "c2", "mul_add", {{cg.x, 0}}, {DT_FLOAT}, &n),
               "[c2] function 'mul_add' takes 2 arguments [float, float] but the call passes 1 [float]");
  Node* i = Placeholder(*cg.g, "i", DT_INT32);
  EXPECT_ERROR(TryCall(*cg.g, "c3", "mul_add", {{cg.x, 0}, {i, 0}}, {DT_FLOAT}, &n),
               "[c3] argument 1 of function 'mul_add' has type float but the call passes int32");
  EXPECT_ERROR(TryCall(*cg.g, "c4", "mul_add", {{cg.x, 0}, {cg.y, 0}}, {DT_FLOAT, DT_FLOAT}, &n),
               "[c4] function 'mul_add' returns [float] but the call expects [float, float]");
  Node* wide = Placeholder(*cg.g, "wide", DT_FLOAT, PartialShape({4}));
  EXPECT_ERROR(TryCall(*cg.g, "c5", "mul_add", {{cg.x, 0}, {wide, 0}}, {DT_FLOAT}, &n),
               "[c5] function 'mul_add': [mul]");  // [3] * [4] fails shape inference in the body
}

TEST(RuntimeErrorsNameCallAndFunction) {
  CallGraph cg;
  std::vector<Tensor> out;
  EXPECT_ERROR(Run(cg.g, {{{cg.x, 0}, F32({1, 2, 3})}, {{cg.y, 0}, F32({1, 2})}}, {{cg.call, 0}}, &out),
               "[call] in function 'mul_add': [mul]");
}

TEST(RecursionIsAnError) {
  FunctionDef f;
  f.signature.name = "loop";
  f.signature.input_arg = {Arg("x", DT_FLOAT)};
  f.signature.output_arg = {Arg("y", DT_FLOAT)};
  f.node_def = {ND("again", "PartitionedCall", {"x"},
                   {{"f", Func("loop")}, {"Tin", Types({DT_FLOAT})}, {"Tout", Types({DT_FLOAT})}})};
  f.ret["y"] = "again:output:0";
  Graph g;
  EXPECT_OK(g.library().Add(f));
  Node* x = Placeholder(g, "x");
  Node* n = nullptr;
  EXPECT_ERROR(TryCall(g, "call", "loop", {{x, 0}}, {DT_FLOAT}, &n),
               "function 'loop' calls itself recursively (loop -> loop)");
}

TEST(NestedCallsAndPassThroughResults) {
  auto g = std::make_shared<Graph>();
  EXPECT_OK(g->library().Add(MulAddFunction()));
  // outer(a, b) = (mul_add(a, b) * 2, b): calls a function and returns an input unchanged.
  FunctionDef outer;
  outer.signature.name = "outer";
  outer.signature.input_arg = {Arg("a", DT_FLOAT), Arg("b", DT_FLOAT)};
  outer.signature.output_arg = {Arg("r", DT_FLOAT), Arg("same", DT_FLOAT)};
  Tensor two = F32({2});
  outer.node_def = {
      ND("inner", "PartitionedCall", {"a", "b"},
         {{"f", Func("mul_add")}, {"Tin", Types({DT_FLOAT, DT_FLOAT})}, {"Tout", Types({DT_FLOAT})}}),
      ND("two", "Const", {}, {{"value", AttrValue::FromTensor(two)}, {"dtype", AttrValue::Type(DT_FLOAT)}}),
      ND("double", "Mul", {"inner:output:0", "two:output:0"}, {{"T", AttrValue::Type(DT_FLOAT)}})};
  outer.ret = {{"r", "double:z:0"}, {"same", "b"}};
  EXPECT_OK(g->library().Add(outer));
  Node* a = Placeholder(*g, "a");
  Node* b = Placeholder(*g, "b");
  Node* call = nullptr;
  EXPECT_OK(TryCall(*g, "call", "outer", {{a, 0}, {b, 0}}, {DT_FLOAT, DT_FLOAT}, &call));
  std::vector<Tensor> out;
  EXPECT_OK(Run(g, {{{a, 0}, F32({3})}, {{b, 0}, F32({4})}}, {{call, 0}, {call, 1}}, &out));
  EXPECT_TRUE(out.size() == 2 && out[0].data<float>()[0] == 30 && out[1].data<float>()[0] == 4);
}

TEST(VariablesPassedByHandleAndControlOutputs) {
  auto g = std::make_shared<Graph>();
  // bump(v, d): v += d (a control output nobody reads); returns read(v) * d after the update.
  Graph body;
  Node* v = Placeholder(body, "v", DT_RESOURCE);
  Node* d = Placeholder(body, "d");
  Node* assign =
      Add(body, "AssignAddVariableOp", "assign", {{{v, 0}}, {{d, 0}}}, {{"dtype", AttrValue::Type(DT_FLOAT)}});
  Node* read = Add(body, "ReadVariableOp", "read", {{{v, 0}}}, {{"dtype", AttrValue::Type(DT_FLOAT)}}, {assign});
  Node* mul = Add(body, "Mul", "mul", {{{read, 0}}, {{d, 0}}});
  GraphToFunctionSpec spec;
  spec.name = "bump";
  spec.inputs = {{v, 0}, {d, 0}};
  spec.outputs = {{mul, 0}};
  spec.control_outputs = {assign};
  FunctionDef f;
  EXPECT_OK(GraphToFunctionDef(body, spec, &f));
  EXPECT_TRUE(f.signature.is_stateful);
  EXPECT_OK(g->library().Add(f));

  Node* handle = Add(*g, "VarHandleOp", "var", {},
                     {{"dtype", AttrValue::Type(DT_FLOAT)}, {"shape", AttrValue::Shape(PartialShape({1}))}});
  Node* init = Add(*g, "AssignVariableOp", "init", {{{handle, 0}}, {{Const(*g, "ten", F32({10})), 0}}},
                   {{"dtype", AttrValue::Type(DT_FLOAT)}});
  Node* delta = Placeholder(*g, "delta");
  Node* call = nullptr;
  EXPECT_OK(TryCall(*g, "call", "bump", {{handle, 0}, {delta, 0}}, {DT_FLOAT}, &call, {}, "StatefulPartitionedCall"));
  Node* after = Add(*g, "ReadVariableOp", "after", {{{handle, 0}}}, {{"dtype", AttrValue::Type(DT_FLOAT)}}, {call});
  Node* peek = Add(*g, "ReadVariableOp", "peek", {{{handle, 0}}}, {{"dtype", AttrValue::Type(DT_FLOAT)}});
  Session s(g, SessionOptions());
  std::vector<Tensor> out;
  EXPECT_OK(s.Run({}, {}, {init}, &out));
  EXPECT_OK(s.Run({{{delta, 0}, F32({2})}}, {{call, 0}, {after, 0}}, {}, &out));
  EXPECT_TRUE(out.size() == 2 && out[0].data<float>()[0] == 24 && out[1].data<float>()[0] == 12);
  EXPECT_OK(s.Run({{{delta, 0}, F32({1})}}, {}, {call}, &out));  // runs for its side effect only
  EXPECT_OK(s.Run({}, {{peek, 0}}, {}, &out));
  EXPECT_TRUE(out.size() == 1 && out[0].data<float>()[0] == 13);
}

TEST(ConcurrentNestedCallsOnASmallPoolFinish) {
  // Eight parallel calls, each with two parallel inner calls, on a 2-worker inter-op pool, run
  // from four threads at once: calls made on pool workers must not wait for work queued behind
  // them (Note [Call kernel]). Every call reads only fed values, so all are ready at once and
  // spread over the pool; the inputs differ so that CSE merges none of them.
  auto g = std::make_shared<Graph>();
  EXPECT_OK(g->library().Add(MulAddFunction()));
  FunctionDef pair;  // pair(a, b) = mul_add(a, a) + mul_add(a, b) = a^2 + a + ab + a
  pair.signature.name = "pair";
  pair.signature.input_arg = {Arg("a", DT_FLOAT), Arg("b", DT_FLOAT)};
  pair.signature.output_arg = {Arg("s", DT_FLOAT)};
  AttrMap call_attrs = {{"f", Func("mul_add")}, {"Tin", Types({DT_FLOAT, DT_FLOAT})}, {"Tout", Types({DT_FLOAT})}};
  pair.node_def = {ND("c1", "PartitionedCall", {"a", "a"}, call_attrs),
                   ND("c2", "PartitionedCall", {"a", "b"}, call_attrs),
                   ND("sum", "AddV2", {"c1:output:0", "c2:output:0"}, {{"T", AttrValue::Type(DT_FLOAT)}})};
  pair.ret["s"] = "sum:z:0";
  EXPECT_OK(g->library().Add(pair));
  Node* b = Placeholder(*g, "b");
  std::vector<Endpoint> calls;
  std::vector<std::pair<Endpoint, Tensor>> feeds = {{{b, 0}, F32({2})}};
  for (int k = 0; k < 8; ++k) {
    Node* c = nullptr;
    Node* a = Placeholder(*g, "a" + std::to_string(k));
    feeds.push_back({{a, 0}, F32({static_cast<float>(k)})});
    EXPECT_OK(TryCall(*g, "call" + std::to_string(k), "pair", {{a, 0}, {b, 0}}, {DT_FLOAT}, &c));
    calls.push_back({c, 0});
  }
  SessionOptions opts;
  opts.inter_op_threads = 3;
  opts.intra_op_threads = 1;
  Session s(g, opts);
  std::vector<std::thread> threads;
  std::atomic<int> good{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int it = 0; it < 20; ++it) {
        std::vector<Tensor> out;
        if (!s.Run(feeds, calls, {}, &out).ok()) return;
        for (int k = 0; k < 8; ++k)
          if (out[k].data<float>()[0] != static_cast<float>(k * k + 4 * k)) return;
      }
      ++good;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(good.load(), 4);
}

TEST(GraphToFunctionFollowsTensorFlowNaming) {
  Graph g;
  Node* x = Placeholder(g, "X/In-put");
  Node* y = Placeholder(g, "y");
  Node* mul = Add(g, "Mul", "Mul", {{{x, 0}}, {{y, 0}}});
  Node* add = Add(g, "AddV2", "add", {{{mul, 0}}, {{x, 0}}});
  Node* side = Add(g, "NoOp", "side", {});
  GraphToFunctionSpec spec;
  spec.name = "myfn";
  spec.inputs = {{x, 0}, {y, 0}};
  spec.outputs = {{add, 0}, {x, 0}};
  spec.control_outputs = {side};
  spec.control_output_names = {"side_out"};
  FunctionDef f;
  EXPECT_OK(GraphToFunctionDef(g, spec, &f));
  // The names TensorFlow's TF_GraphToFunction gives the same graph.
  EXPECT_EQ(f.signature.output_arg[0].name, std::string("add"));
  EXPECT_EQ(f.signature.output_arg[1].name, std::string("x_in_put"));
  EXPECT_EQ(f.signature.input_arg[0].name, std::string("x_in_put_0"));
  EXPECT_EQ(f.node_def[1].name, std::string("add_0"));
  EXPECT_TRUE((f.node_def[1].input == std::vector<std::string>{"Mul:z:0", "x_in_put_0"}));
  EXPECT_EQ(f.ret.at("x_in_put"), std::string("x_in_put_0"));
  EXPECT_EQ(f.control_ret.at("side_out"), std::string("side"));
  spec.append_hash = true;
  FunctionDef hashed;
  EXPECT_OK(GraphToFunctionDef(g, spec, &hashed));
  EXPECT_TRUE(hashed.name().size() == 4 + 1 + 16 && hashed.name().compare(0, 5, "myfn_") == 0);
  // Errors: a reached placeholder that is not an input, repeated inputs, outside tensors.
  spec.inputs = {{x, 0}};
  EXPECT_ERROR(GraphToFunctionDef(g, spec, &f), "[y] Placeholder is reached from the function's outputs");
  spec.inputs = {{x, 0}, {x, 0}};
  EXPECT_ERROR(GraphToFunctionDef(g, spec, &f), "input 1 ('X/In-put:0') is listed twice");
  spec.inputs = {{x, 0}, {y, 0}};
  spec.use_body_nodes = true;
  spec.body_nodes = {add, side};
  EXPECT_ERROR(GraphToFunctionDef(g, spec, &f), "[add] reads 'Mul:0', which is neither a function input");
  spec.body_nodes = {side};
  EXPECT_ERROR(GraphToFunctionDef(g, spec, &f), "output 0 ('add:0') is neither a function input nor computed in");
}

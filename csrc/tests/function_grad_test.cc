// Tests of gradients through function calls: first and second order against closed forms,
// gradients reaching variables passed by handle, a recorded gradient function, and the generated
// gradient function's reuse.
#include "function_test_util.h"
#include "tensorflux/framework/graph_to_function.h"
#include "tensorflux/gradients/symbolic_gradients.h"

using namespace fn_test;

namespace {

// f(x, y) = x * y + x over doubles.
FunctionDef MulAddDouble() {
  FunctionDef f = MulAddFunction("mul_add_d");
  for (ArgDef* a : {&f.signature.input_arg[0], &f.signature.input_arg[1], &f.signature.output_arg[0]})
    a->type = DT_DOUBLE;
  for (auto& n : f.node_def) n.attr["T"] = AttrValue::Type(DT_DOUBLE);
  return f;
}

double At(const Tensor& t, int i) { return t.data<double>()[i]; }

}  // namespace

TEST(FirstAndSecondOrderGradientsThroughACall) {
  auto g = std::make_shared<Graph>();
  EXPECT_OK(g->library().Add(MulAddDouble()));
  Node* x = Placeholder(*g, "x", DT_DOUBLE, PartialShape({2}));
  Node* y = Placeholder(*g, "y", DT_DOUBLE, PartialShape({2}));
  Node* call = nullptr;
  EXPECT_OK(TryCall(*g, "call", "mul_add_d", {{x, 0}, {y, 0}}, {DT_DOUBLE}, &call));
  std::vector<Endpoint> d;
  EXPECT_OK(AddSymbolicGradients(g.get(), "gradients", {{call, 0}}, {{x, 0}, {y, 0}}, {}, &d));
  EXPECT_EQ(d[0].node->op_type(), std::string("PartitionedCall"));  // a call of the generated function
  const size_t functions = g->library().size();
  EXPECT_EQ(functions, 2u);
  // Second order: d(dx)/dy = 1 (dx = y + 1), d(dy)/dx = 1 (dy = x).
  std::vector<Endpoint> dd;
  EXPECT_OK(AddSymbolicGradients(g.get(), "gradients2", {d[0]}, {{y, 0}, {x, 0}}, {}, &dd));
  EXPECT_TRUE(dd[0].node != nullptr && dd[1].node == nullptr);  // dx = y + 1 does not depend on x
  std::vector<Tensor> out;
  EXPECT_OK(Run(g, {{{x, 0}, F64({2, -3})}, {{y, 0}, F64({5, 7})}}, {d[0], d[1], dd[0]}, &out));
  EXPECT_TRUE(At(out[0], 0) == 6 && At(out[0], 1) == 8);  // y + 1
  EXPECT_TRUE(At(out[1], 0) == 2 && At(out[1], 1) == -3);  // x
  EXPECT_TRUE(At(out[2], 0) == 1 && At(out[2], 1) == 1);
  // The same request again reuses the generated function.
  std::vector<Endpoint> again;
  EXPECT_OK(AddSymbolicGradients(g.get(), "gradients3", {{call, 0}}, {{x, 0}, {y, 0}}, {}, &again));
  EXPECT_EQ(g->library().size(), functions + 1);  // + the second-order function only
}

TEST(GradientsReachVariablesPassedByHandle) {
  auto g = std::make_shared<Graph>();
  Graph body;
  Node* v = Placeholder(body, "v", DT_RESOURCE);
  Node* x = Placeholder(body, "x", DT_DOUBLE);
  Node* read = Add(body, "ReadVariableOp", "read", {{{v, 0}}}, {{"dtype", AttrValue::Type(DT_DOUBLE)}});
  Node* mul = Add(body, "Mul", "mul", {{{read, 0}}, {{x, 0}}});
  GraphToFunctionSpec spec;
  spec.name = "scale";
  spec.inputs = {{v, 0}, {x, 0}};
  spec.outputs = {{mul, 0}};
  FunctionDef f;
  EXPECT_OK(GraphToFunctionDef(body, spec, &f));
  EXPECT_OK(g->library().Add(f));
  Node* handle = Add(*g, "VarHandleOp", "w", {},
                     {{"dtype", AttrValue::Type(DT_DOUBLE)}, {"shape", AttrValue::Shape(PartialShape({2}))}});
  Node* init = Add(*g, "AssignVariableOp", "init", {{{handle, 0}}, {{Const(*g, "w0", F64({3, 4})), 0}}},
                   {{"dtype", AttrValue::Type(DT_DOUBLE)}});
  Node* xs = Placeholder(*g, "xs", DT_DOUBLE, PartialShape({2}));
  Node* call = nullptr;
  EXPECT_OK(TryCall(*g, "call", "scale", {{handle, 0}, {xs, 0}}, {DT_DOUBLE}, &call, {}, "StatefulPartitionedCall"));
  EXPECT_TRUE(g->OutputShape({call, 0}) == PartialShape({2}));  // the variable's shape reaches the body
  std::vector<Endpoint> d;
  EXPECT_OK(AddSymbolicGradients(g.get(), "gradients", {{call, 0}}, {{handle, 0}, {xs, 0}}, {}, &d));
  EXPECT_EQ(d[0].node->op_type(), std::string("StatefulPartitionedCall"));  // the gradient reads the variable
  Session s(g, SessionOptions());
  std::vector<Tensor> out;
  EXPECT_OK(s.Run({}, {}, {init}, &out));
  EXPECT_OK(s.Run({{{xs, 0}, F64({5, 6})}}, {d[0], d[1]}, {}, &out));
  EXPECT_TRUE(At(out[0], 0) == 5 && At(out[0], 1) == 6);  // d/dw = x
  EXPECT_TRUE(At(out[1], 0) == 3 && At(out[1], 1) == 4);  // d/dx = w
}

TEST(RecordedGradientFunctionIsUsed) {
  auto g = std::make_shared<Graph>();
  // A deliberately "wrong" gradient for mul_add_d: (x, y, dz) -> (10 * dz, 20 * dz).
  FunctionDef grad;
  grad.signature.name = "custom_grad";
  grad.signature.input_arg = {Arg("x", DT_DOUBLE), Arg("y", DT_DOUBLE), Arg("dz", DT_DOUBLE)};
  grad.signature.output_arg = {Arg("dx", DT_DOUBLE), Arg("dy", DT_DOUBLE)};
  grad.node_def = {
      ND("ten", "Const", {}, {{"value", AttrValue::FromTensor(F64({10}))}, {"dtype", AttrValue::Type(DT_DOUBLE)}}),
      ND("twenty", "Const", {}, {{"value", AttrValue::FromTensor(F64({20}))}, {"dtype", AttrValue::Type(DT_DOUBLE)}}),
      ND("a", "Mul", {"dz", "ten:output:0"}, {{"T", AttrValue::Type(DT_DOUBLE)}}),
      ND("b", "Mul", {"dz", "twenty:output:0"}, {{"T", AttrValue::Type(DT_DOUBLE)}})};
  grad.ret = {{"dx", "a:z:0"}, {"dy", "b:z:0"}};
  FunctionDefLibraryProto lib;
  lib.function = {MulAddDouble(), grad};
  lib.gradient = {{"mul_add_d", "custom_grad"}};
  EXPECT_OK(g->library().MergeFrom(lib));
  Node* x = Placeholder(*g, "x", DT_DOUBLE, PartialShape({1}));
  Node* y = Placeholder(*g, "y", DT_DOUBLE, PartialShape({1}));
  Node* call = nullptr;
  EXPECT_OK(TryCall(*g, "call", "mul_add_d", {{x, 0}, {y, 0}}, {DT_DOUBLE}, &call));
  std::vector<Endpoint> d;
  EXPECT_OK(AddSymbolicGradients(g.get(), "gradients", {{call, 0}}, {{x, 0}, {y, 0}}, {}, &d));
  std::vector<Tensor> out;
  EXPECT_OK(Run(g, {{{x, 0}, F64({2})}, {{y, 0}, F64({3})}}, {d[0], d[1]}, &out));
  EXPECT_TRUE(At(out[0], 0) == 10 && At(out[1], 0) == 20);
}

// Helpers shared by the function tests: building nodes, FunctionDefs and tensors.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "test_util.h"
#include "tensorflux/framework/function.h"
#include "tensorflux/framework/graph.h"
#include "tensorflux/runtime/session.h"

namespace fn_test {

using namespace tx;

// Adds a node with one tensor per input argument (`lists` marks arguments given as lists).
inline Status TryAdd(Graph& g, const std::string& op, const std::string& name,
                     std::vector<std::vector<Endpoint>> inputs, AttrMap attrs, Node** out,
                     std::vector<Node*> ctrl = {}) {
  NodeSpec s;
  s.name = name;
  s.op_type = op;
  const OpRegistration* reg = OpRegistry::Global()->LookUp(op);
  for (size_t a = 0; a < inputs.size(); ++a) {
    bool list = reg && a < reg->def.input_arg.size() &&
        (!reg->def.input_arg[a].number_attr.empty() || !reg->def.input_arg[a].type_list_attr.empty());
    s.inputs.push_back({inputs[a], list});
  }
  s.attrs = std::move(attrs);
  s.control_inputs = std::move(ctrl);
  return g.AddNode(std::move(s), out);
}

inline Node* Add(Graph& g, const std::string& op, const std::string& name, std::vector<std::vector<Endpoint>> inputs,
                 AttrMap attrs = {}, std::vector<Node*> ctrl = {}) {
  Node* n = nullptr;
  Status st = TryAdd(g, op, name, std::move(inputs), std::move(attrs), &n, std::move(ctrl));
  if (!st.ok()) {
    std::printf("  AddNode %s failed: %s\n", name.c_str(), st.message().c_str());
    ++::tx_test::Failures();
  }
  return n;
}

inline Node* Placeholder(Graph& g, const std::string& name, DataType t = DT_FLOAT,
                         PartialShape shape = PartialShape::Unknown()) {
  return Add(g, "Placeholder", name, {}, {{"dtype", AttrValue::Type(t)}, {"shape", AttrValue::Shape(shape)}});
}

template <typename T>
Tensor Vec(std::vector<T> v, DataType dt) {
  Tensor t;
  Status s = Tensor::Allocate(dt, TensorShape({static_cast<int64_t>(v.size())}), &t);
  if (s.ok())
    for (size_t i = 0; i < v.size(); ++i) t.data<T>()[i] = v[i];
  return t;
}
inline Tensor F32(std::vector<float> v) { return Vec(std::move(v), DT_FLOAT); }
inline Tensor F64(std::vector<double> v) { return Vec(std::move(v), DT_DOUBLE); }

inline Node* Const(Graph& g, const std::string& name, const Tensor& t) {
  return Add(g, "Const", name, {}, {{"value", AttrValue::FromTensor(t)}, {"dtype", AttrValue::Type(t.dtype())}});
}

inline AttrValue Func(const std::string& name, AttrMap attrs = {}) {
  AttrValue v;
  v.kind = AttrValue::Kind::kFunc;
  v.func = std::make_shared<NameAttrList>();
  v.func->name = name;
  v.func->attr = std::move(attrs);
  return v;
}

inline AttrValue Types(std::vector<DataType> ts) {
  AttrValue v = AttrValue::EmptyList();
  v.list.type = std::move(ts);
  return v;
}

inline AttrValue PlaceholderAttr(const std::string& name) {
  AttrValue v;
  v.kind = AttrValue::Kind::kPlaceholder;
  v.s = name;
  return v;
}

// A call of `f` on `args` returning `tout`.
inline Status TryCall(Graph& g, const std::string& name, const std::string& f, std::vector<Endpoint> args,
                      std::vector<DataType> tout, Node** out, AttrMap fattrs = {},
                      const std::string& op = "PartitionedCall") {
  return TryAdd(g, op, name, {args}, {{"f", Func(f, std::move(fattrs))}, {"Tout", Types(std::move(tout))}}, out);
}

inline ArgDef Arg(const std::string& name, DataType t, const std::string& type_attr = "") {
  ArgDef a;
  a.name = name;
  a.type = t;
  a.type_attr = type_attr;
  return a;
}

inline codec::NodeDefProto ND(const std::string& name, const std::string& op, std::vector<std::string> inputs,
                              AttrMap attrs = {}) {
  codec::NodeDefProto n;
  n.name = name;
  n.op = op;
  n.input = std::move(inputs);
  n.attr = std::move(attrs);
  return n;
}

// f(x, y) = x * y + x over float (the running example of the function tests).
inline FunctionDef MulAddFunction(const std::string& name = "mul_add") {
  FunctionDef f;
  f.signature.name = name;
  f.signature.input_arg = {Arg("x", DT_FLOAT), Arg("y", DT_FLOAT)};
  f.signature.output_arg = {Arg("out", DT_FLOAT)};
  f.node_def = {ND("mul", "Mul", {"x", "y"}, {{"T", AttrValue::Type(DT_FLOAT)}}),
                ND("add", "AddV2", {"mul:z:0", "x"}, {{"T", AttrValue::Type(DT_FLOAT)}})};
  f.ret["out"] = "add:z:0";
  return f;
}

// Runs `fetches` of `g` in a fresh session with the given feeds.
inline Status Run(const std::shared_ptr<Graph>& g, std::vector<std::pair<Endpoint, Tensor>> feeds,
                  std::vector<Endpoint> fetches, std::vector<Tensor>* out, std::vector<Node*> targets = {},
                  SessionOptions opts = {}) {
  Session s(g, opts);
  return s.Run(feeds, fetches, targets, out);
}

}  // namespace fn_test

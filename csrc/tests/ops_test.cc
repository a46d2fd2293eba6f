// Tests of the op registrations: each OpDef must equal TensorFlow 2.21's (expected values below
// were read from tensorflow-cpu's op_def_registry and are hard-coded), and the shape functions
// are checked with a table of input shapes in, output shape or error text out.
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "test_util.h"
#include "tensorflux/framework/op_registry.h"

using namespace tx;
using namespace tx_test;

namespace {

std::string ArgString(const ArgDef& a) {
  std::string s = a.name + ":";
  if (!a.number_attr.empty()) s += a.number_attr + "*";
  if (!a.type_attr.empty())
    s += a.type_attr;
  else if (!a.type_list_attr.empty())
    s += a.type_list_attr;
  else
    s += DataTypeString(a.type);
  if (a.is_ref) s += "(ref)";
  return s;
}

std::string ListString(const AttrValue& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.list.type.size(); ++i) s += (i ? "," : "") + DataTypeString(v.list.type[i]);
  for (size_t i = 0; i < v.list.s.size(); ++i) s += (i ? ",'" : "'") + v.list.s[i] + "'";
  return s + "}";
}

std::string ValueString(const std::string& type, const AttrValue& v) {
  if (type == "bool") return v.b ? "true" : "false";
  if (type == "type") return DataTypeString(v.type);
  if (type == "string") return "'" + v.s + "'";
  if (type == "int") return std::to_string(v.i);
  if (type == "shape") return v.shape.known_rank() ? v.shape.ToString() : "?";
  if (type.rfind("list(", 0) == 0) return v.list.size() == 0 ? "[]" : ListString(v);
  return "<" + type + ">";
}

// The same canonical text the extraction script printed for TensorFlow's OpDef.
std::string Canonical(const OpDef& d) {
  std::string s = "op " + d.name;
  for (const ArgDef& a : d.input_arg) s += "\nin " + ArgString(a);
  for (const ArgDef& a : d.output_arg) s += "\nout " + ArgString(a);
  for (const AttrDef& a : d.attr) {
    s += "\nattr " + a.name + ": " + a.type;
    if (a.has_allowed_values) s += " in " + ListString(a.allowed_values);
    if (a.has_minimum) s += " >= " + std::to_string(a.minimum);
    if (a.has_default) s += " = " + ValueString(a.type, a.default_value);
  }
  std::string flags;
  if (d.is_commutative) flags += " is_commutative";
  if (d.is_aggregate) flags += " is_aggregate";
  if (d.is_stateful) flags += " is_stateful";
  if (d.allows_uninitialized_input) flags += " allows_uninitialized_input";
  if (!flags.empty()) s += "\nflags" + flags;
  return s;
}

// TensorFlow 2.21's OpDefs, canonicalized (descriptions dropped).
const std::vector<std::pair<std::string, std::string>> kTensorFlowOpDefs = {
    {"Const", R"(op Const
out output:dtype
attr value: tensor
attr dtype: type)"},
    {"Placeholder", R"(op Placeholder
out output:dtype
attr dtype: type
attr shape: shape = ?)"},
    {"Identity", R"(op Identity
in input:T
out output:T
attr T: type)"},
    {"NoOp", R"(op NoOp)"},
    {"AddV2", R"(op AddV2
in x:T
in y:T
out z:T
attr T: type in {bfloat16,half,float,double,uint8,uint16,uint32,uint64,int8,int16,int32,int64,complex64,complex128}
flags is_commutative is_aggregate)"},
    {"Add", R"(op Add
in x:T
in y:T
out z:T
attr T: type in {bfloat16,half,float,double,uint8,int8,int16,int32,int64,complex64,complex128,string})"},
    {"Sub", R"(op Sub
in x:T
in y:T
out z:T
attr T: type in {bfloat16,half,float,double,uint8,int8,uint16,int16,int32,int64,complex64,complex128,uint32,uint64})"},
    {"Mul", R"(op Mul
in x:T
in y:T
out z:T
attr T: type in {bfloat16,half,float,double,uint8,int8,uint16,int16,int32,uint32,uint64,int64,complex64,complex128}
flags is_commutative)"},
    {"RealDiv", R"(op RealDiv
in x:T
in y:T
out z:T
attr T: type in {bfloat16,half,float,double,uint8,int8,uint16,int16,int32,uint32,uint64,int64,complex64,complex128})"},
    {"MatMul", R"(op MatMul
in a:T
in b:T
out product:T
attr transpose_a: bool = false
attr transpose_b: bool = false
attr T: type in {bfloat16,half,float,double,int32,int64,uint8,uint16,uint32,uint64,complex64,complex128}
attr grad_a: bool = false
attr grad_b: bool = false)"},
    {"BiasAdd", R"(op BiasAdd
in value:T
in bias:T
out output:T
attr T: type in {float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,qint16,quint16,uint16,complex128,half,uint32,uint64}
attr data_format: string in {'NHWC','NCHW'} = 'NHWC')"},
    {"Relu", R"(op Relu
in features:T
out activations:T
attr T: type in {float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64,qint8})"},
    {"Softmax", R"(op Softmax
in logits:T
out softmax:T
attr T: type in {half,bfloat16,float,double})"},
    {"Sum", R"(op Sum
in input:T
in reduction_indices:Tidx
out output:T
attr keep_dims: bool = false
attr T: type in {float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,qint16,quint16,uint16,complex128,half,uint32,uint64}
attr Tidx: type in {int32,int64} = int32)"},
    {"Mean", R"(op Mean
in input:T
in reduction_indices:Tidx
out output:T
attr keep_dims: bool = false
attr T: type in {float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,qint16,quint16,uint16,complex128,half,uint32,uint64}
attr Tidx: type in {int32,int64} = int32)"},
    {"Reshape", R"(op Reshape
in tensor:T
in shape:Tshape
out output:T
attr T: type
attr Tshape: type in {int32,int64} = int32)"},
    {"Cast", R"(op Cast
in x:SrcT
out y:DstT
attr SrcT: type
attr DstT: type
attr Truncate: bool = false)"},
};

}  // namespace

TEST(OpDefsMatchTensorFlow) {
  for (const auto& [name, want] : kTensorFlowOpDefs) {
    const OpRegistration* r = OpRegistry::Global()->LookUp(name);
    EXPECT_TRUE(r != nullptr);
    if (r == nullptr) continue;
    const std::string got = Canonical(r->def);
    if (got != want)
      std::printf("OpDef %s differs.\n--- got:\n%s\n--- want:\n%s\n", name.c_str(), got.c_str(), want.c_str());
    EXPECT_TRUE(got == want);
    EXPECT_TRUE(!r->def.summary.empty());
    EXPECT_TRUE(r->shape_fn != nullptr);
  }
}

// ---------------------------------------------------------------------------- shape functions

namespace {

Tensor I32(std::vector<int32_t> v) { return MakeTensor<int32_t>({static_cast<int64_t>(v.size())}, v); }
InputSpec F(PartialShape s) { return Ph(DT_FLOAT, std::move(s)); }
const PartialShape kUnknown;
// Note: `PartialShape s = {};` is the default (unknown-rank) shape, so scalars are spelled out.
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

}  // namespace

TEST(ShapeFunctionsArrayOps) {
  Tensor v = MakeTensor<float>({2, 3}, std::vector<float>(6, 1));
  RunShapeCases({
      {"Const", {}, A({{"value", AttrValue::FromTensor(v)}, {"dtype", AttrValue::Type(DT_FLOAT)}}), "[2,3]"},
      {"Const",
       {},
       A({{"value", AttrValue::FromTensor(v)}, {"dtype", AttrValue::Type(DT_INT32)}}),
       "!Const value has dtype float but attr dtype is int32"},
      {"Placeholder",
       {},
       A({{"dtype", AttrValue::Type(DT_FLOAT)}, {"shape", AttrValue::Shape(PartialShape({-1, 4}))}}),
       "[?,4]"},
      {"Placeholder", {}, A({{"dtype", AttrValue::Type(DT_FLOAT)}}), "<unknown>"},
      {"Identity", {F({5, -1})}, {}, "[5,?]"},
      {"NoOp", {}, {}, "(none)"},
      {"Cast", {F({2, 7})}, A({{"DstT", AttrValue::Type(DT_INT32)}}), "[2,7]"},
      {"Reshape", {F({2, 3}), Cst(I32({3, -1}))}, {}, "[3,2]"},
      {"Reshape", {F({2, 3}), Cst(I32({-1}))}, {}, "[6]"},
      {"Reshape", {F({-1, 3}), Cst(I32({-1, 3}))}, {}, "[?,3]"},
      {"Reshape", {F({2, 3}), Cst(I32({-1, -1}))}, {}, "[?,?]"},
      {"Reshape", {F({2, 3}), Ph(DT_INT32, PartialShape({2}))}, {}, "[?,?]"},
      {"Reshape", {F({2, 3}), Ph(DT_INT32, PartialShape({1}))}, {}, "[6]"},
      {"Reshape", {F({2, 3}), Ph(DT_INT32)}, {}, "<unknown>"},
      {"Reshape", {F({2, 3}), Cst(I32({4}))}, {}, "!Cannot reshape a tensor with 6 elements to shape [4] (4 elements)"},
      {"Reshape", {F({2, 3}), Cst(I32({-1, 4}))}, {}, "!must be divisible by 4"},
      {"Reshape", {F({2, 3}), Ph(DT_INT32, PartialShape({2, 2}))}, {}, "!must be 1-D"},
      {"Bitcast", {F({2, 3})}, A({{"type", AttrValue::Type(DT_INT32)}}), "[2,3]"},
      {"Bitcast", {F({2, -1})}, A({{"type", AttrValue::Type(DT_UINT8)}}), "[2,?,4]"},
      {"Bitcast", {F({3, 2})}, A({{"type", AttrValue::Type(DT_DOUBLE)}}), "[3]"},
      {"Bitcast", {F({3, -1})}, A({{"type", AttrValue::Type(DT_DOUBLE)}}), "[3]"},
      {"Bitcast", {F(kUnknown)}, A({{"type", AttrValue::Type(DT_DOUBLE)}}), "<unknown>"},
      {"Bitcast", {F({2, 3})}, A({{"type", AttrValue::Type(DT_COMPLEX128)}}), "!must end in a dimension of 4"},
      {"Bitcast", {F(kScalar)}, A({{"type", AttrValue::Type(DT_DOUBLE)}}), "!must end in a dimension of 2"},
  });
}

TEST(ShapeFunctionsMathOps) {
  Tensor axes_neg = I32({-1});
  RunShapeCases({
      {"AddV2", {F({2, 1, 3}), F({4, 3})}, {}, "[2,4,3]"},
      {"Sub", {F({-1, 3}), F({5, 1})}, {}, "[5,3]"},
      {"Mul", {F(kUnknown), F({3})}, {}, "<unknown>"},
      {"RealDiv", {F(kScalar), F({7})}, {}, "[7]"},
      {"Add", {F({2, 3}), F({4})}, {}, "![2,3] and [4]"},
      {"MatMul", {F({2, 3}), F({3, 5})}, {}, "[2,5]"},
      {"MatMul",
       {F({3, 2}), F({5, 3})},
       A({{"transpose_a", AttrValue::Bool(true)}, {"transpose_b", AttrValue::Bool(true)}}),
       "[2,5]"},
      {"MatMul", {F({-1, 3}), F({-1, -1})}, {}, "[?,?]"},
      {"MatMul",
       {F({2, 3}), F({4, 5})},
       {},
       "!Dimensions must be equal, but are 3 and 4 for MatMul with input shapes [2,3], [4,5]"},
      {"MatMul",
       {F({2, 3}), F({5, 4})},
       A({{"transpose_b", AttrValue::Bool(true)}}),
       "!Dimensions must be equal, but are 3 and 4 for MatMul with input shapes [2,3], [5,4]"},
      {"MatMul", {F({2, 3, 1}), F({3, 5})}, {}, "!must be rank 2"},
      {"Sum", {F({2, 3, 4}), Cst(I32({1}))}, {}, "[2,4]"},
      {"Sum", {F({2, 3, 4}), Cst(I32({0, -1}))}, A({{"keep_dims", AttrValue::Bool(true)}}), "[1,3,1]"},
      {"Mean", {F({2, 3, 4}), Cst(I32({}))}, {}, "[2,3,4]"},
      {"Mean", {F({2, 3, 4}), Cst(MakeTensor<int32_t>({}, {-2}))}, {}, "[2,4]"},
      {"Mean", {F({2, 3, 4}), Cst(MakeTensor<int64_t>({2}, {2, 2}))}, {}, "[2,3]"},
      {"Sum", {F({2, -1}), Ph(DT_INT32)}, A({{"keep_dims", AttrValue::Bool(true)}}), "[?,?]"},
      {"Sum", {F({2, -1}), Ph(DT_INT32)}, {}, "<unknown>"},
      {"Sum", {F({2, 3}), Cst(I32({2}))}, {}, "!Invalid reduction dimension 2 for input with 2 dimensions"},
      {"Mean", {F({2, 3}), Cst(I32({-3}))}, {}, "!Invalid reduction dimension -3"},
      {"Sum", {F({2, 3}), Ph(DT_INT32, PartialShape({1, 1}))}, {}, "!at most rank 1"},
  });
}

TEST(ShapeFunctionsBitwiseOps) {
  auto I8 = [](PartialShape s) { return Ph(DT_INT8, std::move(s)); };
  RunShapeCases({
      {"BitwiseAnd", {I8(PartialShape({2, 1, 3})), I8(PartialShape({4, 3}))}, {}, "[2,4,3]"},
      {"BitwiseOr", {I8(PartialShape({-1, 3})), I8(PartialShape({5, 1}))}, {}, "[5,3]"},
      {"BitwiseXor", {I8(PartialShape({2, 3})), I8(PartialShape({4}))}, {}, "![2,3] and [4]"},
      {"LeftShift", {I8(kScalar), I8(PartialShape({7}))}, {}, "[7]"},
      {"RightShift", {I8(PartialShape()), I8(PartialShape({7}))}, {}, "<unknown>"},
      {"Invert", {I8(PartialShape({2, -1}))}, {}, "[2,?]"},
      {"PopulationCount", {I8(PartialShape({3}))}, {}, "[3]"},
      {"TruncateDiv", {F({2, 1}), F({1, 5})}, {}, "[2,5]"},
      {"TruncateMod", {F({3}), F({4})}, {}, "![3] and [4]"},
  });
}

TEST(ShapeFunctionsNNOps) {
  RunShapeCases({
      {"BiasAdd", {F({2, 3}), F({3})}, {}, "[2,3]"},
      {"BiasAdd", {F({2, -1}), F({3})}, {}, "[2,3]"},
      {"BiasAdd", {F({2, 3, 4, 5}), F({3})}, A({{"data_format", AttrValue::String("NCHW")}}), "[2,3,4,5]"},
      {"BiasAdd", {F({2, 3}), F({4})}, {}, "!Dimensions must be equal, but are 3 and 4"},
      {"BiasAdd", {F({2, 3, 4, 5}), F({5})}, A({{"data_format", AttrValue::String("NCHW")}}), "!but are 3 and 5"},
      {"BiasAdd", {F({3}), F({3})}, {}, "!must be at least rank 2"},
      {"BiasAdd", {F({2, 3}), F({1, 3})}, {}, "!must be rank 1"},
      {"BiasAdd", {F({2, 3}), F({3})}, A({{"data_format", AttrValue::String("NCDHW")}}), "!not in the list of allowed"},
      {"Relu", {F({-1, 8})}, {}, "[?,8]"},
      {"Softmax", {F({4, 10})}, {}, "[4,10]"},
      {"Softmax", {F(kScalar)}, {}, "!must be at least rank 1"},
  });
}

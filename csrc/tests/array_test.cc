// Tests of the array-transform ops: OpDefs equal TensorFlow 2.21's (hard-coded below, read from
// tensorflow-cpu's op_def_registry), a shape-function table, kernel values for several dtypes
// and kernel error paths on bad run-time inputs.
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "test_util.h"
#include "tensorflux/framework/op_registry.h"

using namespace tx;
using namespace tx_test;

namespace {

std::string ArgText(const ArgDef& a) {
  std::string s = a.name + ":";
  if (!a.number_attr.empty()) s += a.number_attr + "*";
  s += !a.type_attr.empty() ? a.type_attr : !a.type_list_attr.empty() ? a.type_list_attr : DataTypeString(a.type);
  return s;
}

std::string ListText(const AttrValue& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.list.type.size(); ++i) s += (i ? "," : "") + DataTypeString(v.list.type[i]);
  for (size_t i = 0; i < v.list.s.size(); ++i) s += (i ? ",'" : "'") + v.list.s[i] + "'";
  return s + "}";
}

std::string DefaultText(const std::string& type, const AttrValue& v) {
  if (type == "type") return DataTypeString(v.type);
  if (type == "int") return std::to_string(v.i);
  if (type == "string") return "'" + v.s + "'";
  if (type.rfind("list(", 0) == 0) return v.list.size() == 0 ? "[]" : ListText(v);
  return "<" + type + ">";
}

std::string Canonical(const OpDef& d) {
  std::string s = "op " + d.name;
  for (const ArgDef& a : d.input_arg) s += "\nin " + ArgText(a);
  for (const ArgDef& a : d.output_arg) s += "\nout " + ArgText(a);
  for (const AttrDef& a : d.attr) {
    s += "\nattr " + a.name + ": " + a.type;
    if (a.has_allowed_values) s += " in " + ListText(a.allowed_values);
    if (a.has_minimum) s += " >= " + std::to_string(a.minimum);
    if (a.has_default) s += " = " + DefaultText(a.type, a.default_value);
  }
  if (d.is_commutative || d.is_aggregate || d.is_stateful) s += "\nflags";
  return s;
}

const std::vector<std::pair<std::string, std::string>> kTensorFlowOpDefs = {
    {"Transpose", R"(op Transpose
in x:T
in perm:Tperm
out y:T
attr T: type
attr Tperm: type in {int32,int64} = int32)"},
    {"ConcatV2", R"(op ConcatV2
in values:N*T
in axis:Tidx
out output:T
attr N: int >= 2
attr T: type
attr Tidx: type in {int32,int64} = int32)"},
    {"Split", R"(op Split
in split_dim:int32
in value:T
out output:num_split*T
attr num_split: int >= 1
attr T: type)"},
    {"SplitV", R"(op SplitV
in value:T
in size_splits:Tlen
in split_dim:int32
out output:num_split*T
attr num_split: int >= 1
attr T: type
attr Tlen: type in {int8,int32,int64} = int64)"},
    {"Slice", R"(op Slice
in input:T
in begin:Index
in size:Index
out output:T
attr T: type
attr Index: type in {int32,int64})"},
    {"StridedSlice", R"(op StridedSlice
in input:T
in begin:Index
in end:Index
in strides:Index
out output:T
attr T: type
attr Index: type in {int16,int32,int64}
attr begin_mask: int = 0
attr end_mask: int = 0
attr ellipsis_mask: int = 0
attr new_axis_mask: int = 0
attr shrink_axis_mask: int = 0)"},
    {"Pad", R"(op Pad
in input:T
in paddings:Tpaddings
out output:T
attr T: type
attr Tpaddings: type in {int32,int64} = int32)"},
    {"PadV2", R"(op PadV2
in input:T
in paddings:Tpaddings
in constant_values:T
out output:T
attr T: type
attr Tpaddings: type in {int32,int64} = int32)"},
    {"MirrorPad", R"(op MirrorPad
in input:T
in paddings:Tpaddings
out output:T
attr T: type
attr Tpaddings: type in {int32,int64} = int32
attr mode: string in {'REFLECT','SYMMETRIC'})"},
    {"Tile", R"(op Tile
in input:T
in multiples:Tmultiples
out output:T
attr T: type
attr Tmultiples: type in {int32,int64} = int32)"},
    {"ExpandDims", R"(op ExpandDims
in input:T
in dim:Tdim
out output:T
attr T: type
attr Tdim: type in {int32,int64} = int32)"},
    {"Squeeze", R"(op Squeeze
in input:T
out output:T
attr T: type
attr squeeze_dims: list(int) >= 0 = [])"},
    {"Pack", R"(op Pack
in values:N*T
out output:T
attr N: int >= 1
attr T: type
attr axis: int = 0)"},
    {"Unpack", R"(op Unpack
in value:T
out output:num*T
attr num: int >= 0
attr T: type
attr axis: int = 0)"},
    {"ReverseV2", R"(op ReverseV2
in tensor:T
in axis:Tidx
out output:T
attr Tidx: type in {int32,int64} = int32
attr T: type in {uint8,int8,uint16,int16,int32,uint32,int64,uint64,bool,bfloat16,half,float,double,complex64,complex128,string})"},
    {"BroadcastTo", R"(op BroadcastTo
in input:T
in shape:Tidx
out output:T
attr T: type
attr Tidx: type in {int32,int64} = int32)"},
};

}  // namespace

TEST(ArrayOpDefsMatchTensorFlow) {
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
Tensor I32Scalar(int32_t v) { return MakeTensor<int32_t>({}, {v}); }
Tensor I32Mat(int64_t rows, std::vector<int32_t> v) { return MakeTensor<int32_t>({rows, 2}, v); }
InputSpec F(PartialShape s) { return Ph(DT_FLOAT, std::move(s)); }
const PartialShape kUnknown;
const PartialShape kScalar = PartialShape(std::vector<int64_t>{});

AttrMap A(std::initializer_list<std::pair<const std::string, AttrValue>> kv) { return AttrMap(kv); }

struct ShapeCase {
  std::string op;
  std::vector<InputSpec> inputs;
  AttrMap attrs;
  std::string want;  // output 0's shape, or "!" followed by a substring of the error
  int list_inputs = 0;  // the first `list_inputs` inputs form one list argument (N * T)
};

// Adds `c.op` with its inputs (the first list_inputs grouped into one list arg).
Status AddCase(OpTester* t, const ShapeCase& c, Node** node) {
  if (c.list_inputs == 0) return t->AddOp(c.op, c.inputs, c.attrs, node);
  NodeSpec spec;
  spec.name = t->graph().UniqueName("op");
  spec.op_type = c.op;
  spec.attrs = c.attrs;
  NodeSpec::InputArg list;
  list.is_list = true;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const InputSpec& in = c.inputs[i];
    NodeSpec src;
    src.name = t->graph().UniqueName("in");
    if (in.value.initialized()) {
      src.op_type = "Const";
      src.attrs["value"] = AttrValue::FromTensor(in.value);
      src.attrs["dtype"] = AttrValue::Type(in.dtype);
    } else {
      src.op_type = "Placeholder";
      src.attrs["dtype"] = AttrValue::Type(in.dtype);
      src.attrs["shape"] = AttrValue::Shape(in.shape);
    }
    Node* n = nullptr;
    TX_RETURN_IF_ERROR(t->graph().AddNode(std::move(src), &n));
    if (static_cast<int>(i) < c.list_inputs) {
      list.values.push_back({n, 0});
      if (static_cast<int>(i) == c.list_inputs - 1) spec.inputs.push_back(list);
    } else {
      NodeSpec::InputArg arg;
      arg.values.push_back({n, 0});
      spec.inputs.push_back(arg);
    }
  }
  return t->graph().AddNode(std::move(spec), node);
}

void RunShapeCases(const std::vector<ShapeCase>& cases) {
  for (const ShapeCase& c : cases) {
    OpTester t;
    Node* n = nullptr;
    Status s = AddCase(&t, c, &n);
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

AttrValue Ints(std::vector<int64_t> v) {
  AttrValue a = AttrValue::EmptyList();
  a.list.i = std::move(v);
  return a;
}

}  // namespace

TEST(ShapeFunctionsTransforms) {
  RunShapeCases({
      {"Transpose", {F({2, 3, 4}), Cst(I32({2, 0, 1}))}, {}, "[4,2,3]"},
      {"Transpose", {F({2, -1}), Cst(I32({1, 0}))}, {}, "[?,2]"},
      {"Transpose", {F({2, 3}), Ph(DT_INT32, PartialShape({2}))}, {}, "[?,?]"},
      {"Transpose", {F(kUnknown), Cst(I32({1, 0, 2}))}, {}, "[?,?,?]"},
      {"Transpose", {F({2, 3}), Cst(I32({0, 0}))}, {}, "!not a permutation"},
      {"Transpose", {F({2, 3}), Cst(I32({0, 2}))}, {}, "!perm[1] = 2 is out of range"},
      {"Transpose", {F({2, 3}), Cst(I32({0}))}, {}, "!expects a vector of size 2"},
      {"ExpandDims", {F({2, 3}), Cst(I32Scalar(-1))}, {}, "[2,3,1]"},
      {"ExpandDims", {F({2, 3}), Cst(I32Scalar(0))}, {}, "[1,2,3]"},
      {"ExpandDims", {F({2, 3}), Ph(DT_INT32, kScalar)}, {}, "[?,?,?]"},
      {"ExpandDims", {F({2, 3}), Cst(I32Scalar(3))}, {}, "!out of range"},
      {"ExpandDims", {F({2, 3}), Cst(I32({0, 1}))}, {}, "!exactly one value"},
      {"Squeeze", {F({1, 2, 1})}, {}, "[2]"},
      {"Squeeze", {F({1, 2, 1})}, A({{"squeeze_dims", Ints({-1})}}), "[1,2]"},
      {"Squeeze", {F({1, -1})}, {}, "<unknown>"},
      {"Squeeze", {F({-1, 2})}, A({{"squeeze_dims", Ints({0})}}), "[2]"},
      {"Squeeze", {F({1, 2})}, A({{"squeeze_dims", Ints({1})}}), "!Can not squeeze dim[1]"},
      {"Squeeze", {F({1, 2})}, A({{"squeeze_dims", Ints({2})}}), "!out of range"},
      {"Tile", {F({2, -1}), Cst(I32({3, 2}))}, {}, "[6,?]"},
      {"Tile", {F({2, 3}), Cst(I32({0, 1}))}, {}, "[0,3]"},
      {"Tile", {F({2, 3}), Cst(I32({1}))}, {}, "!must have 2 entries"},
      {"Tile", {F({2, 3}), Cst(I32({1, -2}))}, {}, "!non-negative"},
      {"BroadcastTo", {F({3, 1}), Cst(I32({2, 3, 4}))}, {}, "[2,3,4]"},
      {"BroadcastTo", {F({3, 1}), Ph(DT_INT32, PartialShape({3}))}, {}, "[?,?,?]"},
      {"BroadcastTo", {F({3, 2}), Cst(I32({3, 4}))}, {}, "!Unable to broadcast"},
      {"BroadcastTo", {F({3, 2}), Cst(I32({2}))}, {}, "!Unable to broadcast"},
      {"ReverseV2", {F({2, 3}), Cst(I32({-1}))}, {}, "[2,3]"},
      {"ReverseV2", {F({2, 3}), Cst(I32({1, -1}))}, {}, "!more than once"},
      {"ReverseV2", {F({2, 3}), Cst(I32({2}))}, {}, "!out of range"},
      {"Pad", {F({2, 3}), Cst(I32Mat(2, {1, 2, 0, 1}))}, {}, "[5,4]"},
      {"Pad", {F({-1, 3}), Cst(I32Mat(2, {1, 2, 0, 1}))}, {}, "[?,4]"},
      {"Pad", {F({2, 3}), Ph(DT_INT32, PartialShape({2, 2}))}, {}, "[?,?]"},
      {"Pad", {F(kUnknown), Cst(I32Mat(1, {1, 1}))}, {}, "[?]"},
      {"Pad", {F({2, 3}), Cst(I32Mat(2, {1, -2, 0, 1}))}, {}, "!non-negative"},
      {"Pad", {F({2, 3}), Cst(I32Mat(1, {1, 1}))}, {}, "!2 rows"},
      {"PadV2", {F({2}), Cst(I32Mat(1, {1, 1})), F(kScalar)}, {}, "[4]"},
      {"PadV2", {F({2}), Cst(I32Mat(1, {1, 1})), F({2})}, {}, "!must be a scalar"},
      {"MirrorPad", {F({3}), Cst(I32Mat(1, {2, 2}))}, A({{"mode", AttrValue::String("REFLECT")}}), "[7]"},
      {"MirrorPad", {F({3}), Cst(I32Mat(1, {3, 0}))}, A({{"mode", AttrValue::String("REFLECT")}}), "!less than"},
      {"MirrorPad", {F({3}), Cst(I32Mat(1, {3, 3}))}, A({{"mode", AttrValue::String("SYMMETRIC")}}), "[9]"},
      {"MirrorPad", {F({3}), Cst(I32Mat(1, {4, 0}))}, A({{"mode", AttrValue::String("SYMMETRIC")}}), "!greater than"},
      {"MirrorPad",
       {F({3}), Cst(I32Mat(1, {1, 0}))},
       A({{"mode", AttrValue::String("EDGE")}}),
       "!not in the list of allowed"},
  });
}

TEST(ShapeFunctionsSlicing) {
  auto ss = [](PartialShape in, std::vector<int32_t> b, std::vector<int32_t> e, std::vector<int32_t> s, AttrMap masks,
               std::string want) {
    return ShapeCase{
        "StridedSlice", {F(std::move(in)), Cst(I32(b)), Cst(I32(e)), Cst(I32(s))}, std::move(masks), std::move(want)};
  };
  RunShapeCases({
      {"Slice", {F({4, 5}), Cst(I32({1, 2})), Cst(I32({2, -1}))}, {}, "[2,3]"},
      {"Slice", {F({-1, 5}), Cst(I32({1, 2})), Cst(I32({2, -1}))}, {}, "[2,3]"},
      {"Slice", {F({-1, 5}), Cst(I32({1, 2})), Cst(I32({-1, 1}))}, {}, "[?,1]"},
      {"Slice", {F({4, 5}), Ph(DT_INT32, PartialShape({2})), Cst(I32({2, -1}))}, {}, "[2,?]"},
      {"Slice", {F({4, 5}), Cst(I32({5, 0})), Cst(I32({0, 1}))}, {}, "!Expected begin[0] in [0, 4], but got 5"},
      {"Slice", {F({4, 5}), Cst(I32({1, 0})), Cst(I32({4, 1}))}, {}, "!Expected size[0] in [0, 3], but got 4"},
      {"Slice", {F({4, 5}), Cst(I32({1})), Cst(I32({1}))}, {}, "!to have 2 entries"},
      ss({4, 5, 6}, {1, 0, 5}, {4, 5, 0}, {2, 1, -2}, {}, "[2,5,3]"),
      ss({4, 5, 6}, {-1}, {0}, {1}, A({{"shrink_axis_mask", AttrValue::Int(1)}}), "[5,6]"),
      ss({4, 5, 6}, {0, 2}, {0, 3}, {1, 1},
         A({{"ellipsis_mask", AttrValue::Int(1)}, {"shrink_axis_mask", AttrValue::Int(2)}}), "[4,5]"),
      ss({4, 5, 6}, {0, 0}, {0, 0}, {1, 1},
         A({{"new_axis_mask", AttrValue::Int(1)}, {"ellipsis_mask", AttrValue::Int(2)}}), "[1,4,5,6]"),
      ss({4, 5, 6}, {0}, {0}, {-1}, A({{"begin_mask", AttrValue::Int(1)}, {"end_mask", AttrValue::Int(1)}}), "[4,5,6]"),
      ss({4, 5, 6}, {10}, {-10}, {-3}, {}, "[2,5,6]"),
      ss({-1, 5}, {0, 1}, {2, 3}, {1, 1}, {}, "[?,2]"),
      ss({4, 5}, {0}, {1}, {0}, {}, "!strides[0] must be non-zero"),
      ss({4, 5}, {4}, {5}, {1}, A({{"shrink_axis_mask", AttrValue::Int(1)}}),
         "!slice index 4 of dimension 0 out of bounds"),
      ss({4, 5}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, {}, "!input has rank 2"),
      ss({4, 5}, {0, 0}, {1, 1}, {1, 1}, A({{"ellipsis_mask", AttrValue::Int(3)}}), "!Multiple ellipses"),
      {"StridedSlice",
       {F({4, 5}), Ph(DT_INT32, PartialShape({1})), Cst(I32({2})), Cst(I32({1}))},
       A({{"shrink_axis_mask", AttrValue::Int(1)}}),
       "[5]"},
      {"StridedSlice", {F({4, 5}), Cst(I32({0})), Cst(I32({2})), Ph(DT_INT32, PartialShape({1}))}, {}, "<unknown>"},
      {"ConcatV2", {F({2, 3}), F({2, 5}), Cst(I32Scalar(-1))}, {}, "[2,8]", 2},
      {"ConcatV2", {F({2, -1}), F({-1, 5}), Cst(I32Scalar(1))}, {}, "[2,?]", 2},
      {"ConcatV2", {F({2, 3}), F({2, 5}), Ph(DT_INT32, kScalar)}, {}, "[?,?]", 2},
      {"ConcatV2", {F({2, 3}), F({3, 3}), Cst(I32Scalar(1))}, {}, "!match in every dimension but the axis 1", 2},
      {"ConcatV2", {F({2, 3}), F({2, 3, 1}), Cst(I32Scalar(0))}, {}, "!same rank", 2},
      {"ConcatV2", {F({2, 3}), F({2, 3}), Cst(I32Scalar(2))}, {}, "!out of range", 2},
      {"ConcatV2", {F(kScalar), F(kScalar), Cst(I32Scalar(0))}, {}, "!scalars", 2},
      {"Pack", {F({2, 3}), F({2, -1})}, A({{"axis", AttrValue::Int(1)}}), "[2,2,3]", 2},
      {"Pack", {F({2, 3}), F({2, 3}), F({2, 3})}, A({{"axis", AttrValue::Int(-1)}}), "[2,3,3]", 3},
      {"Pack", {F({2, 3}), F({3, 2})}, {}, "!same shape", 2},
      {"Pack", {F({2, 3}), F({2, 3})}, A({{"axis", AttrValue::Int(3)}}), "!out of range", 2},
      {"Unpack", {F({3, 4})}, A({{"num", AttrValue::Int(4)}, {"axis", AttrValue::Int(1)}}), "[3]"},
      {"Unpack", {F({3, 4})}, A({{"num", AttrValue::Int(2)}}), "!num is 2"},
      {"Split", {Cst(I32Scalar(1)), F({2, 6})}, A({{"num_split", AttrValue::Int(3)}}), "[2,2]"},
      {"Split", {Ph(DT_INT32, kScalar), F({2, 6})}, A({{"num_split", AttrValue::Int(3)}}), "[?,?]"},
      {"Split", {Cst(I32Scalar(1)), F({2, 6})}, A({{"num_split", AttrValue::Int(4)}}), "!evenly divide"},
      {"SplitV", {F({2, 6}), Cst(I32({1, -1})), Cst(I32Scalar(1))}, A({{"num_split", AttrValue::Int(2)}}), "[2,1]"},
      {"SplitV", {F({2, 6}), Cst(I32({1, 2})), Cst(I32Scalar(1))}, A({{"num_split", AttrValue::Int(2)}}), "!sum"},
      {"SplitV",
       {F({2, 6}), Cst(I32({-1, -1})), Cst(I32Scalar(1))},
       A({{"num_split", AttrValue::Int(2)}}),
       "!at most one -1"},
  });
}

// ---------------------------------------------------------------------------- kernels

namespace {

// Runs `op` on `inputs` (the first list_inputs as one list arg) and returns the status.
Status RunCase(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs, std::vector<Tensor>* outs,
               int list_inputs = 0) {
  OpTester t;
  ShapeCase c{op, {}, std::move(attrs), "", list_inputs};
  for (const Tensor& x : inputs) c.inputs.push_back(Ph(x.dtype()));
  Node* n = nullptr;
  TX_RETURN_IF_ERROR(AddCase(&t, c, &n));
  return t.Run(n, std::move(inputs), outs);
}

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

}  // namespace

TEST(TransposeKernelValues) {
  std::vector<Tensor> out;
  Tensor x = MakeTensor<float>({2, 3}, Iota(6));
  EXPECT_OK(RunCase("Transpose", {x, I32({1, 0})}, {}, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({3, 2}));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({0, 3, 1, 4, 2, 5}));
  // Large 2-D transpose (blocked, parallel) of int64, checked element by element.
  const int64_t R = 300, C = 257;
  std::vector<int64_t> big(R * C);
  for (int64_t i = 0; i < R * C; ++i) big[i] = i * 7 + 1;
  EXPECT_OK(RunCase("Transpose", {MakeTensor<int64_t>({R, C}, big), I32({1, 0})}, {}, &out));
  bool ok = out[0].shape() == TensorShape({C, R});
  for (int64_t i = 0; ok && i < R; ++i)
    for (int64_t j = 0; j < C; ++j)
      if (out[0].data<int64_t>()[j * R + i] != big[i * C + j]) ok = false;
  EXPECT_TRUE(ok);
  // bool and a 4-D permutation through the table path.
  std::vector<bool> bv = {true, false, false, true, true, true};
  Tensor b;
  EXPECT_OK(Tensor::Allocate(DT_BOOL, TensorShape({1, 2, 3, 1}), &b));
  for (int i = 0; i < 6; ++i) b.data<bool>()[i] = bv[i];
  EXPECT_OK(RunCase("Transpose", {b, I32({3, 2, 0, 1})}, {}, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({1, 3, 1, 2}));
  std::vector<bool> got(out[0].data<bool>(), out[0].data<bool>() + 6);
  EXPECT_TRUE(got == std::vector<bool>({true, true, false, true, false, true}));
  // A permutation that keeps memory order shares the input buffer.
  Tensor y = MakeTensor<float>({1, 4, 1}, Iota(4));
  EXPECT_OK(RunCase("Transpose", {y, I32({2, 1, 0})}, {}, &out));
  EXPECT_TRUE(out[0].raw_data() == y.raw_data());
}

TEST(SliceKernelValues) {
  std::vector<Tensor> out;
  Tensor x = MakeTensor<float>({3, 4}, Iota(12));
  EXPECT_OK(RunCase("Slice", {x, I32({1, 1}), I32({2, -1})}, {}, &out));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({5, 6, 7, 9, 10, 11}));
  AttrMap m = A({{"begin_mask", AttrValue::Int(0)}, {"end_mask", AttrValue::Int(2)}});
  EXPECT_OK(RunCase("StridedSlice", {x, I32({2, 3}), I32({-4, 0}), I32({-1, -2})}, m, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({3, 2}));  // x[2:-4:-1, 3::-2]
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({11, 9, 7, 5, 3, 1}));
  EXPECT_OK(
      RunCase("StridedSlice", {x, I32({-1}), I32({0}), I32({1})}, A({{"shrink_axis_mask", AttrValue::Int(1)}}), &out));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({8, 9, 10, 11}));
}

TEST(JoinSplitKernelValues) {
  std::vector<Tensor> out;
  Tensor a = MakeTensor<int32_t>({2, 2}, {1, 2, 3, 4});
  Tensor b = MakeTensor<int32_t>({2, 1}, {5, 6});
  EXPECT_OK(RunCase("ConcatV2", {a, b, I32Scalar(-1)}, A({}), &out, 2));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({1, 2, 5, 3, 4, 6}));
  EXPECT_OK(RunCase("Pack", {a, a}, A({{"axis", AttrValue::Int(1)}}), &out, 2));
  EXPECT_TRUE(out[0].shape() == TensorShape({2, 2, 2}));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({1, 2, 1, 2, 3, 4, 3, 4}));
  EXPECT_OK(RunCase("Split", {I32Scalar(1), a}, A({{"num_split", AttrValue::Int(2)}}), &out));
  EXPECT_TRUE(out.size() == 2 && Values<int32_t>(out[1]) == std::vector<int32_t>({2, 4}));
  EXPECT_OK(RunCase("SplitV", {MakeTensor<int32_t>({5}, {1, 2, 3, 4, 5}), I32({-1, 3}), I32Scalar(0)},
                    A({{"num_split", AttrValue::Int(2)}}), &out));
  EXPECT_TRUE(Values<int32_t>(out[0]) == std::vector<int32_t>({1, 2}));
  EXPECT_OK(RunCase("Unpack", {a}, A({{"num", AttrValue::Int(2)}, {"axis", AttrValue::Int(-1)}}), &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({2}) && Values<int32_t>(out[0]) == std::vector<int32_t>({1, 3}));
}

TEST(PadTileReverseKernelValues) {
  std::vector<Tensor> out;
  Tensor x = MakeTensor<double>({3}, {1, 2, 3});
  EXPECT_OK(RunCase("PadV2", {x, I32Mat(1, {2, 1}), MakeTensor<double>({}, {9})}, {}, &out));
  EXPECT_TRUE(Values<double>(out[0]) == std::vector<double>({9, 9, 1, 2, 3, 9}));
  EXPECT_OK(RunCase("MirrorPad", {x, I32Mat(1, {2, 2})}, A({{"mode", AttrValue::String("REFLECT")}}), &out));
  EXPECT_TRUE(Values<double>(out[0]) == std::vector<double>({3, 2, 1, 2, 3, 2, 1}));
  EXPECT_OK(RunCase("MirrorPad", {x, I32Mat(1, {3, 1})}, A({{"mode", AttrValue::String("SYMMETRIC")}}), &out));
  EXPECT_TRUE(Values<double>(out[0]) == std::vector<double>({3, 2, 1, 1, 2, 3, 3}));
  EXPECT_OK(RunCase("Tile", {x, I32({2})}, {}, &out));
  EXPECT_TRUE(Values<double>(out[0]) == std::vector<double>({1, 2, 3, 1, 2, 3}));
  EXPECT_OK(RunCase("ReverseV2", {x, I32({0})}, {}, &out));
  EXPECT_TRUE(Values<double>(out[0]) == std::vector<double>({3, 2, 1}));
  EXPECT_OK(RunCase("BroadcastTo", {x, I32({2, 3})}, {}, &out));
  EXPECT_TRUE(Values<double>(out[0]) == std::vector<double>({1, 2, 3, 1, 2, 3}));
  EXPECT_OK(RunCase("ExpandDims", {x, I32Scalar(-1)}, {}, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({3, 1}) && out[0].raw_data() == x.raw_data());
  EXPECT_OK(RunCase("Squeeze", {out[0]}, {}, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({3}));
}

TEST(KernelErrorPaths) {
  std::vector<Tensor> out;
  Tensor x = MakeTensor<float>({2, 3}, Iota(6));
  EXPECT_ERROR(RunCase("Transpose", {x, I32({0, 5})}, {}, &out), "out of range");
  EXPECT_ERROR(RunCase("Transpose", {x, MakeTensor<int32_t>({1, 2}, {1, 0})}, {}, &out), "1-D");
  EXPECT_ERROR(RunCase("Slice", {x, I32({0, 2}), I32({1, 2})}, {}, &out), "size[1]");
  EXPECT_ERROR(RunCase("Slice", {x, I32({-1, 0}), I32({1, 1})}, {}, &out), "begin[0]");
  EXPECT_ERROR(RunCase("StridedSlice", {x, I32({0}), I32({1}), I32({0})}, {}, &out), "non-zero");
  EXPECT_ERROR(
      RunCase("StridedSlice", {x, I32({-3}), I32({0}), I32({1})}, A({{"shrink_axis_mask", AttrValue::Int(1)}}), &out),
      "out of bounds");
  EXPECT_ERROR(RunCase("Tile", {x, I32({1 << 30, 1 << 30})}, {}, &out), "");
  EXPECT_ERROR(RunCase("Tile", {x, MakeTensor<int64_t>({2}, {int64_t{1} << 62, 4})}, {}, &out), "too large");
  EXPECT_ERROR(RunCase("BroadcastTo", {x, MakeTensor<int64_t>({3}, {int64_t{1} << 40, int64_t{1} << 40, 3})}, {}, &out),
               "");
  EXPECT_ERROR(RunCase("Pad", {x, MakeTensor<int64_t>({2, 2}, {0, int64_t{1} << 62, 0, int64_t{1} << 62})}, {}, &out),
               "");
  EXPECT_ERROR(RunCase("Pad", {x, I32Mat(3, {0, 0, 0, 0, 0, 0})}, {}, &out), "[2, 2]");
  EXPECT_ERROR(RunCase("ConcatV2", {x, MakeTensor<float>({3, 3}, Iota(9)), I32Scalar(1)}, A({}), &out, 2),
               "match in every dimension");
  EXPECT_ERROR(RunCase("ConcatV2", {x, x, I32({1})}, A({}), &out, 2), "scalar");
  EXPECT_ERROR(RunCase("Split", {I32Scalar(1), x}, A({{"num_split", AttrValue::Int(2)}}), &out), "evenly");
  EXPECT_ERROR(RunCase("SplitV", {x, I32({4, -1}), I32Scalar(1)}, A({{"num_split", AttrValue::Int(2)}}), &out),
               "more than");
  EXPECT_ERROR(RunCase("Unpack", {x}, A({{"num", AttrValue::Int(3)}}), &out), "num is 3");
  EXPECT_ERROR(RunCase("Pack", {x, MakeTensor<float>({3, 2}, Iota(6))}, A({}), &out, 2), "same shape");
  EXPECT_ERROR(RunCase("ReverseV2", {x, I32({1, 1})}, {}, &out), "more than once");
  EXPECT_ERROR(RunCase("ExpandDims", {x, I32Scalar(-4)}, {}, &out), "out of range");
  EXPECT_ERROR(RunCase("Squeeze", {x}, A({{"squeeze_dims", Ints({0})}}), &out), "squeeze dim[0]");
  EXPECT_ERROR(RunCase("MirrorPad", {x, I32Mat(2, {0, 0, 3, 0})}, A({{"mode", AttrValue::String("REFLECT")}}), &out),
               "less than");
  EXPECT_ERROR(RunCase("Transpose", {x, MakeTensor<float>({2}, {1, 0})}, {}, &out), "");
}

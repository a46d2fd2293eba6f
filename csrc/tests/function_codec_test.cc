// Tests of FunctionDef serialization, validation and the FunctionLibrary: canonical round trips
// of every field, malformed bytes never crash, conflicting definitions, graph ownership.
#include <random>

#include "function_test_util.h"
#include "tensorflux/framework/graph_def_io.h"
#include "tensorflux/framework/proto_wire.h"

using namespace fn_test;

namespace {

// A function using every FunctionDef field.
FunctionDef FullFunction() {
  FunctionDef f = MulAddFunction("full");
  AttrDef t;
  t.name = "T";
  t.type = "type";
  t.has_default = true;
  t.default_value = AttrValue::Type(DT_FLOAT);
  t.description = "element type";
  f.signature.attr.push_back(t);
  f.signature.input_arg[1].type = DT_INVALID;
  f.signature.input_arg[1].type_attr = "T";
  f.signature.input_arg[0].unknown_fields = std::string("\x8a\x01\x02\x08\x01", 5);  // field 17, kept verbatim
  f.signature.description = "x * y + x";
  f.signature.is_stateful = true;
  f.signature.control_output = {"side"};
  f.node_def.push_back(ND("side", "NoOp", {"^mul"}));
  f.node_def.back().device = "/device:CPU:0";
  f.node_def.back().unknown_fields = std::string("\x32\x03\x0a\x01\x61", 5);  // experimental_debug_info
  f.control_ret["side"] = "side";
  f.attr["_noinline"] = AttrValue::Bool(true);
  f.arg_attr[0]["_user_specified_name"] = AttrValue::String("x");
  f.arg_attr[1] = {};
  f.resource_arg_unique_id[0] = 7;
  return f;
}

}  // namespace

TEST(FunctionDefRoundTripsCanonically) {
  const FunctionDef f = FullFunction();
  EXPECT_OK(ValidateFunctionDef(f));
  const std::string bytes = SerializeFunctionDef(f);
  FunctionDef back;
  EXPECT_OK(ParseFunctionDef(bytes, &back));
  EXPECT_EQ(SerializeFunctionDef(back), bytes);
  EXPECT_EQ(back.name(), std::string("full"));
  EXPECT_EQ(back.signature.input_arg[1].type_attr, std::string("T"));
  EXPECT_TRUE(back.signature.attr.size() == 1 && back.signature.attr[0].default_value.type == DT_FLOAT);
  EXPECT_TRUE(back.signature.is_stateful && back.signature.control_output == std::vector<std::string>{"side"});
  EXPECT_EQ(back.node_def.size(), 3u);
  EXPECT_EQ(back.node_def[2].device, std::string("/device:CPU:0"));
  EXPECT_EQ(back.ret.at("out"), std::string("add:z:0"));
  EXPECT_EQ(back.control_ret.at("side"), std::string("side"));
  EXPECT_TRUE(back.arg_attr.at(0).at("_user_specified_name").s == "x" && back.arg_attr.at(1).empty());
  EXPECT_EQ(back.resource_arg_unique_id.at(0), 7u);
  EXPECT_TRUE(back.attr.at("_noinline").b);
}

TEST(MalformedFunctionDefsNeverCrash) {
  const std::string valid = SerializeFunctionDef(FullFunction());
  int ok = 0, failed = 0;
  auto check = [&](const std::string& b) {
    FunctionDef f;
    if (ParseFunctionDef(b, &f).ok()) {
      ++ok;
      FunctionDef again;  // whatever parses re-serializes to something that parses
      EXPECT_OK(ParseFunctionDef(SerializeFunctionDef(f), &again));
      (void)ValidateFunctionDef(f);
    } else {
      ++failed;
    }
  };
  for (size_t n = 0; n < valid.size(); ++n) check(valid.substr(0, n));
  std::mt19937 rng(7);
  for (int iter = 0; iter < 5000; ++iter) {
    std::string b = valid;
    b[rng() % b.size()] = static_cast<char>(rng());
    check(b);
  }
  EXPECT_TRUE(ok > 0 && failed > 0);
  FunctionDef f;
  EXPECT_ERROR(ParseFunctionDef(std::string("\x0a\x05\x0a\x03", 4), &f), "malformed FunctionDef");
}

TEST(ValidationNamesTheProblem) {
  FunctionDef f = MulAddFunction();
  f.signature.name = "";
  EXPECT_ERROR(ValidateFunctionDef(f), "is not a valid function name");
  f = MulAddFunction();
  f.node_def[1].input[0] = "nope:z:0";
  EXPECT_ERROR(ValidateFunctionDef(f),
               "function 'mul_add': [add] input 'nope:z:0' names no input argument or body node");
  f = MulAddFunction();
  f.node_def[1].input[0] = "mul:z:x";
  EXPECT_ERROR(ValidateFunctionDef(f), "malformed tensor name 'mul:z:x'");
  f = MulAddFunction();
  f.ret.clear();
  EXPECT_ERROR(ValidateFunctionDef(f), "output argument 'out' has no ret entry");
  f = MulAddFunction();
  f.node_def.push_back(ND("x", "NoOp", {}));
  EXPECT_ERROR(ValidateFunctionDef(f), "body node 'x' has the name of an input argument");
  f = MulAddFunction();
  f.control_ret["c"] = "missing";
  EXPECT_ERROR(ValidateFunctionDef(f), "control_ret 'c' names 'missing', which is no body node");
  f = MulAddFunction();
  f.signature.input_arg.push_back(Arg("x", DT_FLOAT));
  EXPECT_ERROR(ValidateFunctionDef(f), "two input arguments are named 'x'");
}

TEST(LibraryAddsOnceAndRefusesConflicts) {
  FunctionLibrary lib;
  EXPECT_OK(lib.Add(MulAddFunction()));
  EXPECT_OK(lib.Add(MulAddFunction()));  // identical: no-op
  EXPECT_EQ(lib.size(), 1);
  FunctionDef other = MulAddFunction();
  other.node_def[1].op = "Sub";
  EXPECT_ERROR(lib.Add(other), "cannot add function 'mul_add': the library already has a different function");
  EXPECT_ERROR(lib.Add(MulAddFunction("MatMul")), "an op of that name is registered");
  // MergeFrom is all or nothing.
  FunctionDefLibraryProto proto;
  proto.function = {MulAddFunction("fresh"), other};
  EXPECT_ERROR(lib.MergeFrom(proto), "different function");
  EXPECT_TRUE(lib.Find("fresh") == nullptr);
  proto.function = {MulAddFunction("fresh"), MulAddFunction("fresh2")};
  proto.gradient = {{"fresh", "fresh2"}};
  FunctionLibrary::Added added;
  EXPECT_OK(lib.MergeFrom(proto, &added));
  EXPECT_EQ(lib.FindGradient("fresh"), std::string("fresh2"));
  EXPECT_EQ(lib.AddGradient("fresh", "other").code(), Code::kInvalidArgument);
  lib.Remove(added);
  EXPECT_TRUE(lib.Find("fresh") == nullptr && lib.FindGradient("fresh").empty() && lib.Find("mul_add") != nullptr);
  // The serialized library parses back to the same functions.
  EXPECT_OK(lib.Add(FullFunction()));
  FunctionDefLibraryProto back;
  EXPECT_OK(ParseFunctionDefLibrary(lib.Serialize(), &back));
  EXPECT_EQ(back.function.size(), 2u);
  EXPECT_EQ(SerializeFunctionDef(back.function[0]), SerializeFunctionDef(FullFunction()));
}

TEST(GraphExportCarriesTheLibrary) {
  Graph g;
  EXPECT_OK(g.library().Add(MulAddFunction()));
  std::string bytes;
  EXPECT_OK(ExportGraphDef(g, &bytes));
  Graph h;
  EXPECT_OK(ImportGraphDef(bytes, ImportOptions(), &h, nullptr));
  EXPECT_TRUE(h.library().Find("mul_add") != nullptr);
  EXPECT_EQ(h.library().Serialize(), g.library().Serialize());
}

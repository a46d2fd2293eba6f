// Tests of the string, regex, file and printing ops in the engine: shape functions (a table),
// kernels on representative inputs, and kernel error paths. Values against TensorFlow and Python
// are checked by core/tests/test_strings*.py and the conformance table.
#include <cstdio>
#include <string>
#include <vector>

#include "op_test_util.h"
#include "test_util.h"
#include "tensorflux/core/tstring.h"
#include "tensorflux/lib/regex.h"
#include "tensorflux/lib/string_hash.h"

using namespace tx;
using namespace tx_test;

namespace {

const PartialShape kScalar = PartialShape::Scalar();
InputSpec S(PartialShape s) { return Ph(DT_STRING, std::move(s)); }
InputSpec I(PartialShape s) { return Ph(DT_INT32, std::move(s)); }

Tensor Strings(const TensorShape& shape, const std::vector<std::string>& v) {
  std::vector<TString> s;
  for (const std::string& x : v) s.emplace_back(x);
  return MakeTensor<TString>(shape, s);
}
Tensor Str(const std::string& s) { return Strings({}, {s}); }

std::vector<std::string> StrValues(const Tensor& t) {
  std::vector<std::string> out;
  for (const TString& s : Values<TString>(t)) out.push_back(s.str());
  return out;
}

AttrMap A(std::initializer_list<std::pair<const std::string, AttrValue>> kv) { return AttrMap(kv); }

}  // namespace

TEST(StringShapeFunctions) {
  const std::vector<ShapeTableRow> rows = {
      {"StringLength", {S({2, 3})}, {}, "[2,3]"},
      {"StringStrip", {S(PartialShape())}, {}, "<unknown>"},
      {"StringSplitV2", {S({4}), S(kScalar)}, {}, "[?,2]"},
      {"StringSplitV2", {S({4, 1}), S(kScalar)}, {}, "!input"},
      {"StringSplitV2", {S({4}), S({1})}, {}, "!sep"},
      {"Substr", {S({2, 3}), I({3}), I({3})}, {}, "[2,3]"},
      {"Substr", {S({2, 3}), I(kScalar), I(kScalar)}, {}, "[2,3]"},
      {"Substr", {S({3}), I({2}), I({3})}, {}, "!pos and len shapes must match"},
      {"Substr", {S({3}), I({2}), I({2})}, {}, "!incompatible shapes"},
      {"ReduceJoin", {S({2, 3}), Cst(MakeTensor<int32_t>({1}, {1}))}, {}, "[2]"},
      {"ReduceJoin",
       {S({2, 3}), Cst(MakeTensor<int32_t>({1}, {-1}))},
       A({{"keep_dims", AttrValue::Bool(true)}}),
       "[2,1]"},
      {"ReduceJoin", {S({2, 3}), I({1})}, {}, "<unknown>"},
      {"DecodeRaw", {S({5})}, A({{"out_type", AttrValue::Type(DT_INT16)}}), "[5,?]"},
      {"RegexReplace", {S({2}), S(kScalar), S(kScalar)}, {}, "[2]"},
      {"RegexReplace", {S({2}), S({1}), S(kScalar)}, {}, "!pattern"},
      {"RegexFullMatch", {S({2}), S({2})}, {}, "!pattern"},
      {"ReadFile", {S(kScalar)}, {}, "[]"},
      {"ReadFile", {S({2})}, {}, "!filename"},
      {"StringToNumber", {S({7})}, A({{"out_type", AttrValue::Type(DT_INT64)}}), "[7]"},
  };
  EXPECT_EQ(CheckShapeTable(rows), 0);
}

TEST(StringJoinValues) {
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_OK(RunOpWithList(&t, "StringJoin", {Strings({2}, {"a", "b"}), Str("-")}, 2,
                          {{"separator", AttrValue::String("/")}}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({"a/-", "b/-"}));
  EXPECT_ERROR(RunOpWithList(&t, "StringJoin", {Strings({2}, {"a", "b"}), Strings({3}, {"x", "y", "z"})}, 2, {}, &out),
               "Input shapes do not match");
}

TEST(StringKernelErrors) {
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_ERROR(t.RunOp("StringToNumber", {Str("abc")}, {{"out_type", AttrValue::Type(DT_FLOAT)}}, &out),
               "StringToNumberOp could not correctly convert string: abc");
  EXPECT_ERROR(t.RunOp("StringToNumber", {Str("99999999999")}, {{"out_type", AttrValue::Type(DT_INT32)}}, &out),
               "could not correctly convert string: 99999999999");
  EXPECT_ERROR(t.RunOp("Substr", {Str("hello"), MakeTensor<int32_t>({}, {10}), MakeTensor<int32_t>({}, {2})}, {}, &out),
               "pos 10 out of range for string b'hello' at index 0");
  EXPECT_ERROR(t.RunOp("StaticRegexFullMatch", {Str("a")}, {{"pattern", AttrValue::String("(")}}, &out),
               "Invalid pattern: (, error: missing ): (");
  EXPECT_ERROR(t.RunOp("RegexReplace", {Str("a"), Str("a**"), Str("")}, {}, &out),
               "Invalid pattern: a**, error: bad repetition operator: **");
  EXPECT_ERROR(t.RunOp("DecodeBase64", {Str("a")}, {}, &out), "Base64 string length cannot be 1 modulo 4.");
  EXPECT_ERROR(t.RunOp("DecodeBase64", {Str("+/")}, {}, &out), "Invalid character found in base64.");
  EXPECT_ERROR(t.RunOp("DecodeRaw", {Strings({2}, {"ab", "abc"})}, {{"out_type", AttrValue::Type(DT_UINT8)}}, &out),
               "element 1 has size 3 != 2");
  EXPECT_ERROR(t.RunOp("ReadFile", {Str("/nonexistent/tensorflux/file")}, {}, &out), "No such file");
  EXPECT_ERROR(t.RunOp("ReduceJoin", {Strings({2}, {"a", "b"}), MakeTensor<int32_t>({1}, {3})}, {}, &out),
               "Invalid reduction dimension 3");
  EXPECT_ERROR(t.RunOp("AsString", {MakeTensor<float>({1}, {1.5f})}, {{"fill", AttrValue::String("x")}}, &out),
               "Fill argument not supported");
}

TEST(StringKernelValues) {
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_OK(t.RunOp("StringSplitV2", {Strings({2}, {"a b  c", ""}), Str("")}, {}, &out));
  EXPECT_TRUE(StrValues(out[1]) == std::vector<std::string>({"a", "b", "c"}));
  EXPECT_TRUE(Values<int64_t>(out[2]) == std::vector<int64_t>({2, 3}));
  EXPECT_OK(t.RunOp("ReduceJoin", {Strings({2, 2}, {"a", "b", "c", "d"}), MakeTensor<int32_t>({2}, {0, 1})}, {}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({"acbd"}));
  EXPECT_OK(t.RunOp("StaticRegexReplace", {Strings({2}, {"aaa", "xyz"})},
                    {{"pattern", AttrValue::String("a*?")}, {"rewrite", AttrValue::String("-")}}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({"-a-a-a-", "-x-y-z-"}));
  EXPECT_OK(t.RunOp("EncodeBase64", {Str("hello?>")}, {{"pad", AttrValue::Bool(true)}}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({"aGVsbG8_Pg=="}));
  EXPECT_OK(t.RunOp("AsString", {MakeTensor<float>({2}, {1.5f, 2.25f})},
                    {{"precision", AttrValue::Int(3)}, {"width", AttrValue::Int(8)}, {"fill", AttrValue::String("0")}},
                    &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({"0001.500", "0002.250"}));
  EXPECT_OK(t.RunOp("Equal", {Strings({2}, {"a", "b"}), Str("b")}, {}, &out));
  EXPECT_TRUE(!out[0].data<bool>()[0] && out[0].data<bool>()[1]);
  EXPECT_OK(t.RunOp("Add", {Strings({2}, {"a", "b"}), Str("!")}, {}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({"a!", "b!"}));
  EXPECT_OK(RunOpWithList(&t, "StringFormat", {MakeTensor<int32_t>({5}, {1, 2, 3, 4, 5}), Str("s")}, 2,
                          {{"template", AttrValue::String("x={} y={}")},
                           {"placeholder", AttrValue::String("{}")},
                           {"summarize", AttrValue::Int(2)}},
                          &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({"x=[1 2 ... 4 5] y=\"s\""}));
}

TEST(RegexEngineIsLinearAndBounded) {
  std::string error;
  // Exponential for backtracking engines; one pass here.
  auto re = regex::Regex::Compile("(a*)*b", &error);
  EXPECT_TRUE(re != nullptr);
  EXPECT_TRUE(!re->FullMatch(std::string(100000, 'a')));
  // Nesting beyond RE2's limit, and programs beyond the size budget, fail to compile.
  EXPECT_TRUE(regex::Regex::Compile(std::string(1001, '(') + std::string(1001, ')'), &error) == nullptr);
  EXPECT_TRUE(error.find("nests too deeply") != std::string::npos);
  EXPECT_TRUE(regex::Regex::Compile("((a{1000}){1000}){1000}", &error) == nullptr);
  EXPECT_TRUE(regex::Regex::Compile("\\1", &error) == nullptr && error == "invalid escape sequence: \\1");
}

TEST(StringHashesKnownValues) {
  // Bucket values TensorFlow 2.21 computes (tf.strings.to_hash_bucket_*, 1000 buckets).
  EXPECT_EQ(strhash::Fingerprint64("hello world", 11) % 1000, 11u);
  EXPECT_EQ(strhash::Hash64("hello world", 11) % 1000, 655u);
  EXPECT_EQ(strhash::SipHash24(1, 2, "hello world", 11) % 1000, 446u);
  EXPECT_EQ(strhash::Fingerprint64("", 0) % 1000, 263u);
}

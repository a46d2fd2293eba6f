// Tests of object element types (Note [Object element types]): TString itself, buffers that
// construct and destroy their elements, the TensorProto string codec, and the data-movement
// kernels on strings. A counting object type registered on an otherwise unused dtype checks that
// the generic mechanism copies through ObjectElementOps (a memcpy would break its self pointer)
// and destroys every element it constructs.
#include <string>
#include <vector>

#include "op_test_util.h"
#include "test_util.h"
#include "tensorflux/core/object_types.h"
#include "tensorflux/core/tstring.h"
#include "tensorflux/framework/proto_codec.h"

using namespace tx;
using namespace tx_test;

namespace {

// An element that is valid only at its own address: memcpy'd copies are detected.
struct Tracked {
  const Tracked* self;
  int64_t value;
};
int64_t g_live = 0, g_bad = 0;

void ConstructTracked(void* p, int64_t n) {
  Tracked* t = static_cast<Tracked*>(p);
  for (int64_t i = 0; i < n; ++i) t[i] = {&t[i], 0};
  g_live += n;
}
void DestroyTracked(void* p, int64_t n) {
  Tracked* t = static_cast<Tracked*>(p);
  for (int64_t i = 0; i < n; ++i) g_bad += t[i].self != &t[i];
  g_live -= n;
}
void CopyTracked(const void* src, void* dst, int64_t n) {
  const Tracked* s = static_cast<const Tracked*>(src);
  Tracked* d = static_cast<Tracked*>(dst);
  for (int64_t i = 0; i < n; ++i) {
    g_bad += s[i].self != &s[i] || d[i].self != &d[i];
    d[i].value = s[i].value;
  }
}
const ObjectElementOps kTrackedOps = {sizeof(Tracked), ConstructTracked, DestroyTracked, CopyTracked};
constexpr DataType kTrackedType = DT_QUINT16;  // no kernel or op uses it in this binary
TX_REGISTER_OBJECT_ELEMENT_TYPE(kTrackedType, kTrackedOps);

Tensor Strings(const TensorShape& shape, const std::vector<std::string>& v) {
  std::vector<TString> s;
  for (const std::string& x : v) s.emplace_back(x);
  return MakeTensor<TString>(shape, s);
}

std::vector<std::string> StrValues(const Tensor& t) {
  std::vector<std::string> out;
  for (const TString& s : Values<TString>(t)) out.push_back(s.str());
  return out;
}

Tensor I32(std::vector<int32_t> v) { return MakeTensor<int32_t>({static_cast<int64_t>(v.size())}, v); }
Tensor I32Scalar(int32_t v) { return MakeTensor<int32_t>({}, {v}); }

// Long enough to live on the heap, so a shallow copy would share (and double-free) it.
std::string Long(const std::string& tag) { return tag + std::string(40, '.') + tag; }

}  // namespace

TEST(TStringRepresentations) {
  TString e;
  EXPECT_TRUE(e.type() == TString::kSmall && e.size() == 0 && e.data()[0] == '\0');
  TString small("hello", 5);
  EXPECT_TRUE(small.type() == TString::kSmall && small.view() == "hello");
  const std::string big(100, 'x');
  TString large(big);
  EXPECT_TRUE(large.type() == TString::kLarge && large.view() == big && large.data()[100] == '\0');
  EXPECT_TRUE(large.capacity() >= 100);
  std::string with_nul("a\0b", 3);
  TString n(with_nul);
  EXPECT_TRUE(n.size() == 3 && n.view() == with_nul);
  const char kBytes[] = "viewed bytes";
  TString v;
  v.AssignView(kBytes, 6);
  EXPECT_TRUE(v.type() == TString::kView && v.data() == kBytes && v.view() == "viewed");
  TString copy(v);  // copying a view owns the bytes
  EXPECT_TRUE(copy.type() == TString::kSmall && copy.view() == "viewed" && copy.data() != kBytes);
  TString moved(std::move(large));
  EXPECT_TRUE(moved.view() == big && large.empty());
  // Assigning a part of itself, and appending itself, stay correct.
  moved.Assign(moved.data() + 90, 10);
  EXPECT_TRUE(moved.view() == std::string(10, 'x'));
  TString grow("ab", 2);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(grow.Append(grow.view()));
  EXPECT_TRUE(grow.size() == 64 && grow.view().substr(60) == "abab");
  EXPECT_TRUE(grow.ResizeUninitialized(3) != nullptr && grow.view() == "aba");
  TString s22(std::string(22, 'z')), s23(std::string(23, 'z'));
  EXPECT_TRUE(s22.type() == TString::kSmall && s23.type() == TString::kLarge);
  EXPECT_TRUE(TString("a", 1) < TString("b", 1) && TString("a", 1) == TString(std::string("a")));
  // Zeroed memory is the empty string (as in TensorFlow's layout).
  alignas(8) unsigned char zero[sizeof(TString)] = {};
  EXPECT_TRUE(reinterpret_cast<TString*>(zero)->size() == 0);
}

// Assign of every short size (inline while a SMALL string stays SMALL), onto SMALL, LARGE and
// VIEW strings, from outside and from inside the string itself (forwards and backwards).
TEST(TStringAssignEverySize) {
  const std::string bytes = "0123456789abcdefghijklmnopqrstuvwxyz";
  for (size_t n = 0; n <= 30; ++n) {
    const std::string want = bytes.substr(3, n);
    for (int target = 0; target < 3; ++target) {
      TString t;
      if (target == 1) t = TString(std::string(50, 'L'));
      if (target == 2) t.AssignView(bytes.data(), 7);
      EXPECT_TRUE(t.Assign(want.data(), n));
      EXPECT_TRUE(t.view() == want && t.data()[n] == '\0');
      EXPECT_TRUE(t.type() == (n <= TString::kSmallCapacity && target != 1 ? TString::kSmall : TString::kLarge) ||
                  (target == 1 && t.type() == TString::kLarge));
    }
    for (size_t from = 0; from + n <= 22; ++from) {  // a part of itself, overlapping
      TString t(bytes.substr(0, 22));
      EXPECT_TRUE(t.Assign(t.data() + from, n));
      EXPECT_TRUE(t.view() == bytes.substr(from, n) && t.data()[n] == '\0');
    }
  }
}

TEST(ObjectBuffersConstructCopyAndDestroy) {
  EXPECT_TRUE(DataTypeSize(DT_STRING) == sizeof(TString) && IsSupportedStorageType(DT_STRING));
  EXPECT_TRUE(ObjectOpsFor(DT_FLOAT) == nullptr && ObjectOpsFor(DT_STRING) != nullptr);
  {
    Tensor t;
    EXPECT_OK(Tensor::Allocate(kTrackedType, TensorShape({2, 3}), &t));
    EXPECT_EQ(g_live, 6);
    for (int i = 0; i < 6; ++i) t.data<Tracked>()[i].value = i * 10;
    Tensor c;
    EXPECT_OK(DeepCopyTensor(t, &c));
    EXPECT_EQ(g_live, 12);
    EXPECT_TRUE(c.data<Tracked>()[5].value == 50 && c.raw_data() != t.raw_data());
    Tensor shared = t.Reshaped(TensorShape({6}));  // shares: nothing constructed
    EXPECT_EQ(g_live, 12);
  }
  EXPECT_EQ(g_live, 0);
  EXPECT_EQ(g_bad, 0);
  Tensor s = Strings({2}, {"a", Long("b")});
  Tensor c;
  EXPECT_OK(DeepCopyTensor(s, &c));
  EXPECT_TRUE(StrValues(c) == StrValues(s) && c.data<TString>()[1].data() != s.data<TString>()[1].data());
}

TEST(ObjectElementsMoveThroughArrayKernels) {
  // The tracked type has no kernels; the generic helpers the kernels use are exercised directly.
  Tensor in;
  EXPECT_OK(Tensor::Allocate(kTrackedType, TensorShape({4}), &in));
  for (int i = 0; i < 4; ++i) in.data<Tracked>()[i].value = i + 1;
  Tensor out;
  EXPECT_OK(Tensor::Allocate(kTrackedType, TensorShape({3}), &out));
  const int64_t index[] = {3, -1, 0};
  GatherElements(kTrackedType, in.raw_data(), index, 3, out.raw_data(), nullptr);
  EXPECT_TRUE(out.data<Tracked>()[0].value == 4 && out.data<Tracked>()[1].value == 0 &&
              out.data<Tracked>()[2].value == 1);
  CopyElements(kTrackedType, in.raw_data(), out.raw_data(), 3);
  EXPECT_TRUE(out.data<Tracked>()[2].value == 3);
  EXPECT_EQ(g_bad, 0);
}

TEST(StringTensorProtoRoundTrip) {
  Tensor t = Strings({2, 2}, {"", "a\0b", Long("x"), "\xff\xfe"});
  t.data<TString>()[1].Assign(std::string("a\0b", 3));
  wire::Writer w;
  codec::EncodeTensor(t, &w);
  wire::Reader r(w.data());
  Tensor back;
  EXPECT_OK(codec::DecodeTensor(r, &back));
  EXPECT_TRUE(back.dtype() == DT_STRING && back.shape() == t.shape() && StrValues(back) == StrValues(t));
  // Fewer string_val entries than elements repeat the last; none gives empty strings.
  wire::Writer p;
  p.WriteInt32Field(1, DT_STRING);
  wire::Writer shape, dim;
  dim.WriteInt64Field(1, 3);
  shape.WriteBytesField(2, dim.data());
  p.WriteBytesField(2, shape.data());
  wire::Writer empty = p;
  p.WriteBytesField(8, "q");
  wire::Reader rp(p.data());
  EXPECT_OK(codec::DecodeTensor(rp, &back));
  EXPECT_TRUE(StrValues(back) == std::vector<std::string>({"q", "q", "q"}));
  wire::Reader re(empty.data());
  EXPECT_OK(codec::DecodeTensor(re, &back));
  EXPECT_TRUE(StrValues(back) == std::vector<std::string>({"", "", ""}));
  // tensor_content in TensorFlow's string-list encoding: varint lengths, then the bytes.
  wire::Writer c = empty;
  c.WriteBytesField(4,
                    std::string("\x02\x00\x01"
                                "abz",
                                6));
  wire::Reader rc(c.data());
  EXPECT_OK(codec::DecodeTensor(rc, &back));
  EXPECT_TRUE(StrValues(back) == std::vector<std::string>({"ab", "", "z"}));
  wire::Writer bad = empty;
  bad.WriteBytesField(4,
                      std::string("\x02\x00\x05"
                                  "abz",
                                  6));
  wire::Reader rb(bad.data());
  EXPECT_ERROR(codec::DecodeTensor(rb, &back), "shorter than its lengths");
  wire::Writer extra = empty;
  extra.WriteBytesField(4,
                        std::string("\x01\x00\x01"
                                    "abzz",
                                    7));
  wire::Reader rx(extra.data());
  EXPECT_ERROR(codec::DecodeTensor(rx, &back), "past its strings");
  wire::Writer many = empty;
  for (int i = 0; i < 4; ++i) many.WriteBytesField(8, "v");
  wire::Reader rm(many.data());
  EXPECT_ERROR(codec::DecodeTensor(rm, &back), "holds only 3");
}

TEST(StringKernelsMoveElements) {
  OpTester t;
  std::vector<Tensor> out;
  const Tensor x = Strings({2, 3}, {"a", Long("b"), "c", Long("d"), "e", Long("f")});
  EXPECT_OK(t.RunOp("Transpose", {x, I32({1, 0})}, {}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({"a", Long("d"), Long("b"), "e", "c", Long("f")}));
  EXPECT_OK(t.RunOp("Slice", {x, I32({0, 1}), I32({2, 2})}, {}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({Long("b"), "c", "e", Long("f")}));
  EXPECT_OK(t.RunOp("Tile", {Strings({2}, {"p", Long("q")}), I32({2})}, {}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({"p", Long("q"), "p", Long("q")}));
  EXPECT_OK(t.RunOp("ReverseV2", {x, I32({1})}, {}, &out));
  EXPECT_TRUE(StrValues(out[0])[0] == "c" && StrValues(out[0])[5] == Long("d"));
  EXPECT_OK(t.RunOp("PadV2", {Strings({1}, {"m"}), MakeTensor<int32_t>({1, 2}, {1, 2}), Strings({}, {Long("pad")})}, {},
                    &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({Long("pad"), "m", Long("pad"), Long("pad")}));
  EXPECT_OK(t.RunOp("Pad", {Strings({1}, {"m"}), MakeTensor<int32_t>({1, 2}, {1, 0})}, {}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({"", "m"}));
  EXPECT_OK(t.RunOp("GatherV2", {x, I32({2, 0}), I32Scalar(1)}, {}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({"c", "a", Long("f"), Long("d")}));
  EXPECT_OK(t.RunOp("GatherNd", {x, MakeTensor<int32_t>({2, 2}, {1, 1, 0, 1})}, {}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({"e", Long("b")}));
  EXPECT_OK(t.RunOp("Fill", {I32({3}), Strings({}, {Long("v")})}, {}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>(3, Long("v")));
  EXPECT_OK(t.RunOp("ZerosLike", {x}, {}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>(6, ""));
  EXPECT_OK(t.RunOp("Snapshot", {x}, {}, &out));
  EXPECT_TRUE(StrValues(out[0]) == StrValues(x) && out[0].raw_data() != x.raw_data());
  const Tensor cond = MakeTensor<bool>({3}, {true, false, true});
  EXPECT_OK(t.RunOp("SelectV2", {cond, Strings({3}, {"t0", "t1", Long("t2")}), Strings({}, {Long("e")})}, {}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({"t0", Long("e"), Long("t2")}));
  EXPECT_OK(
      t.RunOp("Split", {I32Scalar(1), Strings({1, 2}, {"l", Long("r")})}, {{"num_split", AttrValue::Int(2)}}, &out));
  EXPECT_TRUE(out.size() == 2 && StrValues(out[1]) == std::vector<std::string>({Long("r")}));
  EXPECT_OK(t.RunOp("Unpack", {x}, {{"num", AttrValue::Int(2)}}, &out));
  EXPECT_TRUE(StrValues(out[1]) == std::vector<std::string>({Long("d"), "e", Long("f")}));
  EXPECT_OK(t.RunOp("BroadcastTo", {Strings({1, 2}, {"u", Long("w")}), I32({2, 2})}, {}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({"u", Long("w"), "u", Long("w")}));
  // The inputs are untouched (no shallow copy was freed under them).
  EXPECT_TRUE(StrValues(x) == std::vector<std::string>({"a", Long("b"), "c", Long("d"), "e", Long("f")}));
}

TEST(StringListKernels) {
  OpTester t;
  std::vector<Tensor> out;
  const Tensor a = Strings({1, 2}, {"a", Long("b")}), b = Strings({1, 1}, {Long("c")});
  EXPECT_OK(RunOpWithList(&t, "ConcatV2", {a, b, I32Scalar(1)}, 2, {}, &out));
  EXPECT_TRUE(StrValues(out[0]) == std::vector<std::string>({"a", Long("b"), Long("c")}));
  EXPECT_OK(RunOpWithList(&t, "Pack", {a, a}, 2, {{"axis", AttrValue::Int(0)}}, &out));
  EXPECT_TRUE(out[0].shape() == TensorShape({2, 1, 2}) && StrValues(out[0])[3] == Long("b"));
}

TEST(ValidateCallerStrings) {
  Tensor t = Strings({2}, {"ok", Long("fine")});
  EXPECT_OK(ValidateStringTensor(t));
  Tensor bad;
  EXPECT_OK(Tensor::Allocate(DT_STRING, TensorShape({1}), &bad));
  static_cast<unsigned char*>(bad.raw_data())[0] = 2;  // OFFSET form
  EXPECT_ERROR(ValidateStringTensor(bad), "OFFSET");
  static_cast<unsigned char*>(bad.raw_data())[0] = 25 << 2;  // inline size 25 > 22
  EXPECT_ERROR(ValidateStringTensor(bad), "not a valid TX_TString");
  static_cast<unsigned char*>(bad.raw_data())[0] = 0;
  // A view is copied into owned bytes before the engine keeps it.
  std::string bytes = "caller bytes";
  Tensor v;
  EXPECT_OK(Tensor::Allocate(DT_STRING, TensorShape({1}), &v));
  v.data<TString>()[0].AssignView(bytes.data(), bytes.size());
  Tensor owned;
  EXPECT_OK(OwnedStringTensor(v, &owned));
  bytes[0] = 'X';
  EXPECT_TRUE(owned.data<TString>()[0].view() == "caller bytes" && owned.raw_data() != v.raw_data());
  Tensor same;  // no views: kept as is
  EXPECT_OK(OwnedStringTensor(t, &same));
  EXPECT_TRUE(same.raw_data() == t.raw_data());
}

TEST(StringStorageViewsAreKept) {
  // Note [String storage]: views into the tensor's own storage are adopted as they are.
  Tensor t;
  char* storage = nullptr;
  EXPECT_OK(AllocateStringsWithStorage(TensorShape({3}), 40, &t, &storage));
  EXPECT_TRUE(storage == static_cast<char*>(t.raw_data()) + 3 * sizeof(TString));
  EXPECT_TRUE(reinterpret_cast<uintptr_t>(storage) % 8 == 0 && t.data<TString>()[2].empty());
  const std::string text = std::string(39, 's') + "!";  // 40 bytes, over SMALL's capacity
  std::memcpy(storage, text.data(), text.size());
  TString* s = t.data<TString>();
  s[0].AssignView(storage, 40);  // the whole storage
  s[1].AssignView(storage + 40, 0);  // empty, at its end
  s[2].Assign("kept", 4);
  Tensor same;
  EXPECT_OK(OwnedStringTensor(t, &same));
  EXPECT_TRUE(same.raw_data() == t.raw_data() && same.data<TString>()[0].view() == text);
  // Bytes outside the storage are copied: past its end, in the TString array, or elsewhere.
  const char* outside[] = {storage + 1, reinterpret_cast<const char*>(&s[2]), text.data()};
  for (const char* at : outside) {
    s[1].AssignView(at, 40);
    Tensor copy;
    EXPECT_OK(OwnedStringTensor(t, &copy));
    EXPECT_TRUE(copy.raw_data() != t.raw_data() && copy.data<TString>()[1].type() == TString::kLarge);
  }
  Tensor empty;  // no storage: *bytes is null
  EXPECT_OK(AllocateStringsWithStorage(TensorShape({0}), 0, &empty, &storage));
  EXPECT_TRUE(storage == nullptr && empty.num_elements() == 0);
  EXPECT_ERROR(AllocateStringsWithStorage(TensorShape({int64_t{1} << 60}), 8, &empty, &storage), "too large");
}

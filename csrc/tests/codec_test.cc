// Tests of the protobuf wire codec and the TensorShapeProto / TensorProto / AttrValue / OpDef
// codecs, including golden bytes written by TensorFlow 2.21's Python package.
#include <cstring>
#include <limits>

#include "test_util.h"
#include "tensorflux/framework/graph_def_io.h"
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/core/object_types.h"
#include "tensorflux/framework/proto_codec.h"
#include "tensorflux/framework/proto_wire.h"

using namespace tx;
using wire::Reader;
using wire::WireType;
using wire::Writer;

namespace {

std::string Unhex(const std::string& h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

Tensor MakeTensor(DataType dt, TensorShape shape, const void* data) {
  Tensor t;
  Status s = Tensor::Allocate(dt, shape, &t);
  if (!s.ok()) return Tensor();
  if (t.byte_size()) std::memcpy(t.raw_data(), data, t.byte_size());
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  const T* p = t.data<T>();
  return p ? std::vector<T>(p, p + t.num_elements()) : std::vector<T>();
}

// A TensorProto with dtype, shape and whatever `fill` writes.
template <typename F>
std::string TensorBytes(DataType dt, const std::vector<int64_t>& dims, F fill) {
  Writer w;
  w.WriteInt32Field(1, dt);
  w.WriteBytesField(2, SerializeTensorShapeProto(PartialShape(dims)));
  fill(w);
  return w.Release();
}

bool RoundTrips(const AttrValue& v) {
  AttrValue back;
  Status s = ParseAttrValue(SerializeAttrValue(v), &back);
  if (!s.ok()) std::printf("  parse failed: %s\n", s.message().c_str());
  return s.ok() && back.Equals(v) && SerializeAttrValue(back) == SerializeAttrValue(v);
}

}  // namespace

// ---------------------------------------------------------------------------- wire

TEST(VarintEdgeCases) {
  const uint64_t cases[] = {
      0, 1, 127, 128, 300, 16383, 16384, (1ull << 32) - 1, 1ull << 63, std::numeric_limits<uint64_t>::max()};
  for (uint64_t v : cases) {
    Writer w;
    w.WriteRawVarint(v);
    Reader r(w.data());
    uint64_t back = 0;
    EXPECT_OK(r.ReadVarint(&back));
    EXPECT_EQ(back, v);
    EXPECT_TRUE(r.done());
  }
  Writer w;
  w.WriteRawVarint(std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(w.data().size(), 10u);
  // Negative int32 values are sign-extended to 10 bytes and read back exactly.
  Writer neg;
  neg.WriteInt32Field(1, -1);
  EXPECT_EQ(neg.data().size(), 11u);
  Reader rn(neg.data());
  int field;
  WireType wt;
  int32_t i32 = 0;
  EXPECT_OK(rn.ReadTag(&field, &wt));
  EXPECT_OK(rn.ReadInt32(wt, &i32));
  EXPECT_EQ(i32, -1);
  // A non-canonical (padded) encoding is still a valid varint.
  uint64_t v;
  const std::string padded_bytes = Unhex("8100");
  Reader padded(padded_bytes);
  EXPECT_OK(padded.ReadVarint(&v));
  EXPECT_EQ(v, 1u);

  const std::string truncated_bytes = Unhex("ff");
  Reader truncated(truncated_bytes);
  EXPECT_ERROR(truncated.ReadVarint(&v), "truncated varint");
  Reader empty("");
  EXPECT_ERROR(empty.ReadVarint(&v), "truncated varint");
  const std::string eleven_bytes = Unhex("ffffffffffffffffffff01");
  Reader eleven(eleven_bytes);
  EXPECT_ERROR(eleven.ReadVarint(&v), "overflows 64 bits");
  const std::string overflow_bytes = Unhex("ffffffffffffffffff02");
  Reader overflow(overflow_bytes);
  EXPECT_ERROR(overflow.ReadVarint(&v), "overflows 64 bits");
  const std::string max_ok_bytes = Unhex("ffffffffffffffffff01");
  Reader max_ok(max_ok_bytes);
  EXPECT_OK(max_ok.ReadVarint(&v));
  EXPECT_EQ(v, std::numeric_limits<uint64_t>::max());
  Status s = Reader(Unhex("ff")).ReadVarint(&v);
  EXPECT_TRUE(s.code() == Code::kDataLoss);
}

TEST(TagsAndSkipping) {
  int field;
  WireType wt;
  EXPECT_ERROR(Reader(Unhex("00")).ReadTag(&field, &wt), "invalid field number 0");
  EXPECT_ERROR(Reader(Unhex("0b")).ReadTag(&field, &wt), "groups are not supported");
  EXPECT_ERROR(Reader(Unhex("0c")).ReadTag(&field, &wt), "groups are not supported");
  EXPECT_ERROR(Reader(Unhex("0e")).ReadTag(&field, &wt), "invalid wire type 6");
  EXPECT_ERROR(Reader(Unhex("0f")).ReadTag(&field, &wt), "invalid wire type 7");
  // Unknown fields of every wire type are skipped.
  Writer w;
  w.WriteVarintField(100, 5);
  w.WriteFixed64Field(101, 7);
  w.WriteBytesField(102, "xyz");
  w.WriteFixed32Field(103, 9);
  w.WriteVarintField(1, 42);
  Reader r(w.data());
  uint64_t got = 0;
  while (!r.done()) {
    EXPECT_OK(r.ReadTag(&field, &wt));
    if (field == 1) {
      EXPECT_OK(r.ReadUInt64(wt, &got));
    } else {
      EXPECT_OK(r.Skip(wt));
    }
  }
  EXPECT_EQ(got, 42u);
  // Truncated fixed-size and length-delimited values.
  uint32_t u32;
  uint64_t u64;
  std::string_view sv;
  EXPECT_ERROR(Reader(Unhex("010203")).ReadFixed32(&u32), "truncated fixed32");
  EXPECT_ERROR(Reader(Unhex("01020304050607")).ReadFixed64(&u64), "truncated fixed64");
  EXPECT_ERROR(Reader(Unhex("05616263")).ReadBytes(&sv), "exceeds");
  EXPECT_ERROR(Reader(Unhex("ffffffffffffffff7f")).ReadBytes(&sv), "exceeds");
  // A known field with the wrong wire type is rejected.
  const std::string bad_bytes = Unhex("0d01000000");
  Reader bad(bad_bytes);
  EXPECT_OK(bad.ReadTag(&field, &wt));
  int64_t i64;
  EXPECT_ERROR(bad.ReadInt64(wt, &i64), "wire type fixed32");
}

TEST(RepeatedFieldsPackedAndUnpacked) {
  Writer packed;
  packed.WritePackedVarints(3, {1, 300, 0});
  Writer unpacked;
  unpacked.WriteVarintField(3, 1);
  unpacked.WriteVarintField(3, 300);
  unpacked.WriteVarintField(3, 0);
  for (const std::string& bytes : {packed.data(), unpacked.data()}) {
    Reader r(bytes);
    std::vector<uint64_t> out;
    int field;
    WireType wt;
    while (!r.done()) {
      EXPECT_OK(r.ReadTag(&field, &wt));
      EXPECT_OK(r.ReadRepeatedVarint(wt, &out));
    }
    EXPECT_TRUE(out == std::vector<uint64_t>({1, 300, 0}));
  }
  // Packed fixed-width payloads must be a whole number of elements.
  const std::string r32_bytes = Unhex("2205000000000000");
  Reader r32(r32_bytes);
  int field;
  WireType wt;
  std::vector<uint32_t> f32;
  EXPECT_OK(r32.ReadTag(&field, &wt));
  EXPECT_ERROR(r32.ReadRepeatedFixed32(wt, &f32), "not a multiple of 4");
  // A packed varint payload that ends mid-varint is rejected.
  const std::string rv_bytes = Unhex("1a0201ff");
  Reader rv(rv_bytes);
  std::vector<uint64_t> vs;
  EXPECT_OK(rv.ReadTag(&field, &wt));
  EXPECT_ERROR(rv.ReadRepeatedVarint(wt, &vs), "truncated varint");
}

TEST(NestingDepthIsBounded) {
  // AttrValue{func{attr{"a": AttrValue{func{...}}}}}: three message levels per step.
  auto nested = [](int steps) {
    std::string v;  // innermost: an empty AttrValue
    for (int k = 0; k < steps; ++k) {
      Writer entry, nal, attr;
      entry.WriteBytesField(1, "a");
      entry.WriteBytesField(2, v);
      nal.WriteBytesField(1, "f");
      nal.WriteBytesField(2, entry.data());
      attr.WriteBytesField(10, nal.data());
      v = attr.Release();
    }
    return v;
  };
  AttrValue out;
  EXPECT_OK(ParseAttrValue(nested(30), &out));
  EXPECT_TRUE(out.kind == AttrValue::Kind::kFunc && out.func && out.func->name == "f");
  EXPECT_ERROR(ParseAttrValue(nested(40), &out), "nested deeper than 100");
  EXPECT_ERROR(ParseAttrValue(nested(2000), &out), "nested deeper than 100");
}

// ---------------------------------------------------------------------------- shapes

TEST(TensorShapeProtoRoundTrips) {
  const PartialShape shapes[] = {PartialShape::Unknown(), PartialShape({}), PartialShape({2, -1, 0, 7}),
                                 PartialShape({std::numeric_limits<int64_t>::max()})};
  for (const PartialShape& s : shapes) {
    PartialShape back({5});
    EXPECT_OK(ParseTensorShapeProto(SerializeTensorShapeProto(s), &back));
    EXPECT_TRUE(back == s);
  }
  EXPECT_EQ(SerializeTensorShapeProto(PartialShape::Unknown()), Unhex("1801"));
  EXPECT_EQ(SerializeTensorShapeProto(PartialShape({})), std::string());
  // A dim of size 0 is an empty Dim message (proto3 omits the default).
  EXPECT_EQ(SerializeTensorShapeProto(PartialShape({0, 3})),
            Unhex("12001202"
                  "0803"));
  PartialShape out;
  // Field 3 inside a Dim is an unknown field there (skipped); at the top level it is unknown_rank.
  EXPECT_ERROR(ParseTensorShapeProto(Unhex("12021801"
                                           "1801"),
                                     &out),
               "unknown_rank set but also 1 dimensions");
  EXPECT_ERROR(ParseTensorShapeProto(Unhex("120208031801"), &out), "unknown_rank set but also 1 dimensions");
  Writer bad_dim, dim;
  dim.WriteInt64Field(1, -2);
  bad_dim.WriteBytesField(2, dim.data());
  EXPECT_ERROR(ParseTensorShapeProto(bad_dim.data(), &out), "dimension of size -2");
  // Dim names are accepted and dropped.
  Writer named, ndim;
  ndim.WriteInt64Field(1, 4);
  ndim.WriteBytesField(2, "batch");
  named.WriteBytesField(2, ndim.data());
  EXPECT_OK(ParseTensorShapeProto(named.data(), &out));
  EXPECT_TRUE(out == PartialShape({4}));
}

// ---------------------------------------------------------------------------- tensors

TEST(TensorProtoContentRoundTripsForEveryStorageType) {
  for (int v = 1; v <= kLastDataType; ++v) {
    DataType dt = static_cast<DataType>(v);
    // Object element types hold objects, not bytes: strings round-trip in tstring_test.
    if (!IsSupportedStorageType(dt) || ObjectOpsFor(dt) != nullptr) continue;
    unsigned char bytes[6 * 16];
    for (size_t k = 0; k < sizeof bytes; ++k) bytes[k] = static_cast<unsigned char>(k * 7 + v);
    if (dt == DT_BOOL)
      for (unsigned char& b : bytes) b &= 1;
    Tensor t = MakeTensor(dt, TensorShape({2, 3}), bytes);
    Tensor back;
    EXPECT_OK(ParseTensorProto(SerializeTensorProto(t), &back));
    EXPECT_TRUE(back.dtype() == dt && back.shape() == t.shape());
    EXPECT_TRUE(back.initialized() && std::memcmp(back.raw_data(), t.raw_data(), t.byte_size()) == 0);
  }
  // Empty and scalar tensors.
  Tensor empty = MakeTensor(DT_FLOAT, TensorShape({0, 4}), nullptr), back;
  EXPECT_OK(ParseTensorProto(SerializeTensorProto(empty), &back));
  EXPECT_TRUE(back.shape() == TensorShape({0, 4}));
  float x = 2.5f;
  Tensor scalar = MakeTensor(DT_FLOAT, TensorShape({}), &x);
  EXPECT_EQ(SerializeTensorProto(scalar),
            Unhex("080112002204"
                  "00002040"));
}

TEST(TensorProtoValFieldsPackedAndUnpacked) {
  // float_val packed and unpacked.
  std::string packed = TensorBytes(DT_FLOAT, {3}, [](Writer& w) {
    w.WritePackedFixed32(5, {wire::FloatBits(1), wire::FloatBits(-2), wire::FloatBits(3.5f)});
  });
  std::string unpacked = TensorBytes(DT_FLOAT, {3}, [](Writer& w) {
    w.WriteFloatField(5, 1);
    w.WriteFloatField(5, -2);
    w.WriteFloatField(5, 3.5f);
  });
  for (const std::string& b : {packed, unpacked}) {
    Tensor t;
    EXPECT_OK(ParseTensorProto(b, &t));
    EXPECT_TRUE(Values<float>(t) == std::vector<float>({1, -2, 3.5f}));
  }
  Tensor t;
  // int_val serves INT32, INT16, INT8, UINT8 and UINT16; negatives are sign-extended varints.
  EXPECT_OK(
      ParseTensorProto(TensorBytes(DT_INT8, {2}, [](Writer& w) { w.WritePackedVarints(7, {uint64_t(-5), 7}); }), &t));
  EXPECT_TRUE(Values<int8_t>(t) == std::vector<int8_t>({-5, 7}));
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_INT32, {2},
                                         [](Writer& w) {
                                           w.WriteInt32Field(7, -100000);
                                           w.WriteInt32Field(7, 9);
                                         }),
                             &t));
  EXPECT_TRUE(Values<int32_t>(t) == std::vector<int32_t>({-100000, 9}));
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_UINT16, {1}, [](Writer& w) { w.WritePackedVarints(7, {65535}); }), &t));
  EXPECT_TRUE(Values<uint16_t>(t) == std::vector<uint16_t>({65535}));
  EXPECT_OK(
      ParseTensorProto(TensorBytes(DT_INT16, {1}, [](Writer& w) { w.WritePackedVarints(7, {uint64_t(-300)}); }), &t));
  EXPECT_TRUE(Values<int16_t>(t) == std::vector<int16_t>({-300}));
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_UINT8, {1}, [](Writer& w) { w.WritePackedVarints(7, {200}); }), &t));
  EXPECT_TRUE(Values<uint8_t>(t) == std::vector<uint8_t>({200}));
  // int64_val, uint32_val, uint64_val, bool_val, double_val.
  EXPECT_OK(ParseTensorProto(
      TensorBytes(DT_INT64, {2}, [](Writer& w) { w.WritePackedVarints(10, {uint64_t(-1), 1ull << 40}); }), &t));
  EXPECT_TRUE(Values<int64_t>(t) == std::vector<int64_t>({-1, int64_t(1) << 40}));
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_UINT32, {1}, [](Writer& w) { w.WriteVarintField(16, 4000000000u); }), &t));
  EXPECT_TRUE(Values<uint32_t>(t) == std::vector<uint32_t>({4000000000u}));
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_UINT64, {1}, [](Writer& w) { w.WriteVarintField(17, ~0ull); }), &t));
  EXPECT_TRUE(Values<uint64_t>(t) == std::vector<uint64_t>({~0ull}));
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_BOOL, {3}, [](Writer& w) { w.WritePackedVarints(11, {1, 0, 5}); }), &t));
  EXPECT_TRUE(Values<uint8_t>(t) == std::vector<uint8_t>({1, 0, 1}));
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_DOUBLE, {2},
                                         [](Writer& w) {
                                           w.WriteDoubleField(6, 0.25);
                                           w.WriteDoubleField(6, -1e300);
                                         }),
                             &t));
  EXPECT_TRUE(Values<double>(t) == std::vector<double>({0.25, -1e300}));
  // half_val holds HALF and BFLOAT16 bit patterns.
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_HALF, {1}, [](Writer& w) { w.WritePackedVarints(13, {0x4100}); }), &t));
  EXPECT_TRUE(Values<uint16_t>(t) == std::vector<uint16_t>({0x4100}));
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_BFLOAT16, {1}, [](Writer& w) { w.WriteVarintField(13, 0x3f80); }), &t));
  EXPECT_TRUE(t.dtype() == DT_BFLOAT16 && Values<uint16_t>(t) == std::vector<uint16_t>({0x3f80}));
  // Complex values are (re, im) pairs.
  EXPECT_OK(ParseTensorProto(
      TensorBytes(DT_COMPLEX128, {1},
                  [](Writer& w) { w.WritePackedFixed64(12, {wire::DoubleBits(1.5), wire::DoubleBits(-2)}); }),
      &t));
  EXPECT_TRUE(Values<double>(t.Reshaped(TensorShape({1}))).size() == 1);
  const double* c = t.data<double>();
  EXPECT_TRUE(c[0] == 1.5 && c[1] == -2);
}

TEST(TensorProtoShortValFieldsRepeatTheLastValue) {
  Tensor t;
  EXPECT_OK(ParseTensorProto(
      TensorBytes(DT_FLOAT, {5}, [](Writer& w) { w.WritePackedFixed32(5, {wire::FloatBits(1), wire::FloatBits(2)}); }),
      &t));
  EXPECT_TRUE(Values<float>(t) == std::vector<float>({1, 2, 2, 2, 2}));
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_INT32, {2, 2}, [](Writer& w) { w.WriteInt32Field(7, 7); }), &t));
  EXPECT_TRUE(Values<int32_t>(t) == std::vector<int32_t>({7, 7, 7, 7}));
  // No values at all: zeros.
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_DOUBLE, {3}, [](Writer&) {}), &t));
  EXPECT_TRUE(Values<double>(t) == std::vector<double>({0, 0, 0}));
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_INT64, {}, [](Writer&) {}), &t));
  EXPECT_TRUE(t.rank() == 0 && Values<int64_t>(t) == std::vector<int64_t>({0}));
  // Complex: the last (re, im) pair repeats.
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_COMPLEX64, {3},
                                         [](Writer& w) {
                                           w.WritePackedFixed32(9,
                                                                {wire::FloatBits(1), wire::FloatBits(2),
                                                                 wire::FloatBits(3), wire::FloatBits(4)});
                                         }),
                             &t));
  EXPECT_TRUE(Values<float>(t.Reshaped(TensorShape({3}))).size() == 3);
  const float* c = t.data<float>();
  EXPECT_TRUE(c[0] == 1 && c[1] == 2 && c[2] == 3 && c[3] == 4 && c[4] == 3 && c[5] == 4);
  // tf.constant(0, shape=[1000])-style compact constants, and a missing shape (a scalar).
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_BOOL, {1000}, [](Writer& w) { w.WriteBoolField(11, true); }), &t));
  EXPECT_TRUE(t.num_elements() == 1000 && t.data<uint8_t>()[999] == 1);
  Writer no_shape;
  no_shape.WriteInt32Field(1, DT_FLOAT);
  no_shape.WriteFloatField(5, 4);
  EXPECT_OK(ParseTensorProto(no_shape.data(), &t));
  EXPECT_TRUE(t.rank() == 0 && Values<float>(t) == std::vector<float>({4}));
}

TEST(TensorProtoErrors) {
  Tensor t;
  std::string mismatch = TensorBytes(DT_FLOAT, {2}, [](Writer& w) { w.WriteBytesField(4, std::string(12, '\0')); });
  EXPECT_ERROR(ParseTensorProto(mismatch, &t), "tensor_content has 12 bytes but a float tensor of shape [2] needs 8");
  EXPECT_ERROR(ParseTensorProto(TensorBytes(DT_FLOAT, {1}, [](Writer& w) { w.WritePackedFixed32(5, {1, 2}); }), &t),
               "has 2 values but");
  EXPECT_ERROR(ParseTensorProto(TensorBytes(DT_FLOAT, {-1}, [](Writer&) {}), &t), "must be >= 0");
  EXPECT_ERROR(ParseTensorProto(TensorBytes(DT_FLOAT, {1ll << 40, 1ll << 40}, [](Writer&) {}), &t), "overflows");
  Writer unknown_rank;
  unknown_rank.WriteInt32Field(1, DT_FLOAT);
  unknown_rank.WriteBytesField(2, SerializeTensorShapeProto(PartialShape::Unknown()));
  EXPECT_ERROR(ParseTensorProto(unknown_rank.data(), &t), "known rank");
  Status s = ParseTensorProto(TensorBytes(DT_QINT8, {1}, [](Writer&) {}), &t);
  EXPECT_TRUE(s.code() == Code::kUnimplemented && s.message().find("qint8") != std::string::npos);
  EXPECT_ERROR(ParseTensorProto(TensorBytes(DT_INVALID, {1}, [](Writer&) {}), &t), "invalid dtype 0");
  EXPECT_ERROR(ParseTensorProto(TensorBytes(static_cast<DataType>(101), {1}, [](Writer&) {}), &t), "invalid dtype 101");
  EXPECT_ERROR(
      ParseTensorProto(TensorBytes(DT_COMPLEX64, {1}, [](Writer& w) { w.WritePackedFixed32(9, {1, 2, 3}); }), &t),
      "odd number");
  // Compact values may not expand beyond the configured limit.
  const uint64_t limit = codec::MaxExpandedTensorBytes();
  codec::SetMaxExpandedTensorBytes(1 << 20);
  EXPECT_ERROR(ParseTensorProto(TensorBytes(DT_FLOAT, {1 << 20}, [](Writer& w) { w.WriteFloatField(5, 1); }), &t),
               "above the limit");
  codec::SetMaxExpandedTensorBytes(limit);
}

TEST(VariantTensorProtosDescribeOnlyEmptyElements) {
  // Found by the tensorproto fuzzer: tensor_content copied over a variant tensor's element objects.
  Tensor t;
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_VARIANT, {3}, [](Writer&) {}), &t));
  EXPECT_TRUE(t.dtype() == DT_VARIANT && t.shape() == TensorShape({3}));
  Status s = ParseTensorProto(TensorBytes(DT_VARIANT, {1}, [](Writer& w) { w.WriteBytesField(4, "12345678"); }), &t);
  EXPECT_TRUE(s.code() == Code::kUnimplemented && s.message().find("variant") != std::string::npos);
  s = ParseTensorProto(TensorBytes(DT_VARIANT, {1}, [](Writer& w) { w.WriteBytesField(15, ""); }), &t);
  EXPECT_TRUE(s.code() == Code::kUnimplemented);
  Tensor v, back;  // export writes the dtype and shape only, so a round trip gives empty elements back
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_VARIANT, {2, 2}, [](Writer&) {}), &v));
  EXPECT_OK(ParseTensorProto(SerializeTensorProto(v), &back));
  EXPECT_TRUE(back.dtype() == DT_VARIANT && back.shape() == TensorShape({2, 2}));
}

TEST(TensorProtoBoolContentIsDecodedCanonical) {
  // Note [Canonical bool]: bytes 2 and 255 decode as true (1).
  Tensor t;
  const std::string raw("\x00\x01\x02\xff", 4);
  EXPECT_OK(ParseTensorProto(TensorBytes(DT_BOOL, {4}, [&](Writer& w) { w.WriteBytesField(4, raw); }), &t));
  EXPECT_TRUE(Values<uint8_t>(t) == std::vector<uint8_t>({0, 1, 1, 1}));
}

TEST(TensorProtoGoldenBytesFromTensorFlow) {
  // tensor_util.make_tensor_proto(1.5, dtype=tf.float32, shape=[4])
  Tensor t;
  EXPECT_OK(ParseTensorProto(Unhex("08011204120208042a040000c03f"), &t));
  EXPECT_TRUE(Values<float>(t) == std::vector<float>({1.5f, 1.5f, 1.5f, 1.5f}));
  // make_tensor_proto(np.array([[1,-2,3],[4,5,-6]], np.int32)): tensor_content; we write it identically.
  const std::string i32 = Unhex("080312081202080212020803221801000000feffffff030000000400000005000000faffffff");
  EXPECT_OK(ParseTensorProto(i32, &t));
  EXPECT_TRUE(Values<int32_t>(t) == std::vector<int32_t>({1, -2, 3, 4, 5, -6}));
  EXPECT_EQ(SerializeTensorProto(t), i32);
  // np.float16(2.5): half_val 16640, scalar shape present but empty.
  EXPECT_OK(ParseTensorProto(Unhex("081312006a03808201"), &t));
  EXPECT_TRUE(t.dtype() == DT_HALF && Values<uint16_t>(t) == std::vector<uint16_t>({16640}));
  // np.array([True, False, True]): packed bool_val.
  EXPECT_OK(ParseTensorProto(Unhex("080a1204120208035a03010001"), &t));
  EXPECT_TRUE(Values<uint8_t>(t) == std::vector<uint8_t>({1, 0, 1}));
  // np.array([1+2j, 3-4j], np.complex64): scomplex_val.
  EXPECT_OK(ParseTensorProto(Unhex("08081204120208024a100000803f0000004000004040000080c0"), &t));
  EXPECT_TRUE(Values<float>(t.Reshaped(TensorShape({4}))).size() == 4);
  const float* c = t.data<float>();
  EXPECT_TRUE(c[0] == 1 && c[1] == 2 && c[2] == 3 && c[3] == -4);
  // np.int64(-7): int64_val as a 10-byte varint.
  EXPECT_OK(ParseTensorProto(Unhex("08091200520af9ffffffffffffffff01"), &t));
  EXPECT_TRUE(Values<int64_t>(t) == std::vector<int64_t>({-7}));
}

// ---------------------------------------------------------------------------- attrs

TEST(AttrValueRoundTripsEveryKind) {
  float f = 3.25f;
  Tensor tensor = MakeTensor(DT_FLOAT, TensorShape({1}), &f);
  EXPECT_TRUE(RoundTrips(AttrValue::String(std::string("bin\0ary\xff", 8))));
  EXPECT_TRUE(RoundTrips(AttrValue::String("")));
  EXPECT_TRUE(RoundTrips(AttrValue::Int(0)));
  EXPECT_TRUE(RoundTrips(AttrValue::Int(std::numeric_limits<int64_t>::min())));
  EXPECT_TRUE(RoundTrips(AttrValue::Float(-0.5f)));
  EXPECT_TRUE(RoundTrips(AttrValue::Bool(false)));
  EXPECT_TRUE(RoundTrips(AttrValue::Bool(true)));
  EXPECT_TRUE(RoundTrips(AttrValue::Type(DT_BFLOAT16)));
  EXPECT_TRUE(RoundTrips(AttrValue::Type(static_cast<DataType>(101))));  // DT_FLOAT_REF
  EXPECT_TRUE(RoundTrips(AttrValue::Shape(PartialShape({-1, 3}))));
  EXPECT_TRUE(RoundTrips(AttrValue::Shape(PartialShape::Unknown())));
  EXPECT_TRUE(RoundTrips(AttrValue::FromTensor(tensor)));
  AttrValue ph;
  ph.kind = AttrValue::Kind::kPlaceholder;
  ph.s = "T";
  EXPECT_TRUE(RoundTrips(ph));
  AttrValue fn;
  fn.kind = AttrValue::Kind::kFunc;
  fn.func = std::make_shared<NameAttrList>();
  fn.func->name = "my_fn";
  fn.func->attr["T"] = AttrValue::Type(DT_INT32);
  fn.func->attr["n"] = AttrValue::Int(2);
  AttrValue fn_back;
  EXPECT_OK(ParseAttrValue(SerializeAttrValue(fn), &fn_back));
  EXPECT_TRUE(fn_back.kind == AttrValue::Kind::kFunc && fn_back.func->name == "my_fn");
  EXPECT_TRUE(fn_back.func->attr.size() == 2 && fn_back.func->attr["n"].i == 2);
  EXPECT_TRUE(fn_back.func->attr["T"].type == DT_INT32);

  // Every list field, one at a time, plus the empty list.
  AttrValue l = AttrValue::EmptyList();
  EXPECT_EQ(SerializeAttrValue(l), Unhex("0a00"));
  EXPECT_TRUE(RoundTrips(l));
  l.list.s = {"a", "", "ccc"};
  EXPECT_TRUE(RoundTrips(l));
  l = AttrValue::EmptyList();
  l.list.i = {1, -1, 1ll << 50};
  EXPECT_TRUE(RoundTrips(l));
  l = AttrValue::EmptyList();
  l.list.f = {0.5f, -3};
  EXPECT_TRUE(RoundTrips(l));
  l = AttrValue::EmptyList();
  l.list.b = {true, false};
  EXPECT_TRUE(RoundTrips(l));
  l = AttrValue::EmptyList();
  l.list.type = {DT_FLOAT, DT_INT64};
  EXPECT_TRUE(RoundTrips(l));
  l = AttrValue::EmptyList();
  l.list.shape = {PartialShape({}), PartialShape::Unknown(), PartialShape({2})};
  EXPECT_TRUE(RoundTrips(l));
  l = AttrValue::EmptyList();
  l.list.tensor = {tensor, tensor};
  EXPECT_TRUE(RoundTrips(l));
  l = AttrValue::EmptyList();
  l.list.func.resize(2);
  l.list.func[0].name = "f0";
  l.list.func[1].name = "f1";
  l.list.func[1].attr["x"] = AttrValue::Float(1);
  AttrValue lf;
  EXPECT_OK(ParseAttrValue(SerializeAttrValue(l), &lf));
  EXPECT_TRUE(lf.list.func.size() == 2 && lf.list.func[1].name == "f1" && lf.list.func[1].attr["x"].f == 1);
  // An unset AttrValue is an empty message.
  EXPECT_EQ(SerializeAttrValue(AttrValue()), std::string());
}

TEST(AttrValueWireDetails) {
  AttrValue v;
  // Known byte patterns (as protobuf writes them).
  EXPECT_EQ(SerializeAttrValue(AttrValue::Type(DT_FLOAT)), Unhex("3001"));
  EXPECT_EQ(SerializeAttrValue(AttrValue::Bool(false)), Unhex("2800"));
  EXPECT_EQ(SerializeAttrValue(AttrValue::Int(-1)), Unhex("18ffffffffffffffffff01"));
  AttrValue ints = AttrValue::EmptyList();
  ints.list.i = {1, 2};
  EXPECT_EQ(SerializeAttrValue(ints), Unhex("0a041a020102"));
  // Unpacked list elements are accepted too, and list fields merge.
  EXPECT_OK(ParseAttrValue(Unhex("0a02180a"
                                 "0a021805"),
                           &v));
  EXPECT_TRUE(v.kind == AttrValue::Kind::kList && v.list.i == std::vector<int64_t>({10, 5}));
  // A later oneof member replaces an earlier one.
  EXPECT_OK(ParseAttrValue(Unhex("1805"
                                 "2801"),
                           &v));
  EXPECT_TRUE(v.kind == AttrValue::Kind::kBool && v.b && v.i == 0);
  // Unknown fields are skipped.
  EXPECT_OK(ParseAttrValue(Unhex("a806011807"), &v));
  EXPECT_TRUE(v.kind == AttrValue::Kind::kInt && v.i == 7);
  EXPECT_ERROR(ParseAttrValue(Unhex("30e807"), &v), "invalid DataType value 1000");
  EXPECT_ERROR(ParseAttrValue(Unhex("2001"), &v), "wire type varint");  // f must be fixed32
  EXPECT_ERROR(ParseAttrValue(Unhex("1205616263"), &v), "exceeds");
}

// ---------------------------------------------------------------------------- OpDef

TX_REGISTER_OP("CodecTestOpDef")
    .Input("values: N * T")
    .Input("flag: bool")
    .Output("out: T")
    .Attr("N: int >= 2")
    .Attr("T: {float, int32} = DT_FLOAT")
    .Attr("mode: {'a', 'b'} = 'a'")
    .SetIsCommutative()
    .Summary("Test op.");

TEST(OpDefSerialization) {
  const OpRegistration* reg = OpRegistry::Global()->LookUp("CodecTestOpDef");
  EXPECT_TRUE(reg != nullptr);
  if (reg == nullptr) return;
  const std::string bytes = SerializeOpDef(reg->def);
  // Walk the top level: fields must come in increasing order.
  Reader r(bytes);
  int field, last = 0;
  WireType wt;
  std::vector<int> fields;
  std::string name, summary;
  std::vector<std::string> subs;
  while (!r.done()) {
    EXPECT_OK(r.ReadTag(&field, &wt));
    EXPECT_TRUE(field >= last);
    last = field;
    fields.push_back(field);
    if (field == 1)
      EXPECT_OK(r.ReadString(wt, &name));
    else if (field == 5)
      EXPECT_OK(r.ReadString(wt, &summary));
    else if (field >= 2 && field <= 4) {
      std::string s;
      EXPECT_OK(r.ReadString(wt, &s));
      subs.push_back(s);
    } else {
      uint64_t v = 0;
      EXPECT_OK(r.ReadUInt64(wt, &v));
      EXPECT_TRUE(field == 18 && v == 1);  // only is_commutative is set
    }
  }
  EXPECT_EQ(name, std::string("CodecTestOpDef"));
  EXPECT_EQ(summary, std::string("Test op."));
  EXPECT_TRUE(fields == std::vector<int>({1, 2, 2, 3, 4, 4, 4, 5, 18}));
  if (subs.size() != 6) return;
  // input_arg "values": name=1, type_attr=4 "T", number_attr=5 "N".
  Writer values;
  values.WriteBytesField(1, "values");
  values.WriteBytesField(4, "T");
  values.WriteBytesField(5, "N");
  EXPECT_EQ(subs[0], values.data());
  Writer flag;
  flag.WriteBytesField(1, "flag");
  flag.WriteInt32Field(3, DT_BOOL);
  EXPECT_EQ(subs[1], flag.data());
  // attr N: has_minimum=5, minimum=6.
  Writer n;
  n.WriteBytesField(1, "N");
  n.WriteBytesField(2, "int");
  n.WriteBoolField(5, true);
  n.WriteInt64Field(6, 2);
  EXPECT_EQ(subs[3], n.data());
  // attr T: default_value=3 then allowed_values=7 (a list of types).
  AttrValue allowed = AttrValue::EmptyList();
  allowed.list.type = {DT_FLOAT, DT_INT32};
  Writer tdef;
  tdef.WriteBytesField(1, "T");
  tdef.WriteBytesField(2, "type");
  tdef.WriteBytesField(3, SerializeAttrValue(AttrValue::Type(DT_FLOAT)));
  tdef.WriteBytesField(7, SerializeAttrValue(allowed));
  EXPECT_EQ(subs[4], tdef.data());
  // OpList wraps each OpDef in field 1.
  Writer list;
  list.WriteBytesField(1, bytes);
  EXPECT_EQ(SerializeOpList({reg}), list.data());
}

// 16-bit floats (Note [16-bit floats]): scalar conversions against the kernels' vector path, Cast
// for every pair of stored types, a widened kernel; and the missing-kernel message.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel_test_util.h"
#include "test_util.h"
#include "tensorflux/core/float16.h"
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

using namespace tx;
using namespace tx_test;

namespace {

AttrMap Attrs(std::initializer_list<std::pair<const std::string, AttrValue>> kv) { return AttrMap(kv); }

float FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof(f));
  return f;
}

// Float bit patterns: a stride through all 2^32 plus every pattern next to a 16-bit rounding
// boundary (low 13 or 16 bits near half an ulp) of a sweep of exponents.
std::vector<float> Patterns() {
  std::vector<float> v;
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 4099) v.push_back(FromBits(static_cast<uint32_t>(b)));
  for (uint32_t e = 0; e < 256; e += 3)
    for (uint32_t low : {0x0fffu, 0x1000u, 0x1001u, 0x2fffu, 0x3000u, 0x7fffu, 0x8000u, 0x8001u, 0x18000u})
      for (uint32_t s : {0u, 0x80000000u}) v.push_back(FromBits(s | (e << 23) | low));
  return v;
}

template <typename T>
Tensor CastTo(const Tensor& x, DataType dst) {
  OpTester t;
  std::vector<Tensor> out;
  Status s = t.RunOp("Cast", {x}, Attrs({{"DstT", AttrValue::Type(dst)}}), &out);
  EXPECT_OK(s);
  return s.ok() ? out[0] : Tensor();
}

}  // namespace

TEST(ScalarConversionsMatchTheKernelPath) {
  const std::vector<float> f = Patterns();
  Tensor x = MakeTensor<float>({static_cast<int64_t>(f.size())}, f);
  Tensor h = CastTo<Half>(x, DT_HALF), b = CastTo<BFloat16>(x, DT_BFLOAT16);
  int64_t bad_h = 0, bad_b = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    bad_h += h.data<Half>()[i].bits != FloatToHalfBits(f[i]);
    bad_b += b.data<BFloat16>()[i].bits != FloatToBFloat16Bits(f[i]);
  }
  EXPECT_EQ(bad_h, 0);
  EXPECT_EQ(bad_b, 0);
  // Widening every 16-bit value is exact and agrees with the kernels.
  std::vector<Half> all_h(1 << 16);
  std::vector<BFloat16> all_b(1 << 16);
  for (uint32_t i = 0; i < (1u << 16); ++i) {
    all_h[i] = Half::FromBits(static_cast<uint16_t>(i));
    all_b[i] = BFloat16::FromBits(static_cast<uint16_t>(i));
  }
  Tensor wh = CastTo<float>(MakeTensor<Half>({1 << 16}, all_h), DT_FLOAT);
  Tensor wb = CastTo<float>(MakeTensor<BFloat16>({1 << 16}, all_b), DT_FLOAT);
  int64_t bad_w = 0;
  auto same = [](float a, float b) { return std::memcmp(&a, &b, sizeof(a)) == 0 || (std::isnan(a) && std::isnan(b)); };
  for (uint32_t i = 0; i < (1u << 16); ++i) {
    bad_w += !same(HalfBitsToFloat(static_cast<uint16_t>(i)), wh.data<float>()[i]);
    bad_w += !same(BFloat16BitsToFloat(static_cast<uint16_t>(i)), wb.data<float>()[i]);
  }
  EXPECT_EQ(bad_w, 0);
}

TEST(ConversionEdgeCases) {
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalfBits(65519.996f), 0x7bff);
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7c00);  // rounds up to inf
  EXPECT_EQ(FloatToHalfBits(5.9604645e-8f), 0x0001);  // smallest subnormal
  EXPECT_EQ(FloatToHalfBits(2.9802322e-8f), 0x0000);  // half of it: tie to even (0)
  EXPECT_EQ(FloatToHalfBits(8.940697e-8f), 0x0002);  // 1.5 units: tie to even (2)
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalfBits(FromBits(0xff800001u)), 0xfe00);  // signalling NaN quieted, sign kept
  EXPECT_EQ(FloatToHalfBits(FromBits(0x7fbfe000u)), 0x7fff);  // top payload bits kept
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x3f808000u)), 0x3f80);  // tie to even
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x3f818000u)), 0x3f82);
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x7f7fffffu)), 0x7f80);  // FLT_MAX rounds to inf
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0xffc00001u)), 0xffc0);
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x00000001u)), 0x0000);
  EXPECT_EQ(FloatToBFloat16BitsTruncated(FromBits(0x3f81ffffu)), 0x3f81);
  EXPECT_TRUE(static_cast<float>(Half(1.0f / 3)) == 0.333251953125f);
  EXPECT_TRUE(static_cast<float>(BFloat16(1.0f / 3)) == 0.333984375f);
}

TEST(CastKernelsForEveryStoredPair) {
  const DataType types[] = {DT_FLOAT,  DT_DOUBLE, DT_INT32,  DT_INT64, DT_UINT8, DT_INT8,    DT_INT16,
                            DT_UINT16, DT_UINT32, DT_UINT64, DT_BOOL,  DT_HALF,  DT_BFLOAT16};
  OpTester t;
  int missing = 0;
  for (DataType s : types)
    for (DataType d : types) {
      Node* n = nullptr;
      EXPECT_OK(t.AddOp("Cast", {Ph(s)}, Attrs({{"DstT", AttrValue::Type(d)}}), &n));
      if (n && !KernelRegistry::Global()->HasKernel(n, kDeviceCPU)) ++missing;
    }
  EXPECT_EQ(missing, 0);
  // 3 -> every type and back gives 3.
  for (DataType d : types) {
    if (d == DT_BOOL) continue;
    Tensor there = CastTo<float>(MakeTensor<float>({1}, {3.0f}), d);
    Tensor back = CastTo<float>(there, DT_FLOAT);
    EXPECT_TRUE(Values<float>(back) == std::vector<float>({3.0f}));
  }
}

TEST(WidenedKernelRoundsOnce) {
  // Softmax on half runs the float32 kernel: exp(0) / (exp(0) + exp(log 3)) = 0.25 exactly.
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_OK(t.RunOp("Softmax", {MakeTensor<Half>({1, 2}, {Half(0.0f), Half(std::log(3.0f))})}, {}, &out));
  EXPECT_TRUE(out[0].dtype() == DT_HALF);
  EXPECT_NEAR(static_cast<float>(out[0].data<Half>()[0]), 0.25f, 2e-4f);
  // Errors of the float32 kernel surface unchanged, naming the node.
  Status s = t.RunOp("Softmax", {MakeTensor<BFloat16>({}, {BFloat16(1.0f)})}, {}, &out);
  EXPECT_TRUE(!s.ok());
}

// Two type attrs whose kernels exist for (float, int32) and (int32, float) only.
TX_REGISTER_OP("DtypesTestTwoTypes")
    .Input("a: A")
    .Input("b: B")
    .Output("c: A")
    .Attr("A: {half, float, int32}")
    .Attr("B: {float, int32}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Test op.");
TX_REGISTER_OP("DtypesTestNoTypes").Output("c: float").SetShapeFn(shape_fns::ScalarShape).Summary("Test op.");

namespace {
class Nothing : public OpKernel {
 public:
  explicit Nothing(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext*) override {}
};
TX_REGISTER_KERNEL(KernelDefBuilder("DtypesTestTwoTypes").TypeConstraint<float>("A").TypeConstraint<int32_t>("B"),
                   Nothing);
TX_REGISTER_KERNEL(KernelDefBuilder("DtypesTestTwoTypes").TypeConstraint<int32_t>("A").TypeConstraint<float>("B"),
                   Nothing);

Status Create(OpTester& t, const std::string& op, std::vector<InputSpec> in, AttrMap attrs) {
  Node* n = nullptr;
  TX_RETURN_IF_ERROR(t.AddOp(op, in, std::move(attrs), &n));
  std::unique_ptr<OpKernel> k;
  return KernelRegistry::Global()->CreateKernel(n, kDeviceCPU, &k);
}
}  // namespace

TEST(MissingKernelMessage) {
  OpTester t;
  Status s = Create(t, "DtypesTestTwoTypes", {Ph(DT_HALF), Ph(DT_INT32)}, {});
  EXPECT_TRUE(s.code() == Code::kNotFound && s.message() == "[op] DtypesTestTwoTypes has no CPU kernel for half");
  s = Create(t, "DtypesTestTwoTypes", {Ph(DT_FLOAT), Ph(DT_FLOAT)}, {});
  EXPECT_TRUE(s.message() == "[op_1] DtypesTestTwoTypes has no CPU kernel for A=float, B=float");
  EXPECT_OK(Create(t, "DtypesTestTwoTypes", {Ph(DT_INT32), Ph(DT_FLOAT)}, {}));
  s = Create(t, "DtypesTestNoTypes", {}, {});
  EXPECT_TRUE(s.code() == Code::kNotFound && s.message() == "[op_3] DtypesTestNoTypes has no CPU kernel");
  s = Create(t, "Erfinv", {Ph(DT_HALF)}, {});
  EXPECT_TRUE(s.message() == "[op_4] Erfinv has no CPU kernel for half");
}

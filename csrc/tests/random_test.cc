// Tests of the random ops: Philox4x32-10 known-answer vectors, the OpDefs' key properties,
// shape functions, kernel error paths, thread-count independence and basic statistics.
#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "test_util.h"
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/kernels/cpu/philox.h"

using namespace tx;
using namespace tx_test;
using tx::cpu::Philox4x32;
using tx::cpu::PhiloxAdd;

namespace {

Tensor I32(std::vector<int32_t> v) { return MakeTensor<int32_t>({static_cast<int64_t>(v.size())}, v); }
Tensor I64(std::vector<int64_t> v) { return MakeTensor<int64_t>({static_cast<int64_t>(v.size())}, v); }
Tensor U64(std::vector<uint64_t> v) { return MakeTensor<uint64_t>({static_cast<int64_t>(v.size())}, v); }
template <typename T>
Tensor Scalar(T v) {
  return MakeTensor<T>(TensorShape(std::vector<int64_t>{}), {v});
}

AttrMap Attrs(std::initializer_list<std::pair<const std::string, AttrValue>> a) { return AttrMap(a); }

// Creates `node`'s CPU kernel once; runs it `runs` times and returns the outputs of every run.
Status RunKernel(OpTester* t, const Node* node, const std::vector<Tensor>& inputs, int runs,
                 std::vector<Tensor>* outs) {
  std::unique_ptr<OpKernel> kernel;
  TX_RETURN_IF_ERROR(KernelRegistry::Global()->CreateKernel(node, kDeviceCPU, &kernel));
  for (int r = 0; r < runs; ++r) {
    std::vector<Tensor> in = inputs, out(node->num_outputs());
    OpKernelContext ctx(node, in.data(), out.data(), t->pool());
    kernel->Compute(&ctx);
    TX_RETURN_IF_ERROR(ctx.status());
    outs->push_back(out[0]);
  }
  return Status::OK();
}

// Runs `op` on `inputs` (fed as placeholders) with a pool of `threads` workers; the first output.
Status RunOnce(int threads, const std::string& op, std::vector<Tensor> inputs, AttrMap attrs, Tensor* out) {
  OpTester t(threads);
  std::vector<Tensor> outs;
  TX_RETURN_IF_ERROR(t.RunOp(op, std::move(inputs), std::move(attrs), &outs));
  *out = outs[0];
  return Status::OK();
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
      std::equal(static_cast<const char*>(a.raw_data()), static_cast<const char*>(a.raw_data()) + a.byte_size(),
                 static_cast<const char*>(b.raw_data()));
}

}  // namespace

// ---------------------------------------------------------------------------- Philox

// Known-answer vectors for Philox4x32-10 published with Random123 (kat_vectors).
TEST(PhiloxKnownAnswers) {
  EXPECT_TRUE(
      (Philox4x32({0, 0, 0, 0}, {0, 0}) == cpu::PhiloxBlock{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_TRUE((Philox4x32({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}) ==
               cpu::PhiloxBlock{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_TRUE((Philox4x32({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}) ==
               cpu::PhiloxBlock{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(PhiloxCounterArithmetic) {
  EXPECT_TRUE((PhiloxAdd({0xffffffffu, 0xffffffffu, 7, 0}, 1) == cpu::PhiloxCounter{0, 0, 8, 0}));
  EXPECT_TRUE((PhiloxAdd({1, 2, 3, 4}, uint64_t{5} << 32) == cpu::PhiloxCounter{1, 7, 3, 4}));
  EXPECT_TRUE((cpu::MakeCounter(0x0000000200000001ull, 0x0000000400000003ull) == cpu::PhiloxCounter{1, 2, 3, 4}));
}

TEST(WordConversions) {
  EXPECT_EQ(cpu::Uint32ToFloat(0), 0.0f);
  EXPECT_TRUE(cpu::Uint32ToFloat(0xffffffffu) < 1.0f);
  EXPECT_EQ(cpu::Uint32ToFloat(0x400000u), 0.5f);
  EXPECT_EQ(cpu::Uint64ToDouble(0, 0), 0.0);
  EXPECT_TRUE(cpu::Uint64ToDouble(0xffffffffu, 0xffffffffu) < 1.0);
  EXPECT_EQ(cpu::Uint64ToDouble(0x80000u, 0), 0.5);
  float f0, f1;
  cpu::BoxMullerFloat(0, 0, &f0, &f1);  // u1 clamped to 1e-7: finite
  EXPECT_TRUE(std::isfinite(f0) && std::isfinite(f1));
}

// ---------------------------------------------------------------------------- OpDefs

TEST(OpDefProperties) {
  const std::vector<std::string> stateful = {"RandomUniform",    "RandomStandardNormal", "TruncatedNormal",
                                             "RandomUniformInt", "RandomShuffle",        "Multinomial"};
  for (const std::string& op : stateful) {
    const OpRegistration* r = OpRegistry::Global()->LookUp(op);
    EXPECT_TRUE(r != nullptr && r->def.is_stateful && r->shape_fn != nullptr && !r->def.summary.empty());
    if (r != nullptr)
      EXPECT_TRUE(r->def.attr.size() >= 2 && r->def.attr[0].name == "seed" && r->def.attr[1].name == "seed2");
  }
  for (const char* op : {"StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2"}) {
    const OpRegistration* r = OpRegistry::Global()->LookUp(op);
    EXPECT_TRUE(r != nullptr && !r->def.is_stateful && r->shape_fn != nullptr);
    if (r == nullptr) continue;
    std::string ins;
    for (const ArgDef& a : r->def.input_arg) ins += a.name + ",";
    EXPECT_EQ(ins, std::string("shape,key,counter,alg,"));
    EXPECT_TRUE(r->def.attr.size() == 2 && r->def.attr[0].name == "dtype" && r->def.attr[1].name == "Tshape");
  }
}

// ---------------------------------------------------------------------------- shape functions

TEST(ShapeFunctions) {
  const AttrMap f32 = Attrs({{"dtype", AttrValue::Type(DT_FLOAT)}});
  struct Case {
    std::string op;
    std::vector<InputSpec> inputs;
    AttrMap attrs;
    std::string want;  // output 0's shape, or "!" and an error substring
  };
  const PartialShape kScalar(std::vector<int64_t>{});
  const std::vector<Case> cases = {
      {"RandomUniform", {Cst(I32({2, 3}))}, f32, "[2,3]"},
      {"RandomUniform", {Cst(I64({0}))}, f32, "[0]"},
      {"RandomUniform", {Cst(I32({}))}, f32, "[]"},
      {"RandomUniform", {Ph(DT_INT32, PartialShape({3}))}, f32, "[?,?,?]"},
      {"RandomUniform", {Ph(DT_INT32)}, f32, "<unknown>"},
      {"RandomUniform", {Cst(I32({2, -1}))}, f32, "!non-negative"},
      {"RandomUniform", {Ph(DT_INT32, PartialShape({2, 2}))}, f32, "!rank"},
      {"RandomStandardNormal", {Cst(I32({4}))}, f32, "[4]"},
      {"TruncatedNormal", {Cst(I32({5, 1}))}, f32, "[5,1]"},
      {"RandomUniformInt", {Cst(I32({7})), Cst(Scalar<int32_t>(0)), Cst(Scalar<int32_t>(5))}, {}, "[7]"},
      {"RandomUniformInt", {Cst(I32({7})), Cst(Scalar<int32_t>(5)), Cst(Scalar<int32_t>(5))}, {}, "!minval < maxval"},
      {"RandomUniformInt", {Cst(I32({7})), Ph(DT_INT64, PartialShape({2})), Ph(DT_INT64, kScalar)}, {}, "!rank"},
      {"RandomShuffle", {Ph(DT_FLOAT, PartialShape({6, 2}))}, {}, "[6,2]"},
      {"Multinomial", {Ph(DT_FLOAT, PartialShape({3, 4})), Cst(Scalar<int32_t>(9))}, {}, "[3,9]"},
      {"Multinomial", {Ph(DT_FLOAT, PartialShape({3, 4})), Ph(DT_INT32, kScalar)}, {}, "[3,?]"},
      {"Multinomial", {Ph(DT_FLOAT, PartialShape({4})), Cst(Scalar<int32_t>(2))}, {}, "!rank"},
      {"Multinomial", {Ph(DT_FLOAT, PartialShape({3, 4})), Cst(Scalar<int32_t>(-1))}, {}, "!nonnegative"},
      {"StatelessRandomUniformV2",
       {Cst(I32({2, 2})), Cst(U64({1})), Cst(U64({0, 0})), Cst(Scalar<int32_t>(1))},
       {},
       "[2,2]"},
      {"StatelessRandomNormalV2", {Cst(I64({3})), Cst(U64({1})), Cst(U64({0, 0})), Cst(Scalar<int32_t>(3))}, {}, "[3]"},
      {"StatelessTruncatedNormalV2",
       {Cst(I32({3})), Cst(U64({1})), Cst(U64({0, 0})), Cst(Scalar<int32_t>(2))},
       {},
       "!Unsupported random algorithm"},
      {"StatelessRandomUniformV2",
       {Cst(I32({3})), Cst(Scalar<uint64_t>(1)), Cst(U64({0, 0})), Cst(Scalar<int32_t>(1))},
       {},
       "!rank"},
      {"StatelessRandomGetKeyCounter", {Ph(DT_INT64, PartialShape({2}))}, {}, "[1]"},
      {"StatelessRandomGetKeyCounter", {Ph(DT_INT32, PartialShape({-1}))}, {}, "[1]"},
      {"StatelessRandomGetKeyCounter", {Ph(DT_INT64, PartialShape({3}))}, {}, "!shape [2]"},
      {"StatelessRandomGetKeyCounter", {Ph(DT_INT64, kScalar)}, {}, "!rank"},
  };
  for (const Case& c : cases) {
    OpTester t;
    Node* n = nullptr;
    Status s = t.AddOp(c.op, c.inputs, c.attrs, &n);
    const std::string got = s.ok() ? t.graph().OutputShape({n, 0}).ToString() : "!" + s.message();
    const bool ok =
        c.want[0] == '!' ? (got[0] == '!' && got.find(c.want.substr(1)) != std::string::npos) : got == c.want;
    if (!ok) std::printf("  shape case %s: got '%s', want '%s'\n", c.op.c_str(), got.c_str(), c.want.c_str());
    EXPECT_TRUE(ok);
  }
}

// ---------------------------------------------------------------------------- kernel errors

TEST(KernelErrors) {
  const AttrMap f32 = Attrs({{"dtype", AttrValue::Type(DT_FLOAT)}});
  Tensor out;
  EXPECT_ERROR(RunOnce(1, "RandomUniform", {I32({2, -3})}, f32, &out), "non-negative");
  EXPECT_ERROR(RunOnce(1, "RandomUniform", {MakeTensor<int32_t>({1, 1}, {2})}, f32, &out), "vector");
  EXPECT_ERROR(RunOnce(1, "RandomStandardNormal", {I64({int64_t{1} << 32, int64_t{1} << 32})}, f32, &out),
               "too many elements");
  EXPECT_ERROR(RunOnce(1, "TruncatedNormal", {I64({int64_t{1} << 20, int64_t{1} << 20})}, f32, &out), "limit");
  EXPECT_ERROR(RunOnce(1, "RandomUniformInt", {I32({3}), Scalar<int32_t>(4), Scalar<int32_t>(4)}, {}, &out),
               "minval < maxval");
  EXPECT_ERROR(RunOnce(1, "RandomUniformInt", {I32({3}), I32({0}), Scalar<int32_t>(4)}, {}, &out), "scalar");
  EXPECT_ERROR(RunOnce(1, "Multinomial", {MakeTensor<float>({2}, {0, 0}), Scalar<int32_t>(3)}, {}, &out), "matrix");
  EXPECT_ERROR(RunOnce(1, "Multinomial", {MakeTensor<float>({1, 2}, {0, 0}), Scalar<int32_t>(-3)}, {}, &out),
               "nonnegative");
  EXPECT_ERROR(RunOnce(1, "Multinomial", {MakeTensor<float>({1, 0}, {}), Scalar<int32_t>(3)}, {}, &out), "num_classes");
  EXPECT_ERROR(RunOnce(1, "Multinomial", {MakeTensor<float>({1, 2}, {-INFINITY, NAN}), Scalar<int32_t>(3)}, {}, &out),
               "no finite");
  EXPECT_ERROR(RunOnce(1, "StatelessRandomUniformV2", {I32({3}), U64({1}), U64({0, 0}), Scalar<int32_t>(2)}, {}, &out),
               "Unsupported random algorithm");
  EXPECT_ERROR(
      RunOnce(1, "StatelessRandomNormalV2", {I32({3}), U64({1, 2}), U64({0, 0}), Scalar<int32_t>(1)}, {}, &out),
      "key must have shape");
  EXPECT_ERROR(RunOnce(1, "StatelessTruncatedNormalV2", {I32({3}), U64({1}), U64({0}), Scalar<int32_t>(1)}, {}, &out),
               "counter");
  // Empty outputs are fine.
  EXPECT_OK(RunOnce(1, "RandomUniform", {I32({0, 5})}, f32, &out));
  EXPECT_EQ(out.num_elements(), 0);
}

// The stateless V2 ops reproduce TensorFlow's values for the same key, counter and alg=Philox
// (expected values printed by tensorflow-cpu 2.21's tf.raw_ops; the counter carries into word 1).
TEST(StatelessMatchesTensorFlowValues) {
  const std::vector<Tensor> in = {I32({6}), U64({5}), U64({~uint64_t{0}, 9}), Scalar<int32_t>(1)};
  Tensor f, d, n;
  EXPECT_OK(RunOnce(1, "StatelessRandomUniformV2", in, {}, &f));
  EXPECT_OK(RunOnce(1, "StatelessRandomUniformV2", in, Attrs({{"dtype", AttrValue::Type(DT_DOUBLE)}}), &d));
  EXPECT_OK(RunOnce(1, "StatelessRandomNormalV2", {I32({4}), in[1], in[2], in[3]},
                    Attrs({{"dtype", AttrValue::Type(DT_DOUBLE)}}), &n));
  const std::vector<float> want_f = {0x1.bdb9fp-1f, 0x1.c83d8cp-1f, 0x1.f00e88p-1f,
                                     0x1.9614fp-1f, 0x1.7764ep-4f,  0x1.e9d77cp-1f};
  const std::vector<double> want_d = {0x1.edcf8c2e41ec6p-1, 0x1.80745c9cb0a78p-1, 0x1.7764fecf4ebbep-1,
                                      0x1.e7161dae4c6b8p-3, 0x1.dc95a440a980cp-1, 0x1.cba4df5769d00p-1};
  EXPECT_TRUE(Values<float>(f) == want_f);
  EXPECT_TRUE(Values<double>(d) == want_d);
  const std::vector<double> want_n = {-0.2689653803365128, 0.001500310447642917, 0.7855412770490303,
                                      0.060159258511312805};
  const std::vector<double> got_n = Values<double>(n);
  EXPECT_EQ(got_n.size(), want_n.size());
  for (size_t i = 0; i < got_n.size() && i < want_n.size(); ++i) EXPECT_NEAR(got_n[i], want_n[i], 1e-13);
}

// ---------------------------------------------------------------------------- determinism

// Every op gives bit-identical values with 0 and 4 intra-op workers (odd sizes exercise tails).
TEST(ThreadCountIndependence) {
  const AttrMap seeded32 =
      Attrs({{"dtype", AttrValue::Type(DT_FLOAT)}, {"seed", AttrValue::Int(7)}, {"seed2", AttrValue::Int(3)}});
  const AttrMap seeded64 =
      Attrs({{"dtype", AttrValue::Type(DT_DOUBLE)}, {"seed", AttrValue::Int(7)}, {"seed2", AttrValue::Int(3)}});
  const AttrMap seeds = Attrs({{"seed", AttrValue::Int(7)}, {"seed2", AttrValue::Int(3)}});
  std::vector<float> logits(40 * 10);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = static_cast<float>(i % 7) * 0.3f;
  std::vector<float> rows(300001);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<float>(i);
  struct Run {
    std::string op;
    std::vector<Tensor> inputs;
    AttrMap attrs;
  };
  const std::vector<Run> runs = {
      {"RandomUniform", {I32({1001, 301})}, seeded32},
      {"RandomUniform", {I32({100003})}, seeded64},
      {"RandomStandardNormal", {I32({300007})}, seeded32},
      {"RandomStandardNormal", {I32({100001})}, seeded64},
      {"TruncatedNormal", {I32({100003})}, seeded32},
      {"TruncatedNormal", {I32({100003})}, seeded64},
      {"RandomUniformInt", {I32({200001}), Scalar<int32_t>(-5), Scalar<int32_t>(1000)}, seeds},
      {"RandomUniformInt", {I32({200001}), Scalar<int64_t>(-5), Scalar<int64_t>(int64_t{1} << 40)}, seeds},
      {"RandomShuffle", {MakeTensor<float>({300001}, rows)}, seeds},
      {"Multinomial", {MakeTensor<float>({40, 10}, logits), Scalar<int32_t>(5001)}, seeds},
      {"StatelessRandomUniformV2", {I32({300001}), U64({42}), U64({5, 9}), Scalar<int32_t>(1)}, {}},
      {"StatelessRandomNormalV2",
       {I32({300001}), U64({42}), U64({5, 9}), Scalar<int32_t>(3)},
       Attrs({{"dtype", AttrValue::Type(DT_DOUBLE)}})},
      {"StatelessTruncatedNormalV2", {I32({100001}), U64({42}), U64({5, 9}), Scalar<int32_t>(1)}, {}},
  };
  for (const Run& r : runs) {
    Tensor one, four;
    EXPECT_OK(RunOnce(0, r.op, r.inputs, r.attrs, &one));
    EXPECT_OK(RunOnce(4, r.op, r.inputs, r.attrs, &four));
    const bool same = SameBytes(one, four);
    if (!same) std::printf("  %s differs between 0 and 4 intra-op threads\n", r.op.c_str());
    EXPECT_TRUE(same);
  }
}

// A stateful kernel advances its stream each run; a fresh kernel with the same seeds repeats it.
TEST(StatefulKernelsAdvance) {
  OpTester t(2);
  Node* n = nullptr;
  const AttrMap attrs =
      Attrs({{"dtype", AttrValue::Type(DT_FLOAT)}, {"seed", AttrValue::Int(1)}, {"seed2", AttrValue::Int(2)}});
  EXPECT_OK(t.AddOp("RandomUniform", {Ph(DT_INT32)}, attrs, &n));
  std::vector<Tensor> a, b;
  EXPECT_OK(RunKernel(&t, n, {I32({1000})}, 2, &a));
  EXPECT_OK(RunKernel(&t, n, {I32({1000})}, 1, &b));
  if (a.size() == 2 && b.size() == 1) {
    EXPECT_TRUE(!SameBytes(a[0], a[1]));
    EXPECT_TRUE(SameBytes(a[0], b[0]));
  }
  // seed == seed2 == 0: two kernels draw different OS seeds.
  Node* z = nullptr;
  EXPECT_OK(t.AddOp("RandomUniform", {Ph(DT_INT32)}, Attrs({{"dtype", AttrValue::Type(DT_FLOAT)}}), &z));
  std::vector<Tensor> c, d;
  EXPECT_OK(RunKernel(&t, z, {I32({100})}, 1, &c));
  EXPECT_OK(RunKernel(&t, z, {I32({100})}, 1, &d));
  if (c.size() == 1 && d.size() == 1) EXPECT_TRUE(!SameBytes(c[0], d[0]));
}

// ---------------------------------------------------------------------------- statistics

TEST(BasicStatistics) {
  const int n = 200000;
  Tensor u, z, tn, ri, sh;
  EXPECT_OK(RunOnce(2, "StatelessRandomUniformV2", {I32({n}), U64({3}), U64({0, 0}), Scalar<int32_t>(1)}, {}, &u));
  EXPECT_OK(RunOnce(2, "StatelessRandomNormalV2", {I32({n}), U64({3}), U64({0, 0}), Scalar<int32_t>(1)},
                    Attrs({{"dtype", AttrValue::Type(DT_DOUBLE)}}), &z));
  EXPECT_OK(RunOnce(2, "StatelessTruncatedNormalV2", {I32({n}), U64({3}), U64({0, 0}), Scalar<int32_t>(1)}, {}, &tn));
  EXPECT_OK(RunOnce(2, "RandomUniformInt", {I32({n}), Scalar<int32_t>(-3), Scalar<int32_t>(4)},
                    Attrs({{"seed", AttrValue::Int(5)}}), &ri));
  std::vector<int32_t> seq(1000);
  for (int i = 0; i < 1000; ++i) seq[i] = i;
  EXPECT_OK(RunOnce(2, "RandomShuffle", {MakeTensor<int32_t>({1000}, seq)}, Attrs({{"seed", AttrValue::Int(5)}}), &sh));
  auto mean_var = [](const std::vector<double>& v, double* m, double* var) {
    *m = 0;
    for (double x : v) *m += x;
    *m /= v.size();
    *var = 0;
    for (double x : v) *var += (x - *m) * (x - *m);
    *var /= v.size();
  };
  double m, var;
  std::vector<float> uf = Values<float>(u);
  EXPECT_TRUE(std::all_of(uf.begin(), uf.end(), [](float x) { return x >= 0 && x < 1; }));
  mean_var(std::vector<double>(uf.begin(), uf.end()), &m, &var);
  EXPECT_NEAR(m, 0.5, 0.005);  // sd of the mean ~ 0.00065
  EXPECT_NEAR(var, 1.0 / 12, 0.002);
  mean_var(Values<double>(z), &m, &var);
  EXPECT_NEAR(m, 0.0, 0.012);
  EXPECT_NEAR(var, 1.0, 0.015);
  std::vector<float> tf = Values<float>(tn);
  EXPECT_TRUE(std::all_of(tf.begin(), tf.end(), [](float x) { return std::fabs(x) <= 2; }));
  mean_var(std::vector<double>(tf.begin(), tf.end()), &m, &var);
  EXPECT_NEAR(m, 0.0, 0.01);
  EXPECT_NEAR(var, 0.7737413, 0.01);  // variance of N(0,1) truncated to [-2, 2]
  std::vector<int32_t> iv = Values<int32_t>(ri);
  std::vector<int> counts(7, 0);
  bool in_range = true;
  for (int32_t x : iv) {
    if (x < -3 || x >= 4)
      in_range = false;
    else
      ++counts[x + 3];
  }
  EXPECT_TRUE(in_range);
  for (int c : counts) EXPECT_NEAR(c / static_cast<double>(n), 1.0 / 7, 0.005);
  std::vector<int32_t> perm = Values<int32_t>(sh);
  EXPECT_TRUE(perm != seq);
  std::sort(perm.begin(), perm.end());
  EXPECT_TRUE(perm == seq);
}

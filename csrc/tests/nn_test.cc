// Tests of the neural-network ops: shape-function tables (conv/pool SAME/VALID/EXPLICIT sizes,
// cross-entropy and batch-norm shapes) and kernel values and error paths.
#include <cmath>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "test_util.h"
#include "tensorflux/framework/op_registry.h"

using namespace tx;
using namespace tx_test;

namespace {

InputSpec F(PartialShape s) { return Ph(DT_FLOAT, std::move(s)); }
InputSpec I(PartialShape s) { return Ph(DT_INT32, std::move(s)); }
const PartialShape kScalar = PartialShape(std::vector<int64_t>{});

AttrValue Ints(std::vector<int64_t> v) {
  AttrValue a = AttrValue::EmptyList();
  a.list.i = std::move(v);
  return a;
}
AttrValue S(const char* s) { return AttrValue::String(s); }

AttrMap ConvAttrs(std::vector<int64_t> strides, const char* pad, std::vector<int64_t> dil = {1, 1, 1, 1},
                  std::vector<int64_t> explicit_pads = {}) {
  return AttrMap{{"T", AttrValue::Type(DT_FLOAT)},
                 {"strides", Ints(strides)},
                 {"padding", S(pad)},
                 {"dilations", Ints(dil)},
                 {"explicit_paddings", Ints(explicit_pads)}};
}
AttrMap PoolAttrs(std::vector<int64_t> ksize, std::vector<int64_t> strides, const char* pad) {
  return AttrMap{
      {"T", AttrValue::Type(DT_FLOAT)}, {"ksize", Ints(ksize)}, {"strides", Ints(strides)}, {"padding", S(pad)}};
}

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
    const std::string got = s.ok() ? t.graph().OutputShape({n, 0}).ToString() : "!" + s.message();
    const bool is_error = !c.want.empty() && c.want[0] == '!';
    const bool ok = is_error ? (got[0] == '!' && got.find(c.want.substr(1)) != std::string::npos) : got == c.want;
    if (!ok) std::printf("  shape case %s: got '%s', want '%s'\n", c.op.c_str(), got.c_str(), c.want.c_str());
    EXPECT_TRUE(ok);
  }
}

std::vector<float> Seq(int64_t n, float scale = 0.1f) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>((i * 7) % 11 - 5);
  return v;
}

}  // namespace

TEST(ShapeFunctionsConvPool) {
  const std::vector<int64_t> s1 = {1, 1, 1, 1}, s2 = {1, 2, 2, 1};
  RunShapeCases({
      {"Conv2D", {F({16, 32, 32, 64}), F({3, 3, 64, 64})}, ConvAttrs(s1, "SAME"), "[16,32,32,64]"},
      {"Conv2D", {F({16, 32, 32, 64}), F({3, 3, 64, 8})}, ConvAttrs(s1, "VALID"), "[16,30,30,8]"},
      {"Conv2D", {F({2, 7, 9, 3}), F({3, 3, 3, 4})}, ConvAttrs(s2, "SAME"), "[2,4,5,4]"},
      {"Conv2D", {F({2, 7, 9, 3}), F({3, 3, 3, 4})}, ConvAttrs(s2, "VALID"), "[2,3,4,4]"},
      {"Conv2D", {F({2, 7, 9, 3}), F({3, 3, 3, 4})}, ConvAttrs(s1, "VALID", {1, 2, 2, 1}), "[2,3,5,4]"},
      {"Conv2D",
       {F({2, 7, 9, 3}), F({3, 3, 3, 4})},
       ConvAttrs(s1, "EXPLICIT", s1, {0, 0, 1, 2, 0, 1, 0, 0}),
       "[2,8,8,4]"},
      {"Conv2D", {F({-1, 7, -1, 3}), F({3, 3, 3, 4})}, ConvAttrs(s1, "SAME"), "[?,7,?,4]"},
      {"Conv2D", {F(PartialShape()), F({3, 3, 3, 4})}, ConvAttrs(s1, "SAME"), "[?,?,?,4]"},
      {"Conv2D", {F({2, 7, 9, 3}), F({3, 3, 5, 4})}, ConvAttrs(s1, "SAME"), "!Depth of input must be a multiple"},
      {"Conv2D", {F({2, 7, 9}), F({3, 3, 3, 4})}, ConvAttrs(s1, "SAME"), "!rank"},
      {"Conv2D", {F({2, 2, 2, 3}), F({5, 5, 3, 4})}, ConvAttrs(s1, "VALID"), "!negative"},
      {"Conv2D", {F({2, 2, 2, 3}), F({3, 3, 3, 4})}, ConvAttrs(s1, "VALID"), "[2,0,0,4]"},
      {"Conv2D", {F({2, 7, 9, 3}), F({3, 3, 3, 4})}, ConvAttrs({1, 1, 1}, "SAME"), "!4 dimensions"},
      {"Conv2D", {F({2, 7, 9, 3}), F({3, 3, 3, 4})}, ConvAttrs({2, 1, 1, 1}, "SAME"), "!batch and depth"},
      {"Conv2D", {F({2, 7, 9, 3}), F({3, 3, 3, 4})}, ConvAttrs(s1, "EXPLICIT"), "!explicit_paddings"},
      {"DepthwiseConv2dNative", {F({2, 7, 9, 3}), F({3, 3, 3, 2})}, ConvAttrs(s2, "SAME"), "[2,4,5,6]"},
      {"DepthwiseConv2dNative", {F({2, 7, 9, 3}), F({3, 3, 4, 2})}, ConvAttrs(s1, "SAME"), "!same depth"},
      {"MaxPool", {F({2, 7, 9, 3})}, PoolAttrs({1, 2, 2, 1}, s2, "VALID"), "[2,3,4,3]"},
      {"MaxPool", {F({2, 7, 9, 3})}, PoolAttrs({1, 3, 3, 1}, s2, "SAME"), "[2,4,5,3]"},
      {"MaxPool", {F({2, 7, 9, 3})}, PoolAttrs({2, 3, 3, 1}, s2, "SAME"), "!batch dimension"},
      {"MaxPool", {F({2, 7, 9})}, PoolAttrs({1, 3, 3, 1}, s2, "SAME"), "!rank"},
      {"AvgPool", {F({2, 7, 9, 3})}, PoolAttrs({1, 3, 3, 1}, s1, "SAME"), "[2,7,9,3]"},
      {"AvgPool", {F({2, 7, 9, 3})}, PoolAttrs({1, 3, 2, 1}, {1, 3, 2, 1}, "VALID"), "[2,2,4,3]"},
      {"AvgPool", {F({2, 7, 9, 3})}, PoolAttrs({1, 3, 3, 1}, {1, 0, 1, 1}, "VALID"), "!must be > 0"},
  });
}

TEST(ShapeFunctionsNN) {
  const AttrMap t{{"T", AttrValue::Type(DT_FLOAT)}};
  AttrMap sparse = t;
  sparse["Tlabels"] = AttrValue::Type(DT_INT32);
  AttrMap bn{{"T", AttrValue::Type(DT_FLOAT)}, {"U", AttrValue::Type(DT_FLOAT)}};
  AttrMap bn_inf = bn;
  bn_inf["is_training"] = AttrValue::Bool(false);
  RunShapeCases({
      {"LogSoftmax", {F({3, 5})}, t, "[3,5]"},
      {"LogSoftmax", {F(kScalar)}, t, "!rank"},
      {"Elu", {F({3, -1})}, t, "[3,?]"},
      {"SoftmaxCrossEntropyWithLogits", {F({4, 5}), F({4, 5})}, t, "[4]"},
      {"SoftmaxCrossEntropyWithLogits", {F({1, 5}), F({4, 5})}, t, "[4]"},
      {"SoftmaxCrossEntropyWithLogits", {F({3, 5}), F({4, 5})}, t, "!broadcastable"},
      {"SoftmaxCrossEntropyWithLogits", {F({5}), F({5})}, t, "!rank"},
      {"SparseSoftmaxCrossEntropyWithLogits", {F({4, 5}), I({4})}, sparse, "[4]"},
      {"SparseSoftmaxCrossEntropyWithLogits", {F({-1, 5}), I({4})}, sparse, "[4]"},
      {"SparseSoftmaxCrossEntropyWithLogits", {F({4, 5}), I({3})}, sparse, "!same first dimension"},
      {"SparseSoftmaxCrossEntropyWithLogits", {F({4, 5}), I({4, 1})}, sparse, "!rank"},
      {"L2Loss", {F({4, 5})}, t, "[]"},
      {"InTopKV2", {F({4, 5}), I({4}), I(kScalar)}, AttrMap{{"T", AttrValue::Type(DT_INT32)}}, "[4]"},
      {"InTopKV2", {F({4, 5}), I({3}), I(kScalar)}, AttrMap{{"T", AttrValue::Type(DT_INT32)}}, "!must match"},
      {"FusedBatchNormV3", {F({2, 3, 3, 4}), F({4}), F({4}), F({0}), F({0})}, bn, "[2,3,3,4]"},
      {"FusedBatchNormV3", {F({2, 3, 3, 4}), F({5}), F({4}), F({0}), F({0})}, bn, "!channel"},
      {"FusedBatchNormV3", {F({2, 3, 3, 4}), F({4}), F({4}), F({0}), F({0})}, bn_inf, "!channel"},
      {"FusedBatchNormV3", {F({2, 3, 4}), F({4}), F({4}), F({4}), F({4})}, bn, "!rank"},
  });
}

// The image ops: resize sizes from constant inputs, crop and NMS shapes, patch grids.
TEST(ShapeFunctionsImage) {
  auto Size = [](int32_t h, int32_t w) { return Cst(MakeTensor<int32_t>(TensorShape({2}), {h, w})); };
  const AttrMap t{{"T", AttrValue::Type(DT_FLOAT)}};
  const AttrMap nms{{"T", AttrValue::Type(DT_FLOAT)}, {"T_threshold", AttrValue::Type(DT_FLOAT)}};
  AttrMap nms_pad = nms;
  nms_pad["pad_to_max_output_size"] = AttrValue::Bool(true);
  auto Patches = [](std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> r, const char* pad) {
    return AttrMap{{"T", AttrValue::Type(DT_FLOAT)},
                   {"ksizes", Ints(k)},
                   {"strides", Ints(s)},
                   {"rates", Ints(r)},
                   {"padding", S(pad)}};
  };
  const InputSpec max_out = Cst(MakeTensor<int32_t>(TensorShape({}), {7}));
  RunShapeCases({
      {"ResizeBilinear", {F({2, 5, 6, 3}), Size(10, 4)}, t, "[2,10,4,3]"},
      {"ResizeBilinear", {F({2, 5, 6, 3}), I({2})}, t, "[2,?,?,3]"},
      {"ResizeBilinear", {F({-1, 5, 6, -1}), Size(1, 1)}, t, "[?,1,1,?]"},
      {"ResizeBilinear", {F({5, 6, 3}), Size(10, 4)}, t, "!rank 4"},
      {"ResizeBilinear", {F({2, 5, 6, 3}), Size(-1, 4)}, t, "!size must be positive, got [-1, 4]"},
      {"ResizeBilinear", {F({2, 5, 6, 3}), Size(0, 4)}, t, "!size must be positive"},
      {"ResizeBilinear", {F({2, 5, 6, 3}), I({3})}, t, "!2 elements"},
      {"ResizeNearestNeighbor", {F({2, 5, 6, 3}), Size(3, 3)}, t, "[2,3,3,3]"},
      {"ResizeBicubic", {F({1, 5, 6, 1}), Size(65536, 65536)}, t, "[1,65536,65536,1]"},
      {"ResizeArea", {F({2, 5, 6, 3}), Size(2, 9)}, t, "[2,2,9,3]"},
      {"ResizeBilinearGrad", {F({2, 10, 4, 3}), F({2, 5, 6, 3})}, t, "[2,5,6,3]"},
      {"ResizeBilinearGrad", {F({2, 10, 4, 3}), F({5, 6, 3})}, t, "!rank 4"},
      {"ResizeNearestNeighborGrad", {F({2, 10, 4, 3}), Size(5, 6)}, t, "[2,5,6,3]"},
      {"ScaleAndTranslate", {F({2, 5, 6, 3}), Size(7, 8), F({2}), F({2})}, t, "[2,7,8,3]"},
      {"ScaleAndTranslate", {F({2, 5, 6, 3}), Size(7, 8), F({3}), F({2})}, t, "!2 elements"},
      {"ScaleAndTranslateGrad", {F({2, 7, 8, 3}), F({2, 5, 6, 3}), F({2}), F({2})}, t, "[2,5,6,3]"},
      {"CropAndResize", {F({2, 5, 6, 3}), F({4, 4}), I({4}), Size(3, 2)}, t, "[4,3,2,3]"},
      {"CropAndResize", {F({2, 5, 6, 3}), F({-1, 4}), I({4}), I({2})}, t, "[4,?,?,3]"},
      {"CropAndResize", {F({2, 5, 6, 3}), F({4, 3}), I({4}), Size(3, 2)}, t, "!4 columns"},
      {"CropAndResize", {F({2, 5, 6, 3}), F({4, 4}), I({5}), Size(3, 2)}, t, "!box_ind has 5"},
      {"CropAndResizeGradImage",
       {F({4, 3, 2, 3}), F({4, 4}), I({4}), Cst(MakeTensor<int32_t>(TensorShape({4}), {2, 5, 6, 3}))},
       t,
       "[2,5,6,3]"},
      {"CropAndResizeGradBoxes", {F({4, 3, 2, 3}), F({2, 5, 6, 3}), F({4, 4}), I({4})}, t, "[4,4]"},
      {"NonMaxSuppressionV3", {F({9, 4}), F({9}), I(kScalar), F(kScalar), F(kScalar)}, nms, "[?]"},
      {"NonMaxSuppressionV3", {F({9, 4}), F({8}), I(kScalar), F(kScalar), F(kScalar)}, nms, "!scores has 8"},
      {"NonMaxSuppressionV3", {F({9, 5}), F({9}), I(kScalar), F(kScalar), F(kScalar)}, nms, "!4 columns"},
      {"NonMaxSuppressionV3", {F({9, 4}), F({9}), I({1}), F(kScalar), F(kScalar)}, nms, "!must be a scalar"},
      {"NonMaxSuppressionV4", {F({9, 4}), F({9}), max_out, F(kScalar), F(kScalar)}, nms_pad, "[7]"},
      {"RGBToHSV", {F({2, 4, 3})}, t, "[2,4,3]"},
      {"RGBToHSV", {F({2, 4, 4})}, t, "!3 channels"},
      {"AdjustHue", {F({4, 3}), F(kScalar)}, t, "!at least rank 3"},
      {"AdjustContrastv2", {F({2, 4, 5, 7}), F(kScalar)}, t, "[2,4,5,7]"},
      {"ExtractImagePatches",
       {F({2, 7, 8, 3})},
       Patches({1, 3, 2, 1}, {1, 2, 1, 1}, {1, 1, 2, 1}, "SAME"),
       "[2,4,8,18]"},
      {"ExtractImagePatches",
       {F({2, 7, 8, 3})},
       Patches({1, 2, 2, 1}, {1, 3, 3, 1}, {1, 1, 1, 1}, "VALID"),
       "[2,2,3,12]"},
      {"ExtractImagePatches",
       {F({2, -1, 8, -1})},
       Patches({1, 2, 2, 1}, {1, 3, 3, 1}, {1, 1, 1, 1}, "VALID"),
       "[2,?,3,?]"},
      {"ExtractImagePatches",
       {F({2, 7, 8, 3})},
       Patches({2, 2, 2, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"),
       "!ksizes must be [1, rows, cols, 1]"},
      {"DrawBoundingBoxesV2", {F({2, 5, 6, 3}), F({2, 7, 4}), F({3, 4})}, t, "[2,5,6,3]"},
      {"NonMaxSuppressionWithOverlaps", {F({6, 6}), F({6}), I(kScalar), F(kScalar), F(kScalar)}, {}, "[?]"},
      {"NonMaxSuppressionWithOverlaps", {F({6, 5}), F({6}), I(kScalar), F(kScalar), F(kScalar)}, {}, "!square"},
      {"CombinedNonMaxSuppression",
       {F({2, 9, 1, 4}), F({2, 9, 3}), I(kScalar), max_out, F(kScalar), F(kScalar)},
       AttrMap{{"pad_per_class", AttrValue::Bool(false)}},
       "[2,7,4]"},
      {"CombinedNonMaxSuppression",
       {F({2, 9, 1, 4}), F({2, 8, 3}), I(kScalar), max_out, F(kScalar), F(kScalar)},
       AttrMap{{"pad_per_class", AttrValue::Bool(false)}},
       "!disagree"},
      {"StatelessSampleDistortedBoundingBox",
       {I({3}), F({1, 2, 4}), F(kScalar), I({2})},
       AttrMap{{"T", AttrValue::Type(DT_INT32)}, {"Tseed", AttrValue::Type(DT_INT32)}},
       "[3]"},
      {"StatelessSampleDistortedBoundingBox",
       {I({4}), F({1, 2, 4}), F(kScalar), I({2})},
       AttrMap{{"T", AttrValue::Type(DT_INT32)}, {"Tseed", AttrValue::Type(DT_INT32)}},
       "!3 elements"},
  });
}

TEST(Conv2DMatchesDirectLoop) {
  // 2x5x6x3 input, 3x2x3x4 filter, strides 2x1, dilation 1x2, SAME and VALID, plus a 1x1 case.
  struct Case {
    int64_t kh, kw, sh, sw, dh, dw;
    const char* pad;
  };
  for (const Case& cs : {Case{3, 2, 2, 1, 1, 2, "SAME"}, Case{3, 2, 1, 1, 1, 1, "VALID"},
                         Case{1, 1, 1, 1, 1, 1, "SAME"}, Case{3, 3, 1, 2, 2, 1, "SAME"}}) {
    const int64_t n = 2, h = 5, w = 6, c = 3, m = 4;
    Tensor x = MakeTensor<float>({n, h, w, c}, Seq(n * h * w * c));
    Tensor f = MakeTensor<float>({cs.kh, cs.kw, c, m}, Seq(cs.kh * cs.kw * c * m, 0.3f));
    OpTester t;
    std::vector<Tensor> out;
    EXPECT_OK(t.RunOp("Conv2D", {x, f}, ConvAttrs({1, cs.sh, cs.sw, 1}, cs.pad, {1, cs.dh, cs.dw, 1}), &out));
    if (out.empty() || !out[0].initialized()) continue;
    const int64_t oh = out[0].dim(1), ow = out[0].dim(2);
    const int64_t eh = (cs.kh - 1) * cs.dh + 1, ew = (cs.kw - 1) * cs.dw + 1;
    const bool same = std::string(cs.pad) == "SAME";
    const int64_t pt = same ? std::max<int64_t>(0, (oh - 1) * cs.sh + eh - h) / 2 : 0;
    const int64_t pl = same ? std::max<int64_t>(0, (ow - 1) * cs.sw + ew - w) / 2 : 0;
    const float* xv = x.data<float>();
    const float* fv = f.data<float>();
    const float* yv = out[0].data<float>();
    double max_err = 0;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j)
          for (int64_t o = 0; o < m; ++o) {
            double acc = 0;
            for (int64_t a = 0; a < cs.kh; ++a)
              for (int64_t q = 0; q < cs.kw; ++q) {
                const int64_t ih = i * cs.sh - pt + a * cs.dh, iw = j * cs.sw - pl + q * cs.dw;
                if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
                for (int64_t ci = 0; ci < c; ++ci)
                  acc += double(xv[((b * h + ih) * w + iw) * c + ci]) * fv[((a * cs.kw + q) * c + ci) * m + o];
              }
            max_err = std::max(max_err, std::fabs(acc - yv[((b * oh + i) * ow + j) * m + o]));
          }
    EXPECT_TRUE(max_err < 1e-4);
  }
}

TEST(NNKernelErrors) {
  OpTester t;
  std::vector<Tensor> out;
  Tensor logits = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  AttrMap sparse{{"T", AttrValue::Type(DT_FLOAT)}, {"Tlabels", AttrValue::Type(DT_INT32)}};
  EXPECT_ERROR(t.RunOp("SparseSoftmaxCrossEntropyWithLogits", {logits, MakeTensor<int32_t>({2}, {0, 3})}, sparse, &out),
               "outside the valid range of [0, 3)");
  EXPECT_ERROR(
      t.RunOp("SparseSoftmaxCrossEntropyWithLogits", {logits, MakeTensor<int32_t>({2}, {-1, 0})}, sparse, &out),
      "label value of -1");
  EXPECT_ERROR(
      t.RunOp("SparseSoftmaxCrossEntropyWithLogits", {logits, MakeTensor<int32_t>({3}, {0, 0, 0})}, sparse, &out),
      "same first dimension");
  EXPECT_OK(t.RunOp("SparseSoftmaxCrossEntropyWithLogits", {logits, MakeTensor<int32_t>({2}, {2, 0})}, sparse, &out));
  EXPECT_NEAR(Values<float>(out[0])[0], std::log(std::exp(-2.0) + std::exp(-1.0) + 1.0), 1e-5);
  const AttrMap ft{{"T", AttrValue::Type(DT_FLOAT)}};
  EXPECT_ERROR(
      t.RunOp("SoftmaxCrossEntropyWithLogits", {logits, MakeTensor<float>({3, 3}, std::vector<float>(9, 0))}, ft, &out),
      "broadcastable");
  EXPECT_ERROR(t.RunOp("Conv2D", {MakeTensor<float>({1, 2, 2, 2}, Seq(8)), MakeTensor<float>({1, 1, 3, 1}, Seq(3))},
                       ConvAttrs({1, 1, 1, 1}, "SAME"), &out),
               "divisible");
  EXPECT_ERROR(t.RunOp("Conv2D", {MakeTensor<float>({2, 2, 2}, Seq(8)), MakeTensor<float>({1, 1, 2, 1}, Seq(2))},
                       ConvAttrs({1, 1, 1, 1}, "SAME"), &out),
               "4-dimensional");
  EXPECT_ERROR(t.RunOp("Conv2D", {MakeTensor<float>({1, 1, 1, 1}, Seq(1)), MakeTensor<float>({3, 3, 1, 1}, Seq(9))},
                       ConvAttrs({1, 1, 1, 1}, "VALID"), &out),
               "negative");
  AttrMap nchw = ConvAttrs({1, 1, 1, 1}, "SAME");
  nchw["data_format"] = S("NCHW");
  EXPECT_ERROR(
      t.RunOp("Conv2D", {MakeTensor<float>({1, 1, 2, 2}, Seq(4)), MakeTensor<float>({1, 1, 1, 1}, Seq(1))}, nchw, &out),
      "NHWC");
  EXPECT_ERROR(
      t.RunOp("MaxPool", {MakeTensor<float>({2, 2, 2}, Seq(8))}, PoolAttrs({1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"), &out),
      "4-dimensional");
  EXPECT_ERROR(t.RunOp("InTopKV2", {logits, MakeTensor<int32_t>({3}, {0, 0, 0}), MakeTensor<int32_t>({}, {1})},
                       AttrMap{{"T", AttrValue::Type(DT_INT32)}}, &out),
               "must match");
  EXPECT_OK(t.RunOp("InTopKV2", {logits, MakeTensor<int32_t>({2}, {2, 7}), MakeTensor<int32_t>({}, {1})},
                    AttrMap{{"T", AttrValue::Type(DT_INT32)}}, &out));
  EXPECT_TRUE(Values<bool>(out[0]) == std::vector<bool>({true, false}));
  AttrMap bn{
      {"T", AttrValue::Type(DT_FLOAT)}, {"U", AttrValue::Type(DT_FLOAT)}, {"is_training", AttrValue::Bool(false)}};
  EXPECT_ERROR(t.RunOp("FusedBatchNormV3",
                       {MakeTensor<float>({1, 1, 2, 2}, Seq(4)), MakeTensor<float>({2}, {1, 1}),
                        MakeTensor<float>({2}, {0, 0}), MakeTensor<float>({0}, {}), MakeTensor<float>({0}, {})},
                       bn, &out),
               "mean must be a vector of 2");
}

// CPU kernels for the color ops: RGBToHSV and HSVToRGB (float, double), and the fused
// adjustments AdjustContrastv2, AdjustHue and AdjustSaturation (float32, TensorFlow's CPU
// types), each with TensorFlow's arithmetic (Note [Image kernel rounding]).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Images [..., 3]: checks the last dimension and returns the pixel count.
Status CheckRgb(const char* op, const Tensor& t, int min_rank, int64_t* pixels) {
  if (t.rank() < min_rank || t.dim(t.rank() - 1) != 3)
    return InvalidArgument(op, ": images must have at least ", min_rank,
                           " dimensions and 3 channels in the last, "
                           "got shape ",
                           t.shape().ToString());
  *pixels = t.num_elements() / 3;
  return Status::OK();
}

Status ReadScalarFloat(OpKernelContext* ctx, int i, const char* op, const char* what, float* v) {
  TX_RETURN_IF_ERROR(CheckInput(ctx, i, DT_FLOAT));
  if (ctx->input(i).rank() != 0)
    return InvalidArgument(op, ": ", what, " must be a scalar, got shape ", ctx->input(i).shape().ToString());
  *v = ctx->input(i).data<float>()[0];
  return Status::OK();
}

// Writes fn(in + 3 i, out + 3 i) for each pixel i of input 0 (images [..., 3] of rank at least
// `min_rank`) into output 0, reusing the input buffer when the op may (`in_place`).
template <typename T, typename F>
void MapPixels(OpKernelContext* ctx, const char* op, int min_rank, bool in_place, int64_t cost, const F& fn) {
  TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
  int64_t n = 0;
  TX_CTX_RETURN_IF_ERROR(ctx, CheckRgb(op, ctx->input(0), min_rank, &n));
  Tensor* out = nullptr;
  const TensorShape& shape = ctx->input(0).shape();
  TX_CTX_RETURN_IF_ERROR(
      ctx, in_place ? ctx->forward_input_or_allocate_output(0, 0, shape, &out) : ctx->allocate_output(0, shape, &out));
  const T* p = ctx->input(0).data<T>();
  T* q = out->data<T>();
  ParallelRange(ctx->intra_op_pool(), n, cost, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) fn(p + 3 * i, q + 3 * i);
  });
}

template <typename T>
class RGBToHSVOp : public OpKernel {
 public:
  explicit RGBToHSVOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    MapPixels<T>(ctx, "RGBToHSV", 1, true, 16, [](const T* p, T* q) {
      const T r = p[0], g = p[1], b = p[2];
      const T v = std::max(r, std::max(g, b));
      const T range = v - std::min(r, std::min(g, b));
      const T s = v > T(0) ? range / v : T(0);
      const T norm = (T(1) / range) * (T(1) / T(6));
      T h = r == v ? norm * (g - b) : g == v ? norm * (b - r) + T(2) / T(6) : norm * (r - g) + T(4) / T(6);
      if (!(range > T(0))) h = T(0);
      if (h < T(0)) h = h + T(1);
      q[0] = h;
      q[1] = s;
      q[2] = v;
    });
  }
};

template <typename T>
class HSVToRGBOp : public OpKernel {
 public:
  explicit HSVToRGBOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    MapPixels<T>(ctx, "HSVToRGB", 1, true, 16, [](const T* p, T* q) {
      auto clamp01 = [](T x) { return std::min(std::max(x, T(0)), T(1)); };
      const T h = p[0], s = p[1], v = p[2];
      const T dh = h * T(6);
      const T dr = clamp01(std::abs(dh - T(3)) - T(1));
      const T dg = clamp01(-std::abs(dh - T(2)) + T(2));
      const T db = clamp01(-std::abs(dh - T(4)) + T(2));
      const T one_s = -s + T(1);
      q[0] = (one_s + s * dr) * v;
      q[1] = (one_s + s * dg) * v;
      q[2] = (one_s + s * db) * v;
    });
  }
};

// output = mean + factor * (images - mean), the mean over height and width per image and
// channel, summed by folding the image in halves as TensorFlow's kernel does.
class AdjustContrastv2Op : public OpKernel {
 public:
  explicit AdjustContrastv2Op(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "AdjustContrastv2";
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_FLOAT));
    const Tensor& in = ctx->input(0);
    if (in.rank() < 3) {
      ctx->SetStatus(InvalidArgument(kOp, ": images must be at least 3-D [..., height, width, channels], got shape ",
                                     in.shape().ToString()));
      return;
    }
    float factor = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadScalarFloat(ctx, 1, kOp, "contrast_factor", &factor));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.num_elements() == 0) return;
    const int64_t pixels = in.dim(in.rank() - 3) * in.dim(in.rank() - 2), c = in.dim(in.rank() - 1);
    const int64_t batch = in.num_elements() / (pixels * c), plane = pixels * c;
    const float* x = in.data<float>();
    float* y = out->data<float>();
    ParallelItems(ctx->intra_op_pool(), batch, plane * 4, [&](int64_t begin, int64_t end) {
      std::vector<float> sum(plane);
      for (int64_t b = begin; b < end; ++b) {
        const float* src = x + b * plane;
        int64_t remaining = pixels;
        bool first = true;
        do {  // fold the pixels in halves until one set of channels holds the sum
          const int64_t right = remaining / 2, left = remaining - right;
          if (first) {
            for (int64_t i = 0; i < right * c; ++i) sum[i] = src[left * c + i] + src[i];
            if (left > right) std::copy(src + right * c, src + left * c, sum.begin() + right * c);
            first = false;
          } else {
            for (int64_t i = 0; i < right * c; ++i) sum[i] += sum[left * c + i];
          }
          remaining = left;
        } while (remaining > 1);
        const float scale = 1.0f / static_cast<float>(pixels);
        float* dst = y + b * plane;
        for (int64_t i = 0; i < plane; ++i) {
          const float mean = sum[i % c] * scale;
          dst[i] = mean + factor * (src[i] - mean);
        }
      }
    });
  }
};

// Converts RGB to a hue in [0, 6) (one unit per sixth of the color wheel, where the order of
// the three channels is fixed) and the channel range, as TensorFlow's AdjustHue does.
void RgbToHueRange(float r, float g, float b, float* h, float* lo, float* hi) {
  float mid;
  int category;
  if (r < g) {
    if (b < r) {
      *hi = g;
      mid = r;
      *lo = b;
      category = 1;
    } else if (b > g) {
      *hi = b;
      mid = g;
      *lo = r;
      category = 3;
    } else {
      *hi = g;
      mid = b;
      *lo = r;
      category = 2;
    }
  } else {
    if (b < g) {
      *hi = r;
      mid = g;
      *lo = b;
      category = 0;
    } else if (b > r) {
      *hi = b;
      mid = r;
      *lo = g;
      category = 4;
    } else {
      *hi = r;
      mid = b;
      *lo = g;
      category = 5;
    }
  }
  if (*hi == *lo) {
    *h = 0;
    return;
  }
  const float ratio = (mid - *lo) / (*hi - *lo);
  *h = static_cast<float>(category) + ((category & 1) == 0 ? ratio : (1 - ratio));
}

void HueRangeToRgb(float h, float lo, float hi, float* rgb) {
  if (!std::isfinite(h)) {  // a non-finite input or delta
    rgb[0] = rgb[1] = rgb[2] = std::nanf("");
    return;
  }
  const int category = static_cast<int>(h);
  float ratio = h - static_cast<float>(category);
  if ((category & 1) != 0) ratio = 1 - ratio;
  const float mid = lo + ratio * (hi - lo);
  static const int kOrder[6][3] = {{2, 1, 0}, {1, 2, 0}, {0, 2, 1}, {0, 1, 2}, {1, 0, 2}, {2, 0, 1}};
  const float level[3] = {lo, mid, hi};
  const int* o = kOrder[(category >= 0 && category < 6) ? category : 5];
  for (int k = 0; k < 3; ++k) rgb[k] = level[o[k]];
}

// Rotates the hue of each pixel by delta (a fraction of the color wheel).
class AdjustHueOp : public OpKernel {
 public:
  explicit AdjustHueOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    float delta = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadScalarFloat(ctx, 1, "AdjustHue", "delta", &delta));
    MapPixels<float>(ctx, "AdjustHue", 3, true, 24, [delta](const float* p, float* q) {
      float h, lo, hi;
      RgbToHueRange(p[0], p[1], p[2], &h, &lo, &hi);
      h += delta * 6;
      // Bring h back into [0, 6): delta is at most a few turns, so subtraction beats fmod.
      if (std::isfinite(h)) {
        while (h < 0) h += 6;
        while (h >= 6) h -= 6;
      }
      HueRangeToRgb(h, lo, hi, q);
    });
  }
};

void RgbToHsv(float r, float g, float b, float* h, float* s, float* v) {
  const float vv = std::max(r, std::max(g, b));
  const float range = vv - std::min(r, std::min(g, b));
  *s = vv > 0 ? range / vv : 0;
  const float norm = 1.0f / (6.0f * range);
  float hh;
  if (r == vv)
    hh = norm * (g - b);
  else if (g == vv)
    hh = static_cast<float>(norm * (b - r) + 2.0 / 6.0);
  else
    hh = static_cast<float>(norm * (r - g) + 4.0 / 6.0);
  if (range <= 0.0f) hh = 0;
  if (hh < 0.0f) hh = hh + 1;
  *v = vv;
  *h = hh;
}

void HsvToRgb(float h, float s, float v, float* rgb) {
  const float c = s * v, m = v - c, dh = h * 6;
  // Truncation toward zero, as TensorFlow's cast; out-of-wheel hues take no category (zeros).
  const int category = (dh > -1.0f && dh < 6.0f) ? static_cast<int>(dh) : -1;
  float f = dh;
  if (std::isfinite(f)) {
    while (f <= 0) f += 2.0f;
    while (f >= 2.0f) f -= 2.0f;
  }
  const float x = c * (1 - std::abs(f - 1));
  float rr = 0, gg = 0, bb = 0;
  switch (category) {
    case 0:
      rr = c;
      gg = x;
      break;
    case 1:
      rr = x;
      gg = c;
      break;
    case 2:
      gg = c;
      bb = x;
      break;
    case 3:
      gg = x;
      bb = c;
      break;
    case 4:
      rr = x;
      bb = c;
      break;
    case 5:
      rr = c;
      bb = x;
      break;
    default: break;
  }
  rgb[0] = rr + m;
  rgb[1] = gg + m;
  rgb[2] = bb + m;
}

// Scales the saturation of each pixel by `scale`, clamped to [0, 1].
class AdjustSaturationOp : public OpKernel {
 public:
  explicit AdjustSaturationOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    float scale = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadScalarFloat(ctx, 1, "AdjustSaturation", "scale", &scale));
    MapPixels<float>(ctx, "AdjustSaturation", 3, false, 24, [scale](const float* p, float* q) {
      float h, s, v;
      RgbToHsv(p[0], p[1], p[2], &h, &s, &v);
      s = std::min(1.0f, std::max(0.0f, s * scale));
      HsvToRgb(h, s, v, q);
    });
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("RGBToHSV").TypeConstraint<float>("T"), RGBToHSVOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("RGBToHSV").TypeConstraint<double>("T"), RGBToHSVOp<double>);
TX_REGISTER_KERNEL(KernelDefBuilder("HSVToRGB").TypeConstraint<float>("T"), HSVToRGBOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("HSVToRGB").TypeConstraint<double>("T"), HSVToRGBOp<double>);
TX_REGISTER_KERNEL(KernelDefBuilder("AdjustContrastv2").TypeConstraint<float>("T"), AdjustContrastv2Op);
TX_REGISTER_KERNEL(KernelDefBuilder("AdjustHue").TypeConstraint<float>("T"), AdjustHueOp);
TX_REGISTER_KERNEL(KernelDefBuilder("AdjustSaturation").TypeConstraint<float>("T"), AdjustSaturationOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

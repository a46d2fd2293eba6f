// CPU kernels for ScaleAndTranslate (resampling with a reconstruction filter, optionally
// widened by the downscale factor to antialias: tf.image.resize(..., antialias=True) and the
// lanczos/gaussian/mitchellcubic methods) and ScaleAndTranslateGrad. Separable: rows first into
// an intermediate [batch, out_h, in_w, c] buffer, then columns. TensorFlow's arithmetic (Note
// [Image kernel rounding]).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tensorflux/kernels/cpu/image_resize_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

enum class Filter { kLanczos1, kLanczos3, kLanczos5, kGaussian, kBox, kTriangle, kKeysCubic, kMitchellCubic };

bool ParseFilter(const std::string& s, Filter* f) {
  static const std::pair<const char*, Filter> kNames[] = {{"lanczos1", Filter::kLanczos1},
                                                          {"lanczos3", Filter::kLanczos3},
                                                          {"lanczos5", Filter::kLanczos5},
                                                          {"gaussian", Filter::kGaussian},
                                                          {"box", Filter::kBox},
                                                          {"triangle", Filter::kTriangle},
                                                          {"keyscubic", Filter::kKeysCubic},
                                                          {"mitchellcubic", Filter::kMitchellCubic}};
  for (const auto& [name, value] : kNames)
    if (s == name) {
      *f = value;
      return true;
    }
  return false;
}

float Radius(Filter f) {
  switch (f) {
    case Filter::kLanczos3: return 3.0f;
    case Filter::kLanczos5: return 5.0f;
    case Filter::kGaussian: return 1.5f;
    case Filter::kKeysCubic:
    case Filter::kMitchellCubic: return 2.0f;
    default: return 1.0f;
  }
}

// The filter's value at distance x >= 0.
float FilterValue(Filter f, float x) {
  switch (f) {
    case Filter::kLanczos1:
    case Filter::kLanczos3:
    case Filter::kLanczos5: {
      constexpr float kPi = 3.14159265359f;
      const float r = Radius(f);
      if (x > r) return 0.0f;
      if (x <= 1e-3f) return 1.0f;
      return r * std::sin(kPi * x) * std::sin(kPi * x / r) / (kPi * kPi * x * x);
    }
    case Filter::kGaussian: {
      const float radius = 1.5f, sigma = radius / 3.0f;
      if (x >= radius) return 0.0f;
      return static_cast<float>(std::exp(-x * x / (2.0 * sigma * sigma)));
    }
    case Filter::kBox: return x < 0.5f ? 1.0f : x == 0.5f ? 0.5f : 0.0f;
    case Filter::kTriangle: return x < 1.0f ? 1.0f - x : 0.0f;
    case Filter::kKeysCubic:
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f) return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
      return ((1.5f * x - 2.5f) * x) * x + 1.0f;
    case Filter::kMitchellCubic:
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f) return (((-7.0f / 18.0f) * x + 2.0f) * x - 10.0f / 3.0f) * x + 16.0f / 9.0f;
      return (((7.0f / 6.0f) * x - 2.0f) * x) * x + 8.0f / 9.0f;
  }
  return 0.0f;
}

// For each output index: the first input index and `size` weights (zeros past the input's end).
struct Spans {
  int64_t size = 0;
  std::vector<int64_t> starts;
  std::vector<float> weights;  // [out_size * size]
};

Status ComputeSpans(const char* op, Filter f, int64_t out_size, int64_t in_size, float scale, float translate,
                    bool antialias, Spans* spans) {
  const float inv_scale = static_cast<float>(1.0 / scale);
  const float inv_translate = -inv_scale * translate;
  const float kernel_scale = antialias ? std::max(inv_scale, 1.0f) : 1.0f;
  const float reach = Radius(f) * kernel_scale;
  const double wide = 2.0 * std::ceil(static_cast<double>(reach)) + 1;
  spans->size = static_cast<int64_t>(std::min(wide, static_cast<double>(in_size)));
  TX_RETURN_IF_ERROR(image::ResizeCache(op, &spans->starts, out_size));
  TX_RETURN_IF_ERROR(image::ResizeCache(op, &spans->weights, out_size * spans->size));
  std::fill(spans->weights.begin(), spans->weights.end(), 0.0f);
  const float inv_kernel_scale = 1.0f / kernel_scale;
  std::vector<float> w;
  for (int64_t x = 0; x < out_size; ++x) {
    const float sample = (static_cast<float>(x) + 0.5f) * inv_scale + inv_translate;
    spans->starts[x] = 0;
    if (sample < 0 || sample > static_cast<float>(in_size)) continue;  // outside the source: an empty span
    int64_t start = static_cast<int64_t>(std::ceil(sample - reach - 0.5f));
    int64_t end = static_cast<int64_t>(std::floor(sample + reach - 0.5f));
    start = std::min(std::max(start, int64_t{0}), in_size - 1);
    end = std::min(std::max(end, int64_t{0}), in_size - 1) + 1;
    if (end - start > spans->size)
      return Internal(op, ": span of ", end - start, " pixels exceeds the computed size ", spans->size);
    float total = 0.0f;
    w.clear();
    for (int64_t src = start; src < end; ++src) {
      const float pos = static_cast<float>(src) + 0.5f - sample;
      const float v = FilterValue(f, std::abs(pos * inv_kernel_scale));
      total += v;
      w.push_back(v);
    }
    if (std::abs(total) >= 1000.0f * std::numeric_limits<float>::min()) {
      const float inv_total = 1.0f / total;
      for (size_t j = 0; j < w.size(); ++j) spans->weights[x * spans->size + j] = w[j] * inv_total;
    }
    spans->starts[x] = start;
  }
  return Status::OK();
}

// The transposed spans: for each input index, the output indices it contributed to and weights.
void TransposeSpans(const Spans& fwd, int64_t fwd_out, int64_t fwd_in, Spans* grad) {
  std::vector<int64_t> first(fwd_in, -1), last(fwd_in, -1);
  for (int64_t o = 0; o < fwd_out; ++o)
    for (int64_t j = 0; j < fwd.size; ++j) {
      const int64_t i = fwd.starts[o] + j;
      if (fwd.weights[o * fwd.size + j] == 0.0f || i >= fwd_in) continue;
      if (first[i] < 0) first[i] = o;
      last[i] = o;
    }
  grad->size = 0;
  for (int64_t i = 0; i < fwd_in; ++i)
    if (first[i] >= 0) grad->size = std::max(grad->size, last[i] - first[i] + 1);
  grad->starts.assign(fwd_in, 0);
  grad->weights.assign(fwd_in * grad->size, 0.0f);
  for (int64_t i = 0; i < fwd_in; ++i)
    if (first[i] >= 0) grad->starts[i] = first[i];
  for (int64_t o = 0; o < fwd_out; ++o)
    for (int64_t j = 0; j < fwd.size; ++j) {
      const int64_t i = fwd.starts[o] + j;
      const float w = fwd.weights[o * fwd.size + j];
      if (w == 0.0f || i >= fwd_in) continue;
      grad->weights[i * grad->size + (o - grad->starts[i])] += w;
    }
}

// out[b, y, x, c] = sum_j rows.w[y, j] * cols.w[x, k] * in[b, rows.start[y] + j, cols.start[x] + k, c],
// rows first (TensorFlow's order of accumulation).
template <typename T>
void GatherSpans(ThreadPool* pool, const Spans& rows, const Spans& cols, const T* in, int64_t batch, int64_t in_h,
                 int64_t in_w, int64_t out_h, int64_t out_w, int64_t c, float* mid, float* out) {
  ParallelItems(pool, batch * out_h, in_w * c * std::max<int64_t>(rows.size, 1), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t b = r / out_h, y = r % out_h;
      float* dst = mid + r * in_w * c;
      std::fill(dst, dst + in_w * c, 0.0f);
      const int64_t start = rows.starts[y], n = std::min(start + rows.size, in_h) - start;
      for (int64_t j = 0; j < n; ++j) {
        const float w = rows.weights[y * rows.size + j];
        const T* src = in + (b * in_h + start + j) * in_w * c;
        for (int64_t i = 0; i < in_w * c; ++i) dst[i] += w * static_cast<float>(src[i]);
      }
    }
  });
  ParallelItems(pool, batch * out_h, out_w * c * std::max<int64_t>(cols.size, 1), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float* src_row = mid + r * in_w * c;
      float* dst_row = out + r * out_w * c;
      for (int64_t x = 0; x < out_w; ++x) {
        float* dst = dst_row + x * c;
        std::fill(dst, dst + c, 0.0f);
        const int64_t start = cols.starts[x], n = std::min(start + cols.size, in_w) - start;
        for (int64_t j = 0; j < n; ++j) {
          const float w = cols.weights[x * cols.size + j];
          const float* src = src_row + (start + j) * c;
          for (int64_t k = 0; k < c; ++k) dst[k] += w * src[k];
        }
      }
    }
  });
}

// Reads a float32 [2] input (scale or translation) as (rows, columns).
Status ReadPair(const char* op, const char* what, const Tensor& t, float* a, float* b) {
  if (t.dtype() != DT_FLOAT || t.rank() != 1 || t.dim(0) != 2)
    return InvalidArgument(op, ": ", what, " must be a 1-D float32 tensor of 2 elements, got ",
                           DataTypeString(t.dtype()), " of shape ", t.shape().ToString());
  *a = t.data<float>()[0];
  *b = t.data<float>()[1];
  return Status::OK();
}

// The kernel_type and antialias attrs both ops read.
struct FilterAttrs {
  Filter filter = Filter::kLanczos3;
  bool antialias = true;
  Status Read(OpKernelConstruction* c, const char* op) {
    std::string name;
    TX_RETURN_IF_ERROR(c->GetAttr("kernel_type", &name));
    TX_RETURN_IF_ERROR(c->GetAttr("antialias", &antialias));
    if (!ParseFilter(name, &filter))
      return InvalidArgument(op, ": unrecognized kernel_type '", name,
                             "' (expected one of lanczos1, lanczos3, "
                             "lanczos5, gaussian, box, triangle, keyscubic, mitchellcubic)");
    return Status::OK();
  }
  // The row and column spans of the forward resize `g` by scale s and translation t (row, col).
  Status Spans2D(const char* op, const image::ResizeGeometry& g, const float s[2], const float t[2], Spans* rows,
                 Spans* cols) const {
    TX_RETURN_IF_ERROR(ComputeSpans(op, filter, g.out_w, g.in_w, s[1], t[1], antialias, cols));
    return ComputeSpans(op, filter, g.out_h, g.in_h, s[0], t[0], antialias, rows);
  }
};

Status ReadScaleTranslation(OpKernelContext* ctx, const char* op, float s[2], float t[2]) {
  TX_RETURN_IF_ERROR(CheckInput(ctx, 2, DT_FLOAT));
  TX_RETURN_IF_ERROR(CheckInput(ctx, 3, DT_FLOAT));
  TX_RETURN_IF_ERROR(ReadPair(op, "scale", ctx->input(2), &s[0], &s[1]));
  TX_RETURN_IF_ERROR(ReadPair(op, "translation", ctx->input(3), &t[0], &t[1]));
  if (!(s[0] > 0 && s[1] > 0))
    return InvalidArgument(op, ": scale must be greater than zero, got [", s[0], ", ", s[1], "]");
  return Status::OK();
}

template <typename T>
class ScaleAndTranslateOp : public OpKernel {
 public:
  explicit ScaleAndTranslateOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(attrs_.Read(c, "ScaleAndTranslate"));
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "ScaleAndTranslate";
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DT_INT32));
    image::ResizeGeometry g;
    TX_CTX_RETURN_IF_ERROR(ctx, image::ForwardGeometry(kOp, ctx->input(0), ctx->input(1), false, false, &g));
    float s[2], t[2];
    TX_CTX_RETURN_IF_ERROR(ctx, ReadScaleTranslation(ctx, kOp, s, t));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, g.output_shape(), &out));
    if (out->num_elements() == 0) return;
    Spans rows, cols;
    TX_CTX_RETURN_IF_ERROR(ctx, attrs_.Spans2D(kOp, g, s, t, &rows, &cols));
    Tensor mid;
    TX_CTX_RETURN_IF_ERROR(ctx, Tensor::Allocate(DT_FLOAT, TensorShape({g.batch, g.out_h, g.in_w, g.channels}), &mid));
    GatherSpans(ctx->intra_op_pool(), rows, cols, ctx->input(0).data<T>(), g.batch, g.in_h, g.in_w, g.out_h, g.out_w,
                g.channels, mid.data<float>(), out->data<float>());
  }

 private:
  FilterAttrs attrs_;
};

// The gradient gathers the output gradient through the transposed spans.
class ScaleAndTranslateGradOp : public OpKernel {
 public:
  explicit ScaleAndTranslateGradOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(attrs_.Read(c, "ScaleAndTranslateGrad"));
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "ScaleAndTranslateGrad";
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_FLOAT));
    const Tensor& grads = ctx->input(0);
    const Tensor& orig = ctx->input(1);
    if (orig.rank() != 4) {
      ctx->SetStatus(
          InvalidArgument(kOp, ": original_image must be 4-dimensional, got shape ", orig.shape().ToString()));
      return;
    }
    image::ResizeGeometry g;
    TX_CTX_RETURN_IF_ERROR(ctx, image::GradGeometry(kOp, grads, orig.dim(1), orig.dim(2), false, false, &g));
    float s[2], t[2];
    TX_CTX_RETURN_IF_ERROR(ctx, ReadScaleTranslation(ctx, kOp, s, t));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({g.batch, g.in_h, g.in_w, g.channels}), &out));
    if (out->num_elements() == 0) return;
    Spans rows, cols, grad_rows, grad_cols;
    TX_CTX_RETURN_IF_ERROR(ctx, attrs_.Spans2D(kOp, g, s, t, &rows, &cols));
    TransposeSpans(cols, g.out_w, g.in_w, &grad_cols);
    TransposeSpans(rows, g.out_h, g.in_h, &grad_rows);
    Tensor mid;
    TX_CTX_RETURN_IF_ERROR(ctx, Tensor::Allocate(DT_FLOAT, TensorShape({g.batch, g.in_h, g.out_w, g.channels}), &mid));
    GatherSpans(ctx->intra_op_pool(), grad_rows, grad_cols, grads.data<float>(), g.batch, g.out_h, g.out_w, g.in_h,
                g.in_w, g.channels, mid.data<float>(), out->data<float>());
  }

 private:
  FilterAttrs attrs_;
};

#define TX_REGISTER_SCALE_TRANSLATE(T) \
  TX_REGISTER_KERNEL(KernelDefBuilder("ScaleAndTranslate").TypeConstraint<T>("T"), ScaleAndTranslateOp<T>);
TX_IMAGE_REAL_TYPES(TX_REGISTER_SCALE_TRANSLATE)
#undef TX_REGISTER_SCALE_TRANSLATE

TX_REGISTER_KERNEL(KernelDefBuilder("ScaleAndTranslateGrad").TypeConstraint<float>("T"), ScaleAndTranslateGradOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

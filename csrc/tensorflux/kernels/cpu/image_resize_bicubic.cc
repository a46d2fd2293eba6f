// CPU kernels for ResizeBicubic (any real input type, float32 output) and ResizeBicubicGrad:
// cubic convolution over a 4x4 neighbourhood with TensorFlow's tabulated weights (a = -0.75 for
// the legacy mapping; Keys' a = -0.5 with half-pixel centers, where taps outside the image get
// weight 0 and the rest are renormalized).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tensorflux/kernels/cpu/image_resize_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

using image::ResizeGeometry;

constexpr int64_t kTableSize = 1 << 10;

// Cubic convolution weights at kTableSize + 1 offsets in [0, 1]: entry 2i is the kernel at
// distance i / kTableSize, entry 2i + 1 at distance 1 + i / kTableSize (computed in double, as
// TensorFlow's table is).
std::vector<float> MakeCoeffsTable(double a) {
  std::vector<float> table((kTableSize + 1) * 2);
  for (int64_t i = 0; i <= kTableSize; ++i) {
    float x = static_cast<float>(i * 1.0 / kTableSize);
    table[i * 2] = static_cast<float>(((a + 2) * x - (a + 3)) * x * x + 1);
    x = static_cast<float>(x + 1.0);
    table[i * 2 + 1] = static_cast<float>(((a * x - 5 * a) * x + 8 * a) * x - 4 * a);
  }
  return table;
}

const float* CoeffsTable(bool keys_cubic) {
  static const std::vector<float> keys = MakeCoeffsTable(-0.5f);
  static const std::vector<float> legacy = MakeCoeffsTable(-0.75f);
  return keys_cubic ? keys.data() : legacy.data();
}

inline int64_t Bound(int64_t v, int64_t limit) { return std::min(limit - 1, std::max(int64_t{0}, v)); }

// The four source indices and weights of one output coordinate.
struct Taps {
  float w[4];
  int64_t idx[4];
};

// Half-pixel centers use Keys' kernel with out-of-image taps dropped and the weights
// renormalized; the legacy mapping clamps the taps to the border and keeps the weights.
void ComputeTaps(bool half_pixel, float scale, int64_t out_loc, int64_t limit, Taps* t) {
  const float in_f = half_pixel ? image::HalfPixelScaler()(out_loc, scale) : image::LegacyScaler()(out_loc, scale);
  const int64_t in = static_cast<int64_t>(std::floor(in_f));
  const float delta = in_f - static_cast<float>(in);
  const int64_t offset = std::lrint(delta * static_cast<float>(kTableSize));
  const float* table = CoeffsTable(half_pixel);
  const float w[4] = {table[offset * 2 + 1], table[offset * 2], table[(kTableSize - offset) * 2],
                      table[(kTableSize - offset) * 2 + 1]};
  for (int j = 0; j < 4; ++j) {
    t->idx[j] = Bound(in - 1 + j, limit);
    t->w[j] = (!half_pixel || t->idx[j] == in - 1 + j) ? w[j] : 0.0f;
  }
  if (half_pixel) {
    const float sum = t->w[0] + t->w[1] + t->w[2] + t->w[3];
    if (std::abs(sum) >= 1000.0f * std::numeric_limits<float>::min()) {
      const float inv = 1.0f / sum;
      for (float& v : t->w) v *= inv;
    }
  }
}

Status AxisTaps(const char* op, bool half_pixel, int64_t out_size, int64_t in_size, float scale,
                std::vector<Taps>* taps) {
  TX_RETURN_IF_ERROR(image::ResizeCache(op, taps, out_size));
  for (int64_t i = 0; i < out_size; ++i) ComputeTaps(half_pixel, scale, i, in_size, &(*taps)[i]);
  return Status::OK();
}

inline float Dot4(const float w[4], float v0, float v1, float v2, float v3) {
  return v0 * w[0] + v1 * w[1] + v2 * w[2] + v3 * w[3];
}

template <typename T>
class ResizeBicubicOp : public OpKernel {
 public:
  explicit ResizeBicubicOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("align_corners", &align_corners_));
    if (c->status().ok()) c->SetStatus(c->GetAttr("half_pixel_centers", &half_pixel_));
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "ResizeBicubic";
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DT_INT32));
    ResizeGeometry g;
    TX_CTX_RETURN_IF_ERROR(ctx,
                           image::ForwardGeometry(kOp, ctx->input(0), ctx->input(1), align_corners_, half_pixel_, &g));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, g.output_shape(), &out));
    if (out->num_elements() == 0) return;
    std::vector<Taps> ys, xs;
    TX_CTX_RETURN_IF_ERROR(ctx, AxisTaps(kOp, half_pixel_, g.out_h, g.in_h, g.h_scale, &ys));
    TX_CTX_RETURN_IF_ERROR(ctx, AxisTaps(kOp, half_pixel_, g.out_w, g.in_w, g.w_scale, &xs));
    const T* in = ctx->input(0).data<T>();
    float* y = out->data<float>();
    const int64_t c = g.channels, in_row = g.in_w * c;
    // Each output row first interpolates its four source rows vertically, once per source column
    // when the columns are reused (upsampling), then combines four columns per output pixel;
    // the values are those of the per-pixel formula (the same products, the same order).
    const bool per_column = g.in_w <= 4 * g.out_w;
    ParallelItems(ctx->intra_op_pool(), g.batch * g.out_h, g.out_w * c * 20, [&](int64_t begin, int64_t end) {
      std::vector<float> mid(per_column ? in_row : 0);
      for (int64_t r = begin; r < end; ++r) {
        const int64_t b = r / g.out_h, oy = r % g.out_h;
        const Taps& ty = ys[oy];
        const T* rows[4];
        for (int j = 0; j < 4; ++j) rows[j] = in + (b * g.in_h + ty.idx[j]) * in_row;
        auto vertical = [&](int64_t p) {
          return Dot4(ty.w, static_cast<float>(rows[0][p]), static_cast<float>(rows[1][p]),
                      static_cast<float>(rows[2][p]), static_cast<float>(rows[3][p]));
        };
        float* dst = y + r * g.out_w * c;
        if (per_column) {
          for (int64_t p = 0; p < in_row; ++p) mid[p] = vertical(p);
          for (int64_t ox = 0; ox < g.out_w; ++ox) {
            const Taps& tx = xs[ox];
            const float *c0 = &mid[tx.idx[0] * c], *c1 = &mid[tx.idx[1] * c], *c2 = &mid[tx.idx[2] * c],
                        *c3 = &mid[tx.idx[3] * c];
            for (int64_t k = 0; k < c; ++k) dst[ox * c + k] = Dot4(tx.w, c0[k], c1[k], c2[k], c3[k]);
          }
          continue;
        }
        for (int64_t ox = 0; ox < g.out_w; ++ox) {
          const Taps& tx = xs[ox];
          for (int64_t k = 0; k < c; ++k)
            dst[ox * c + k] = Dot4(tx.w, vertical(tx.idx[0] * c + k), vertical(tx.idx[1] * c + k),
                                   vertical(tx.idx[2] * c + k), vertical(tx.idx[3] * c + k));
        }
      }
    });
  }

 private:
  bool align_corners_ = false, half_pixel_ = false;
};

// Scatters each output gradient over the 4x4 taps with the forward weights.
template <typename T>
class ResizeBicubicGradOp : public OpKernel {
 public:
  explicit ResizeBicubicGradOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("align_corners", &align_corners_));
    if (c->status().ok()) c->SetStatus(c->GetAttr("half_pixel_centers", &half_pixel_));
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "ResizeBicubicGrad";
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_FLOAT));
    const Tensor& orig = ctx->input(1);
    if (orig.rank() != 4) {
      ctx->SetStatus(
          InvalidArgument(kOp, ": original_image must be 4-dimensional, got shape ", orig.shape().ToString()));
      return;
    }
    ResizeGeometry g;
    TX_CTX_RETURN_IF_ERROR(
        ctx, image::GradGeometry(kOp, ctx->input(0), orig.dim(1), orig.dim(2), align_corners_, half_pixel_, &g));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({g.batch, g.in_h, g.in_w, g.channels}), &out));
    T* dx = out->data<T>();
    std::fill(dx, dx + out->num_elements(), T(0));
    if (out->num_elements() == 0 || ctx->input(0).num_elements() == 0) return;
    std::vector<Taps> ys, xs;
    TX_CTX_RETURN_IF_ERROR(ctx, AxisTaps(kOp, half_pixel_, g.out_h, g.in_h, g.h_scale, &ys));
    TX_CTX_RETURN_IF_ERROR(ctx, AxisTaps(kOp, half_pixel_, g.out_w, g.in_w, g.w_scale, &xs));
    const float* dy = ctx->input(0).data<float>();
    const int64_t c = g.channels;
    ParallelItems(ctx->intra_op_pool(), g.batch, g.out_h * g.out_w * c * 32, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        T* img = dx + b * g.in_h * g.in_w * c;
        for (int64_t oy = 0; oy < g.out_h; ++oy) {
          const Taps& ty = ys[oy];
          for (int64_t ox = 0; ox < g.out_w; ++ox) {
            const Taps& tx = xs[ox];
            const float* src = dy + ((b * g.out_h + oy) * g.out_w + ox) * c;
            for (int64_t k = 0; k < c; ++k) {
              const T v = src[k];  // TensorFlow multiplies in the gradient's type
              for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) img[(ty.idx[i] * g.in_w + tx.idx[j]) * c + k] += v * ty.w[i] * tx.w[j];
            }
          }
        }
      }
    });
  }

 private:
  bool align_corners_ = false, half_pixel_ = false;
};

#define TX_REGISTER_RESIZE_BICUBIC(T) \
  TX_REGISTER_KERNEL(KernelDefBuilder("ResizeBicubic").TypeConstraint<T>("T"), ResizeBicubicOp<T>);
TX_IMAGE_REAL_TYPES(TX_REGISTER_RESIZE_BICUBIC)
#undef TX_REGISTER_RESIZE_BICUBIC

TX_REGISTER_KERNEL(KernelDefBuilder("ResizeBicubicGrad").TypeConstraint<float>("T"), ResizeBicubicGradOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("ResizeBicubicGrad").TypeConstraint<double>("T"), ResizeBicubicGradOp<double>);

}  // namespace
}  // namespace cpu
}  // namespace tx

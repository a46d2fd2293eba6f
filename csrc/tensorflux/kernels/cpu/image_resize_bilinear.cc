// CPU kernels for ResizeBilinear (any real input type, float32 output) and ResizeBilinearGrad
// (float32 gradient in, float32/float64 out), with TensorFlow's coordinate mapping and rounding
// (Note [Image kernel rounding]).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/image_resize_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

using image::ResizeGeometry;

// One output coordinate's two source indices and the weight of the upper one.
struct Lerp {
  int64_t lower = 0, upper = 0;
  float frac = 0;
};

// The source indices and weights along one axis; `lower` may point left of pixel 0 only by the
// clamp below (half-pixel mapping near the border), where both indices are 0.
template <typename Scaler>
void ComputeLerps(Scaler scaler, int64_t out_size, int64_t in_size, float scale, Lerp* lerps) {
  for (int64_t i = 0; i < out_size; ++i) {
    const float in = scaler(i, scale);
    const float in_f = std::floor(in);
    lerps[i].lower = std::max(static_cast<int64_t>(in_f), int64_t{0});
    lerps[i].upper = std::min(static_cast<int64_t>(std::ceil(in)), in_size - 1);
    lerps[i].frac = in - in_f;
  }
}

Status AxisLerps(const char* op, bool half_pixel, int64_t out_size, int64_t in_size, float scale,
                 std::vector<Lerp>* lerps) {
  TX_RETURN_IF_ERROR(image::ResizeCache(op, lerps, out_size));
  if (half_pixel)
    ComputeLerps(image::HalfPixelScaler(), out_size, in_size, scale, lerps->data());
  else
    ComputeLerps(image::LegacyScaler(), out_size, in_size, scale, lerps->data());
  return Status::OK();
}

inline float BilinearValue(float top_left, float top_right, float bottom_left, float bottom_right, float x_frac,
                           float y_frac) {
  const float top = top_left + (top_right - top_left) * x_frac;
  const float bottom = bottom_left + (bottom_right - bottom_left) * x_frac;
  return top + (bottom - top) * y_frac;
}

template <typename T>
class ResizeBilinearOp : public OpKernel {
 public:
  explicit ResizeBilinearOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("align_corners", &align_corners_));
    if (c->status().ok()) c->SetStatus(c->GetAttr("half_pixel_centers", &half_pixel_));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DT_INT32));
    ResizeGeometry g;
    TX_CTX_RETURN_IF_ERROR(
        ctx, image::ForwardGeometry("ResizeBilinear", ctx->input(0), ctx->input(1), align_corners_, half_pixel_, &g));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, g.output_shape(), &out));
    if (out->num_elements() == 0) return;
    const T* in = ctx->input(0).data<T>();
    float* y = out->data<float>();
    if (g.out_h == g.in_h && g.out_w == g.in_w) {  // the identity resize: a cast
      for (int64_t i = 0; i < out->num_elements(); ++i) y[i] = static_cast<float>(in[i]);
      return;
    }
    std::vector<Lerp> ys, xs;
    TX_CTX_RETURN_IF_ERROR(ctx, AxisLerps("ResizeBilinear", half_pixel_, g.out_h, g.in_h, g.h_scale, &ys));
    TX_CTX_RETURN_IF_ERROR(ctx, AxisLerps("ResizeBilinear", half_pixel_, g.out_w, g.in_w, g.w_scale, &xs));
    const int64_t c = g.channels, in_row = g.in_w * c, out_row = g.out_w * c;
    ParallelItems(ctx->intra_op_pool(), g.batch * g.out_h, out_row * 8, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t b = r / g.out_h, oy = r % g.out_h;
        const T* top = in + (b * g.in_h + ys[oy].lower) * in_row;
        const T* bottom = in + (b * g.in_h + ys[oy].upper) * in_row;
        const float y_frac = ys[oy].frac;
        float* dst = y + r * out_row;
        for (int64_t ox = 0; ox < g.out_w; ++ox) {
          const int64_t l = xs[ox].lower * c, u = xs[ox].upper * c;
          const float x_frac = xs[ox].frac;
          for (int64_t k = 0; k < c; ++k)
            dst[ox * c + k] =
                BilinearValue(static_cast<float>(top[l + k]), static_cast<float>(top[u + k]),
                              static_cast<float>(bottom[l + k]), static_cast<float>(bottom[u + k]), x_frac, y_frac);
        }
      }
    });
  }

 private:
  bool align_corners_ = false, half_pixel_ = false;
};

// Scatters each output gradient to the four pixels it was interpolated from, with the same
// weights; T is the original image's type (float or double), the gradient itself float32.
template <typename T>
class ResizeBilinearGradOp : public OpKernel {
 public:
  explicit ResizeBilinearGradOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("align_corners", &align_corners_));
    if (c->status().ok()) c->SetStatus(c->GetAttr("half_pixel_centers", &half_pixel_));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_FLOAT));
    const Tensor& orig = ctx->input(1);
    if (orig.rank() != 4) {
      ctx->SetStatus(InvalidArgument("ResizeBilinearGrad: original_image must be 4-dimensional, got shape ",
                                     orig.shape().ToString()));
      return;
    }
    ResizeGeometry g;
    TX_CTX_RETURN_IF_ERROR(ctx,
                           image::GradGeometry("ResizeBilinearGrad", ctx->input(0), orig.dim(1), orig.dim(2),
                                               align_corners_, half_pixel_, &g));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({g.batch, g.in_h, g.in_w, g.channels}), &out));
    T* dx = out->data<T>();
    std::fill(dx, dx + out->num_elements(), T(0));
    if (out->num_elements() == 0 || ctx->input(0).num_elements() == 0) return;
    std::vector<Lerp> ys, xs;
    TX_CTX_RETURN_IF_ERROR(ctx, AxisLerps("ResizeBilinearGrad", half_pixel_, g.out_h, g.in_h, g.h_scale, &ys));
    TX_CTX_RETURN_IF_ERROR(ctx, AxisLerps("ResizeBilinearGrad", half_pixel_, g.out_w, g.in_w, g.w_scale, &xs));
    const float* dy = ctx->input(0).data<float>();
    const int64_t c = g.channels;
    // Images of a batch are independent: one thread per image keeps the sums deterministic.
    ParallelItems(ctx->intra_op_pool(), g.batch, g.out_h * g.out_w * c * 8, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        T* img = dx + b * g.in_h * g.in_w * c;
        for (int64_t oy = 0; oy < g.out_h; ++oy) {
          const float yf = ys[oy].frac, inv_yf = 1.0f - yf;
          T* top = img + ys[oy].lower * g.in_w * c;
          T* bottom = img + ys[oy].upper * g.in_w * c;
          const float* src = dy + ((b * g.out_h + oy) * g.out_w) * c;
          for (int64_t ox = 0; ox < g.out_w; ++ox) {
            const float xf = xs[ox].frac, inv_xf = 1.0f - xf;
            const int64_t l = xs[ox].lower * c, u = xs[ox].upper * c;
            for (int64_t k = 0; k < c; ++k) {
              const float v = src[ox * c + k];
              top[l + k] += T(v * inv_yf * inv_xf);
              top[u + k] += T(v * inv_yf * xf);
              bottom[l + k] += T(v * yf * inv_xf);
              bottom[u + k] += T(v * yf * xf);
            }
          }
        }
      }
    });
  }

 private:
  bool align_corners_ = false, half_pixel_ = false;
};

#define TX_REGISTER_RESIZE_BILINEAR(T) \
  TX_REGISTER_KERNEL(KernelDefBuilder("ResizeBilinear").TypeConstraint<T>("T"), ResizeBilinearOp<T>);
TX_IMAGE_REAL_TYPES(TX_REGISTER_RESIZE_BILINEAR)
#undef TX_REGISTER_RESIZE_BILINEAR

TX_REGISTER_KERNEL(KernelDefBuilder("ResizeBilinearGrad").TypeConstraint<float>("T"), ResizeBilinearGradOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("ResizeBilinearGrad").TypeConstraint<double>("T"), ResizeBilinearGradOp<double>);

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernels for ResizeNearestNeighbor (output type = input type) and its gradient
// ResizeNearestNeighborGrad, with TensorFlow's index rule: floor (or round with
// align_corners) of the source coordinate, clamped to the image.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tensorflux/kernels/cpu/image_resize_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

using image::ResizeGeometry;

// TensorFlow's nearest-neighbour mapping: with half-pixel centers the source coordinate is
// (x + 0.5) * scale (floored, so the -0.5 of the bilinear mapping is not subtracted).
Status NearestIndices(const char* op, int64_t out_size, int64_t in_size, float scale, bool align_corners,
                      bool half_pixel, std::vector<int64_t>* idx) {
  TX_RETURN_IF_ERROR(image::ResizeCache(op, idx, out_size));
  for (int64_t i = 0; i < out_size; ++i) {
    const float in = half_pixel ? (static_cast<float>(i) + 0.5f) * scale : static_cast<float>(i) * scale;
    int64_t x = std::min(align_corners ? static_cast<int64_t>(std::round(in)) : static_cast<int64_t>(std::floor(in)),
                         in_size - 1);
    if (half_pixel) x = std::max(int64_t{0}, x);
    (*idx)[i] = x;
  }
  return Status::OK();
}

// Image sides of 2^24 and more lose integer precision in the float coordinate (TensorFlow's limit).
Status CheckNearestLimit(const char* op, int64_t h, int64_t w) {
  if (h >= (int64_t{1} << 24) || w >= (int64_t{1} << 24))
    return InvalidArgument(op, ": nearest neighbor resizing needs height and width below 2^24, got ", h, " x ", w);
  return Status::OK();
}

template <typename T>
class ResizeNearestNeighborOp : public OpKernel {
 public:
  explicit ResizeNearestNeighborOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("align_corners", &align_corners_));
    if (c->status().ok()) c->SetStatus(c->GetAttr("half_pixel_centers", &half_pixel_));
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "ResizeNearestNeighbor";
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DT_INT32));
    ResizeGeometry g;
    TX_CTX_RETURN_IF_ERROR(ctx,
                           image::ForwardGeometry(kOp, ctx->input(0), ctx->input(1), align_corners_, half_pixel_, &g));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckNearestLimit(kOp, g.in_h, g.in_w));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, g.output_shape(), &out));
    if (out->num_elements() == 0) return;
    std::vector<int64_t> ys, xs;
    TX_CTX_RETURN_IF_ERROR(ctx, NearestIndices(kOp, g.out_h, g.in_h, g.h_scale, align_corners_, half_pixel_, &ys));
    TX_CTX_RETURN_IF_ERROR(ctx, NearestIndices(kOp, g.out_w, g.in_w, g.w_scale, align_corners_, half_pixel_, &xs));
    const T* in = ctx->input(0).data<T>();
    T* y = out->data<T>();
    const int64_t c = g.channels;
    ParallelItems(ctx->intra_op_pool(), g.batch * g.out_h, g.out_w * c, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t b = r / g.out_h, oy = r % g.out_h;
        const T* src = in + (b * g.in_h + ys[oy]) * g.in_w * c;
        T* dst = y + r * g.out_w * c;
        for (int64_t ox = 0; ox < g.out_w; ++ox) std::memcpy(dst + ox * c, src + xs[ox] * c, c * sizeof(T));
      }
    });
  }

 private:
  bool align_corners_ = false, half_pixel_ = false;
};

// Sums each output gradient into the pixel it was copied from; `size` is the original image's
// (height, width).
template <typename T>
class ResizeNearestNeighborGradOp : public OpKernel {
 public:
  explicit ResizeNearestNeighborGradOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("align_corners", &align_corners_));
    if (c->status().ok()) c->SetStatus(c->GetAttr("half_pixel_centers", &half_pixel_));
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "ResizeNearestNeighborGrad";
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DT_INT32));
    int64_t orig_h = 0, orig_w = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, image::ReadResizeSize(kOp, "size", ctx->input(1), &orig_h, &orig_w));
    ResizeGeometry g;
    TX_CTX_RETURN_IF_ERROR(ctx,
                           image::GradGeometry(kOp, ctx->input(0), orig_h, orig_w, align_corners_, half_pixel_, &g));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({g.batch, orig_h, orig_w, g.channels}), &out));
    T* dx = out->data<T>();
    std::fill(dx, dx + out->num_elements(), T(0));
    if (out->num_elements() == 0 || ctx->input(0).num_elements() == 0) return;
    std::vector<int64_t> ys, xs;
    TX_CTX_RETURN_IF_ERROR(ctx, NearestIndices(kOp, g.out_h, g.in_h, g.h_scale, align_corners_, half_pixel_, &ys));
    TX_CTX_RETURN_IF_ERROR(ctx, NearestIndices(kOp, g.out_w, g.in_w, g.w_scale, align_corners_, half_pixel_, &xs));
    const T* dy = ctx->input(0).data<T>();
    const int64_t c = g.channels;
    ParallelItems(ctx->intra_op_pool(), g.batch, g.out_h * g.out_w * c, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b)
        for (int64_t oy = 0; oy < g.out_h; ++oy) {
          T* dst = dx + (b * g.in_h + ys[oy]) * g.in_w * c;
          const T* src = dy + (b * g.out_h + oy) * g.out_w * c;
          for (int64_t ox = 0; ox < g.out_w; ++ox)
            for (int64_t k = 0; k < c; ++k) dst[xs[ox] * c + k] += src[ox * c + k];
        }
    });
  }

 private:
  bool align_corners_ = false, half_pixel_ = false;
};

#define TX_REGISTER_RESIZE_NEAREST(T) \
  TX_REGISTER_KERNEL(KernelDefBuilder("ResizeNearestNeighbor").TypeConstraint<T>("T"), ResizeNearestNeighborOp<T>);
TX_IMAGE_REAL_TYPES(TX_REGISTER_RESIZE_NEAREST)
#undef TX_REGISTER_RESIZE_NEAREST

// TensorFlow's ResizeNearestNeighborGrad types: uint8, int8, int32, float, double (half and
// bfloat16 aside).
#define TX_REGISTER_RESIZE_NEAREST_GRAD(T)                                                 \
  TX_REGISTER_KERNEL(KernelDefBuilder("ResizeNearestNeighborGrad").TypeConstraint<T>("T"), \
                     ResizeNearestNeighborGradOp<T>);
TX_REGISTER_RESIZE_NEAREST_GRAD(uint8_t)
TX_REGISTER_RESIZE_NEAREST_GRAD(int8_t)
TX_REGISTER_RESIZE_NEAREST_GRAD(int32_t)
TX_REGISTER_RESIZE_NEAREST_GRAD(float)
TX_REGISTER_RESIZE_NEAREST_GRAD(double)
#undef TX_REGISTER_RESIZE_NEAREST_GRAD

}  // namespace
}  // namespace cpu
}  // namespace tx

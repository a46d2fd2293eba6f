// Shared pieces of the image resize kernels (ResizeBilinear, ResizeNearestNeighbor,
// ResizeBicubic, ResizeArea and their gradients): the source-coordinate mapping, input
// validation with TensorFlow's rules, and the dtype list the forward kernels accept.
//
// Note [Image kernel rounding]
// The resize kernels compute in float32 whatever the input type, as TensorFlow's do, and repeat
// TensorFlow's arithmetic operation by operation (the same scale factors, the same order of
// additions), so outputs equal TensorFlow's to the last bit on the same inputs. For that the
// image_*.cc files are compiled without floating-point contraction (csrc/CMakeLists.txt): a
// fused multiply-add rounds once where TensorFlow's build rounds twice, and a source coordinate
// one ulp away from an integer can floor to the neighbouring pixel.
#pragma once

#include <cstdint>
#include <limits>
#include <new>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"

namespace tx {
namespace cpu {
namespace image {

// Registers a kernel template for every real type TensorFlow's resize ops accept (half and
// bfloat16 aside): M(int8_t) M(uint8_t) ... M(double).
#define TX_IMAGE_REAL_TYPES(M) M(int8_t) M(uint8_t) M(int16_t) M(uint16_t) M(int32_t) M(int64_t) M(float) M(double)

// The ratio mapping output to input coordinates along one axis.
inline float ResizeScale(int64_t in_size, int64_t out_size, bool align_corners) {
  return (align_corners && out_size > 1) ? static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1)
                                         : static_cast<float>(in_size) / static_cast<float>(out_size);
}

// Source coordinate of output index x with pixel centers at +0.5 (half_pixel_centers).
struct HalfPixelScaler {
  float operator()(int64_t x, float scale) const { return (static_cast<float>(x) + 0.5f) * scale - 0.5f; }
};
// Source coordinate of output index x with pixel centers at the integers (the legacy mapping).
struct LegacyScaler {
  float operator()(int64_t x, float scale) const { return static_cast<float>(x) * scale; }
};

// Sizes and scales of one resize: images [batch, in_h, in_w, channels] -> [batch, out_h, out_w, channels].
struct ResizeGeometry {
  int64_t batch = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0, channels = 0;
  float h_scale = 0, w_scale = 0;
  TensorShape output_shape() const { return TensorShape({batch, out_h, out_w, channels}); }
};

// Checks the attrs of a resize op: half_pixel_centers excludes align_corners.
inline Status CheckResizeAttrs(const char* op, bool align_corners, bool half_pixel_centers) {
  if (half_pixel_centers && align_corners)
    return InvalidArgument(op, ": if half_pixel_centers is True, align_corners must be False");
  return Status::OK();
}

// Reads `size` (int32 [2]: new height and width) and checks that both are positive.
inline Status ReadResizeSize(const char* op, const char* what, const Tensor& size, int64_t* h, int64_t* w) {
  if (size.dtype() != DT_INT32 || size.rank() != 1 || size.dim(0) != 2)
    return InvalidArgument(op, ": ", what, " must be a 1-D int32 tensor of 2 elements (height, width), got ",
                           DataTypeString(size.dtype()), " of shape ", size.shape().ToString());
  *h = size.data<int32_t>()[0];
  *w = size.data<int32_t>()[1];
  if (*h <= 0 || *w <= 0) return InvalidArgument(op, ": ", what, " must be positive, got [", *h, ", ", *w, "]");
  return Status::OK();
}

// Checks an image tensor [batch, height, width, channels]: rank 4, non-empty height and width,
// sizes below 2^31 and, when `need_channels`, at least one channel.
inline Status CheckImage4D(const char* op, const char* what, const TensorShape& s, bool need_channels = true) {
  if (s.rank() != 4)
    return InvalidArgument(op, ": ", what, " must be 4-dimensional [batch, height, width, channels], got shape ",
                           s.ToString());
  if (s.dim(1) <= 0 || s.dim(2) <= 0)
    return InvalidArgument(op, ": ", what, " must have non-zero height and width, got shape ", s.ToString());
  if (need_channels && s.dim(3) <= 0)
    return InvalidArgument(op, ": ", what, " must have at least one channel, got shape ", s.ToString());
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (s.dim(1) >= kMax || s.dim(2) >= kMax)
    return InvalidArgument(op, ": ", what, " height and width must be below 2^31 - 1, got shape ", s.ToString());
  return Status::OK();
}

// The geometry of a forward resize of `images` to `size`, with TensorFlow's checks.
inline Status ForwardGeometry(const char* op, const Tensor& images, const Tensor& size, bool align_corners,
                              bool half_pixel_centers, ResizeGeometry* g) {
  TX_RETURN_IF_ERROR(CheckResizeAttrs(op, align_corners, half_pixel_centers));
  TX_RETURN_IF_ERROR(CheckImage4D(op, "images", images.shape()));
  TX_RETURN_IF_ERROR(ReadResizeSize(op, "size", size, &g->out_h, &g->out_w));
  g->batch = images.dim(0);
  g->in_h = images.dim(1);
  g->in_w = images.dim(2);
  g->channels = images.dim(3);
  g->h_scale = ResizeScale(g->in_h, g->out_h, align_corners);
  g->w_scale = ResizeScale(g->in_w, g->out_w, align_corners);
  const int64_t dims[4] = {g->batch, g->out_h, g->out_w, g->channels};
  TensorShape checked;
  Status s = TensorShape::Make(dims, 4, &checked);
  if (!s.ok()) return InvalidArgument(op, ": the resized images would be too large: ", s.message());
  return Status::OK();
}

// The geometry of a resize gradient: `grads` [batch, out_h, out_w, channels] flows back to an
// image of height `orig_h` and width `orig_w`.
inline Status GradGeometry(const char* op, const Tensor& grads, int64_t orig_h, int64_t orig_w, bool align_corners,
                           bool half_pixel_centers, ResizeGeometry* g) {
  TX_RETURN_IF_ERROR(CheckResizeAttrs(op, align_corners, half_pixel_centers));
  TX_RETURN_IF_ERROR(CheckImage4D(op, "grads", grads.shape(), /*need_channels=*/false));
  if (orig_h <= 0 || orig_w <= 0)
    return InvalidArgument(op, ": the original image must have positive height and width, got ", orig_h, " x ", orig_w);
  g->batch = grads.dim(0);
  g->out_h = grads.dim(1);
  g->out_w = grads.dim(2);
  g->channels = grads.dim(3);
  g->in_h = orig_h;
  g->in_w = orig_w;
  g->h_scale = ResizeScale(orig_h, g->out_h, align_corners);
  g->w_scale = ResizeScale(orig_w, g->out_w, align_corners);
  const int64_t dims[4] = {g->batch, orig_h, orig_w, g->channels};
  TensorShape checked;
  Status s = TensorShape::Make(dims, 4, &checked);
  if (!s.ok()) return InvalidArgument(op, ": the gradient image would be too large: ", s.message());
  return Status::OK();
}

// Resizes a per-row or per-column cache to n entries; ResourceExhausted instead of an exception
// when memory runs out (a huge requested size).
template <typename T>
Status ResizeCache(const char* op, std::vector<T>* v, int64_t n) {
  try {
    v->resize(static_cast<size_t>(n));
  } catch (const std::bad_alloc&) {
    return ResourceExhausted(op, ": out of memory for ", n, " interpolation entries");
  } catch (const std::length_error&) {
    return ResourceExhausted(op, ": out of memory for ", n, " interpolation entries");
  }
  return Status::OK();
}

}  // namespace image
}  // namespace cpu
}  // namespace tx

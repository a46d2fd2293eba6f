// CPU kernels for CropAndResize (bilinear or nearest sampling of normalized boxes, float32
// output) and its gradients with respect to the image (CropAndResizeGradImage) and the boxes
// (CropAndResizeGradBoxes), with TensorFlow's sampling grid (Note [Image kernel rounding]).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "tensorflux/kernels/cpu/image_resize_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// The boxes [num_boxes, 4] and box_ind [num_boxes] inputs, checked against each other, finite,
// and with every box index in [0, batch).
Status CheckBoxes(const char* op, const Tensor& boxes, const Tensor& box_ind, int64_t batch, int64_t* num_boxes) {
  if (boxes.rank() != 2 || boxes.dim(1) != 4)
    return InvalidArgument(op, ": boxes must be 2-D [num_boxes, 4], got shape ", boxes.shape().ToString());
  if (box_ind.rank() != 1 || box_ind.dim(0) != boxes.dim(0))
    return InvalidArgument(op, ": box_ind must be 1-D with one entry per box (", boxes.dim(0), "), got shape ",
                           box_ind.shape().ToString());
  *num_boxes = boxes.dim(0);
  const float* b = boxes.data<float>();
  for (int64_t i = 0; i < boxes.num_elements(); ++i)
    if (!std::isfinite(b[i])) return InvalidArgument(op, ": boxes contains a value that is not finite: ", b[i]);
  const int32_t* ind = box_ind.data<int32_t>();
  for (int64_t i = 0; i < *num_boxes; ++i)
    if (ind[i] < 0 || ind[i] >= batch)
      return OutOfRange(op, ": box_ind[", i, "] = ", ind[i], " is outside [0, batch_size = ", batch, ")");
  return Status::OK();
}

// The sampling grid of one box along one axis: crop index i samples source coordinate
// coord(i); samples outside [0, size - 1] take the extrapolation value.
struct Axis {
  float lo = 0, hi = 0, scale = 0;
  int64_t crop = 0, size = 0;
  Axis(float lo_, float hi_, int64_t crop_, int64_t size_) : lo(lo_), hi(hi_), crop(crop_), size(size_) {
    scale = crop > 1 ? (hi - lo) * static_cast<float>(size - 1) / static_cast<float>(crop - 1) : 0.0f;
  }
  float coord(int64_t i) const {
    return crop > 1 ? lo * static_cast<float>(size - 1) + static_cast<float>(i) * scale
                    : static_cast<float>(0.5 * (lo + hi) * static_cast<double>(size - 1));
  }
  bool inside(float v) const { return !(v < 0 || v > static_cast<float>(size - 1)); }
};

// The two source pixels around coordinate v and the weight of the second (bilinear), and the
// nearest one.
struct Cell {
  int64_t lo, hi, nearest;
  float frac;
  explicit Cell(float v)
      : lo(static_cast<int64_t>(std::floor(v))),
        hi(static_cast<int64_t>(std::ceil(v))),
        nearest(static_cast<int64_t>(std::round(v))),
        frac(v - static_cast<float>(lo)) {}
};

// Calls fn(y, x, cy, cx) for each crop position (y, x) of a box that samples inside the image,
// with the source cells of its row and column coordinates.
template <typename F>
void ForEachInside(const Axis& ay, const Axis& ax, const F& fn) {
  for (int64_t y = 0; y < ay.crop; ++y) {
    const float in_y = ay.coord(y);
    if (!ay.inside(in_y)) continue;
    const Cell cy(in_y);
    for (int64_t x = 0; x < ax.crop; ++x) {
      const float in_x = ax.coord(x);
      if (ax.inside(in_x)) fn(y, x, cy, Cell(in_x));
    }
  }
}

// Checks input i against dtypes[i] for each listed input.
Status CheckInputs(const OpKernelContext* ctx, std::initializer_list<DataType> dtypes) {
  int i = 0;
  for (DataType dt : dtypes) TX_RETURN_IF_ERROR(CheckInput(ctx, i++, dt));
  return Status::OK();
}

// The incoming gradient of a crop: [num_boxes, crop_height, crop_width, depth], crops non-empty.
Status CheckCropGrads(const char* op, const Tensor& grads) {
  if (grads.rank() != 4 || grads.dim(1) <= 0 || grads.dim(2) <= 0)
    return InvalidArgument(op,
                           ": grads must be 4-D [num_boxes, crop_height, crop_width, depth] with positive crop "
                           "sizes, got shape ",
                           grads.shape().ToString());
  return Status::OK();
}

// Reads the method attr ("bilinear" or "nearest"; `bilinear_only` for the boxes gradient).
Status ReadMethod(OpKernelConstruction* c, const char* op, bool bilinear_only, bool* nearest) {
  std::string method;
  TX_RETURN_IF_ERROR(c->GetAttr("method", &method));
  if (method != "bilinear" && (bilinear_only || method != "nearest"))
    return InvalidArgument(op, ": method must be ", bilinear_only ? "'bilinear'" : "'bilinear' or 'nearest'", ", got '",
                           method, "'");
  *nearest = method == "nearest";
  return Status::OK();
}

Status ReadCropSize(const char* op, const char* what, const Tensor& t, int64_t* h, int64_t* w) {
  return image::ReadResizeSize(op, what, t, h, w);
}

template <typename T>
class CropAndResizeOp : public OpKernel {
 public:
  explicit CropAndResizeOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(ReadMethod(c, "CropAndResize", false, &nearest_));
    if (c->status().ok()) c->SetStatus(c->GetAttr("extrapolation_value", &extrapolation_));
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "CropAndResize";
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInputs(ctx, {DataTypeOf<T>::value, DT_FLOAT, DT_INT32, DT_INT32}));
    const Tensor& image = ctx->input(0);
    TX_CTX_RETURN_IF_ERROR(ctx, image::CheckImage4D(kOp, "image", image.shape(), /*need_channels=*/false));
    int64_t num_boxes = 0, ch = 0, cw = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, CheckBoxes(kOp, ctx->input(1), ctx->input(2), image.dim(0), &num_boxes));
    TX_CTX_RETURN_IF_ERROR(ctx, ReadCropSize(kOp, "crop_size", ctx->input(3), &ch, &cw));
    const int64_t h = image.dim(1), w = image.dim(2), depth = image.dim(3);
    const int64_t dims[4] = {num_boxes, ch, cw, depth};
    TensorShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, TensorShape::Make(dims, 4, &shape));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    if (out->num_elements() == 0) return;
    const float* boxes = ctx->input(1).data<float>();
    const int32_t* ind = ctx->input(2).data<int32_t>();
    const T* img = image.data<T>();
    float* crops = out->data<float>();
    ParallelItems(ctx->intra_op_pool(), num_boxes, ch * cw * depth * 8, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        const float* box = boxes + b * 4;
        const Axis ay(box[0], box[2], ch, h), ax(box[1], box[3], cw, w);
        const T* src = img + ind[b] * h * w * depth;
        float* dst = crops + b * ch * cw * depth;
        std::fill(dst, dst + ch * cw * depth, extrapolation_);  // positions outside the image
        ForEachInside(ay, ax, [&](int64_t y, int64_t x, const Cell& cy, const Cell& cx) {
          float* px = dst + (y * cw + x) * depth;
          if (nearest_) {
            const T* p = src + (cy.nearest * w + cx.nearest) * depth;
            for (int64_t d = 0; d < depth; ++d) px[d] = static_cast<float>(p[d]);
            return;
          }
          const T *tl = src + (cy.lo * w + cx.lo) * depth, *tr = src + (cy.lo * w + cx.hi) * depth;
          const T *bl = src + (cy.hi * w + cx.lo) * depth, *br = src + (cy.hi * w + cx.hi) * depth;
          for (int64_t d = 0; d < depth; ++d) {
            const float vtl = static_cast<float>(tl[d]), vtr = static_cast<float>(tr[d]);
            const float vbl = static_cast<float>(bl[d]), vbr = static_cast<float>(br[d]);
            const float t = vtl + (vtr - vtl) * cx.frac, bo = vbl + (vbr - vbl) * cx.frac;
            px[d] = t + (bo - t) * cy.frac;
          }
        });
      }
    });
  }

 private:
  bool nearest_ = false;
  float extrapolation_ = 0;
};

// Scatters each crop gradient back to the pixels it was sampled from. Boxes of one image are
// summed in box order on one thread, so the result does not depend on the thread count.
template <typename T>
class CropAndResizeGradImageOp : public OpKernel {
 public:
  explicit CropAndResizeGradImageOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(ReadMethod(c, "CropAndResizeGradImage", false, &nearest_));
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "CropAndResizeGradImage";
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInputs(ctx, {DT_FLOAT, DT_FLOAT, DT_INT32, DT_INT32}));
    const Tensor& grads = ctx->input(0);
    const Tensor& size = ctx->input(3);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckCropGrads(kOp, grads));
    if (size.rank() != 1 || size.dim(0) != 4) {
      ctx->SetStatus(
          InvalidArgument(kOp, ": image_size must be 1-D with 4 elements, got shape ", size.shape().ToString()));
      return;
    }
    const int32_t* sz = size.data<int32_t>();
    const int64_t batch = sz[0], h = sz[1], w = sz[2], depth = sz[3];
    if (batch < 0 || h <= 0 || w <= 0 || depth != grads.dim(3)) {
      ctx->SetStatus(InvalidArgument(kOp, ": image_size [", batch, ", ", h, ", ", w, ", ", depth,
                                     "] needs a "
                                     "non-negative batch, positive height and width and the depth of grads (",
                                     grads.dim(3), ")"));
      return;
    }
    int64_t num_boxes = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, CheckBoxes(kOp, ctx->input(1), ctx->input(2), batch, &num_boxes));
    if (grads.dim(0) != num_boxes) {
      ctx->SetStatus(InvalidArgument(kOp, ": grads has ", grads.dim(0), " crops but boxes has ", num_boxes));
      return;
    }
    const int64_t dims[4] = {batch, h, w, depth};
    TensorShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, TensorShape::Make(dims, 4, &shape));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    T* dimg = out->data<T>();
    std::fill(dimg, dimg + out->num_elements(), T(0));
    const int64_t ch = grads.dim(1), cw = grads.dim(2);
    const float* boxes = ctx->input(1).data<float>();
    const int32_t* ind = ctx->input(2).data<int32_t>();
    const float* g = grads.data<float>();
    ParallelItems(ctx->intra_op_pool(), batch, num_boxes * ch * cw * depth / std::max<int64_t>(batch, 1) * 8,
                  [&](int64_t begin, int64_t end) {
                    for (int64_t b = 0; b < num_boxes; ++b) {
                      if (ind[b] < begin || ind[b] >= end) continue;
                      const float* box = boxes + b * 4;
                      const Axis ay(box[0], box[2], ch, h), ax(box[1], box[3], cw, w);
                      T* dst = dimg + ind[b] * h * w * depth;
                      ForEachInside(ay, ax, [&](int64_t y, int64_t x, const Cell& cy, const Cell& cx) {
                        const float* gp = g + ((b * ch + y) * cw + x) * depth;
                        if (nearest_) {
                          T* p = dst + (cy.nearest * w + cx.nearest) * depth;
                          for (int64_t d = 0; d < depth; ++d) p[d] += static_cast<T>(gp[d]);
                          return;
                        }
                        for (int64_t d = 0; d < depth; ++d) {
                          const float dtop = (1 - cy.frac) * gp[d], dbottom = cy.frac * gp[d];
                          dst[(cy.lo * w + cx.lo) * depth + d] += static_cast<T>((1 - cx.frac) * dtop);
                          dst[(cy.lo * w + cx.hi) * depth + d] += static_cast<T>(cx.frac * dtop);
                          dst[(cy.hi * w + cx.lo) * depth + d] += static_cast<T>((1 - cx.frac) * dbottom);
                          dst[(cy.hi * w + cx.hi) * depth + d] += static_cast<T>(cx.frac * dbottom);
                        }
                      });
                    }
                  });
  }

 private:
  bool nearest_ = false;
};

// d crops / d boxes: the bilinear sample's spatial derivative times the incoming gradient,
// chained through the sampling grid's dependence on the box corners.
template <typename T>
class CropAndResizeGradBoxesOp : public OpKernel {
 public:
  explicit CropAndResizeGradBoxesOp(OpKernelConstruction* c) : OpKernel(c) {
    bool nearest = false;
    c->SetStatus(ReadMethod(c, "CropAndResizeGradBoxes", true, &nearest));
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "CropAndResizeGradBoxes";
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInputs(ctx, {DT_FLOAT, DataTypeOf<T>::value, DT_FLOAT, DT_INT32}));
    const Tensor& grads = ctx->input(0);
    const Tensor& image = ctx->input(1);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckCropGrads(kOp, grads));
    TX_CTX_RETURN_IF_ERROR(ctx, image::CheckImage4D(kOp, "image", image.shape(), /*need_channels=*/false));
    if (image.dim(3) != grads.dim(3)) {
      ctx->SetStatus(InvalidArgument(kOp, ": image depth ", image.dim(3), " differs from grads depth ", grads.dim(3)));
      return;
    }
    int64_t num_boxes = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, CheckBoxes(kOp, ctx->input(2), ctx->input(3), image.dim(0), &num_boxes));
    if (grads.dim(0) != num_boxes) {
      ctx->SetStatus(InvalidArgument(kOp, ": grads has ", grads.dim(0), " crops but boxes has ", num_boxes));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({num_boxes, 4}), &out));
    float* dboxes = out->data<float>();
    std::fill(dboxes, dboxes + out->num_elements(), 0.0f);
    const int64_t h = image.dim(1), w = image.dim(2), depth = image.dim(3), ch = grads.dim(1), cw = grads.dim(2);
    const float* boxes = ctx->input(2).data<float>();
    const int32_t* ind = ctx->input(3).data<int32_t>();
    const float* g = grads.data<float>();
    const T* img = image.data<T>();
    const float h_ratio = ch > 1 ? static_cast<float>(h - 1) / static_cast<float>(ch - 1) : 0.0f;
    const float w_ratio = cw > 1 ? static_cast<float>(w - 1) / static_cast<float>(cw - 1) : 0.0f;
    ParallelItems(ctx->intra_op_pool(), num_boxes, ch * cw * depth * 16, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        const float* box = boxes + b * 4;
        float* db = dboxes + b * 4;
        const Axis ay(box[0], box[2], ch, h), ax(box[1], box[3], cw, w);
        const T* src = img + ind[b] * h * w * depth;
        ForEachInside(ay, ax, [&](int64_t y, int64_t x, const Cell& cy, const Cell& cx) {
          for (int64_t d = 0; d < depth; ++d) {
            const float tl = static_cast<float>(src[(cy.lo * w + cx.lo) * depth + d]);
            const float tr = static_cast<float>(src[(cy.lo * w + cx.hi) * depth + d]);
            const float bl = static_cast<float>(src[(cy.hi * w + cx.lo) * depth + d]);
            const float br = static_cast<float>(src[(cy.hi * w + cx.hi) * depth + d]);
            const float top_grad = g[((b * ch + y) * cw + x) * depth + d];
            const float grad_y = ((1 - cx.frac) * (bl - tl) + cx.frac * (br - tr)) * top_grad;
            const float grad_x = ((1 - cy.frac) * (tr - tl) + cy.frac * (br - bl)) * top_grad;
            if (ch > 1) {
              db[0] += grad_y * (static_cast<float>(h - 1) - static_cast<float>(y) * h_ratio);
              db[2] += grad_y * (static_cast<float>(y) * h_ratio);
            } else {
              db[0] = static_cast<float>(db[0] + grad_y * 0.5 * static_cast<double>(h - 1));
              db[2] = static_cast<float>(db[2] + grad_y * 0.5 * static_cast<double>(h - 1));
            }
            if (cw > 1) {
              db[1] += grad_x * (static_cast<float>(w - 1) - static_cast<float>(x) * w_ratio);
              db[3] += grad_x * (static_cast<float>(x) * w_ratio);
            } else {
              db[1] = static_cast<float>(db[1] + grad_x * 0.5 * static_cast<double>(w - 1));
              db[3] = static_cast<float>(db[3] + grad_x * 0.5 * static_cast<double>(w - 1));
            }
          }
        });
      }
    });
  }
};

#define TX_REGISTER_CROP_AND_RESIZE(T)                                                              \
  TX_REGISTER_KERNEL(KernelDefBuilder("CropAndResize").TypeConstraint<T>("T"), CropAndResizeOp<T>); \
  TX_REGISTER_KERNEL(KernelDefBuilder("CropAndResizeGradBoxes").TypeConstraint<T>("T"), CropAndResizeGradBoxesOp<T>);
TX_IMAGE_REAL_TYPES(TX_REGISTER_CROP_AND_RESIZE)
#undef TX_REGISTER_CROP_AND_RESIZE

TX_REGISTER_KERNEL(KernelDefBuilder("CropAndResizeGradImage").TypeConstraint<float>("T"),
                   CropAndResizeGradImageOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("CropAndResizeGradImage").TypeConstraint<double>("T"),
                   CropAndResizeGradImageOp<double>);

}  // namespace
}  // namespace cpu
}  // namespace tx

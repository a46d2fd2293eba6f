// CPU kernel for DrawBoundingBoxes and DrawBoundingBoxesV2: one-pixel box outlines drawn over a
// copy of the images, box k in color k modulo the color table (TensorFlow's default table
// when `colors` is absent or empty).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// yellow, blue, red, lime, purple, olive, maroon, navy, aqua, fuchsia (RGBA).
constexpr float kDefaultColors[10][4] = {{1, 1, 0, 1},     {0, 0, 1, 1},     {1, 0, 0, 1},   {0, 1, 0, 1},
                                         {0.5, 0, 0.5, 1}, {0.5, 0.5, 0, 1}, {0.5, 0, 0, 1}, {0, 0, 0.5, 1},
                                         {0, 1, 1, 1},     {1, 0, 1, 1}};

// A normalized coordinate scaled to pixels and truncated toward zero as TensorFlow does (the
// float is clamped first, so huge boxes cannot overflow the conversion).
int64_t ToPixel(float v, int64_t size) {
  const float p = v * static_cast<float>(size - 1);
  return static_cast<int64_t>(std::min(std::max(p, -1e18f), 1e18f));
}

class DrawBoundingBoxesOp : public OpKernel {
 public:
  explicit DrawBoundingBoxesOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    const char* op = ctx->num_inputs() == 3 ? "DrawBoundingBoxesV2" : "DrawBoundingBoxes";
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_FLOAT));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DT_FLOAT));
    const Tensor& images = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    if (images.rank() != 4) {
      ctx->SetStatus(InvalidArgument(op, ": images must be 4-D [batch, height, width, depth], got shape ",
                                     images.shape().ToString()));
      return;
    }
    if (boxes.rank() != 3 || boxes.dim(0) != images.dim(0) || boxes.dim(2) != 4) {
      ctx->SetStatus(InvalidArgument(op, ": boxes must be 3-D [batch (", images.dim(0), "), num_boxes, 4], got shape ",
                                     boxes.shape().ToString()));
      return;
    }
    const int64_t batch = images.dim(0), h = images.dim(1), w = images.dim(2), depth = images.dim(3);
    if (depth != 1 && depth != 3 && depth != 4) {
      ctx->SetStatus(InvalidArgument(op, ": images must have 1 (gray), 3 (RGB) or 4 (RGBA) channels, got ", depth));
      return;
    }
    std::vector<std::vector<float>> table;
    if (ctx->num_inputs() == 3) {
      TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, DT_FLOAT));
      const Tensor& colors = ctx->input(2);
      if (colors.rank() != 2 || colors.dim(1) < depth) {
        ctx->SetStatus(InvalidArgument(op, ": colors must be 2-D [num_colors, >= ", depth, " channels], got shape ",
                                       colors.shape().ToString()));
        return;
      }
      for (int64_t i = 0; i < colors.dim(0); ++i)
        table.emplace_back(colors.data<float>() + i * colors.dim(1), colors.data<float>() + i * colors.dim(1) + depth);
    }
    if (table.empty())
      for (const auto& c : kDefaultColors) {
        table.emplace_back(c, c + depth);
        if (depth == 1) table.back()[0] = 1;
      }
    const float* bx = boxes.data<float>();
    for (int64_t i = 0; i < boxes.num_elements(); ++i)
      if (std::isnan(bx[i])) {
        ctx->SetStatus(InvalidArgument(op, ": boxes contains NaN"));
        return;
      }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, images.shape(), &out));
    float* canvas = out->data<float>();
    std::copy(images.data<float>(), images.data<float>() + images.num_elements(), canvas);
    const int64_t n = boxes.dim(1);
    auto paint = [&](int64_t b, int64_t y, int64_t x, const std::vector<float>& color) {
      std::copy(color.begin(), color.end(), canvas + ((b * h + y) * w + x) * depth);
    };
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t k = 0; k < n; ++k) {
        const float* box = bx + (b * n + k) * 4;
        const std::vector<float>& color = table[k % table.size()];
        const int64_t top = ToPixel(box[0], h), bottom = ToPixel(box[2], h);
        const int64_t left = ToPixel(box[1], w), right = ToPixel(box[3], w);
        if (top > bottom || left > right) continue;  // inverted: not drawn
        if (top >= h || bottom < 0 || left >= w || right < 0) continue;  // outside the image
        const int64_t y0 = std::max<int64_t>(top, 0), y1 = std::min(bottom, h - 1);
        const int64_t x0 = std::max<int64_t>(left, 0), x1 = std::min(right, w - 1);
        for (int64_t x = x0; x <= x1; ++x) {
          if (top >= 0) paint(b, top, x, color);
          if (bottom < h) paint(b, bottom, x, color);
        }
        for (int64_t y = y0; y <= y1; ++y) {
          if (left >= 0) paint(b, y, left, color);
          if (right < w) paint(b, y, right, color);
        }
      }
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("DrawBoundingBoxes").TypeConstraint<float>("T"), DrawBoundingBoxesOp);
TX_REGISTER_KERNEL(KernelDefBuilder("DrawBoundingBoxesV2").TypeConstraint<float>("T"), DrawBoundingBoxesOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

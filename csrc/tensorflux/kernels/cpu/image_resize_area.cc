// CPU kernel for ResizeArea: each output pixel is the average of the input area it covers, each
// input pixel weighted by the fraction of it inside that area (TensorFlow's arithmetic; Note
// [Image kernel rounding]).
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

inline int64_t Bound(int64_t v, int64_t limit) { return std::min(limit - 1, std::max(int64_t{0}, v)); }

// The fraction of input cell i inside the output cell [lo, hi) (in input coordinates).
inline float CellWeight(int64_t i, float lo, float hi, float scale) {
  if (static_cast<float>(i) < lo) return static_cast<float>(i + 1) > hi ? scale : static_cast<float>(i + 1) - lo;
  return static_cast<float>(i + 1) > hi ? hi - static_cast<float>(i) : 1.0f;
}

// The input cells [start, end) one output column covers, with the weights of the two ends.
struct Span {
  int64_t start = 0, end = 0;
  float start_weight = 0, end_weight = 0;
};

// An axis of one pixel resized with align_corners has scale 0: every output cell is that pixel.
Span AxisSpan(int64_t o, float scale) {
  Span s;
  if (scale == 0.0f) {
    s.end = 1;
    s.start_weight = s.end_weight = 1.0f;
    return s;
  }
  const float lo = static_cast<float>(o) * scale, hi = static_cast<float>(o + 1) * scale;
  s.start = static_cast<int64_t>(std::floor(lo));
  s.end = static_cast<int64_t>(std::ceil(hi));
  s.start_weight = CellWeight(s.start, lo, hi, scale);
  s.end_weight = CellWeight(s.end - 1, lo, hi, scale);
  return s;
}

template <typename T>
class ResizeAreaOp : public OpKernel {
 public:
  explicit ResizeAreaOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("align_corners", &align_)); }

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "ResizeArea";
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DT_INT32));
    ResizeGeometry g;
    TX_CTX_RETURN_IF_ERROR(ctx, image::ForwardGeometry(kOp, ctx->input(0), ctx->input(1), align_, false, &g));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, g.output_shape(), &out));
    if (out->num_elements() == 0) return;
    std::vector<Span> xs;
    TX_CTX_RETURN_IF_ERROR(ctx, image::ResizeCache(kOp, &xs, g.out_w));
    for (int64_t x = 0; x < g.out_w; ++x) xs[x] = AxisSpan(x, g.w_scale);
    // TensorFlow's scale: the float product, inverted in double (a zero scale counts as 1).
    const float h_scale = g.h_scale == 0.0f ? 1.0f : g.h_scale, w_scale = g.w_scale == 0.0f ? 1.0f : g.w_scale;
    const float norm = static_cast<float>(1.0 / (h_scale * w_scale));
    const T* in = ctx->input(0).data<T>();
    float* y = out->data<float>();
    const int64_t c = g.channels, in_row = g.in_w * c;
    const int64_t cost = static_cast<int64_t>(std::ceil(g.h_scale + 1) * std::ceil(g.w_scale + 1)) * c * g.out_w;
    ParallelItems(ctx->intra_op_pool(), g.batch * g.out_h, cost, [&](int64_t begin, int64_t end) {
      std::vector<float> y_weights;
      std::vector<const T*> rows;
      for (int64_t r = begin; r < end; ++r) {
        const int64_t b = r / g.out_h, oy = r % g.out_h;
        const Span sy = AxisSpan(oy, g.h_scale);
        const float lo = static_cast<float>(oy) * g.h_scale, hi = static_cast<float>(oy + 1) * g.h_scale;
        y_weights.clear();
        rows.clear();
        for (int64_t i = sy.start; i < sy.end; ++i) {
          y_weights.push_back(g.h_scale == 0.0f ? 1.0f : CellWeight(i, lo, hi, g.h_scale));
          rows.push_back(in + (b * g.in_h + Bound(i, g.in_h)) * in_row);
        }
        float* dst = y + r * g.out_w * c;
        for (int64_t ox = 0; ox < g.out_w; ++ox) {
          const Span& sx = xs[ox];
          for (int64_t k = 0; k < c; ++k) {
            float sum = 0;
            for (size_t i = 0; i < rows.size(); ++i) {
              const T* row = rows[i];
              float sum_y = static_cast<float>(row[Bound(sx.start, g.in_w) * c + k]) * sx.start_weight;
              if (sx.start + 1 != sx.end) {
                for (int64_t x = sx.start + 1; x < sx.end - 1; ++x)
                  sum_y += static_cast<float>(row[Bound(x, g.in_w) * c + k]);
                sum_y += static_cast<float>(row[Bound(sx.end - 1, g.in_w) * c + k]) * sx.end_weight;
              }
              sum += sum_y * y_weights[i];
            }
            dst[ox * c + k] = sum * norm;
          }
        }
      }
    });
  }

 private:
  bool align_ = false;
};

#define TX_REGISTER_RESIZE_AREA(T) \
  TX_REGISTER_KERNEL(KernelDefBuilder("ResizeArea").TypeConstraint<T>("T"), ResizeAreaOp<T>);
TX_IMAGE_REAL_TYPES(TX_REGISTER_RESIZE_AREA)
#undef TX_REGISTER_RESIZE_AREA

}  // namespace
}  // namespace cpu
}  // namespace tx

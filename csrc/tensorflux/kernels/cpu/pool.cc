// CPU kernels for MaxPool and AvgPool (NHWC): window loops vectorized over the contiguous channels.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/ops/conv_window.h"
#include "tensorflux/kernels/cpu/widened_kernel.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Pooling attrs and per-call geometry; padded positions never take part in a window.
struct PoolParams {
  std::vector<int64_t> ksize, strides, explicit_paddings;
  Padding padding = Padding::kValid;

  Status Init(OpKernelConstruction* c, const char* op, bool has_explicit) {
    std::string pad, format;
    TX_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
    TX_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
    TX_RETURN_IF_ERROR(c->GetAttr("padding", &pad));
    TX_RETURN_IF_ERROR(ParsePadding(pad, &padding));
    TX_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
    if (has_explicit) TX_RETURN_IF_ERROR(c->GetAttr("explicit_paddings", &explicit_paddings));
    DataFormat f;
    TX_RETURN_IF_ERROR(ParseDataFormat(op, format, &f));
    if (f.channels_first) return Unimplemented("Default ", op, " only supports NHWC on device type CPU");
    if (ksize.size() != 4 || strides.size() != 4)
      return InvalidArgument("Sliding window ksize and strides fields must specify 4 dimensions");
    if (ksize[0] != 1 || strides[0] != 1) return Unimplemented("Pooling is not yet supported on the batch dimension.");
    if (ksize[3] != 1 || strides[3] != 1) return Unimplemented("Pooling over the depth dimension is not supported");
    if (padding == Padding::kExplicit &&
        (explicit_paddings.size() != 8 || explicit_paddings[0] || explicit_paddings[1] || explicit_paddings[6] ||
         explicit_paddings[7]))
      return InvalidArgument("explicit_paddings must have 8 values with zero batch and depth padding");
    return Status::OK();
  }

  // Output [N, OH, OW, C] plus leading paddings for input `in`.
  Status Geometry(const Tensor& in, int64_t* oh, int64_t* ow, int64_t* pt, int64_t* pl) const {
    if (in.rank() != 4) return InvalidArgument("input must be 4-dimensional, got shape ", in.shape().ToString());
    const bool ex = padding == Padding::kExplicit;
    TX_RETURN_IF_ERROR(WindowedOutputSize(in.dim(1), ksize[1], 1, strides[1], padding, ex ? explicit_paddings[2] : 0,
                                          ex ? explicit_paddings[3] : 0, oh, pt));
    return WindowedOutputSize(in.dim(2), ksize[2], 1, strides[2], padding, ex ? explicit_paddings[4] : 0,
                              ex ? explicit_paddings[5] : 0, ow, pl);
  }
};

// MaxPool when kMax, AvgPool (mean over the in-bounds window elements) otherwise.
template <typename T, bool kMax>
class PoolOp : public OpKernel {
 public:
  explicit PoolOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(p_.Init(c, kMax ? "MaxPool" : "AvgPool", kMax));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& in = ctx->input(0);
    int64_t oh, ow, pt, pl;
    TX_CTX_RETURN_IF_ERROR(ctx, p_.Geometry(in, &oh, &ow, &pt, &pl));
    const int64_t n = in.dim(0), h = in.dim(1), w = in.dim(2), c = in.dim(3);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({n, oh, ow, c}), &out));
    if (out->num_elements() == 0) return;
    const T* x = in.data<T>();
    T* y = out->data<T>();
    const int64_t kh = p_.ksize[1], kw = p_.ksize[2], sh = p_.strides[1], sw = p_.strides[2];
    ParallelItems(ctx->intra_op_pool(), n * oh * ow, kh * kw * c, [&](int64_t b, int64_t e) {
      for (int64_t idx = b; idx < e; ++idx) {
        const int64_t j = idx % ow, t = idx / ow, i = t % oh, img = t / oh;
        const int64_t h0 = std::max<int64_t>(i * sh - pt, 0), h1 = std::min(i * sh - pt + kh, h);
        const int64_t w0 = std::max<int64_t>(j * sw - pl, 0), w1 = std::min(j * sw - pl + kw, w);
        T* dst = y + idx * c;
        std::fill(dst, dst + c, kMax ? std::numeric_limits<T>::lowest() : T(0));
        for (int64_t r = h0; r < h1; ++r)
          for (int64_t q = w0; q < w1; ++q) {
            const T* src = x + ((img * h + r) * w + q) * c;
            if constexpr (kMax) {
              for (int64_t ch = 0; ch < c; ++ch) dst[ch] = src[ch] > dst[ch] ? src[ch] : dst[ch];
            } else {
              for (int64_t ch = 0; ch < c; ++ch) dst[ch] += src[ch];
            }
          }
        if constexpr (!kMax) {
          const T count = static_cast<T>(std::max<int64_t>((h1 - h0) * (w1 - w0), 1));
          for (int64_t ch = 0; ch < c; ++ch) dst[ch] /= count;
        }
      }
    });
  }

 private:
  PoolParams p_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("MaxPool").TypeConstraint<float>("T"), PoolOp<float, true>);
TX_REGISTER_KERNEL(KernelDefBuilder("MaxPool").TypeConstraint<double>("T"), PoolOp<double, true>);
TX_REGISTER_KERNEL(KernelDefBuilder("MaxPool").TypeConstraint<int32_t>("T"), PoolOp<int32_t, true>);
TX_REGISTER_KERNEL(KernelDefBuilder("MaxPool").TypeConstraint<int64_t>("T"), PoolOp<int64_t, true>);
TX_REGISTER_KERNEL(KernelDefBuilder("AvgPool").TypeConstraint<float>("T"), PoolOp<float, false>);
TX_REGISTER_KERNEL(KernelDefBuilder("AvgPool").TypeConstraint<double>("T"), PoolOp<double, false>);

// --- half and bfloat16: the float32 kernel on widened inputs, outputs rounded once
// (Note [Widened kernels]) ---
TX_REGISTER_WIDENED("MaxPool", "T");
TX_REGISTER_WIDENED("AvgPool", "T");

}  // namespace
}  // namespace cpu
}  // namespace tx

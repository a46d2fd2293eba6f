// CPU kernel for FusedBatchNormGradV3 (T = U = float) in NHWC/NDHWC and NCHW/NCDHW layouts.
#include <cmath>
#include <string>
#include <vector>

#include "tensorflux/ops/conv_window.h"
#include "tensorflux/kernels/cpu/blocked_sums.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/widened_kernel.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// With mean = reserve_space_1, var = reserve_space_2 (FusedBatchNormV3 stores the batch mean and
// biased batch variance there when training, and they are the population statistics otherwise),
// inv = 1 / sqrt(var + epsilon), xc = x - mean, per channel over its `count` elements:
//   offset_backprop = sum(dy), scale_backprop = sum(dy * xc) * inv,
//   x_backprop = scale * inv * (dy - mean(dy) - xc * inv^2 * mean(dy * xc))   (training),
//   x_backprop = scale * inv * dy                                              (inference).
// The sums are taken in double. reserve_space_4/5 are empty, as in TensorFlow's CPU kernel.
class FusedBatchNormGradOp : public OpKernel {
 public:
  explicit FusedBatchNormGradOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string format;
    c->SetStatus(c->GetAttr("epsilon", &epsilon_));
    c->SetStatus(c->GetAttr("is_training", &training_));
    c->SetStatus(c->GetAttr("data_format", &format));
    DataFormat f;
    if (c->status().ok()) c->SetStatus(ParseDataFormat("FusedBatchNormGradV3", format, &f));
    channels_first_ = f.channels_first;
    rank_ = f.rank();
  }

  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < 6; ++i) TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, DT_FLOAT));
    const Tensor& dyt = ctx->input(0);
    const Tensor& xt = ctx->input(1);
    if (xt.rank() != rank_ || dyt.shape() != xt.shape()) {
      ctx->SetStatus(InvalidArgument("FusedBatchNormGradV3: x and y_backprop must be ", rank_, "-dimensional and of ",
                                     "equal shape, got ", xt.shape().ToString(), " and ", dyt.shape().ToString()));
      return;
    }
    const int cdim = channels_first_ ? 1 : rank_ - 1;
    const int64_t ch = xt.dim(cdim);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < cdim; ++d) outer *= xt.dim(d);
    for (int d = cdim + 1; d < rank_; ++d) inner *= xt.dim(d);
    static const char* kNames[] = {"", "", "scale", "reserve_space_1", "reserve_space_2"};
    for (int i = 2; i < 5; ++i) {
      const Tensor& v = ctx->input(i);
      if (v.rank() != 1 || v.dim(0) != ch) {
        ctx->SetStatus(InvalidArgument("FusedBatchNormGradV3: ", kNames[i], " must be a vector of ", ch,
                                       " elements (the channel count of x ", xt.shape().ToString(), "), got shape ",
                                       v.shape().ToString()));
        return;
      }
    }
    Tensor* outs[5];
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, xt.shape(), &outs[0]));
    for (int i = 1; i < 3; ++i) TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(i, TensorShape({ch}), &outs[i]));
    for (int i = 3; i < 5; ++i) TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(i, TensorShape({0}), &outs[i]));
    const float* dy = dyt.data<float>();
    const float* x = xt.data<float>();
    const float* scale = ctx->input(2).data<float>();
    const float* mean = ctx->input(3).data<float>();
    const float* var = ctx->input(4).data<float>();
    // sums[c] = sum(dy), sums[ch + c] = sum(dy * xc).
    std::vector<double> sums(2 * ch);
    BlockedSums<double>(ctx->intra_op_pool(), outer, 2 * ch * inner, 2 * ch, sums.data(),
                        [&](int64_t b, int64_t e, double* acc) { ChannelSums(dy, x, mean, ch, inner, b, e, acc); });
    const int64_t count = outer * inner;
    std::vector<float> a(ch), bias(ch), d(ch);  // x_backprop = a * dy + bias + d * xc
    float* scale_bp = outs[1]->data<float>();
    float* offset_bp = outs[2]->data<float>();
    for (int64_t c = 0; c < ch; ++c) {
      const double inv = 1.0 / std::sqrt(static_cast<double>(var[c]) + epsilon_);
      const double k = scale[c] * inv;
      offset_bp[c] = static_cast<float>(sums[c]);
      scale_bp[c] = static_cast<float>(sums[ch + c] * inv);
      a[c] = static_cast<float>(k);
      bias[c] = training_ && count > 0 ? static_cast<float>(-k * sums[c] / count) : 0.0f;
      d[c] = training_ && count > 0 ? static_cast<float>(-k * inv * inv * sums[ch + c] / count) : 0.0f;
    }
    float* dx = outs[0]->data<float>();
    ParallelItems(ctx->intra_op_pool(), outer, ch * inner * 3, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        const int64_t base = o * ch * inner;
        if (inner == 1) {  // channels last
          for (int64_t c = 0; c < ch; ++c)
            dx[base + c] = a[c] * dy[base + c] + bias[c] + d[c] * (x[base + c] - mean[c]);
          continue;
        }
        for (int64_t c = 0; c < ch; ++c) {
          const float ac = a[c], bc = bias[c], dc = d[c], mc = mean[c];
          const int64_t off = base + c * inner;
          for (int64_t i = 0; i < inner; ++i) dx[off + i] = ac * dy[off + i] + bc + dc * (x[off + i] - mc);
        }
      }
    });
  }

 private:
  // acc[c] += sum(dy), acc[ch + c] += sum(dy * (x - mean[c])) over the outer rows [b, e).
  static void ChannelSums(const float* dy, const float* x, const float* mean, int64_t ch, int64_t inner, int64_t b,
                          int64_t e, double* acc) {
    double* sdy = acc;
    double* sdx = acc + ch;
    for (int64_t o = b; o < e; ++o) {
      const int64_t base = o * ch * inner;
      if (inner == 1) {
        for (int64_t c = 0; c < ch; ++c) {
          const double g = dy[base + c];
          sdy[c] += g;
          sdx[c] += g * (x[base + c] - mean[c]);
        }
        continue;
      }
      for (int64_t c = 0; c < ch; ++c) {
        const int64_t off = base + c * inner;
        const float mc = mean[c];
        double s0 = 0, s1 = 0;
        for (int64_t i = 0; i < inner; ++i) {
          s0 += dy[off + i];
          s1 += static_cast<double>(dy[off + i]) * (x[off + i] - mc);
        }
        sdy[c] += s0;
        sdx[c] += s1;
      }
    }
  }

  float epsilon_ = 1e-4f;
  bool training_ = true, channels_first_ = false;
  int rank_ = 4;
};

TX_REGISTER_KERNEL(KernelDefBuilder("FusedBatchNormGradV3").TypeConstraint<float>("T").TypeConstraint<float>("U"),
                   FusedBatchNormGradOp);

// --- half and bfloat16: the float32 kernel on widened inputs, outputs rounded once
// (Note [Widened kernels]) ---
TX_REGISTER_WIDENED("FusedBatchNormGradV3", "T");

}  // namespace
}  // namespace cpu
}  // namespace tx

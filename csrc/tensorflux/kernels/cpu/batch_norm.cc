// CPU kernel for FusedBatchNormV3 (float) in NHWC/NDHWC (channels last) and NCHW/NCDHW layouts.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tensorflux/ops/conv_window.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/widened_kernel.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Training: normalizes with the batch statistics; batch_mean/batch_variance are the running
// averages (1 - f) * input + f * batch statistic, with the Bessel-corrected variance n / (n - 1);
// reserve spaces 1 and 2 hold the batch mean and biased variance, reserve space 3 is empty.
// Inference: normalizes with the mean/variance inputs and passes them through.
class FusedBatchNormOp : public OpKernel {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string format;
    c->SetStatus(c->GetAttr("epsilon", &epsilon_));
    c->SetStatus(c->GetAttr("exponential_avg_factor", &factor_));
    c->SetStatus(c->GetAttr("is_training", &training_));
    c->SetStatus(c->GetAttr("data_format", &format));
    DataFormat f;
    if (c->status().ok()) c->SetStatus(ParseDataFormat("FusedBatchNormV3", format, &f));
    channels_first_ = f.channels_first;
    rank_ = f.rank();
  }

  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < 5; ++i) TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, DT_FLOAT));
    const Tensor& xt = ctx->input(0);
    if (xt.rank() != rank_) {
      ctx->SetStatus(InvalidArgument("input must be ", rank_, "-dimensional, got shape ", xt.shape().ToString()));
      return;
    }
    const int cdim = channels_first_ ? 1 : rank_ - 1;
    const int64_t ch = xt.dim(cdim);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < cdim; ++d) outer *= xt.dim(d);
    for (int d = cdim + 1; d < rank_; ++d) inner *= xt.dim(d);
    const bool use_running = !training_ || factor_ != 1.0f;
    static const char* kNames[] = {"", "scale", "offset", "mean", "variance"};
    for (int i = 1; i < 5; ++i) {
      const Tensor& v = ctx->input(i);
      if (v.rank() != 1 || ((i < 3 || use_running) && v.dim(0) != ch)) {
        ctx->SetStatus(InvalidArgument(kNames[i], " must be a vector of ", ch, " elements (the channel count), got ",
                                       "shape ", v.shape().ToString()));
        return;
      }
    }
    Tensor* outs[6];
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, xt.shape(), &outs[0]));
    for (int i = 1; i < 5; ++i) TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(i, TensorShape({ch}), &outs[i]));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(5, TensorShape({0}), &outs[5]));
    const float* x = xt.data<float>();
    const float* scale = ctx->input(1).data<float>();
    const float* offset = ctx->input(2).data<float>();
    const float* in_mean = ctx->input(3).data<float>();
    const float* in_var = ctx->input(4).data<float>();
    const int64_t count = outer * inner;
    std::vector<double> mean(ch, 0.0), var(ch, 0.0);
    if (training_) {
      // Two passes in double: per-channel mean, then the centered sum of squares.
      ChannelSums(x, ch, outer, inner, nullptr, &mean);
      for (int64_t c = 0; c < ch; ++c) mean[c] = count > 0 ? mean[c] / count : 0.0;
      ChannelSums(x, ch, outer, inner, &mean, &var);
      for (int64_t c = 0; c < ch; ++c) var[c] = count > 0 ? var[c] / count : 0.0;
    } else {
      for (int64_t c = 0; c < ch; ++c) {
        mean[c] = in_mean[c];
        var[c] = in_var[c];
      }
    }
    std::vector<float> mul(ch), add(ch);
    for (int64_t c = 0; c < ch; ++c) {
      mul[c] = static_cast<float>(scale[c] / std::sqrt(var[c] + epsilon_));
      add[c] = static_cast<float>(offset[c] - mean[c] * mul[c]);
    }
    float* y = outs[0]->data<float>();
    ParallelItems(ctx->intra_op_pool(), outer, ch * inner * 2, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        const float* xp = x + o * ch * inner;
        float* yp = y + o * ch * inner;
        if (inner == 1) {
          for (int64_t c = 0; c < ch; ++c) yp[c] = xp[c] * mul[c] + add[c];
        } else {
          for (int64_t c = 0; c < ch; ++c)
            for (int64_t i = 0; i < inner; ++i) yp[c * inner + i] = xp[c * inner + i] * mul[c] + add[c];
        }
      }
    });
    float* bm = outs[1]->data<float>();
    float* bv = outs[2]->data<float>();
    float* r1 = outs[3]->data<float>();
    float* r2 = outs[4]->data<float>();
    const double adjust = count > 1 ? static_cast<double>(count) / (count - 1) : 1.0;
    for (int64_t c = 0; c < ch; ++c) {
      if (training_) {
        const double unbiased = var[c] * adjust;
        bm[c] = factor_ == 1.0f ? static_cast<float>(mean[c])
                                : static_cast<float>((1.0 - factor_) * in_mean[c] + factor_ * mean[c]);
        bv[c] = factor_ == 1.0f ? static_cast<float>(unbiased)
                                : static_cast<float>((1.0 - factor_) * in_var[c] + factor_ * unbiased);
      } else {
        bm[c] = in_mean[c];
        bv[c] = in_var[c];
      }
      r1[c] = static_cast<float>(mean[c]);
      r2[c] = static_cast<float>(var[c]);
    }
  }

 private:
  // sums[c] += x (center == nullptr) or (x - center[c])^2 over every element of channel c.
  static void ChannelSums(const float* x, int64_t ch, int64_t outer, int64_t inner, const std::vector<double>* center,
                          std::vector<double>* sums) {
    std::vector<double>& out = *sums;
    for (int64_t o = 0; o < outer; ++o) {
      if (inner == 1) {  // channels last: one contiguous row of channels, vectorized over c
        const float* row = x + o * ch;
        if (center == nullptr) {
          for (int64_t c = 0; c < ch; ++c) out[c] += row[c];
        } else {
          const double* m = center->data();
          for (int64_t c = 0; c < ch; ++c) out[c] += (row[c] - m[c]) * (row[c] - m[c]);
        }
        continue;
      }
      for (int64_t c = 0; c < ch; ++c) {
        const float* p = x + (o * ch + c) * inner;
        const double m = center == nullptr ? 0.0 : (*center)[c];
        double acc = 0;
        for (int64_t i = 0; i < inner; ++i) acc += center == nullptr ? p[i] : (p[i] - m) * (p[i] - m);
        out[c] += acc;
      }
    }
  }

  float epsilon_ = 1e-4f, factor_ = 1.0f;
  bool training_ = true, channels_first_ = false;
  int rank_ = 4;
};

TX_REGISTER_KERNEL(KernelDefBuilder("FusedBatchNormV3").TypeConstraint<float>("T").TypeConstraint<float>("U"),
                   FusedBatchNormOp);

// --- half and bfloat16: the float32 kernel on widened inputs, outputs rounded once
// (Note [Widened kernels]) ---
TX_REGISTER_WIDENED("FusedBatchNormV3", "T");

}  // namespace
}  // namespace cpu
}  // namespace tx

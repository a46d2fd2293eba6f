// CPU kernel for Multinomial: class indices drawn from softmax(logits) per batch row.
#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/philox.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Sample s of row b uses block b * num_samples + s: a 52-bit uniform u, then the first class whose
// cumulative (unnormalized, double) probability exceeds u * total. Non-finite logits
// (-inf, and also +inf and NaN) get probability 0; a row with none finite is an error.
template <typename T, typename OutT>
class MultinomialOp : public OpKernel {
 public:
  explicit MultinomialOp(OpKernelConstruction* c) : OpKernel(c) {
    int64_t seed = 0, seed2 = 0;
    c->SetStatus(c->GetAttr("seed", &seed));
    c->SetStatus(c->GetAttr("seed2", &seed2));
    state_ = std::make_unique<PhiloxState>(seed, seed2);
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DT_INT32));
    const Tensor& logits = ctx->input(0);
    if (logits.rank() != 2) {
      ctx->SetStatus(InvalidArgument("logits should be a matrix, got shape ", logits.shape().ToString()));
      return;
    }
    if (ctx->input(1).rank() != 0) {
      ctx->SetStatus(InvalidArgument("num_samples should be a scalar, got shape ", ctx->input(1).shape().ToString()));
      return;
    }
    const int64_t batch = logits.dim(0), classes = logits.dim(1);
    const int64_t samples = ctx->input(1).data<int32_t>()[0];
    if (samples < 0) {
      ctx->SetStatus(InvalidArgument("num_samples should be nonnegative, got ", samples));
      return;
    }
    if (batch > 0 && samples > 0 && classes == 0) {
      ctx->SetStatus(InvalidArgument("num_classes should be positive, got 0"));
      return;
    }
    if constexpr (sizeof(OutT) == 4) {
      if (classes > INT32_MAX) {
        ctx->SetStatus(InvalidArgument("num_classes ", classes, " does not fit output_dtype int32"));
        return;
      }
    }
    int64_t total_samples = 0;
    if (__builtin_mul_overflow(batch, samples, &total_samples) || total_samples > kMaxRandomElements) {
      ctx->SetStatus(ResourceExhausted("Multinomial output [", batch, ", ", samples, "] is too large"));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({batch, samples}), &out));
    if (total_samples == 0) return;
    const PhiloxCounter base = state_->Reserve(static_cast<uint64_t>(total_samples));
    const PhiloxKey key = state_->key();
    const T* x = logits.data<T>();
    OutT* y = out->data<OutT>();
    std::mutex mu;
    int64_t bad_row = -1;
    ParallelItems(ctx->intra_op_pool(), batch, classes * 20 + samples * 40, [&](int64_t b, int64_t e) {
      std::vector<double> cdf(classes);
      for (int64_t r = b; r < e; ++r) {
        const T* row = x + r * classes;
        double mx = -INFINITY;
        for (int64_t k = 0; k < classes; ++k)
          if (std::isfinite(static_cast<double>(row[k]))) mx = std::max(mx, static_cast<double>(row[k]));
        double acc = 0;
        for (int64_t k = 0; k < classes; ++k) {
          const double v = static_cast<double>(row[k]);
          acc += std::isfinite(v) ? std::exp(v - mx) : 0.0;
          cdf[k] = acc;
        }
        if (!(acc > 0) || !std::isfinite(acc)) {
          std::lock_guard<std::mutex> l(mu);
          if (bad_row < 0 || r < bad_row) bad_row = r;
          continue;
        }
        for (int64_t s = 0; s < samples; ++s) {
          const uint64_t idx = static_cast<uint64_t>(r * samples + s);
          const PhiloxBlock w = Philox4x32(PhiloxAdd(base, idx), key);
          const double target = Uint64ToDouble(w[0], w[1]) * acc;
          int64_t k = std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin();
          if (k >= classes) k = classes - 1;
          while (k > 0 && !std::isfinite(static_cast<double>(row[k]))) --k;  // never pick a zero-probability class
          y[r * samples + s] = static_cast<OutT>(k);
        }
      }
    });
    if (bad_row >= 0) ctx->SetStatus(InvalidArgument("logits row ", bad_row, " has no finite entries to sample from"));
  }

 private:
  std::unique_ptr<PhiloxState> state_;
};

#define TX_MULTINOMIAL(T, OutT)                                                                                   \
  TX_REGISTER_KERNEL(KernelDefBuilder("Multinomial").TypeConstraint<T>("T").TypeConstraint<OutT>("output_dtype"), \
                     MultinomialOp<T, OutT>)
TX_MULTINOMIAL(float, int32_t);
TX_MULTINOMIAL(float, int64_t);
TX_MULTINOMIAL(double, int32_t);
TX_MULTINOMIAL(double, int64_t);
#undef TX_MULTINOMIAL

}  // namespace
}  // namespace cpu
}  // namespace tx

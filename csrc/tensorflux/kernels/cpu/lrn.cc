// CPU kernels for LRN (local response normalization over the depth axis of a 4-D input) and
// its gradient LRNGrad, float32 as TensorFlow's (no float64 kernels exist there either).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// The attrs LRN and LRNGrad share, read and checked once per kernel.
struct LrnParams {
  int64_t radius = 5;
  float bias = 1, alpha = 1, beta = 0.5f;

  Status Read(OpKernelConstruction* c, const char* op) {
    TX_RETURN_IF_ERROR(c->GetAttr("depth_radius", &radius));
    TX_RETURN_IF_ERROR(c->GetAttr("bias", &bias));
    TX_RETURN_IF_ERROR(c->GetAttr("alpha", &alpha));
    TX_RETURN_IF_ERROR(c->GetAttr("beta", &beta));
    if (radius < 0 || radius > (int64_t{1} << 31) - 1)
      return InvalidArgument(op, ": depth_radius = ", radius, " must be in [0, 2^31)");
    return Status::OK();
  }

  // norm[j] = bias + alpha * sum of x[k]^2 for |k - j| <= radius, over one row of `depth`.
  void Norms(const float* x, int64_t depth, double* norm) const {
    std::vector<double> prefix(depth + 1, 0.0);
    for (int64_t k = 0; k < depth; ++k) prefix[k + 1] = prefix[k] + static_cast<double>(x[k]) * x[k];
    for (int64_t j = 0; j < depth; ++j) {
      const int64_t lo = std::max<int64_t>(0, j - radius), hi = std::min<int64_t>(depth, j + radius + 1);
      norm[j] = bias + alpha * (prefix[hi] - prefix[lo]);
    }
  }
};

Status CheckRank4(const Tensor& t, const char* op, const char* what) {
  if (t.rank() != 4) return InvalidArgument(op, ": ", what, " must be 4-dimensional, got shape ", t.shape().ToString());
  return Status::OK();
}

// output = input / norm^beta, normalized along the last axis.
class LrnOp : public OpKernel {
 public:
  explicit LrnOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(p_.Read(c, "LRN")); }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_FLOAT));
    const Tensor& in = ctx->input(0);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckRank4(in, "LRN", "input"));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int64_t depth = in.dim(3);
    if (depth == 0) return;
    const int64_t rows = in.num_elements() / depth;
    const float* x = in.data<float>();
    float* y = out->data<float>();
    ParallelItems(ctx->intra_op_pool(), rows, depth * 8, [&](int64_t b, int64_t e) {
      std::vector<double> norm(depth);
      for (int64_t r = b; r < e; ++r) {
        p_.Norms(x + r * depth, depth, norm.data());
        for (int64_t j = 0; j < depth; ++j)
          y[r * depth + j] = static_cast<float>(x[r * depth + j] * std::pow(norm[j], -static_cast<double>(p_.beta)));
      }
    });
  }

 private:
  LrnParams p_;
};

// output[k] = sum over j within radius of k of dy[j] * (delta_jk * norm[j]^-beta
//             - 2 * alpha * beta * x[k] * y[j] / norm[j]), as TensorFlow computes it.
class LrnGradOp : public OpKernel {
 public:
  explicit LrnGradOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(p_.Read(c, "LRNGrad")); }

  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < 3; ++i) TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, DT_FLOAT));
    const Tensor& dy_t = ctx->input(0);
    const Tensor& x_t = ctx->input(1);
    const Tensor& y_t = ctx->input(2);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckRank4(dy_t, "LRNGrad", "input_grads"));
    if (!(x_t.shape() == dy_t.shape()) || !(y_t.shape() == dy_t.shape())) {
      ctx->SetStatus(
          InvalidArgument("LRNGrad: input_grads, input_image and output_image must have the same shape, got ",
                          dy_t.shape().ToString(), ", ", x_t.shape().ToString(), ", ", y_t.shape().ToString()));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, x_t.shape(), &out));
    const int64_t depth = x_t.dim(3);
    if (depth == 0) return;
    const int64_t rows = x_t.num_elements() / depth;
    const float *dy = dy_t.data<float>(), *x = x_t.data<float>(), *y = y_t.data<float>();
    float* dx = out->data<float>();
    const double ab2 = -2.0 * p_.alpha * p_.beta;
    ParallelItems(ctx->intra_op_pool(), rows, depth * (2 * p_.radius + 4), [&](int64_t b, int64_t e) {
      std::vector<double> norm(depth), acc(depth);
      for (int64_t r = b; r < e; ++r) {
        const int64_t o = r * depth;
        p_.Norms(x + o, depth, norm.data());
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int64_t j = 0; j < depth; ++j) {
          const double g = dy[o + j];
          const double coef = ab2 * y[o + j] / norm[j] * g;
          const int64_t lo = std::max<int64_t>(0, j - p_.radius), hi = std::min<int64_t>(depth, j + p_.radius + 1);
          for (int64_t k = lo; k < hi; ++k) acc[k] += coef * x[o + k];
          acc[j] += g * std::pow(norm[j], -static_cast<double>(p_.beta));
        }
        for (int64_t k = 0; k < depth; ++k) dx[o + k] = static_cast<float>(acc[k]);
      }
    });
  }

 private:
  LrnParams p_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("LRN").TypeConstraint<float>("T"), LrnOp);
TX_REGISTER_KERNEL(KernelDefBuilder("LRNGrad").TypeConstraint<float>("T"), LrnGradOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernels for MaxPool3D, AvgPool3D and their gradients MaxPool3DGrad and AvgPool3DGrad
// (NDHWC or NCDHW, SAME or VALID; padded positions never count).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/window3d_kernel.h"
#include "tensorflux/ops/array_util.h"

namespace tx {
namespace cpu {
namespace {

// Resolves pooling geometry for input dims `x_dims` (5-D, non-negative).
Status Setup(const char* op, const Window3dAttrs& a, const std::vector<int64_t>& x_dims, window3d::Geometry* g) {
  if (x_dims.size() != 5) return InvalidArgument(op, ": input must be 5-dimensional, got rank ", x_dims.size());
  for (int64_t d : x_dims)
    if (d < 0) return InvalidArgument(op, ": input sizes must be non-negative");
  const window3d::Layout& l = a.layout;
  const int64_t in[3] = {x_dims[l.sp[0]], x_dims[l.sp[1]], x_dims[l.sp[2]]};
  const int64_t k[3] = {a.ksize[l.sp[0]], a.ksize[l.sp[1]], a.ksize[l.sp[2]]};
  return window3d::Resolve(op, in, k, a.strides, {1, 1, 1, 1, 1}, a.padding, a.layout, g);
}

// Calls fn(y_offset, x_offsets) for each output position of the (n, c) planes in [b, e) of
// N * C, with the input offsets of the window's in-range positions.
template <typename F>
void ForWindows(const window3d::Geometry& g, const Strides5& xs, const Strides5& ys, int64_t channels, int64_t b,
                int64_t e, const F& fn) {
  std::vector<int64_t> offs;
  for (int64_t nc = b; nc < e; ++nc) {
    const int64_t n = nc / channels, c = nc % channels;
    int64_t o[3];
    for (o[0] = 0; o[0] < g.out[0]; ++o[0])
      for (o[1] = 0; o[1] < g.out[1]; ++o[1])
        for (o[2] = 0; o[2] < g.out[2]; ++o[2]) {
          offs.clear();
          for (int64_t kd = 0; kd < g.k[0]; ++kd) {
            const int64_t id = InputPos(g, 0, o[0], kd);
            if (id < 0) continue;
            for (int64_t kh = 0; kh < g.k[1]; ++kh) {
              const int64_t ih = InputPos(g, 1, o[1], kh);
              if (ih < 0) continue;
              for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                const int64_t iw = InputPos(g, 2, o[2], kw);
                if (iw >= 0) offs.push_back(n * xs.n + c * xs.c + id * xs.sp[0] + ih * xs.sp[1] + iw * xs.sp[2]);
              }
            }
          }
          fn(n * ys.n + c * ys.c + o[0] * ys.sp[0] + o[1] * ys.sp[1] + o[2] * ys.sp[2], offs);
        }
  }
}

// MaxPool3D (kMax) and AvgPool3D.
template <typename T, bool kMax>
class Pool3DOp : public OpKernel {
 public:
  explicit Pool3DOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(a_.Read(c, kOp, false)); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckRank5(x, kOp, "input"));
    window3d::Geometry g;
    TX_CTX_RETURN_IF_ERROR(ctx, Setup(kOp, a_, x.shape().dims(), &g));
    const int64_t batch = x.dim(a_.layout.n), channels = x.dim(a_.layout.c);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(
        ctx, ctx->allocate_output(0, TensorShape(window3d::Dims(a_.layout, batch, g.out, channels)), &out));
    if (out->num_elements() == 0) return;
    const Strides5 xs(x.shape().dims(), a_.layout), ys(out->shape().dims(), a_.layout);
    const T* xp = x.data<T>();
    T* yp = out->data<T>();
    ParallelItems(ctx->intra_op_pool(), batch * channels, out->num_elements() / (batch * channels) * 8,
                  [&](int64_t b, int64_t e) {
                    ForWindows(g, xs, ys, channels, b, e, [&](int64_t yo, const std::vector<int64_t>& offs) {
                      if (kMax) {
                        T m = -std::numeric_limits<T>::infinity();
                        for (int64_t xo : offs) m = xp[xo] > m || xp[xo] != xp[xo] ? xp[xo] : m;
                        yp[yo] = m;
                      } else {
                        T s = 0;
                        for (int64_t xo : offs) s += xp[xo];
                        yp[yo] = s / static_cast<T>(offs.size());
                      }
                    });
                  });
  }

 private:
  static constexpr const char* kOp = kMax ? "MaxPool3D" : "AvgPool3D";
  Window3dAttrs a_;
};

// MaxPool3DGrad(orig_input, orig_output, grad): each window's gradient goes to the positions
// whose input equals the window's output (every tied one, as TensorFlow's CPU kernel).
template <typename T>
class MaxPool3DGradOp : public OpKernel {
 public:
  explicit MaxPool3DGradOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(a_.Read(c, kOp, false)); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckRank5(x, kOp, "orig_input"));
    window3d::Geometry g;
    TX_CTX_RETURN_IF_ERROR(ctx, Setup(kOp, a_, x.shape().dims(), &g));
    const int64_t batch = x.dim(a_.layout.n), channels = x.dim(a_.layout.c);
    const TensorShape out_shape(window3d::Dims(a_.layout, batch, g.out, channels));
    if (!(y.shape() == out_shape) || !(dy.shape() == out_shape)) {
      ctx->SetStatus(InvalidArgument(kOp, ": orig_output and grad must have the pooled shape ", out_shape.ToString(),
                                     ", got ", y.shape().ToString(), " and ", dy.shape().ToString()));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, x.shape(), &out));
    T* dx = out->data<T>();
    std::fill(dx, dx + out->num_elements(), T(0));
    if (dy.num_elements() == 0) return;
    const Strides5 xs(x.shape().dims(), a_.layout), ys(out_shape.dims(), a_.layout);
    const T *xp = x.data<T>(), *yp = y.data<T>(), *dyp = dy.data<T>();
    // Each (n, c) plane writes its own part of dx.
    ParallelItems(ctx->intra_op_pool(), batch * channels, dy.num_elements() / (batch * channels) * 8,
                  [&](int64_t b, int64_t e) {
                    ForWindows(g, xs, ys, channels, b, e, [&](int64_t yo, const std::vector<int64_t>& offs) {
                      for (int64_t xo : offs)
                        if (xp[xo] == yp[yo]) dx[xo] += dyp[yo];
                    });
                  });
  }

 private:
  static constexpr const char* kOp = "MaxPool3DGrad";
  Window3dAttrs a_;
};

// AvgPool3DGrad(orig_input_shape, grad): each window's gradient spread evenly over its
// in-range positions.
template <typename T>
class AvgPool3DGradOp : public OpKernel {
 public:
  explicit AvgPool3DGradOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(a_.Read(c, kOp, false)); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    const Tensor& dy = ctx->input(1);
    if (shape_t.rank() != 1 || shape_t.num_elements() != 5) {
      ctx->SetStatus(InvalidArgument(kOp, ": orig_input_shape must be a vector of 5 elements, got shape ",
                                     shape_t.shape().ToString()));
      return;
    }
    std::vector<int64_t> x_dims;
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::ReadInts(shape_t, "orig_input_shape", &x_dims));
    window3d::Geometry g;
    TX_CTX_RETURN_IF_ERROR(ctx, Setup(kOp, a_, x_dims, &g));
    const int64_t batch = x_dims[a_.layout.n], channels = x_dims[a_.layout.c];
    const TensorShape out_shape(window3d::Dims(a_.layout, batch, g.out, channels));
    if (!(dy.shape() == out_shape)) {
      ctx->SetStatus(InvalidArgument(kOp, ": grad must have the pooled shape ", out_shape.ToString(), ", got ",
                                     dy.shape().ToString()));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(x_dims), &out));
    T* dx = out->data<T>();
    std::fill(dx, dx + out->num_elements(), T(0));
    if (dy.num_elements() == 0) return;
    const Strides5 xs(x_dims, a_.layout), ys(out_shape.dims(), a_.layout);
    const T* dyp = dy.data<T>();
    ParallelItems(ctx->intra_op_pool(), batch * channels, dy.num_elements() / (batch * channels) * 8,
                  [&](int64_t b, int64_t e) {
                    ForWindows(g, xs, ys, channels, b, e, [&](int64_t yo, const std::vector<int64_t>& offs) {
                      const T v = dyp[yo] / static_cast<T>(offs.size());
                      for (int64_t xo : offs) dx[xo] += v;
                    });
                  });
  }

 private:
  static constexpr const char* kOp = "AvgPool3DGrad";
  Window3dAttrs a_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("MaxPool3D").TypeConstraint<float>("T"), Pool3DOp<float, true>);
TX_REGISTER_KERNEL(KernelDefBuilder("MaxPool3DGrad").TypeConstraint<float>("T").TypeConstraint<float>("TInput"),
                   MaxPool3DGradOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("AvgPool3D").TypeConstraint<float>("T"), Pool3DOp<float, false>);
TX_REGISTER_KERNEL(KernelDefBuilder("AvgPool3D").TypeConstraint<double>("T"), Pool3DOp<double, false>);
TX_REGISTER_KERNEL(KernelDefBuilder("AvgPool3DGrad").TypeConstraint<float>("T"), AvgPool3DGradOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("AvgPool3DGrad").TypeConstraint<double>("T"), AvgPool3DGradOp<double>);

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernels for Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2: direct loops over
// the filter taps (NDHWC or NCDHW, any strides and dilations, SAME or VALID padding).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/widened_kernel.h"
#include "tensorflux/kernels/cpu/window3d_kernel.h"
#include "tensorflux/ops/array_util.h"

namespace tx {
namespace cpu {
namespace {

// Calls fn(x_offset, tap) for every in-range filter tap of output position (od, oh, ow) of
// batch n, where tap = (kd * KH + kh) * KW + kw and x_offset points at channel 0.
template <typename F>
void ForEachTap(const window3d::Geometry& g, const Strides5& xs, int64_t n, const int64_t o[3], const F& fn) {
  for (int64_t kd = 0; kd < g.k[0]; ++kd) {
    const int64_t id = InputPos(g, 0, o[0], kd);
    if (id < 0) continue;
    for (int64_t kh = 0; kh < g.k[1]; ++kh) {
      const int64_t ih = InputPos(g, 1, o[1], kh);
      if (ih < 0) continue;
      for (int64_t kw = 0; kw < g.k[2]; ++kw) {
        const int64_t iw = InputPos(g, 2, o[2], kw);
        if (iw < 0) continue;
        fn(n * xs.n + id * xs.sp[0] + ih * xs.sp[1] + iw * xs.sp[2], (kd * g.k[1] + kh) * g.k[2] + kw);
      }
    }
  }
}

// Checks filter [KD, KH, KW, C, O] against input depth `c` and resolves the geometry.
Status Setup(const char* op, const Window3dAttrs& a, const std::vector<int64_t>& x_dims,
             const std::vector<int64_t>& w_dims, window3d::Geometry* g) {
  if (x_dims.size() != 5 || w_dims.size() != 5)
    return InvalidArgument(op, ": input and filter must be 5-dimensional, got ranks ", x_dims.size(), " and ",
                           w_dims.size());
  for (int64_t d : x_dims)
    if (d < 0) return InvalidArgument(op, ": input sizes must be non-negative");
  for (int64_t d : w_dims)
    if (d < 0) return InvalidArgument(op, ": filter sizes must be non-negative");
  if (x_dims[a.layout.c] != w_dims[3])
    return InvalidArgument(op, ": input depth ", x_dims[a.layout.c], " must equal the filter's in_depth ", w_dims[3]);
  const int64_t in[3] = {x_dims[a.layout.sp[0]], x_dims[a.layout.sp[1]], x_dims[a.layout.sp[2]]};
  const int64_t k[3] = {w_dims[0], w_dims[1], w_dims[2]};
  return window3d::Resolve(op, in, k, a.strides, a.dilations, a.padding, a.layout, g);
}

std::vector<int64_t> OutDims(const Window3dAttrs& a, const window3d::Geometry& g, int64_t n, int64_t o) {
  return window3d::Dims(a.layout, n, g.out, o);
}

// Iterates output positions of rows [b, e) of N * OD: fn(n, o[3]).
template <typename F>
void ForOutputs(const window3d::Geometry& g, int64_t b, int64_t e, const F& fn) {
  for (int64_t r = b; r < e; ++r) {
    int64_t o[3] = {r % g.out[0], 0, 0};
    const int64_t n = r / g.out[0];
    for (o[1] = 0; o[1] < g.out[1]; ++o[1])
      for (o[2] = 0; o[2] < g.out[2]; ++o[2]) fn(n, o);
  }
}

int64_t YOffset(const Strides5& ys, int64_t n, const int64_t o[3]) {
  return n * ys.n + o[0] * ys.sp[0] + o[1] * ys.sp[1] + o[2] * ys.sp[2];
}

template <typename T>
class Conv3DOp : public OpKernel {
 public:
  explicit Conv3DOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(a_.Read(c, "Conv3D", true)); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& w = ctx->input(1);
    window3d::Geometry g;
    TX_CTX_RETURN_IF_ERROR(ctx, Setup("Conv3D", a_, x.shape().dims(), w.shape().dims(), &g));
    const int64_t batch = x.dim(a_.layout.n), cin = w.dim(3), cout = w.dim(4);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(OutDims(a_, g, batch, cout)), &out));
    if (out->num_elements() == 0) return;
    const Strides5 xs(x.shape().dims(), a_.layout), ys(out->shape().dims(), a_.layout);
    const T* xp = x.data<T>();
    const T* wp = w.data<T>();
    T* yp = out->data<T>();
    const int64_t taps = g.k[0] * g.k[1] * g.k[2];
    ParallelItems(ctx->intra_op_pool(), batch * g.out[0], g.out[1] * g.out[2] * taps * cin * cout,
                  [&](int64_t b, int64_t e) {
                    std::vector<T> acc(cout);
                    ForOutputs(g, b, e, [&](int64_t n, const int64_t o[3]) {
                      std::fill(acc.begin(), acc.end(), T(0));
                      ForEachTap(g, xs, n, o, [&](int64_t xo, int64_t tap) {
                        const T* wt = wp + tap * cin * cout;
                        for (int64_t c = 0; c < cin; ++c) {
                          const T v = xp[xo + c * xs.c];
                          const T* wr = wt + c * cout;
                          for (int64_t oc = 0; oc < cout; ++oc) acc[oc] += v * wr[oc];
                        }
                      });
                      const int64_t yo = YOffset(ys, n, o);
                      for (int64_t oc = 0; oc < cout; ++oc) yp[yo + oc * ys.c] = acc[oc];
                    });
                  });
  }

 private:
  Window3dAttrs a_;
};

// Reads a 5-element size vector input and checks it is non-negative.
Status ReadSizes(const Tensor& t, const char* op, const char* what, std::vector<int64_t>* out) {
  if (t.rank() != 1 || t.num_elements() != 5)
    return InvalidArgument(op, ": ", what, " must be a vector of 5 elements, got shape ", t.shape().ToString());
  TX_RETURN_IF_ERROR(array_util::ReadInts(t, what, out));
  for (int64_t d : *out)
    if (d < 0) return InvalidArgument(op, ": ", what, " must be non-negative, got ", d);
  return Status::OK();
}

Status CheckBackprop(const char* op, const Tensor& dy, const std::vector<int64_t>& expect) {
  if (dy.shape().dims() != expect)
    return InvalidArgument(op, ": out_backprop has shape ", dy.shape().ToString(),
                           " but the convolution's output has shape ", TensorShape(expect).ToString());
  return Status::OK();
}

template <typename T>
class Conv3DBackpropInputOp : public OpKernel {
 public:
  explicit Conv3DBackpropInputOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(a_.Read(c, kOp, true)); }

  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> x_dims;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadSizes(ctx->input(0), kOp, "input_sizes", &x_dims));
    const Tensor& w = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    window3d::Geometry g;
    TX_CTX_RETURN_IF_ERROR(ctx, Setup(kOp, a_, x_dims, w.shape().dims(), &g));
    const int64_t batch = x_dims[a_.layout.n], cin = w.dim(3), cout = w.dim(4);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckBackprop(kOp, dy, OutDims(a_, g, batch, cout)));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(x_dims), &out));
    T* dx = out->data<T>();
    std::fill(dx, dx + out->num_elements(), T(0));
    if (dy.num_elements() == 0) return;
    const Strides5 xs(x_dims, a_.layout), ys(dy.shape().dims(), a_.layout);
    const T* wp = w.data<T>();
    const T* dyp = dy.data<T>();
    // Batches write disjoint parts of dx.
    ParallelItems(ctx->intra_op_pool(), batch, dy.num_elements() / std::max<int64_t>(batch, 1) * cin * 8,
                  [&](int64_t b, int64_t e) {
                    ForOutputs(g, b * g.out[0], e * g.out[0], [&](int64_t n, const int64_t o[3]) {
                      const int64_t yo = YOffset(ys, n, o);
                      ForEachTap(g, xs, n, o, [&](int64_t xo, int64_t tap) {
                        const T* wt = wp + tap * cin * cout;
                        for (int64_t c = 0; c < cin; ++c) {
                          T s = 0;
                          const T* wr = wt + c * cout;
                          for (int64_t oc = 0; oc < cout; ++oc) s += dyp[yo + oc * ys.c] * wr[oc];
                          dx[xo + c * xs.c] += s;
                        }
                      });
                    });
                  });
  }

 private:
  static constexpr const char* kOp = "Conv3DBackpropInputV2";
  Window3dAttrs a_;
};

template <typename T>
class Conv3DBackpropFilterOp : public OpKernel {
 public:
  explicit Conv3DBackpropFilterOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(a_.Read(c, kOp, true)); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> w_dims;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadSizes(ctx->input(1), kOp, "filter_sizes", &w_dims));
    const Tensor& dy = ctx->input(2);
    window3d::Geometry g;
    TX_CTX_RETURN_IF_ERROR(ctx, Setup(kOp, a_, x.shape().dims(), w_dims, &g));
    const int64_t batch = x.dim(a_.layout.n), cin = w_dims[3], cout = w_dims[4];
    TX_CTX_RETURN_IF_ERROR(ctx, CheckBackprop(kOp, dy, OutDims(a_, g, batch, cout)));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(w_dims), &out));
    T* dw = out->data<T>();
    std::fill(dw, dw + out->num_elements(), T(0));
    if (dy.num_elements() == 0) return;
    const Strides5 xs(x.shape().dims(), a_.layout), ys(dy.shape().dims(), a_.layout);
    const T* xp = x.data<T>();
    const T* dyp = dy.data<T>();
    // One pass over the outputs per block of taps; taps write disjoint slices of dw.
    const int64_t taps = g.k[0] * g.k[1] * g.k[2];
    ParallelItems(ctx->intra_op_pool(), taps, dy.num_elements() * cin * 2, [&](int64_t tb, int64_t te) {
      ForOutputs(g, 0, batch * g.out[0], [&](int64_t n, const int64_t o[3]) {
        const int64_t yo = YOffset(ys, n, o);
        ForEachTap(g, xs, n, o, [&](int64_t xo, int64_t tap) {
          if (tap < tb || tap >= te) return;
          T* wt = dw + tap * cin * cout;
          for (int64_t c = 0; c < cin; ++c) {
            const T v = xp[xo + c * xs.c];
            T* wr = wt + c * cout;
            for (int64_t oc = 0; oc < cout; ++oc) wr[oc] += v * dyp[yo + oc * ys.c];
          }
        });
      });
    });
  }

 private:
  static constexpr const char* kOp = "Conv3DBackpropFilterV2";
  Window3dAttrs a_;
};

#define TX_REGISTER_CONV3D(T)                                                                                     \
  TX_REGISTER_KERNEL(KernelDefBuilder("Conv3D").TypeConstraint<T>("T"), Conv3DOp<T>);                             \
  TX_REGISTER_KERNEL(KernelDefBuilder("Conv3DBackpropInputV2").TypeConstraint<T>("T"), Conv3DBackpropInputOp<T>); \
  TX_REGISTER_KERNEL(KernelDefBuilder("Conv3DBackpropFilterV2").TypeConstraint<T>("T"), Conv3DBackpropFilterOp<T>)
TX_REGISTER_CONV3D(float);
TX_REGISTER_CONV3D(double);
#undef TX_REGISTER_CONV3D

// --- half and bfloat16: the float32 kernel on widened inputs, outputs rounded once
// (Note [Widened kernels]) ---
TX_REGISTER_WIDENED("Conv3D", "T");
TX_REGISTER_WIDENED("Conv3DBackpropInputV2", "T");
TX_REGISTER_WIDENED("Conv3DBackpropFilterV2", "T");

}  // namespace
}  // namespace cpu
}  // namespace tx

// Shared pieces of the CPU convolution backprop kernels: the shape given by a sizes input, the
// geometry checked against out_backprop, and the im2col / col2im patch copies (NHWC).
#pragma once

#include <algorithm>
#include <cstring>
#include <string>

#include "tensorflux/kernels/cpu/conv_params.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// Reads the 1-D int32 `sizes` input (input `name` of `op`) as a 4-D shape; with `spatial_ok` a
// 2-element [H, W] is accepted too and completed to [batch, H, W, depth].
inline Status ShapeFromSizes(const char* op, const char* name, const Tensor& sizes, bool spatial_ok, int64_t batch,
                             int64_t depth, TensorShape* shape) {
  if (sizes.dtype() != DT_INT32 || sizes.rank() != 1)
    return InvalidArgument(op, ": ", name, " must be a 1-D int32 tensor, got a ", DataTypeString(sizes.dtype()),
                           " tensor of shape ", sizes.shape().ToString());
  const int64_t len = sizes.dim(0);
  if (len != 4 && !(spatial_ok && len == 2))
    return InvalidArgument(op, ": ", name, " must have 4", spatial_ok ? " (or 2)" : "", " elements, got ", len);
  if (!sizes.initialized() || sizes.buffer()->size() < sizes.byte_size())
    return InvalidArgument(op, ": ", name, " holds no data");
  const int32_t* v = sizes.data<int32_t>();
  for (int64_t i = 0; i < len; ++i)
    if (v[i] < 0) return InvalidArgument(op, ": ", name, " must be non-negative, got ", v[i], " at index ", i);
  const int32_t* hw = len == 4 ? v + 1 : v;
  const int64_t dims[4] = {len == 4 ? v[0] : batch, hw[0], hw[1], len == 4 ? v[3] : depth};
  return TensorShape::Make(dims, 4, shape).WithPrefix(std::string(op) + ": " + name + ": ");
}

// Fills `g` from the forward input and filter shapes and checks that `out_backprop` has the
// forward output's shape [N, OH, OW, M] (depthwise: [N, OH, OW, C*M]).
inline Status BackpropGeometry(const char* op, const ConvAttrs& attrs, const TensorShape& input,
                               const TensorShape& filter, const Tensor& out_backprop, bool depthwise, ConvGeometry* g) {
  const Tensor in(DT_FLOAT, input, RefPtr<Buffer>()), f(DT_FLOAT, filter, RefPtr<Buffer>());
  TX_RETURN_IF_ERROR(attrs.Compute(in, f, depthwise, g).WithPrefix(std::string(op) + ": "));
  const TensorShape want({g->n, g->oh, g->ow, depthwise ? g->c * g->m : g->m});
  if (out_backprop.shape() != want)
    return InvalidArgument(op, ": out_backprop must have shape ", want.ToString(), " (the forward output for input ",
                           input.ToString(), " and filter ", filter.ToString(), "), got ",
                           out_backprop.shape().ToString());
  return Status::OK();
}

// Checks the inputs of a backprop op (input or input_sizes, filter or filter_sizes, out_backprop)
// and fills the forward input and filter shapes and `g`.
inline Status ReadBackpropGeometry(OpKernelContext* ctx, const ConvAttrs& attrs, bool filter_grad, bool depthwise,
                                   const char* op, TensorShape* in_shape, TensorShape* f_shape, ConvGeometry* g) {
  const Tensor& dy = ctx->input(2);
  if (dy.rank() != 4)
    return InvalidArgument(op, ": out_backprop must be 4-dimensional, got shape ", dy.shape().ToString());
  if (filter_grad) {
    *in_shape = ctx->input(0).shape();
    if (in_shape->rank() != 4)
      return InvalidArgument(op, ": input must be 4-dimensional, got shape ", in_shape->ToString());
    TX_RETURN_IF_ERROR(ShapeFromSizes(op, "filter_sizes", ctx->input(1), false, 0, 0, f_shape));
  } else {
    *f_shape = ctx->input(1).shape();
    if (f_shape->rank() != 4)
      return InvalidArgument(op, ": filter must be 4-dimensional, got shape ", f_shape->ToString());
    TX_RETURN_IF_ERROR(
        ShapeFromSizes(op, "input_sizes", ctx->input(0), !depthwise, dy.dim(0), f_shape->dim(2), in_shape));
  }
  return BackpropGeometry(op, attrs, *in_shape, *f_shape, dy, depthwise, g);
}

// Base of the convolution backprop kernels: reads the attrs, checks the inputs, allocates the
// output (the shape of the sizes input) and calls Backprop when it is not empty.
template <typename T>
class ConvBackpropKernel : public OpKernel {
 public:
  ConvBackpropKernel(OpKernelConstruction* c, const char* op, bool filter_grad, bool depthwise)
      : OpKernel(c), op_(op), filter_grad_(filter_grad), depthwise_(depthwise) {
    c->SetStatus(attrs_.Init(c, op));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, filter_grad_ ? 0 : 1, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, DataTypeOf<T>::value));
    TensorShape in_shape, f_shape;
    ConvGeometry g;
    TX_CTX_RETURN_IF_ERROR(ctx,
                           ReadBackpropGeometry(ctx, attrs_, filter_grad_, depthwise_, op_, &in_shape, &f_shape, &g));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, filter_grad_ ? f_shape : in_shape, &out));
    if (out->num_elements() > 0) Backprop(ctx, g, out->data<T>(), out->num_elements());
  }

 protected:
  // Writes the whole gradient (`size` elements, in the output's layout) to `out`; inputs are
  // valid for `g`. May set an error status on `ctx`.
  virtual void Backprop(OpKernelContext* ctx, const ConvGeometry& g, T* out, int64_t size) = 0;

  const char* op_;

 private:
  bool filter_grad_, depthwise_;
  ConvAttrs attrs_;
};

// Calls fn(tap, offset) for the KH*KW taps of each patch row in [row0, row0 + rows), numbering the
// taps consecutively from 0; `offset` is the tap's pixel offset in the input (elements), or -1 when
// the tap falls in the padding.
template <typename F>
void ForEachPatchTap(const ConvGeometry& g, int64_t row0, int64_t rows, const F& fn) {
  int64_t tap = 0;
  for (int64_t idx = row0; idx < row0 + rows; ++idx) {
    const int64_t ow = idx % g.ow, t = idx / g.ow, oh = t % g.oh, n = t / g.oh;
    for (int64_t kh = 0; kh < g.kh; ++kh) {
      const int64_t ih = oh * g.sh - g.pt + kh * g.dh;
      for (int64_t kw = 0; kw < g.kw; ++kw, ++tap) {
        const int64_t iw = ow * g.sw - g.pl + kw * g.dw;
        const bool inside = ih >= 0 && ih < g.h && iw >= 0 && iw < g.w;
        fn(tap, inside ? ((n * g.h + ih) * g.w + iw) * g.c : int64_t{-1});
      }
    }
  }
}

// Reads the patch rows [row0, row0 + rows) of input `x` (row = n*OH*OW + oh*OW + ow) into `dst`
// as [rows, KH*KW*C], zeros where the window leaves the input.
template <typename T>
void GatherPatches(const ConvGeometry& g, const T* x, int64_t row0, int64_t rows, T* dst) {
  ForEachPatchTap(g, row0, rows, [&](int64_t tap, int64_t off) {
    if (off < 0)
      std::memset(dst + tap * g.c, 0, sizeof(T) * g.c);
    else
      std::memcpy(dst + tap * g.c, x + off, sizeof(T) * g.c);
  });
}

// Adds the patch rows [row0, row0 + rows) of `src` ([rows, KH*KW*C]) back into input-shaped `dx`
// (the adjoint of GatherPatches); taps in the padding are dropped.
template <typename T>
void ScatterAddPatches(const ConvGeometry& g, const T* src, int64_t row0, int64_t rows, T* dx) {
  const int64_t c = g.c;
  ForEachPatchTap(g, row0, rows, [&](int64_t tap, int64_t off) {
    if (off < 0) return;
    T* d = dx + off;
    const T* s = src + tap * c;
    for (int64_t ch = 0; ch < c; ++ch) d[ch] += s[ch];
  });
}

}  // namespace cpu
}  // namespace tx

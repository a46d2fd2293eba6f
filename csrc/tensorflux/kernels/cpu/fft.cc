// CPU kernels for the FFT ops (ops/fft_ops.cc) on the plans of fft_plan.h, line by line along each
// transformed axis (Note [FFT lines] in fft_lines.cc):
//   complex  FFT*/IFFT*: the input cropped or padded to the lengths, then one complex pass per
//            axis (the inverse scaled by 1/N at the end);
//   RFFT*:   the input cropped or padded to the lengths, a real forward pass along the last axis,
//            then complex passes along the others;
//   IRFFT*:  the input cropped or padded (last axis to n/2 + 1), complex backward passes along
//            all but the last axis, then a real backward pass along it, scaled by 1/N.
#include <complex>
#include <memory>
#include <vector>

#include "tensorflux/core/complex.h"
#include "tensorflux/kernels/cpu/fft_lines.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/ops/array_util.h"
#include "tensorflux/ops/fft_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

using fft_util::Kind;

// A tensor holding `dims` of type dt with `src`'s values cropped or zero-padded into it (a view of
// src when the dims already agree and `share` is set).
Status Resized(const Tensor& src, const std::vector<int64_t>& dims, bool share, ThreadPool* pool, Tensor* out) {
  if (share && src.shape().dims() == dims) {
    *out = src;
    return Status::OK();
  }
  TensorShape shape;
  TX_RETURN_IF_ERROR(TensorShape::Make(dims.data(), static_cast<int>(dims.size()), &shape));
  TX_RETURN_IF_ERROR(Tensor::Allocate(src.dtype(), shape, out));
  fft::CropOrPad(src.raw_data(), src.shape().dims(), out->raw_data(), dims, DataTypeSize(src.dtype()), pool);
  return Status::OK();
}

// R is the real type (float or double) of the op's complex type.
template <typename R>
class FftOp : public OpKernel {
  using C = std::complex<R>;

 public:
  explicit FftOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(fft_util::Info(c->op_type(), &info_)); }

  void Compute(OpKernelContext* ctx) override {
    const DataType in_type = info_.kind == Kind::kRealForward ? DataTypeOf<R>::value : DataTypeOf<C>::value;
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, in_type));
    const Tensor& input = ctx->input(0);
    std::vector<int64_t> lengths, axes;
    if (info_.has_length) TX_CTX_RETURN_IF_ERROR(ctx, ReadVector(ctx, 1, "fft_length", &lengths));
    if (info_.fixed_rank == 0) TX_CTX_RETURN_IF_ERROR(ctx, ReadVector(ctx, 2, "axes", &axes));
    fft_util::Spec spec;
    const std::vector<int64_t>& in_dims = input.shape().dims();
    TX_CTX_RETURN_IF_ERROR(ctx,
                           fft_util::Resolve(info_, in_dims, info_.has_length ? &lengths : nullptr,
                                             info_.fixed_rank == 0 ? &axes : nullptr, &spec));
    const std::vector<int64_t> work_dims = fft_util::WorkDims(info_, in_dims, spec);
    const std::vector<int64_t> out_dims = fft_util::OutputDims(info_, in_dims, spec);
    TensorShape out_shape;
    TX_CTX_RETURN_IF_ERROR(ctx, TensorShape::Make(out_dims.data(), static_cast<int>(out_dims.size()), &out_shape));
    ThreadPool* pool = ctx->intra_op_pool();
    R total = 1;
    for (int64_t n : spec.lengths) total *= static_cast<R>(n);
    const R scale = total > 0 ? R(1) / total : R(1);
    const size_t k = spec.axes.size();
    if (info_.kind == Kind::kComplex) {
      // Transform in place in the output: the input's own buffer when it can be taken over.
      Tensor* out = nullptr;
      if (work_dims == in_dims && input.CanReuseBuffer()) {
        TX_CTX_RETURN_IF_ERROR(ctx, ctx->forward_input_or_allocate_output(0, 0, out_shape, &out));
      } else {
        TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, out_shape, &out));
      }
      if (out->raw_data() != input.raw_data())
        fft::CropOrPad(input.raw_data(), in_dims, out->raw_data(), out_dims, sizeof(C), pool);
      C* data = out->data<C>();
      for (size_t i = 0; i < k; ++i)
        fft::ComplexLines(data, fft::LinesOf(out_dims, spec.axes[i]), !info_.inverse, pool);
      if (info_.inverse) fft::Scale(data, out->num_elements(), scale, pool);
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->num_elements() == 0) return;
    Tensor work;
    if (info_.kind == Kind::kRealForward) {
      TX_CTX_RETURN_IF_ERROR(ctx, Resized(input, work_dims, /*share=*/true, pool, &work));
      C* data = out->data<C>();
      const int last = spec.axes[k - 1];
      if (work_dims[last] == 0) {  // a transform of nothing: every frequency is 0
        std::fill(data, data + out->num_elements(), C(0));
      } else {
        fft::RealForwardLines(work.data<R>(), data, fft::LinesOf(work_dims, last), pool);
      }
      for (size_t i = 0; i + 1 < k; ++i) fft::ComplexLines(data, fft::LinesOf(out_dims, spec.axes[i]), true, pool);
      return;
    }
    // kRealBackward: the complex passes run in a private copy.
    TX_CTX_RETURN_IF_ERROR(ctx, Resized(input, work_dims, /*share=*/false, pool, &work));
    C* w = work.data<C>();
    for (size_t i = 0; i + 1 < k; ++i) fft::ComplexLines(w, fft::LinesOf(work_dims, spec.axes[i]), false, pool);
    R* y = out->data<R>();
    fft::RealBackwardLines(w, y, fft::LinesOf(out_dims, spec.axes[k - 1]), pool);
    fft::Scale(y, out->num_elements(), scale, pool);
  }

 private:
  // Reads 1-D integer input i.
  static Status ReadVector(const OpKernelContext* ctx, int i, const char* what, std::vector<int64_t>* out) {
    const Tensor& t = ctx->input(i);
    if (t.rank() != 1) return InvalidArgument(what, " must be 1-D, got shape ", t.shape().ToString());
    return array_util::ReadInts(t, what, out);
  }

  fft_util::OpInfo info_;
};

// Every op is registered for (complex64, float) and (complex128, double).
const bool kRegistered = [] {
  const char* complex_ops[] = {"FFT", "IFFT", "FFT2D", "IFFT2D", "FFT3D", "IFFT3D", "FFTND", "IFFTND"};
  const char* real_ops[] = {"RFFT", "IRFFT", "RFFT2D", "IRFFT2D", "RFFT3D", "IRFFT3D", "RFFTND", "IRFFTND"};
  for (const char* op : complex_ops) {
    KernelRegistry::Global()->Register(
        KernelDefBuilder(op).TypeConstraint<complex64>("Tcomplex").Build([](OpKernelConstruction* c) -> OpKernel* {
          return new FftOp<float>(c);
        }));
    KernelRegistry::Global()->Register(
        KernelDefBuilder(op).TypeConstraint<complex128>("Tcomplex").Build([](OpKernelConstruction* c) -> OpKernel* {
          return new FftOp<double>(c);
        }));
  }
  for (const char* op : real_ops) {
    KernelRegistry::Global()->Register(
        KernelDefBuilder(op)
            .TypeConstraint<float>("Treal")
            .TypeConstraint<complex64>("Tcomplex")
            .Build([](OpKernelConstruction* c) -> OpKernel* { return new FftOp<float>(c); }));
    KernelRegistry::Global()->Register(
        KernelDefBuilder(op)
            .TypeConstraint<double>("Treal")
            .TypeConstraint<complex128>("Tcomplex")
            .Build([](OpKernelConstruction* c) -> OpKernel* { return new FftOp<double>(c); }));
  }
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

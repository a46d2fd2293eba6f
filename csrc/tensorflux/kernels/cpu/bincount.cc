// CPU kernels for Bincount and DenseBincount: a serial pass per row adds one (or the weight) to
// bin x for each input value x in [0, size); larger values are dropped, negative ones rejected.
#include <cstdint>
#include <type_traits>

#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Adds row x[0, n) (weights w, or nullptr for ones) into bins[0, size); binary: sets 1 instead.
template <typename I, typename T>
Status CountRow(const I* x, const T* w, int64_t n, int64_t size, bool binary, T* bins) {
  for (int64_t i = 0; i < n; ++i) {
    const I v = x[i];
    if (v < 0) return InvalidArgument("Input arr must be non-negative! Got ", static_cast<int64_t>(v));
    if (static_cast<int64_t>(v) >= size) continue;
    if (binary)
      bins[v] = T(1);
    else
      bins[v] += w ? w[i] : T(1);
  }
  return Status::OK();
}

// Bincount (kDense false: arr any shape, counted as a whole) and DenseBincount (1-D or 2-D input,
// one histogram per row).
template <typename I, typename T, bool kDense>
class BincountOp : public OpKernel {
 public:
  explicit BincountOp(OpKernelConstruction* c) : OpKernel(c) {
    if (kDense) c->SetStatus(c->GetAttr("binary_output", &binary_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& size_t_ = ctx->input(1);
    const Tensor& wt = ctx->input(2);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<I>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, DataTypeOf<T>::value));
    if (size_t_.rank() != 0) {
      ctx->SetStatus(InvalidArgument("size must be a scalar, got shape ", size_t_.shape().ToString()));
      return;
    }
    const int64_t size = IndexAt(size_t_, 0);
    if (size < 0) {
      ctx->SetStatus(InvalidArgument("size (", size, ") must be non-negative"));
      return;
    }
    const bool weighted = wt.num_elements() > 0;
    if (weighted && wt.shape() != in.shape()) {
      ctx->SetStatus(InvalidArgument("Input indices and weights must have the same size: got shapes ",
                                     in.shape().ToString(), " and ", wt.shape().ToString()));
      return;
    }
    int64_t rows = 1, n = in.num_elements();
    TensorShape out_shape({size});
    if (kDense) {
      if (in.rank() == 2) {
        rows = in.dim(0);
        n = in.dim(1);
        out_shape = TensorShape({rows, size});
      } else if (in.rank() != 1) {
        ctx->SetStatus(InvalidArgument("input must be 1 or 2-dimensional, got shape ", in.shape().ToString()));
        return;
      }
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, out_shape, &out));
    T* bins = out->data<T>();
    for (int64_t i = 0; i < out->num_elements(); ++i) bins[i] = T(0);
    const I* x = in.data<I>();
    const T* w = weighted ? wt.data<T>() : nullptr;
    for (int64_t r = 0; r < rows; ++r) {
      TX_CTX_RETURN_IF_ERROR(ctx,
                             (CountRow<I, T>(x + r * n, w ? w + r * n : nullptr, n, size, binary_, bins + r * size)));
    }
  }

 private:
  bool binary_ = false;
};

template <typename T>
void RegisterFor() {
  constexpr DataType t = DataTypeOf<T>::value;
  KernelRegistry::Global()->Register(
      KernelDefBuilder("Bincount").TypeConstraint("T", t).Build([](OpKernelConstruction* c) -> OpKernel* {
        return new BincountOp<int32_t, T, false>(c);
      }));
  KernelRegistry::Global()->Register(
      KernelDefBuilder("DenseBincount")
          .TypeConstraint("T", t)
          .TypeConstraint("Tidx", DT_INT32)
          .Build([](OpKernelConstruction* c) -> OpKernel* { return new BincountOp<int32_t, T, true>(c); }));
  KernelRegistry::Global()->Register(
      KernelDefBuilder("DenseBincount")
          .TypeConstraint("T", t)
          .TypeConstraint("Tidx", DT_INT64)
          .Build([](OpKernelConstruction* c) -> OpKernel* { return new BincountOp<int64_t, T, true>(c); }));
}

const bool kRegistered = [] {
  RegisterFor<int32_t>();
  RegisterFor<int64_t>();
  RegisterFor<float>();
  RegisterFor<double>();
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

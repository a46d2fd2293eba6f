// CPU kernel for ScatterNd: adds update slices into a zero tensor at index tuples; duplicate
// tuples add up (bool uses logical or), like TensorFlow.
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

template <typename T, typename I>
class ScatterNdOp : public OpKernel {
 public:
  explicit ScatterNdOp(OpKernelConstruction* c) : OpKernel(c), dtype_(c->input_type(1)) {
    c->SetStatus(ParseBadIndicesPolicy(c, &ignore_));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<I>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, dtype_));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, DataTypeOf<I>::value));
    const Tensor& indices = ctx->input(0);
    const Tensor& updates = ctx->input(1);
    const Tensor& shape_t = ctx->input(2);
    if (shape_t.rank() != 1) {
      ctx->SetStatus(InvalidArgument("shape must be a vector, got shape ", shape_t.shape().ToString()));
      return;
    }
    std::vector<int64_t> dims(shape_t.num_elements());
    for (size_t i = 0; i < dims.size(); ++i) dims[i] = shape_t.data<I>()[i];
    TensorShape out_shape;
    Status s = TensorShape::Make(dims.data(), static_cast<int>(dims.size()), &out_shape);
    if (!s.ok()) {
      ctx->SetStatus(InvalidArgument("shape must be non-negative with a representable element count: ", s.message()));
      return;
    }
    if (indices.rank() < 1) {
      ctx->SetStatus(InvalidArgument("indices must be at least 1 dimensional, got shape ", indices.shape().ToString()));
      return;
    }
    if (out_shape.num_elements() == 0 && indices.num_elements() > 0) {
      ctx->SetStatus(InvalidArgument("Indices and updates specified for empty output shape ", out_shape.ToString()));
      return;
    }
    const int64_t n = indices.dim(indices.rank() - 1);
    if (n > out_shape.rank()) {
      ctx->SetStatus(InvalidArgument("index innermost dimension length must be <= rank of shape; saw: ", n, " vs. ",
                                     out_shape.rank()));
      return;
    }
    const int nn = static_cast<int>(n);
    std::vector<int64_t> want(indices.shape().dims().begin(), indices.shape().dims().end() - 1);
    for (int i = nn; i < out_shape.rank(); ++i) want.push_back(out_shape.dim(i));
    if (TensorShape(want) != updates.shape()) {
      ctx->SetStatus(InvalidArgument("updates must have shape indices.shape[:-1] + shape[", n,
                                     ":] = ", TensorShape(want).ToString(), ", got ", updates.shape().ToString()));
      return;
    }
    const int64_t slice = DimProduct(out_shape, nn, out_shape.rank());
    std::vector<int64_t> offsets;
    TX_CTX_RETURN_IF_ERROR(ctx, IndexTupleOffsets<I>(indices, out_shape, ignore_, "shape", &offsets));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, out_shape, &out));
    T* o = out->data<T>();
    if (out_shape.num_elements() == 0) return;
    std::memset(static_cast<void*>(o), 0, out->byte_size());
    ScatterAddSlices(ctx->intra_op_pool(), offsets, updates.data<T>(), slice, o);
  }

 private:
  const DataType dtype_;
  bool ignore_ = false;
};

template <typename T>
void RegisterFor(DataType dt) {
  auto reg = [dt](auto index_tag) {
    using I = decltype(index_tag);
    KernelRegistry::Global()->Register(
        KernelDefBuilder("ScatterNd")
            .TypeConstraint("T", dt)
            .TypeConstraint<I>("Tindices")
            .Build([](OpKernelConstruction* c) -> OpKernel* { return new ScatterNdOp<T, I>(c); }));
  };
  reg(int16_t{});
  reg(int32_t{});
  reg(int64_t{});
}

const bool kRegistered = [] {
  RegisterFor<float>(DT_FLOAT);
  RegisterFor<double>(DT_DOUBLE);
  RegisterFor<int32_t>(DT_INT32);
  RegisterFor<int64_t>(DT_INT64);
  RegisterFor<uint8_t>(DT_UINT8);
  RegisterFor<int8_t>(DT_INT8);
  RegisterFor<int16_t>(DT_INT16);
  RegisterFor<uint16_t>(DT_UINT16);
  RegisterFor<uint32_t>(DT_UINT32);
  RegisterFor<uint64_t>(DT_UINT64);
  RegisterFor<bool>(DT_BOOL);
  RegisterFor<std::complex<float>>(DT_COMPLEX64);
  RegisterFor<std::complex<double>>(DT_COMPLEX128);
  return true;
}();
}  // namespace

}  // namespace cpu
}  // namespace tx

// CPU kernel for TensorScatterAdd: a copy of `tensor` (or its buffer, when this op holds the only
// reference) with update slices added at index tuples; duplicate tuples add up in order.
#include <cstdint>
#include <cstring>
#include <vector>

#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/ops/grad_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

template <typename T, typename I>
class TensorScatterAddOp : public OpKernel {
 public:
  explicit TensorScatterAddOp(OpKernelConstruction* c) : OpKernel(c), dtype_(c->input_type(0)) {
    c->SetStatus(ParseBadIndicesPolicy(c, &ignore_));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, dtype_));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<I>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, dtype_));
    const Tensor& tensor = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    TX_CTX_RETURN_IF_ERROR(ctx,
                           grad_util::CheckTensorScatter(PartialShape(tensor.shape()), PartialShape(indices.shape()),
                                                         PartialShape(updates.shape())));
    const int nn = static_cast<int>(indices.dim(indices.rank() - 1));
    std::vector<int64_t> offsets;
    TX_CTX_RETURN_IF_ERROR(ctx, IndexTupleOffsets<I>(indices, tensor.shape(), ignore_, "shape", &offsets));
    const T* src = tensor.data<T>();
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->forward_input_or_allocate_output(0, 0, tensor.shape(), &out));
    if (out->num_elements() == 0) return;
    T* o = out->data<T>();
    if (o != src) {
      ParallelRange(ctx->intra_op_pool(), out->num_elements(), 1, [&](int64_t b, int64_t e) {
        std::memcpy(static_cast<void*>(o + b), src + b, static_cast<size_t>(e - b) * sizeof(T));
      });
    }
    const int64_t slice = DimProduct(tensor.shape(), nn, tensor.rank());
    ScatterAddSlices(ctx->intra_op_pool(), offsets, updates.data<T>(), slice, o);
  }

 private:
  const DataType dtype_;
  bool ignore_ = false;
};

const bool kRegistered = [] {
  RegisterSummableKernels<TensorScatterAddOp, int32_t, int64_t>("TensorScatterAdd", "Tindices");
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernels for the index-computing ops of gradients: BroadcastGradientArgs, InvertPermutation,
// ConcatOffset (the logic is in ops/grad_util, shared with the shape functions).
#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/ops/grad_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Allocates output `i` as a vector holding `v` in the element type T.
template <typename T>
Status OutputVector(OpKernelContext* ctx, int i, const std::vector<int64_t>& v) {
  Tensor* out = nullptr;
  TX_RETURN_IF_ERROR(ctx->allocate_output(i, TensorShape({static_cast<int64_t>(v.size())}), &out));
  T* o = out->data<T>();
  for (size_t k = 0; k < v.size(); ++k) o[k] = static_cast<T>(v[k]);
  return Status::OK();
}

// Reads input `i` as a shape vector ("In[i] must be a vector" otherwise).
Status ReadShapeVector(const OpKernelContext* ctx, int i, DataType dtype, std::vector<int64_t>* out) {
  TX_RETURN_IF_ERROR(CheckInput(ctx, i, dtype));
  const Tensor& t = ctx->input(i);
  if (t.rank() != 1) return InvalidArgument("In[", i, "] must be a vector, got shape ", t.shape().ToString());
  return array_util::ReadInts(t, "shape", out);
}

template <typename T>
class BroadcastGradientArgsOp : public OpKernel {
 public:
  explicit BroadcastGradientArgsOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> s0, s1, r0, r1;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadShapeVector(ctx, 0, DataTypeOf<T>::value, &s0));
    TX_CTX_RETURN_IF_ERROR(ctx, ReadShapeVector(ctx, 1, DataTypeOf<T>::value, &s1));
    TX_CTX_RETURN_IF_ERROR(ctx, grad_util::BroadcastGradientAxes(s0, s1, &r0, &r1));
    TX_CTX_RETURN_IF_ERROR(ctx, OutputVector<T>(ctx, 0, r0));
    TX_CTX_RETURN_IF_ERROR(ctx, OutputVector<T>(ctx, 1, r1));
  }
};

template <typename T>
class InvertPermutationOp : public OpKernel {
 public:
  explicit InvertPermutationOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& x = ctx->input(0);
    if (x.rank() != 1) {
      ctx->SetStatus(InvalidArgument("invert_permutation expects a 1D vector, got shape ", x.shape().ToString()));
      return;
    }
    Tensor* y = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, x.shape(), &y));
    TX_CTX_RETURN_IF_ERROR(ctx, grad_util::InvertPermutation(x.data<T>(), x.dim(0), y->data<T>()));
  }
};

template <typename T>
class ConcatOffsetOp : public OpKernel {
 public:
  explicit ConcatOffsetOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_INT32));
    const Tensor& dim = ctx->input(0);
    if (dim.rank() != 0) {
      ctx->SetStatus(InvalidArgument("Concat dim tensor should be a scalar, but got shape ", dim.shape().ToString()));
      return;
    }
    const int n = ctx->num_inputs() - 1;
    std::vector<std::vector<int64_t>> shapes(n), offsets;
    for (int i = 0; i < n; ++i)
      TX_CTX_RETURN_IF_ERROR(ctx, ReadShapeVector(ctx, i + 1, DataTypeOf<T>::value, &shapes[i]));
    TX_CTX_RETURN_IF_ERROR(ctx, grad_util::ConcatOffsets(dim.data<int32_t>()[0], shapes, &offsets));
    for (int i = 0; i < n; ++i) TX_CTX_RETURN_IF_ERROR(ctx, OutputVector<T>(ctx, i, offsets[i]));
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("BroadcastGradientArgs").TypeConstraint<int32_t>("T"),
                   BroadcastGradientArgsOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("BroadcastGradientArgs").TypeConstraint<int64_t>("T"),
                   BroadcastGradientArgsOp<int64_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("InvertPermutation").TypeConstraint<int32_t>("T"), InvertPermutationOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("InvertPermutation").TypeConstraint<int64_t>("T"), InvertPermutationOp<int64_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("ConcatOffset").TypeConstraint<int32_t>("shape_type"), ConcatOffsetOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("ConcatOffset").TypeConstraint<int64_t>("shape_type"), ConcatOffsetOp<int64_t>);

}  // namespace
}  // namespace cpu
}  // namespace tx

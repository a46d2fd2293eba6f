// CPU kernels for Slice and StridedSlice: offset tables per dimension (index_copy.h); whole-input
// slices share the input's buffer.
#include <vector>

#include "tensorflux/kernels/cpu/array_grad_util.h"
#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/index_copy.h"

namespace tx {
namespace cpu {
namespace {

// Copies in[begin[d] + i * stride[d], ...] for i < length[d] into `out` (element order kept).
void StridedCopy(const Tensor& in, const std::vector<int64_t>& begin, const std::vector<int64_t>& stride,
                 const std::vector<int64_t>& length, Tensor* out, ThreadPool* pool) {
  const std::vector<int64_t> strides = RowMajorStrides(in.shape());
  std::vector<AxisTable> tables(begin.size());
  for (size_t d = 0; d < begin.size(); ++d) {
    tables[d].resize(static_cast<size_t>(length[d]));
    for (int64_t i = 0; i < length[d]; ++i) tables[d][i] = (begin[d] + i * stride[d]) * strides[d];
  }
  AxisTableCopy(in, out, std::move(tables), nullptr, pool);
}

class SliceOp : public OpKernel {
 public:
  explicit SliceOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, ctx->output_type(0)));
    const Tensor& in = ctx->input(0);
    std::vector<int64_t> begin, size, dims;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 1, "begin", 1, &begin));
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 2, "size", 1, &size));
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::ResolveSlice(PartialShape(in.shape()), begin, size, &dims));
    if (dims == in.shape().dims()) {
      ctx->set_output(0, in);
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    StridedCopy(in, begin, std::vector<int64_t>(dims.size(), 1), dims, out, ctx->intra_op_pool());
  }
};

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* c) : OpKernel(c), masks_(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, ctx->output_type(0)));
    const Tensor& in = ctx->input(0);
    std::vector<int64_t> b, e, s;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 1, "begin", 1, &b));
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 2, "end", 1, &e));
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 3, "strides", 1, &s));
    array_util::StridedSliceInfo info;
    TX_CTX_RETURN_IF_ERROR(ctx, masks_.Resolve(PartialShape(in.shape()), b, e, s, &info));
    TensorShape shape(info.final_dims);
    if (info.identity) {
      ctx->set_output(0, in.Reshaped(std::move(shape)));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    StridedCopy(in, info.begin, info.stride, info.length, out, ctx->intra_op_pool());
  }

 private:
  const StridedSliceMasks masks_;
};

TX_REGISTER_ARRAY_KERNEL("Slice", SliceOp);
TX_REGISTER_ARRAY_KERNEL("StridedSlice", StridedSliceOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

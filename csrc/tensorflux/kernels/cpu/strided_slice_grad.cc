// CPU kernel for StridedSliceGrad: dy placed where StridedSlice read from a tensor of `shape`,
// zeros elsewhere. It is the axis-table copy (Note [Axis tables]) of dy with the padding value 0:
// output index i of dimension d reads dy position k when begin[d] + k * stride[d] == i.
#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/array_grad_util.h"
#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/index_copy.h"

namespace tx {
namespace cpu {
namespace {

class StridedSliceGradOp : public OpKernel {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction* c) : OpKernel(c), masks_(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 4, ctx->output_type(0)));
    const Tensor& dy = ctx->input(4);
    if (ctx->input(0).rank() != 1) {
      ctx->SetStatus(InvalidArgument("shape must be 1-D, got shape.shape = ", ctx->input(0).shape().ToString()));
      return;
    }
    std::vector<int64_t> dims, b, e, s;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 0, "shape", 1, &dims));
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 1, "begin", 1, &b));
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 2, "end", 1, &e));
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 3, "strides", 1, &s));
    for (int64_t d : dims)
      if (d < 0) {
        ctx->SetStatus(InvalidArgument("Dimension ", d, " must be >= 0"));
        return;
      }
    array_util::StridedSliceInfo info;
    TX_CTX_RETURN_IF_ERROR(ctx, masks_.Resolve(PartialShape(dims), b, e, s, &info));
    if (TensorShape(info.final_dims) != dy.shape()) {
      ctx->SetStatus(InvalidArgument("shape of dy was ", dy.shape().ToString(), " instead of ",
                                     TensorShape(info.final_dims).ToString()));
      return;
    }
    if (info.identity) {
      ctx->set_output(0, dy.Reshaped(TensorShape(dims)));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateChecked(ctx, 0, dims, &out));
    const Tensor view = dy.Reshaped(TensorShape(info.length));
    const std::vector<int64_t> strides = RowMajorStrides(view.shape());
    std::vector<AxisTable> tables(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      tables[d].assign(static_cast<size_t>(dims[d]), -1);
      for (int64_t k = 0; k < info.length[d]; ++k) tables[d][info.begin[d] + k * info.stride[d]] = k * strides[d];
    }
    AxisTableCopy(view, out, std::move(tables), ZeroPad(out->dtype()), ctx->intra_op_pool());
  }

 private:
  const StridedSliceMasks masks_;
};

TX_REGISTER_ARRAY_KERNEL("StridedSliceGrad", StridedSliceGradOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

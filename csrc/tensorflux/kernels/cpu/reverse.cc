// CPU kernel for ReverseV2: reversed axis tables (index_copy.h).
#include <vector>

#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/index_copy.h"

namespace tx {
namespace cpu {
namespace {

class ReverseV2Op : public OpKernel {
 public:
  explicit ReverseV2Op(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, ctx->output_type(0)));
    const Tensor& in = ctx->input(0);
    std::vector<int64_t> axes;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 1, "axis", 1, &axes));
    const int rank = in.rank();
    std::vector<bool> rev(rank, false);
    bool any = false;
    for (int64_t a : axes) {
      int axis;
      TX_CTX_RETURN_IF_ERROR(ctx, array_util::CanonicalAxis(a, rank, "ReverseV2 axis", &axis));
      if (rev[axis]) {
        ctx->SetStatus(InvalidArgument("axis ", axis, " specified more than once"));
        return;
      }
      rev[axis] = true;
      if (in.dim(axis) > 1) any = true;
    }
    if (!any) {
      ctx->set_output(0, in);
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::vector<int64_t> strides = RowMajorStrides(in.shape());
    std::vector<AxisTable> tables(rank);
    for (int d = 0; d < rank; ++d) {
      const int64_t n = in.dim(d);
      tables[d].resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) tables[d][i] = (rev[d] ? n - 1 - i : i) * strides[d];
    }
    AxisTableCopy(in, out, std::move(tables), nullptr, ctx->intra_op_pool());
  }
};

TX_REGISTER_ARRAY_KERNEL("ReverseV2", ReverseV2Op);

}  // namespace
}  // namespace cpu
}  // namespace tx

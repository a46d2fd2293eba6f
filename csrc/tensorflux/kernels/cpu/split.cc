// CPU kernels for Split, SplitV and Unpack: memcpy of contiguous runs per outer row.
#include <vector>

#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/index_copy.h"

namespace tx {
namespace cpu {
namespace {

// Splits `in` along `axis` into pieces of `sizes`; with `drop_axis` the axis (of size 1 per
// piece) is removed from the outputs (Unpack).
void SplitInto(OpKernelContext* ctx, const Tensor& in, int axis, const std::vector<int64_t>& sizes, bool drop_axis) {
  const int rank = in.rank();
  const int num = static_cast<int>(sizes.size());
  if (num == 1 && !drop_axis) {
    ctx->set_output(0, in);
    return;
  }
  int64_t rows = 1, inner = 1;
  for (int d = 0; d < axis; ++d) rows *= in.dim(d);
  for (int d = axis + 1; d < rank; ++d) inner *= in.dim(d);
  const int64_t esize = static_cast<int64_t>(DataTypeSize(in.dtype()));
  std::vector<char*> dsts(num);
  std::vector<int64_t> bytes(num);
  for (int i = 0; i < num; ++i) {
    std::vector<int64_t> dims = in.shape().dims();
    if (drop_axis)
      dims.erase(dims.begin() + axis);
    else
      dims[axis] = sizes[i];
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(i, TensorShape(dims), &out));
    dsts[i] = static_cast<char*>(out->raw_data());
    bytes[i] = sizes[i] * inner * esize;
  }
  if (in.num_elements() == 0) return;
  SplitRows(in.dtype(), static_cast<const char*>(in.raw_data()), rows, dsts, bytes, ctx->intra_op_pool());
}

class SplitOp : public OpKernel {
 public:
  explicit SplitOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, ctx->output_type(0)));
    const Tensor& in = ctx->input(1);
    std::vector<int64_t> axis_v;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 0, "split_dim", 0, &axis_v));
    int axis;
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::CanonicalAxis(axis_v.at(0), in.rank(), "split_dim", &axis));
    const int num = ctx->num_outputs();
    if (in.dim(axis) % num != 0) {
      ctx->SetStatus(
          InvalidArgument("Number of ways to split should evenly divide the split dimension, but got "
                          "split_dim ",
                          axis, " (size = ", in.dim(axis), ") and num_split ", num));
      return;
    }
    SplitInto(ctx, in, axis, std::vector<int64_t>(num, in.dim(axis) / num), false);
  }
};

class SplitVOp : public OpKernel {
 public:
  explicit SplitVOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, ctx->output_type(0)));
    const Tensor& in = ctx->input(0);
    std::vector<int64_t> sizes, axis_v;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 1, "size_splits", 1, &sizes));
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 2, "split_dim", 0, &axis_v));
    int axis;
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::CanonicalAxis(axis_v.at(0), in.rank(), "split_dim", &axis));
    if (static_cast<int>(sizes.size()) != ctx->num_outputs()) {
      ctx->SetStatus(
          InvalidArgument("size_splits has ", sizes.size(), " entries but num_split is ", ctx->num_outputs()));
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::ResolveSplitSizes(&sizes, in.dim(axis)));
    SplitInto(ctx, in, axis, sizes, false);
  }
};

class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("axis", &axis_)); }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, ctx->output_type(0)));
    const Tensor& in = ctx->input(0);
    int axis;
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::CanonicalAxis(axis_, in.rank(), "Unpack axis", &axis));
    const int num = ctx->num_outputs();
    if (in.dim(axis) != num) {
      ctx->SetStatus(InvalidArgument("Unpack's num is ", num, " but dimension ", axis, " of the input (shape ",
                                     in.shape().ToString(), ") has size ", in.dim(axis)));
      return;
    }
    if (num == 0) return;
    SplitInto(ctx, in, axis, std::vector<int64_t>(num, 1), true);
  }

 private:
  int64_t axis_ = 0;
};

TX_REGISTER_ARRAY_KERNEL("Split", SplitOp);
TX_REGISTER_ARRAY_KERNEL("SplitV", SplitVOp);
TX_REGISTER_ARRAY_KERNEL("Unpack", UnpackOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

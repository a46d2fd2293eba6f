// CPU kernels for ConcatV2 and Pack: memcpy of each input's contiguous run per outer row.
#include <vector>

#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/index_copy.h"

namespace tx {
namespace cpu {
namespace {

int64_t Prod(const std::vector<int64_t>& d, int from, int to) {
  int64_t p = 1;
  for (int k = from; k < to; ++k) p *= d[k];
  return p;
}

class ConcatV2Op : public OpKernel {
 public:
  explicit ConcatV2Op(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() - 1;
    std::vector<int64_t> axis_v;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, n, "axis", 0, &axis_v));
    if (axis_v.size() != 1) {
      ctx->SetStatus(InvalidArgument("ConcatV2's axis must be a scalar"));
      return;
    }
    const Tensor& first = ctx->input(0);
    const int rank = first.rank();
    if (rank == 0) {
      ctx->SetStatus(InvalidArgument("ConcatV2 cannot concatenate scalars (use Pack)"));
      return;
    }
    int axis;
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::CanonicalAxis(axis_v[0], rank, "ConcatV2 axis", &axis));
    std::vector<int64_t> dims = first.shape().dims();
    dims[axis] = 0;
    for (int i = 0; i < n; ++i) {
      TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, ctx->output_type(0)));
      const Tensor& t = ctx->input(i);
      bool ok = t.rank() == rank;
      for (int d = 0; ok && d < rank; ++d)
        if (d != axis && t.dim(d) != first.dim(d)) ok = false;
      if (!ok) {
        ctx->SetStatus(InvalidArgument("ConcatV2 inputs must match in every dimension but the axis ", axis,
                                       ": input 0 has shape ", first.shape().ToString(), " but input ", i,
                                       " has shape ", t.shape().ToString()));
        return;
      }
      if (__builtin_add_overflow(dims[axis], t.dim(axis), &dims[axis])) {
        ctx->SetStatus(InvalidArgument("ConcatV2's output is too large"));
        return;
      }
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateChecked(ctx, 0, dims, &out));
    if (out->num_elements() == 0) return;
    const int64_t esize = static_cast<int64_t>(DataTypeSize(out->dtype()));
    const int64_t rows = Prod(dims, 0, axis);
    std::vector<const char*> srcs(n);
    std::vector<int64_t> bytes(n);
    for (int i = 0; i < n; ++i) {
      srcs[i] = static_cast<const char*>(ctx->input(i).raw_data());
      bytes[i] = Prod(ctx->input(i).shape().dims(), axis, rank) * esize;
    }
    ConcatRows(out->dtype(), srcs, bytes, rows, static_cast<char*>(out->raw_data()), ctx->intra_op_pool());
  }
};

class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("axis", &axis_)); }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    for (int i = 0; i < n; ++i) {
      TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, ctx->output_type(0)));
      if (ctx->input(i).shape() != first.shape()) {
        ctx->SetStatus(InvalidArgument("Pack's inputs must all have the same shape: input 0 has shape ",
                                       first.shape().ToString(), " but input ", i, " has shape ",
                                       ctx->input(i).shape().ToString()));
        return;
      }
    }
    int axis;
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::CanonicalAxis(axis_, first.rank() + 1, "Pack axis", &axis));
    std::vector<int64_t> dims = first.shape().dims();
    dims.insert(dims.begin() + axis, n);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateChecked(ctx, 0, dims, &out));
    if (out->num_elements() == 0) return;
    const int64_t esize = static_cast<int64_t>(DataTypeSize(out->dtype()));
    const int64_t rows = Prod(first.shape().dims(), 0, axis);
    const int64_t bytes = Prod(first.shape().dims(), axis, first.rank()) * esize;
    std::vector<const char*> srcs(n);
    for (int i = 0; i < n; ++i) srcs[i] = static_cast<const char*>(ctx->input(i).raw_data());
    ConcatRows(out->dtype(), srcs, std::vector<int64_t>(n, bytes), rows, static_cast<char*>(out->raw_data()),
               ctx->intra_op_pool());
  }

 private:
  int64_t axis_ = 0;
};

TX_REGISTER_ARRAY_KERNEL("ConcatV2", ConcatV2Op);
TX_REGISTER_ARRAY_KERNEL("Pack", PackOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernel for ResourceGather: rows of a variable's snapshot picked by indices along axis
// batch_dims, per batch. Data is only moved, so one kernel serves every stored dtype.
#include <cstring>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/resource_util.h"

namespace tx {
namespace cpu {
namespace {

// Views params as [batch, limit, inner] and indices as [batch, n]; output [batch, n, inner].
// Every index is checked before any copy, so a bad index never reads out of bounds.
template <typename I>
class ResourceGatherOp : public OpKernel {
 public:
  explicit ResourceGatherOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("dtype", &dtype_));
    c->SetStatus(c->GetAttr("batch_dims", &batch_dims_));
  }
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<I>::value));
    Tensor params;
    TX_CTX_RETURN_IF_ERROR(ctx, Snapshot(ctx, &params));
    const Tensor& indices = ctx->input(1);
    const int pr = params.rank(), ir = indices.rank();
    int64_t bd = batch_dims_ < 0 ? batch_dims_ + ir : batch_dims_;
    if (bd < 0 || bd > ir || bd >= pr) {
      ctx->SetStatus(InvalidArgument("batch_dims must be in [-", ir, ", ", ir, "] and less than the variable's rank ",
                                     pr, ", got ", batch_dims_, " (variable shape ", params.shape().ToString(),
                                     ", indices shape ", indices.shape().ToString(), ")"));
      return;
    }
    std::vector<int64_t> dims;
    int64_t batch = 1, n = 1, inner = 1;
    for (int i = 0; i < bd; ++i) {
      if (params.dim(i) != indices.dim(i)) {
        ctx->SetStatus(InvalidArgument("variable shape ", params.shape().ToString(), " and indices shape ",
                                       indices.shape().ToString(), " differ in batch dimension ", i));
        return;
      }
      batch *= params.dim(i);
      dims.push_back(params.dim(i));
    }
    for (int i = static_cast<int>(bd); i < ir; ++i) {
      n *= indices.dim(i);
      dims.push_back(indices.dim(i));
    }
    for (int i = static_cast<int>(bd) + 1; i < pr; ++i) {
      inner *= params.dim(i);
      dims.push_back(params.dim(i));
    }
    const int64_t limit = params.dim(static_cast<int>(bd));
    const I* idx = indices.data<I>();
    for (int64_t k = 0; k < batch * n; ++k) {
      if (idx[k] < 0 || idx[k] >= limit) {
        ctx->SetStatus(
            InvalidArgument("indices[", k, "] = ", static_cast<int64_t>(idx[k]), " is not in [0, ", limit, ")"));
        return;
      }
    }
    Tensor* out;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(std::move(dims)), &out));
    const size_t row = static_cast<size_t>(inner) * DataTypeSize(dtype_);
    const char* src = static_cast<const char*>(params.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    if (row == 0) return;
    ParallelItems(ctx->intra_op_pool(), batch * n, inner + 4, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t src_row = (r / n) * limit + static_cast<int64_t>(idx[r]);
        std::memcpy(dst + r * row, src + src_row * row, row);
      }
    });
  }

 private:
  // The variable's current value (a snapshot) after the checks ReadVariableOp makes.
  Status Snapshot(OpKernelContext* ctx, Tensor* out) const {
    RefPtr<Var> var;
    const ResourceHandle* h;
    TX_RETURN_IF_ERROR(LookupVar(ctx, 0, &var, &h));
    std::lock_guard<std::mutex> l(var->mu);
    if (!var->initialized) return UninitializedError(*h);
    if (var->dtype != dtype_)
      return InvalidArgument("Trying to gather from a variable of dtype ", DataTypeString(var->dtype), " with dtype ",
                             DataTypeString(dtype_));
    *out = var->value;
    if (out->rank() < 1)
      return InvalidArgument("params must be at least 1 dimensional, got shape ", out->shape().ToString());
    return Status::OK();
  }

  DataType dtype_ = DT_INVALID;
  int64_t batch_dims_ = 0;
};

TX_REGISTER_KERNEL(KernelDefBuilder("ResourceGather").TypeConstraint<int32_t>("Tindices"), ResourceGatherOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("ResourceGather").TypeConstraint<int64_t>("Tindices"), ResourceGatherOp<int64_t>);

}  // namespace
}  // namespace cpu
}  // namespace tx

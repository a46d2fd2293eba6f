// CPU kernel for Transpose: blocked 2-D/batched tiles, table gathers otherwise, buffer sharing
// when the permutation keeps the memory order.
#include <vector>

#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/index_copy.h"

namespace tx {
namespace cpu {
namespace {

class TransposeOp : public OpKernel {
 public:
  explicit TransposeOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, ctx->output_type(0)));
    const Tensor& in = ctx->input(0);
    std::vector<int64_t> perm64;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 1, "perm", 1, &perm64));
    const int rank = in.rank();
    if (static_cast<int>(perm64.size()) != rank) {
      ctx->SetStatus(InvalidArgument("transpose expects a vector of size ", rank,
                                     " (the input's rank), got perm of size ", perm64.size()));
      return;
    }
    std::vector<int> perm(rank);
    std::vector<bool> seen(rank, false);
    std::vector<int64_t> dims(rank);
    bool in_order = true;  // size-1 dims aside, the permutation keeps the memory order
    int last = -1;
    for (int d = 0; d < rank; ++d) {
      const int64_t p = perm64[d];
      if (p < 0 || p >= rank) {
        ctx->SetStatus(InvalidArgument("perm[", d, "] = ", p, " is out of range [0, ", rank, ")"));
        return;
      }
      if (seen[p]) {
        ctx->SetStatus(InvalidArgument("perm is not a permutation: ", p, " appears twice"));
        return;
      }
      seen[p] = true;
      perm[d] = static_cast<int>(p);
      dims[d] = in.dim(perm[d]);
      if (dims[d] != 1) {
        if (perm[d] < last) in_order = false;
        last = perm[d];
      }
    }
    if (in_order) {
      ctx->set_output(0, in.Reshaped(TensorShape(dims)));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    TransposeCopy(in, perm, out, ctx->intra_op_pool());
  }
};

TX_REGISTER_ARRAY_KERNEL("Transpose", TransposeOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

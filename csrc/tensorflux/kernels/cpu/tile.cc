// CPU kernels for Tile and BroadcastTo: modular and zero-stride axis tables (index_copy.h).
#include <vector>

#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/index_copy.h"

namespace tx {
namespace cpu {
namespace {

class TileOp : public OpKernel {
 public:
  explicit TileOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, ctx->output_type(0)));
    const Tensor& in = ctx->input(0);
    std::vector<int64_t> m;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 1, "multiples", 1, &m));
    const int rank = in.rank();
    if (static_cast<int>(m.size()) != rank) {
      ctx->SetStatus(
          InvalidArgument("Tile's multiples must have ", rank, " entries (the input's rank), got ", m.size()));
      return;
    }
    std::vector<int64_t> dims(rank);
    bool same = true;
    for (int d = 0; d < rank; ++d) {
      if (m[d] < 0) {
        ctx->SetStatus(InvalidArgument("Tile's multiples must be non-negative, got multiples[", d, "] = ", m[d]));
        return;
      }
      if (__builtin_mul_overflow(in.dim(d), m[d], &dims[d])) {
        ctx->SetStatus(InvalidArgument("Tile's output dimension ", d, " is too large"));
        return;
      }
      if (m[d] != 1) same = false;
    }
    if (same) {
      ctx->set_output(0, in);
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateChecked(ctx, 0, dims, &out));
    if (out->num_elements() == 0) return;
    const std::vector<int64_t> strides = RowMajorStrides(in.shape());
    std::vector<AxisTable> tables(rank);
    for (int d = 0; d < rank; ++d) {
      tables[d].resize(static_cast<size_t>(dims[d]));
      for (int64_t i = 0; i < dims[d]; ++i) tables[d][i] = (i % in.dim(d)) * strides[d];
    }
    AxisTableCopy(in, out, std::move(tables), nullptr, ctx->intra_op_pool());
  }
};

class BroadcastToOp : public OpKernel {
 public:
  explicit BroadcastToOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, ctx->output_type(0)));
    const Tensor& in = ctx->input(0);
    std::vector<int64_t> target;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 1, "shape", 1, &target));
    for (int64_t t : target)
      if (t < 0) {
        ctx->SetStatus(InvalidArgument("BroadcastTo target shape has a negative dimension ", t));
        return;
      }
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::ResolveBroadcastTo(PartialShape(in.shape()), target));
    if (target == in.shape().dims()) {
      ctx->set_output(0, in);
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateChecked(ctx, 0, target, &out));
    if (out->num_elements() == 0) return;
    const std::vector<int64_t> strides = RowMajorStrides(in.shape());
    const int tr = static_cast<int>(target.size()), lead = tr - in.rank();
    std::vector<AxisTable> tables(tr);
    for (int k = 0; k < tr; ++k) {
      const int d = k - lead;
      const bool bcast = d < 0 || in.dim(d) == 1;
      tables[k].resize(static_cast<size_t>(target[k]));
      for (int64_t i = 0; i < target[k]; ++i) tables[k][i] = bcast ? 0 : i * strides[d];
    }
    AxisTableCopy(in, out, std::move(tables), nullptr, ctx->intra_op_pool());
  }
};

TX_REGISTER_ARRAY_KERNEL("Tile", TileOp);
TX_REGISTER_ARRAY_KERNEL("BroadcastTo", BroadcastToOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

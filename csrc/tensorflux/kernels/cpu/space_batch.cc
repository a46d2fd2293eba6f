// CPU kernels for SpaceToBatchND, BatchToSpaceND, SpaceToDepth and DepthToSpace: each is a pad
// or crop (an axis-table copy, Note [Axis tables]) around one transpose of a reshaped view.
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/index_copy.h"
#include "tensorflux/ops/space_batch_util.h"

namespace tx {
namespace cpu {
namespace {

// Copies `in` into `out` (both of rank r) with out[i] = in[i - lo] per dimension; positions
// outside `in` get zero elements (ZeroPad), and when `out` is smaller this is a crop starting at -lo.
void ShiftCopy(const Tensor& in, const std::vector<int64_t>& lo, Tensor* out, ThreadPool* pool) {
  const std::vector<int64_t> strides = RowMajorStrides(in.shape());
  std::vector<AxisTable> tables(in.rank());
  for (int d = 0; d < in.rank(); ++d) {
    tables[d].resize(out->dim(d));
    for (int64_t i = 0; i < out->dim(d); ++i) {
      const int64_t j = i - lo[d];
      tables[d][i] = j >= 0 && j < in.dim(d) ? j * strides[d] : -1;
    }
  }
  AxisTableCopy(in, out, std::move(tables), ZeroPad(out->dtype()), pool);
}

int64_t Product(const std::vector<int64_t>& v, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= v[i];
  return p;
}

// SpaceToBatchND (kToBatch) and BatchToSpaceND.
template <bool kToBatch>
class SpaceBatchOp : public OpKernel {
 public:
  explicit SpaceBatchOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    const char* op = kToBatch ? "SpaceToBatchND" : "BatchToSpaceND";
    const Tensor& in = ctx->input(0);
    const Tensor& block_t = ctx->input(1);
    const Tensor& pads_t = ctx->input(2);
    if (block_t.rank() != 1) {
      ctx->SetStatus(InvalidArgument(op, ": block_shape must be 1-D, got shape ", block_t.shape().ToString()));
      return;
    }
    if (pads_t.rank() != 2 || pads_t.dim(1) != 2 || pads_t.dim(0) != block_t.dim(0)) {
      ctx->SetStatus(InvalidArgument(op, ": ", kToBatch ? "paddings" : "crops", " must have shape [", block_t.dim(0),
                                     ", 2], got ", pads_t.shape().ToString()));
      return;
    }
    std::vector<int64_t> block, pads, out_dims;
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::ReadInts(block_t, "block_shape", &block));
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::ReadInts(pads_t, kToBatch ? "paddings" : "crops", &pads));
    const std::vector<int64_t> in_dims = in.shape().dims();
    TX_CTX_RETURN_IF_ERROR(ctx, space_batch::Resolve(op, in_dims, block, pads, kToBatch, &out_dims));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateChecked(ctx, 0, out_dims, &out));
    if (out->num_elements() == 0) return;
    const size_t m = block.size();
    const int64_t rest = Product(in_dims, 1 + m, in_dims.size());
    ThreadPool* pool = ctx->intra_op_pool();
    if (kToBatch) {
      // Pad, view as [B, P1/b1, b1, ..., PM/bM, bM, rest], move the b's in front of B.
      std::vector<int64_t> padded = in_dims, lo(in_dims.size(), 0);
      for (size_t i = 0; i < m; ++i) {
        padded[1 + i] += pads[2 * i] + pads[2 * i + 1];
        lo[1 + i] = pads[2 * i];
      }
      Tensor p;
      TX_CTX_RETURN_IF_ERROR(ctx, Tensor::Allocate(in.dtype(), TensorShape(padded), &p));
      ShiftCopy(in, lo, &p, pool);
      std::vector<int64_t> view = {in_dims[0]};
      for (size_t i = 0; i < m; ++i) {
        view.push_back(padded[1 + i] / block[i]);
        view.push_back(block[i]);
      }
      view.push_back(rest);
      std::vector<int> perm;
      for (size_t i = 0; i < m; ++i) perm.push_back(static_cast<int>(2 + 2 * i));
      perm.push_back(0);
      for (size_t i = 0; i < m; ++i) perm.push_back(static_cast<int>(1 + 2 * i));
      perm.push_back(static_cast<int>(2 * m + 1));
      std::vector<int64_t> out_view;
      for (int d : perm) out_view.push_back(view[d]);
      Tensor dst = out->Reshaped(TensorShape(out_view));
      TransposeCopy(p.Reshaped(TensorShape(view)), perm, &dst, pool);
    } else {
      // View as [b1, ..., bM, B, I1, ..., IM, rest], interleave to [B, I1, b1, ..., rest], crop.
      const int64_t batch = out_dims[0];
      std::vector<int64_t> view(block.begin(), block.end());
      view.push_back(batch);
      for (size_t i = 0; i < m; ++i) view.push_back(in_dims[1 + i]);
      view.push_back(rest);
      std::vector<int> perm = {static_cast<int>(m)};
      for (size_t i = 0; i < m; ++i) {
        perm.push_back(static_cast<int>(m + 1 + i));
        perm.push_back(static_cast<int>(i));
      }
      perm.push_back(static_cast<int>(2 * m + 1));
      std::vector<int64_t> t_view;
      for (int d : perm) t_view.push_back(view[d]);
      Tensor t;
      TX_CTX_RETURN_IF_ERROR(ctx, Tensor::Allocate(in.dtype(), TensorShape(t_view), &t));
      TransposeCopy(in.Reshaped(TensorShape(view)), perm, &t, pool);
      std::vector<int64_t> full = in_dims, lo(in_dims.size(), 0);
      full[0] = batch;
      for (size_t i = 0; i < m; ++i) {
        full[1 + i] = in_dims[1 + i] * block[i];
        lo[1 + i] = -pads[2 * i];
      }
      ShiftCopy(t.Reshaped(TensorShape(full)), lo, out, pool);
    }
  }
};

// SpaceToDepth (kToDepth) and DepthToSpace in NHWC or NCHW: one transpose of a rank-6 view.
template <bool kToDepth>
class DepthOp : public OpKernel {
 public:
  explicit DepthOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("block_size", &block_));
    c->SetStatus(c->GetAttr("data_format", &format_));
    if (c->status().ok()) c->SetStatus(ParseDataFormat(kToDepth ? "SpaceToDepth" : "DepthToSpace", format_, &layout_));
  }

  void Compute(OpKernelContext* ctx) override {
    const char* op = kToDepth ? "SpaceToDepth" : "DepthToSpace";
    const Tensor& in = ctx->input(0);
    std::vector<int64_t> out_dims;
    TX_CTX_RETURN_IF_ERROR(ctx, space_batch::ResolveDepth(op, in.shape().dims(), block_, format_, kToDepth, &out_dims));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateChecked(ctx, 0, out_dims, &out));
    if (out->num_elements() == 0) return;
    const int64_t b = block_;
    const bool nchw = layout_.channels_first;
    // The space side [N, H, W, C] (or [N, C, H, W]) with H = Hs * b, W = Ws * b, C = Cs.
    const std::vector<int64_t>& space = kToDepth ? in.shape().dims() : out_dims;
    const std::vector<int64_t>& depth = kToDepth ? out_dims : in.shape().dims();
    const int64_t n = space[0];
    const int64_t c = nchw ? space[1] : space[3];
    const int64_t hs = nchw ? depth[2] : depth[1], ws = nchw ? depth[3] : depth[2];
    // Space view and depth view, and the permutation taking the space view to the depth view.
    std::vector<int64_t> sview, dview;
    std::vector<int> perm;
    if (nchw) {
      sview = {n, c, hs, b, ws, b};
      perm = {0, 3, 5, 1, 2, 4};  // [N, bh, bw, C, Hs, Ws]
    } else {
      sview = {n, hs, b, ws, b, c};
      perm = {0, 1, 3, 2, 4, 5};  // [N, Hs, Ws, bh, bw, C]
    }
    for (int d : perm) dview.push_back(sview[d]);
    if (kToDepth) {
      Tensor dst = out->Reshaped(TensorShape(dview));
      TransposeCopy(in.Reshaped(TensorShape(sview)), perm, &dst, ctx->intra_op_pool());
    } else {
      std::vector<int> inv(perm.size());
      for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int>(i);
      Tensor dst = out->Reshaped(TensorShape(sview));
      TransposeCopy(in.Reshaped(TensorShape(dview)), inv, &dst, ctx->intra_op_pool());
    }
  }

 private:
  int64_t block_ = 0;
  DataFormat layout_;
  std::string format_;
};

TX_REGISTER_ARRAY_KERNEL("SpaceToBatchND", SpaceBatchOp<true>);
TX_REGISTER_ARRAY_KERNEL("BatchToSpaceND", SpaceBatchOp<false>);
TX_REGISTER_ARRAY_KERNEL("SpaceToDepth", DepthOp<true>);
TX_REGISTER_ARRAY_KERNEL("DepthToSpace", DepthOp<false>);

}  // namespace
}  // namespace cpu
}  // namespace tx

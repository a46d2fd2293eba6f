// CPU kernels for Pad, PadV2 and MirrorPad: axis tables with -1 (constant) or mirrored entries.
#include <cstring>
#include <vector>

#include "tensorflux/core/object_types.h"
#include "tensorflux/kernels/cpu/array_grad_util.h"
#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/index_copy.h"

namespace tx {
namespace cpu {
namespace {

// mode 0: constant (Pad, PadV2); 1: REFLECT; 2: SYMMETRIC.
class PadOp : public OpKernel {
 public:
  explicit PadOp(OpKernelConstruction* c) : OpKernel(c) {
    if (c->op_type() == "MirrorPad") {
      std::string mode;
      c->SetStatus(c->GetAttr("mode", &mode));
      mode_ = mode == "REFLECT" ? 1 : 2;
    }
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, ctx->output_type(0)));
    const Tensor& in = ctx->input(0);
    const int rank = in.rank();
    std::vector<int64_t> pads, dims;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadPaddings(ctx, 1, rank, &pads));
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::ResolvePad(PartialShape(in.shape()), pads, mode_, &dims));
    alignas(16) unsigned char pad_bytes[16] = {0};
    const void* pad_value = ZeroPad(in.dtype());
    if (ctx->num_inputs() > 2) {
      const Tensor& cv = ctx->input(2);
      TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, ctx->output_type(0)));
      if (cv.rank() != 0 || cv.num_elements() != 1) {
        ctx->SetStatus(InvalidArgument("constant_values must be a scalar, got shape ", cv.shape().ToString()));
        return;
      }
      if (ObjectOpsFor(cv.dtype()) != nullptr) {
        pad_value = cv.raw_data();  // an element (string) itself, copied by AxisTableCopy
      } else {
        std::memcpy(pad_bytes, cv.raw_data(), DataTypeSize(cv.dtype()));
        pad_value = pad_bytes;
      }
    }
    if (dims == in.shape().dims()) {
      ctx->set_output(0, in);
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateChecked(ctx, 0, dims, &out));
    if (out->num_elements() == 0) return;
    const std::vector<int64_t> strides = RowMajorStrides(in.shape());
    std::vector<AxisTable> tables(rank);
    for (int d = 0; d < rank; ++d) {
      const int64_t n = in.dim(d), lo = pads[2 * d];
      tables[d].resize(static_cast<size_t>(dims[d]));
      for (int64_t i = 0; i < dims[d]; ++i) {
        int64_t j = i - lo;
        if (j < 0 || j >= n) {
          if (mode_ == 0) {
            tables[d][i] = -1;
            continue;
          }
          if (mode_ == 1)
            j = j < 0 ? -j : 2 * (n - 1) - j;
          else
            j = j < 0 ? -j - 1 : 2 * n - 1 - j;
        }
        tables[d][i] = j * strides[d];
      }
    }
    AxisTableCopy(in, out, std::move(tables), pad_value, ctx->intra_op_pool());
  }

 private:
  int mode_ = 0;
};

TX_REGISTER_ARRAY_KERNEL("Pad", PadOp);
TX_REGISTER_ARRAY_KERNEL("PadV2", PadOp);
TX_REGISTER_ARRAY_KERNEL("MirrorPad", PadOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernel for ExtractImagePatches: every (dilated) ksize patch of a [batch, rows, cols,
// depth] image, flattened into the depth of one output position. A copy, so one kernel serves
// every element type (by element size); positions in the padding read zeros.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/ops/image_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

class ExtractImagePatchesOp : public OpKernel {
 public:
  explicit ExtractImagePatchesOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("ksizes", &ksizes_));
    if (c->status().ok()) c->SetStatus(c->GetAttr("strides", &strides_));
    if (c->status().ok()) c->SetStatus(c->GetAttr("rates", &rates_));
    if (c->status().ok()) c->SetStatus(c->GetAttr("padding", &padding_));
    if (c->status().ok()) c->SetStatus(c->GetAttr("T", &dtype_));
  }
  bool IsExpensive() const override { return true; }

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "ExtractImagePatches";
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, dtype_));
    const Tensor& in = ctx->input(0);
    if (in.rank() != 4) {
      ctx->SetStatus(
          InvalidArgument(kOp, ": images must be 4-D [batch, rows, cols, depth], got shape ", in.shape().ToString()));
      return;
    }
    const int64_t batch = in.dim(0), rows = in.dim(1), cols = in.dim(2), depth = in.dim(3);
    image_util::PatchGeometry g;
    TX_CTX_RETURN_IF_ERROR(
        ctx, image_util::ExtractPatchesGeometry(kOp, rows, cols, ksizes_, strides_, rates_, padding_, &g));
    const int64_t patch = g.k_rows * g.k_cols * depth;
    const int64_t dims[4] = {batch, g.out_rows, g.out_cols, patch};
    TensorShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, TensorShape::Make(dims, 4, &shape));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    if (out->num_elements() == 0) return;
    const size_t elem = DataTypeSize(dtype_), pixel = static_cast<size_t>(depth) * elem;
    const char* src = static_cast<const char*>(in.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    ParallelItems(ctx->intra_op_pool(), batch * g.out_rows, g.out_cols * patch, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t b = r / g.out_rows, oy = r % g.out_rows;
        char* o = dst + static_cast<size_t>(r * g.out_cols * patch) * elem;
        for (int64_t ox = 0; ox < g.out_cols; ++ox)
          for (int64_t i = 0; i < g.k_rows; ++i) {
            const int64_t y = oy * g.stride_rows + i * g.rate_rows - g.pad_top;
            for (int64_t j = 0; j < g.k_cols; ++j, o += pixel) {
              const int64_t x = ox * g.stride_cols + j * g.rate_cols - g.pad_left;
              if (y < 0 || y >= rows || x < 0 || x >= cols)
                std::memset(o, 0, pixel);
              else
                std::memcpy(o, src + static_cast<size_t>(((b * rows + y) * cols + x)) * pixel, pixel);
            }
          }
      }
    });
  }

 private:
  std::vector<int64_t> ksizes_, strides_, rates_;
  std::string padding_;
  DataType dtype_ = DT_FLOAT;
};

// Every type of TensorFlow's OpDef (the kernel copies bytes).
const DataType kPatchTypes[] = {DT_BFLOAT16, DT_HALF,   DT_FLOAT,     DT_DOUBLE,     DT_INT8,
                                DT_INT16,    DT_INT32,  DT_INT64,     DT_UINT8,      DT_UINT16,
                                DT_UINT32,   DT_UINT64, DT_COMPLEX64, DT_COMPLEX128, DT_BOOL};

struct RegisterPatches {
  RegisterPatches() {
    for (DataType dt : kPatchTypes)
      KernelRegistry::Global()->Register(
          KernelDefBuilder("ExtractImagePatches")
              .TypeConstraint("T", dt)
              .Build([](OpKernelConstruction* c) -> OpKernel* { return new ExtractImagePatchesOp(c); }));
  }
} register_patches;

}  // namespace
}  // namespace cpu
}  // namespace tx

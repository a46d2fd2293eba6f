// CPU kernels that create constant-valued tensors: Fill, ZerosLike, OnesLike (Fill and ZerosLike
// also for strings: copies of the value, and empty strings).
#include <cstdint>
#include <cstring>
#include <vector>

#include "tensorflux/core/object_types.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Writes n copies of the `elem`-byte pattern `value` to dst, in parallel for large n.
void FillPattern(ThreadPool* pool, void* dst, int64_t n, size_t elem, const void* value) {
  auto fill = [&](auto tag) {
    using W = decltype(tag);
    W v;
    std::memcpy(&v, value, sizeof(W));
    W* d = static_cast<W*>(dst);
    ParallelRange(pool, n, 1, [&](int64_t b, int64_t e) { std::fill(d + b, d + e, v); });
  };
  switch (elem) {
    case 1: fill(uint8_t{}); return;
    case 2: fill(uint16_t{}); return;
    case 4: fill(uint32_t{}); return;
    case 8: fill(uint64_t{}); return;
    default: {
      char* d = static_cast<char*>(dst);
      for (int64_t i = 0; i < n; ++i) std::memcpy(d + i * elem, value, elem);
    }
  }
}

// Fill(dims, value): a tensor of shape dims holding value everywhere.
class FillOp : public OpKernel {
 public:
  explicit FillOp(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& dims = ctx->input(0);
    const Tensor& value = ctx->input(1);
    if (dims.rank() != 1 || (dims.dtype() != DT_INT32 && dims.dtype() != DT_INT64)) {
      ctx->SetStatus(InvalidArgument("dims must be a 1-D int32 or int64 tensor, got a ", DataTypeString(dims.dtype()),
                                     " tensor of shape ", dims.shape().ToString()));
      return;
    }
    if (value.rank() != 0) {
      ctx->SetStatus(InvalidArgument("value must be a scalar, got shape ", value.shape().ToString()));
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, dims.dtype()));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, ctx->output_type(0)));
    std::vector<int64_t> d(static_cast<size_t>(dims.num_elements()));
    for (size_t i = 0; i < d.size(); ++i) {
      d[i] = dims.dtype() == DT_INT32 ? dims.data<int32_t>()[i] : dims.data<int64_t>()[i];
      if (d[i] < 0) {
        ctx->SetStatus(InvalidArgument("Fill dimensions must be >= 0, got dims ", dims.shape().ToString(),
                                       " with entry ", i, " = ", d[i]));
        return;
      }
    }
    TensorShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, TensorShape::Make(d.data(), static_cast<int>(d.size()), &shape));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    if (out->num_elements() == 0) return;
    if (ObjectOpsFor(value.dtype()) != nullptr) {  // strings: one copy per element
      char* d = static_cast<char*>(out->raw_data());
      const size_t elem = DataTypeSize(value.dtype());
      for (int64_t i = 0; i < out->num_elements(); ++i) CopyElements(value.dtype(), value.raw_data(), d + i * elem, 1);
      return;
    }
    FillPattern(ctx->intra_op_pool(), out->raw_data(), out->num_elements(), DataTypeSize(value.dtype()),
                value.raw_data());
  }
};

// ZerosLike (kOne false) or OnesLike (kOne true): x's shape and type, every element 0 or 1.
template <bool kOne>
class ConstLikeOp : public OpKernel {
 public:
  explicit ConstLikeOp(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* ctx) override {
    const DataType dt = ctx->output_type(0);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, dt));
    if (!kOne && ObjectOpsFor(dt) != nullptr && dt != DT_STRING) {
      ctx->SetStatus(InvalidArgument("ZerosLike does not support type ", DataTypeString(dt)));
      return;
    }
    // The byte pattern of 1 in dt; 16 bytes so complex128's zero is read in full.
    uint64_t pattern[2] = {0, 0};
    uint64_t& one = pattern[0];
    if (kOne) {
      switch (dt) {
        case DT_FLOAT: {
          float v = 1;
          std::memcpy(&one, &v, 4);
          break;
        }
        case DT_DOUBLE: {
          double v = 1;
          std::memcpy(&one, &v, 8);
          break;
        }
        case DT_HALF: one = 0x3C00; break;
        case DT_BFLOAT16: one = 0x3F80; break;
        case DT_INT8:
        case DT_UINT8:
        case DT_INT16:
        case DT_UINT16:
        case DT_INT32:
        case DT_UINT32:
        case DT_INT64:
        case DT_UINT64:
        case DT_BOOL: one = 1; break;
        // Complex block: 1 + 0i.
        case DT_COMPLEX64: {
          const float v[2] = {1, 0};
          std::memcpy(pattern, v, 8);
          break;
        }
        case DT_COMPLEX128: {
          const double v[2] = {1, 0};
          std::memcpy(pattern, v, 16);
          break;
        }
        default: ctx->SetStatus(InvalidArgument("OnesLike does not support type ", DataTypeString(dt))); return;
      }
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->forward_input_or_allocate_output(0, 0, ctx->input(0).shape(), &out));
    // Strings are allocated empty, which is their zero: ZerosLike is then done.
    if (out->num_elements() == 0 || dt == DT_STRING) return;
    FillPattern(ctx->intra_op_pool(), out->raw_data(), out->num_elements(), DataTypeSize(dt), pattern);
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("Fill"), FillOp);
TX_REGISTER_KERNEL(KernelDefBuilder("ZerosLike"), ConstLikeOp<false>);
TX_REGISTER_KERNEL(KernelDefBuilder("OnesLike"), ConstLikeOp<true>);

}  // namespace
}  // namespace cpu
}  // namespace tx

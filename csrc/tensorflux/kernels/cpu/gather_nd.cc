// CPU kernel for GatherNd: slices of params addressed by index tuples (the last axis of indices).
// Data is only moved, so one kernel serves every stored dtype.
#include <cstring>
#include <string>
#include <vector>

#include "tensorflux/core/object_types.h"
#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

template <typename I>
class GatherNdOp : public OpKernel {
 public:
  explicit GatherNdOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(ParseBadIndicesPolicy(c, &ignore_)); }
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, params.dtype()));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<I>::value));
    if (indices.rank() < 1) {
      ctx->SetStatus(InvalidArgument("indices must be at least 1 dimensional, got shape ", indices.shape().ToString()));
      return;
    }
    const int64_t n = indices.dim(indices.rank() - 1);
    if (n > params.rank()) {
      ctx->SetStatus(
          InvalidArgument("index innermost dimension length must be <= params rank; saw: ", n, " vs. ", params.rank()));
      return;
    }
    const int nn = static_cast<int>(n);
    std::vector<int64_t> dims(indices.shape().dims().begin(), indices.shape().dims().end() - 1);
    for (int i = nn; i < params.rank(); ++i) dims.push_back(params.dim(i));
    TensorShape out_shape;
    TX_CTX_RETURN_IF_ERROR(ctx, TensorShape::Make(dims.data(), static_cast<int>(dims.size()), &out_shape));
    const int64_t tuples = DimProduct(indices.shape(), 0, indices.rank() - 1);
    const int64_t slice = DimProduct(params.shape(), nn, params.rank());
    // offsets[t]: the slice number of tuple t, or -1 when it is out of range (IGNORE policy).
    std::vector<int64_t> offsets;
    TX_CTX_RETURN_IF_ERROR(ctx, IndexTupleOffsets<I>(indices, params.shape(), ignore_, "param shape", &offsets));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    if (ObjectOpsFor(params.dtype()) != nullptr) {  // strings: element copies; skipped tuples stay empty
      const int64_t slice_bytes = slice * static_cast<int64_t>(DataTypeSize(params.dtype()));
      const char* p = static_cast<const char*>(params.raw_data());
      char* o = static_cast<char*>(out->raw_data());
      for (int64_t t = 0; t < tuples; ++t)
        if (offsets[t] >= 0) CopyElements(params.dtype(), p + offsets[t] * slice_bytes, o + t * slice_bytes, slice);
      return;
    }
    const bool ok = DispatchBySize(params.dtype(), [&](auto tag) {
      using E = decltype(tag);
      const E* p = params.data<E>();
      E* o = out->data<E>();
      ParallelItems(ctx->intra_op_pool(), tuples, slice + 4, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          E* dst = o + t * slice;
          if (offsets[t] < 0)
            std::memset(static_cast<void*>(dst), 0, static_cast<size_t>(slice) * sizeof(E));
          else if (slice == 1)
            *dst = p[offsets[t]];
          else
            std::memcpy(dst, p + offsets[t] * slice, static_cast<size_t>(slice) * sizeof(E));
        }
      });
    });
    if (!ok) ctx->SetStatus(InvalidArgument("GatherNd does not support dtype ", DataTypeString(params.dtype())));
  }

 private:
  bool ignore_ = false;
};

template <typename I>
void RegisterFor() {
  std::vector<DataType> types(std::begin(kStorageTypes), std::end(kStorageTypes));
  types.push_back(DT_STRING);
  for (DataType t : types)
    KernelRegistry::Global()->Register(
        KernelDefBuilder("GatherNd")
            .TypeConstraint("Tparams", t)
            .TypeConstraint<I>("Tindices")
            .Build([](OpKernelConstruction* c) -> OpKernel* { return new GatherNdOp<I>(c); }));
}

const bool kRegistered = [] {
  RegisterFor<int16_t>();
  RegisterFor<int32_t>();
  RegisterFor<int64_t>();
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

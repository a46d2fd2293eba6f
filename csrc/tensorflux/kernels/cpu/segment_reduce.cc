// CPU kernels for the sorted segment reductions SegmentSum, SegmentMean, SegmentMax, SegmentMin
// and SegmentProd: one pass over the rows, each run of equal ids reduced into its output row;
// segments no row names get 0 (1 for SegmentProd), as in TensorFlow.
#include <cstdint>
#include <type_traits>

#include "tensorflux/kernels/cpu/binary_functors.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

enum class Reduce { kSum, kMean, kMax, kMin, kProd };

template <Reduce R, typename T>
inline T Combine(T acc, T v) {
  if constexpr (R == Reduce::kSum || R == Reduce::kMean) return AddFn::Apply(acc, v);  // integers wrap
  if constexpr (R == Reduce::kProd) return MulFn::Apply(acc, v);
  if constexpr (R == Reduce::kMax) {
    if constexpr (std::is_floating_point_v<T>)
      return (v > acc || v != v) ? v : acc;  // NaN propagates
    else
      return v > acc ? v : acc;
  }
  if constexpr (R == Reduce::kMin) {
    if constexpr (std::is_floating_point_v<T>)
      return (v < acc || v != v) ? v : acc;
    else
      return v < acc ? v : acc;
  }
  return acc;
}

template <typename T, typename I, Reduce R>
class SegmentReduceOp : public OpKernel {
 public:
  explicit SegmentReduceOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<I>::value));
    const Tensor& data = ctx->input(0);
    const Tensor& ids_t = ctx->input(1);
    if (data.rank() < 1) {
      ctx->SetStatus(InvalidArgument("data must be at least rank 1, got shape ", data.shape().ToString()));
      return;
    }
    if (ids_t.rank() != 1 || ids_t.dim(0) != data.dim(0)) {
      ctx->SetStatus(InvalidArgument("segment_ids should be a vector the size of dimension 0 of data: shapes ",
                                     ids_t.shape().ToString(), " and ", data.shape().ToString()));
      return;
    }
    const int64_t n = data.dim(0);
    const I* ids = ids_t.data<I>();
    for (int64_t i = 0; i < n; ++i) {
      if (ids[i] < 0) {
        ctx->SetStatus(InvalidArgument("segment ids must be >= 0, got ", static_cast<int64_t>(ids[i])));
        return;
      }
      if (i > 0 && ids[i] < ids[i - 1]) {
        ctx->SetStatus(InvalidArgument("segment ids are not increasing: ", static_cast<int64_t>(ids[i]), " follows ",
                                       static_cast<int64_t>(ids[i - 1])));
        return;
      }
    }
    const int64_t segments = n == 0 ? 0 : static_cast<int64_t>(ids[n - 1]) + 1;
    TensorShape out_shape = data.shape();
    out_shape.set_dim(0, segments);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, out_shape, &out));
    int64_t inner = 1;
    for (int d = 1; d < data.rank(); ++d) inner *= data.dim(d);
    T* o = out->data<T>();
    const T empty = R == Reduce::kProd ? T(1) : T(0);
    for (int64_t i = 0; i < out->num_elements(); ++i) o[i] = empty;
    const T* x = data.data<T>();
    for (int64_t start = 0; start < n;) {
      int64_t end = start + 1;
      while (end < n && ids[end] == ids[start]) ++end;
      T* row = o + static_cast<int64_t>(ids[start]) * inner;
      for (int64_t j = 0; j < inner; ++j) row[j] = x[start * inner + j];
      for (int64_t r = start + 1; r < end; ++r)
        for (int64_t j = 0; j < inner; ++j) row[j] = Combine<R, T>(row[j], x[r * inner + j]);
      if constexpr (R == Reduce::kMean) {
        const T count = static_cast<T>(end - start);
        for (int64_t j = 0; j < inner; ++j) row[j] = row[j] / count;
      }
      start = end;
    }
  }
};

template <typename T, Reduce R>
void RegisterOne(const char* op) {
  KernelRegistry::Global()->Register(
      KernelDefBuilder(op)
          .TypeConstraint("T", DataTypeOf<T>::value)
          .TypeConstraint("Tindices", DT_INT32)
          .Build([](OpKernelConstruction* c) -> OpKernel* { return new SegmentReduceOp<T, int32_t, R>(c); }));
  KernelRegistry::Global()->Register(
      KernelDefBuilder(op)
          .TypeConstraint("T", DataTypeOf<T>::value)
          .TypeConstraint("Tindices", DT_INT64)
          .Build([](OpKernelConstruction* c) -> OpKernel* { return new SegmentReduceOp<T, int64_t, R>(c); }));
}

template <typename T>
void RegisterFor() {
  RegisterOne<T, Reduce::kSum>("SegmentSum");
  RegisterOne<T, Reduce::kMean>("SegmentMean");
  RegisterOne<T, Reduce::kMax>("SegmentMax");
  RegisterOne<T, Reduce::kMin>("SegmentMin");
  RegisterOne<T, Reduce::kProd>("SegmentProd");
}

const bool kRegistered = [] {
  RegisterFor<float>();
  RegisterFor<double>();
  RegisterFor<int32_t>();
  RegisterFor<int64_t>();
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

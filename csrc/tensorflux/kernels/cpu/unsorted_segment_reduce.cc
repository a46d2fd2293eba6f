// CPU kernels for UnsortedSegmentMax, UnsortedSegmentMin and UnsortedSegmentProd: every output
// row starts at the reduction's identity (lowest, highest, 1) and folds in the data rows whose
// segment id names it; negative ids are dropped, ids >= num_segments are errors.
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "tensorflux/kernels/cpu/index_copy.h"
#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/ops/array_util.h"
#include "tensorflux/ops/grad_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

enum class Reduce { kMax, kMin, kProd };

template <Reduce R, typename T>
constexpr T Identity() {
  if constexpr (R == Reduce::kProd) return T(1);
  if constexpr (R == Reduce::kMax) return std::numeric_limits<T>::lowest();
  return std::numeric_limits<T>::max();
}

template <Reduce R, typename T>
inline T Fold(T acc, T v) {
  if constexpr (R == Reduce::kProd) return MulFn::Apply(acc, v);
  if constexpr (R == Reduce::kMax) return MaximumFn::Apply(acc, v);
  return MinimumFn::Apply(acc, v);
}

template <typename T, typename I, Reduce R>
class UnsortedSegmentReduceOp : public OpKernel {
 public:
  explicit UnsortedSegmentReduceOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<I>::value));
    const Tensor& data = ctx->input(0);
    const Tensor& ids = ctx->input(1);
    const Tensor& ns = ctx->input(2);
    if (ns.rank() != 0) {
      ctx->SetStatus(InvalidArgument("num_segments should be a scalar, not shape ", ns.shape().ToString()));
      return;
    }
    int64_t num_segments = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::ReadScalarInt(ns, "num_segments", &num_segments));
    if (num_segments < 0) {
      ctx->SetStatus(InvalidArgument("Input num_segments == ", num_segments, " must not be negative."));
      return;
    }
    std::vector<int64_t> dims;
    TX_CTX_RETURN_IF_ERROR(
        ctx,
        grad_util::SegmentReductionDims(PartialShape(data.shape()), PartialShape(ids.shape()), num_segments, &dims));
    const int64_t n = ids.num_elements();
    const I* id = ids.data<I>();
    TX_CTX_RETURN_IF_ERROR(ctx, grad_util::CheckSegmentIds(id, ids.shape().dims(), n, num_segments));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateChecked(ctx, 0, dims, &out));
    T* o = out->data<T>();
    for (int64_t i = 0; i < out->num_elements(); ++i) o[i] = Identity<R, T>();
    if (out->num_elements() == 0) return;
    const int64_t inner = out->num_elements() / num_segments;
    const T* x = data.data<T>();
    for (int64_t k = 0; k < n; ++k) {
      if (id[k] < 0) continue;
      T* row = o + static_cast<int64_t>(id[k]) * inner;
      const T* src = x + k * inner;
      for (int64_t j = 0; j < inner; ++j) row[j] = Fold<R, T>(row[j], src[j]);
    }
  }
};

template <typename T, Reduce R>
void RegisterOne(const char* op) {
  for (DataType tn : {DT_INT32, DT_INT64}) {
    KernelRegistry::Global()->Register(
        KernelDefBuilder(op)
            .TypeConstraint("T", DataTypeOf<T>::value)
            .TypeConstraint("Tindices", DT_INT32)
            .TypeConstraint("Tnumsegments", tn)
            .Build([](OpKernelConstruction* c) -> OpKernel* { return new UnsortedSegmentReduceOp<T, int32_t, R>(c); }));
    KernelRegistry::Global()->Register(
        KernelDefBuilder(op)
            .TypeConstraint("T", DataTypeOf<T>::value)
            .TypeConstraint("Tindices", DT_INT64)
            .TypeConstraint("Tnumsegments", tn)
            .Build([](OpKernelConstruction* c) -> OpKernel* { return new UnsortedSegmentReduceOp<T, int64_t, R>(c); }));
  }
}

template <typename T>
void RegisterFor() {
  RegisterOne<T, Reduce::kMax>("UnsortedSegmentMax");
  RegisterOne<T, Reduce::kMin>("UnsortedSegmentMin");
  RegisterOne<T, Reduce::kProd>("UnsortedSegmentProd");
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

// CPU kernels for TensorScatterUpdate, TensorScatterSub, TensorScatterMin and TensorScatterMax: a
// copy of `tensor` (or its buffer, when this op holds the only reference) with the update slices
// applied at the index tuples in order (for Update, the last duplicate wins).
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/ops/grad_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

enum class Combine { kUpdate, kSub, kMin, kMax };

template <Combine C, typename T>
inline T Apply(T old, T update) {
  if constexpr (C == Combine::kUpdate) return update;
  if constexpr (C == Combine::kSub) return SubFn::Apply(old, update);  // integers wrap
  if constexpr (C == Combine::kMin) return MinimumFn::Apply(old, update);
  if constexpr (C == Combine::kMax) return MaximumFn::Apply(old, update);
  return old;
}

template <Combine C, typename T, typename I>
class TensorScatterOp : public OpKernel {
 public:
  explicit TensorScatterOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(ParseBadIndicesPolicy(c, &ignore_)); }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<I>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, DataTypeOf<T>::value));
    const Tensor& tensor = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    TX_CTX_RETURN_IF_ERROR(ctx,
                           grad_util::CheckTensorScatter(PartialShape(tensor.shape()), PartialShape(indices.shape()),
                                                         PartialShape(updates.shape())));
    const int nn = static_cast<int>(indices.dim(indices.rank() - 1));
    std::vector<int64_t> offsets;
    TX_CTX_RETURN_IF_ERROR(ctx, IndexTupleOffsets<I>(indices, tensor.shape(), ignore_, "shape", &offsets));
    const T* src = tensor.data<T>();
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->forward_input_or_allocate_output(0, 0, tensor.shape(), &out));
    if (out->num_elements() == 0) return;
    T* o = out->data<T>();
    if (o != src) std::memcpy(static_cast<void*>(o), src, static_cast<size_t>(out->num_elements()) * sizeof(T));
    const int64_t slice = DimProduct(tensor.shape(), nn, tensor.rank());
    const T* u = updates.data<T>();
    for (size_t t = 0; t < offsets.size(); ++t) {
      if (offsets[t] < 0) continue;  // ignored by bad_indices_policy
      T* dst = o + offsets[t] * slice;
      const T* up = u + static_cast<int64_t>(t) * slice;
      for (int64_t j = 0; j < slice; ++j) dst[j] = Apply<C, T>(dst[j], up[j]);
    }
  }

 private:
  bool ignore_ = false;
};

template <Combine C, typename T, typename I>
void RegisterOne(const char* op) {
  KernelRegistry::Global()->Register(
      KernelDefBuilder(op)
          .TypeConstraint("T", DataTypeOf<T>::value)
          .TypeConstraint("Tindices", DataTypeOf<I>::value)
          .Build([](OpKernelConstruction* c) -> OpKernel* { return new TensorScatterOp<C, T, I>(c); }));
}

template <typename T>
void RegisterFor() {
  RegisterOne<Combine::kUpdate, T, int32_t>("TensorScatterUpdate");
  RegisterOne<Combine::kUpdate, T, int64_t>("TensorScatterUpdate");
  if constexpr (!std::is_same_v<T, bool>) {
    RegisterOne<Combine::kSub, T, int32_t>("TensorScatterSub");
    RegisterOne<Combine::kSub, T, int64_t>("TensorScatterSub");
    RegisterOne<Combine::kMin, T, int32_t>("TensorScatterMin");
    RegisterOne<Combine::kMin, T, int64_t>("TensorScatterMin");
    RegisterOne<Combine::kMax, T, int32_t>("TensorScatterMax");
    RegisterOne<Combine::kMax, T, int64_t>("TensorScatterMax");
  }
}

const bool kRegistered = [] {
  RegisterFor<float>();
  RegisterFor<double>();
  RegisterFor<int32_t>();
  RegisterFor<int64_t>();
  RegisterFor<bool>();
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

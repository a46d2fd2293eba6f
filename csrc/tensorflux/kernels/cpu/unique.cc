// CPU kernels for Unique and UniqueWithCounts: one pass with a hash map from value to its index
// among the distinct values (first appearance order, as TensorFlow's kernel). Equal floats share
// an entry (0.0 and -0.0 too); every NaN is distinct, since NaN != NaN.
#include <cstdint>
#include <algorithm>
#include <limits>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

template <typename T, typename O, bool kWithCounts>
class UniqueOp : public OpKernel {
 public:
  explicit UniqueOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& xt = ctx->input(0);
    if (xt.rank() != 1) {
      ctx->SetStatus(InvalidArgument("unique expects a 1D vector, got shape ", xt.shape().ToString()));
      return;
    }
    const int64_t n = xt.dim(0);
    if (n > static_cast<int64_t>(std::numeric_limits<O>::max())) {
      ctx->SetStatus(
          InvalidArgument("unique: ", n, " elements do not fit out_idx ", DataTypeString(DataTypeOf<O>::value)));
      return;
    }
    const T* x = xt.data<T>();
    Tensor* idx_t = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, xt.shape(), &idx_t));
    O* idx = idx_t->data<O>();
    std::unordered_map<T, O> index;
    index.reserve(static_cast<size_t>(n));
    std::vector<T> values;
    std::vector<O> counts;
    for (int64_t i = 0; i < n; ++i) {
      const T v = x[i];
      O k;
      bool is_nan = false;
      if constexpr (std::is_floating_point_v<T>) is_nan = v != v;
      if (is_nan) {  // NaN: never equal to an earlier one
        k = static_cast<O>(values.size());
        values.push_back(v);
        counts.push_back(0);
      } else {
        auto [it, inserted] = index.emplace(v, static_cast<O>(values.size()));
        if (inserted) {
          values.push_back(v);
          counts.push_back(0);
        }
        k = it->second;
      }
      idx[i] = k;
      ++counts[static_cast<size_t>(k)];
    }
    const int64_t m = static_cast<int64_t>(values.size());
    Tensor* y = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({m}), &y));
    std::copy(values.begin(), values.end(), y->data<T>());
    if constexpr (kWithCounts) {
      Tensor* c = nullptr;
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(2, TensorShape({m}), &c));
      std::copy(counts.begin(), counts.end(), c->data<O>());
    }
  }
};

template <typename T>
void RegisterFor() {
  auto reg = [](auto out_tag) {
    using O = decltype(out_tag);
    auto builder = [](const char* op) {
      return KernelDefBuilder(op)
          .TypeConstraint("T", DataTypeOf<T>::value)
          .TypeConstraint("out_idx", DataTypeOf<O>::value);
    };
    KernelRegistry::Global()->Register(
        builder("Unique").Build([](OpKernelConstruction* c) -> OpKernel* { return new UniqueOp<T, O, false>(c); }));
    KernelRegistry::Global()->Register(builder("UniqueWithCounts").Build([](OpKernelConstruction* c) -> OpKernel* {
      return new UniqueOp<T, O, true>(c);
    }));
  };
  reg(int32_t{});
  reg(int64_t{});
}

const bool kRegistered = [] {
  RegisterFor<float>();
  RegisterFor<double>();
  RegisterFor<int32_t>();
  RegisterFor<int64_t>();
  RegisterFor<uint8_t>();
  RegisterFor<int8_t>();
  RegisterFor<int16_t>();
  RegisterFor<bool>();
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernel for OneHot: each index becomes a length-`depth` vector of off_value with on_value at
// the index (indices outside [0, depth) give all off_value, like TensorFlow).
#include <vector>

#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

template <typename I>
class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("axis", &axis_)); }
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& depth_t = ctx->input(1);
    const Tensor& on = ctx->input(2);
    const Tensor& off = ctx->input(3);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<I>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DT_INT32));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, ctx->output_type(0)));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 3, ctx->output_type(0)));
    if (depth_t.rank() != 0) {
      ctx->SetStatus(InvalidArgument("depth must be a scalar, got shape ", depth_t.shape().ToString()));
      return;
    }
    if (on.rank() != 0 || off.rank() != 0) {
      ctx->SetStatus(InvalidArgument("on_value and off_value must be scalars, got shapes ", on.shape().ToString(),
                                     " and ", off.shape().ToString()));
      return;
    }
    const int rank = indices.rank();
    if (axis_ < -1 || axis_ > rank) {
      ctx->SetStatus(InvalidArgument("Expected axis to be -1 or between [0, ", rank, "], but got ", axis_));
      return;
    }
    const int64_t depth = depth_t.data<int32_t>()[0];
    if (depth < 0) {
      ctx->SetStatus(InvalidArgument("depth must be non-negative, got: ", depth));
      return;
    }
    const int axis = axis_ < 0 ? rank : static_cast<int>(axis_);
    std::vector<int64_t> dims = indices.shape().dims();
    dims.insert(dims.begin() + axis, depth);
    TensorShape out_shape;
    Status s = TensorShape::Make(dims.data(), static_cast<int>(dims.size()), &out_shape);
    if (!s.ok()) {
      ctx->SetStatus(InvalidArgument("OneHot output shape is too large: ", s.message()));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    const int64_t prefix = DimProduct(indices.shape(), 0, axis);
    const int64_t suffix = DimProduct(indices.shape(), axis, rank);
    const I* idx = indices.data<I>();
    const bool ok = DispatchBySize(out->dtype(), [&](auto tag) {
      using E = decltype(tag);
      const E on_v = on.data<E>()[0], off_v = off.data<E>()[0];
      E* o = out->data<E>();
      // One block of depth * suffix outputs per prefix entry: fill with off, then set the hits.
      ParallelItems(ctx->intra_op_pool(), prefix, depth * suffix + 4, [&](int64_t b, int64_t e) {
        for (int64_t p = b; p < e; ++p) {
          E* block = o + p * depth * suffix;
          for (int64_t i = 0; i < depth * suffix; ++i) block[i] = off_v;
          for (int64_t j = 0; j < suffix; ++j) {
            const int64_t v = static_cast<int64_t>(idx[p * suffix + j]);
            if (v >= 0 && v < depth) block[v * suffix + j] = on_v;
          }
        }
      });
    });
    if (!ok) ctx->SetStatus(InvalidArgument("OneHot does not support dtype ", DataTypeString(out->dtype())));
  }

 private:
  int64_t axis_ = -1;
};

template <typename I>
void RegisterFor() {
  for (DataType t : kStorageTypes)
    KernelRegistry::Global()->Register(KernelDefBuilder("OneHot").TypeConstraint("T", t).TypeConstraint<I>("TI").Build(
        [](OpKernelConstruction* c) -> OpKernel* { return new OneHotOp<I>(c); }));
}

const bool kRegistered = [] {
  RegisterFor<uint8_t>();
  RegisterFor<int8_t>();
  RegisterFor<int32_t>();
  RegisterFor<int64_t>();
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

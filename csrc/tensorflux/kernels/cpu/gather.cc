// CPU kernels for Gather and GatherV2: rows of params picked by indices along one axis,
// optionally per batch. Data is only moved, so one kernel serves every stored dtype.
#include <cstring>

#include "tensorflux/core/object_types.h"
#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Note [Gather layout]
// params is viewed as [batch, outer, limit, inner] (batch = params[:batch_dims], outer =
// params[batch_dims:axis], limit = params[axis], inner = params[axis+1:]) and indices as
// [batch, n]; the output is [batch, outer, n, inner]. Each output row of `inner` elements is one
// copy (a memcpy for wide rows: the embedding-lookup path). Every index is checked before any
// copy, so a bad index never reads out of bounds.

template <typename E, typename I>
void GatherRows(const E* params, const I* idx, E* out, int64_t batch, int64_t outer, int64_t limit, int64_t n,
                int64_t inner, ThreadPool* pool) {
  const int64_t rows = batch * outer * n;
  ParallelItems(pool, rows, inner + 4, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t i = r % n, bo = r / n, bt = bo / outer;
      const int64_t src_row = bo * limit + static_cast<int64_t>(idx[bt * n + i]);
      if (inner == 1) {
        out[r] = params[src_row];
      } else {
        std::memcpy(out + r * inner, params + src_row * inner, static_cast<size_t>(inner) * sizeof(E));
      }
    }
  });
}

// GatherRows for object elements (strings): each row copied with CopyElements.
template <typename I>
void GatherObjectRows(DataType dt, const void* params, const I* idx, void* out, int64_t batch, int64_t outer,
                      int64_t limit, int64_t n, int64_t inner, ThreadPool* pool) {
  const int64_t row_bytes = inner * static_cast<int64_t>(DataTypeSize(dt));
  const char* p = static_cast<const char*>(params);
  char* o = static_cast<char*>(out);
  ParallelItems(pool, batch * outer * n, inner * 8 + 4, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t i = r % n, bo = r / n, bt = bo / outer;
      const int64_t src_row = bo * limit + static_cast<int64_t>(idx[bt * n + i]);
      CopyElements(dt, p + src_row * row_bytes, o + r * row_bytes, inner);
    }
  });
}

template <typename I>
class GatherOp : public OpKernel {
 public:
  GatherOp(OpKernelConstruction* c) : OpKernel(c), v2_(c->op_type() == "GatherV2") {
    if (v2_) c->SetStatus(c->GetAttr("batch_dims", &batch_dims_));
  }
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, params.dtype()));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<I>::value));
    if (params.rank() < 1) {
      ctx->SetStatus(InvalidArgument("params must be at least 1 dimensional, got shape ", params.shape().ToString()));
      return;
    }
    int64_t axis = 0, batch_dims = batch_dims_;
    const int pr = params.rank(), ir = indices.rank();
    if (v2_) {
      const Tensor& at = ctx->input(2);
      if (at.rank() != 0 || !IsIndexType(at.dtype()) || !at.initialized()) {
        ctx->SetStatus(InvalidArgument("axis must be an integer scalar, got shape ", at.shape().ToString()));
        return;
      }
      axis = IndexAt(at, 0);
      if (axis < -pr || axis >= pr) {
        ctx->SetStatus(InvalidArgument("Expected axis in the range [", -pr, ", ", pr, "), but got ", axis));
        return;
      }
      if (axis < 0) axis += pr;
      if (batch_dims < -ir || batch_dims > ir) {
        ctx->SetStatus(InvalidArgument("Expected batch_dims in the range [", -ir, ", ", ir, "], but got ", batch_dims));
        return;
      }
      if (batch_dims < 0) batch_dims += ir;
      if (batch_dims > axis) {
        ctx->SetStatus(
            InvalidArgument("batch_dims (", batch_dims, ") must be less than or equal to axis (", axis, ")"));
        return;
      }
      for (int i = 0; i < batch_dims; ++i) {
        if (params.dim(i) != indices.dim(i)) {
          ctx->SetStatus(InvalidArgument("params.shape[", i, "] = ", params.dim(i), " must equal indices.shape[", i,
                                         "] = ", indices.dim(i), " (batch_dims = ", batch_dims, ")"));
          return;
        }
      }
    }
    const int a = static_cast<int>(axis), bd = static_cast<int>(batch_dims);
    const int64_t batch = DimProduct(params.shape(), 0, bd);
    const int64_t outer = DimProduct(params.shape(), bd, a);
    const int64_t limit = params.dim(a);
    const int64_t inner = DimProduct(params.shape(), a + 1, pr);
    const int64_t n = DimProduct(indices.shape(), bd, ir);
    const I* idx = indices.data<I>();
    const int64_t total = indices.num_elements();
    for (int64_t i = 0; i < total; ++i) {
      const int64_t v = idx[i];
      if (v < 0 || v >= limit) {
        ctx->SetStatus(
            InvalidArgument("indices", CoordString(indices.shape(), i), " = ", v, " is not in [0, ", limit, ")"));
        return;
      }
    }
    std::vector<int64_t> dims;
    for (int i = 0; i < a; ++i) dims.push_back(params.dim(i));
    for (int i = bd; i < ir; ++i) dims.push_back(indices.dim(i));
    for (int i = a + 1; i < pr; ++i) dims.push_back(params.dim(i));
    TensorShape out_shape;
    TX_CTX_RETURN_IF_ERROR(ctx, TensorShape::Make(dims.data(), static_cast<int>(dims.size()), &out_shape));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    if (ObjectOpsFor(params.dtype()) != nullptr) {
      GatherObjectRows<I>(params.dtype(), params.raw_data(), idx, out->raw_data(), batch, outer, limit, n, inner,
                          ctx->intra_op_pool());
      return;
    }
    const bool ok = DispatchBySize(params.dtype(), [&](auto tag) {
      using E = decltype(tag);
      GatherRows<E, I>(params.data<E>(), idx, out->data<E>(), batch, outer, limit, n, inner, ctx->intra_op_pool());
    });
    if (!ok) ctx->SetStatus(InvalidArgument("Gather does not support dtype ", DataTypeString(params.dtype())));
  }

 private:
  const bool v2_;
  int64_t batch_dims_ = 0;
};

template <typename I>
void RegisterFor(const char* op, bool with_axis_types) {
  std::vector<DataType> types(std::begin(kStorageTypes), std::end(kStorageTypes));
  types.push_back(DT_STRING);
  for (DataType t : types) {
    if (!with_axis_types) {
      KernelRegistry::Global()->Register(
          KernelDefBuilder(op)
              .TypeConstraint("Tparams", t)
              .TypeConstraint<I>("Tindices")
              .Build([](OpKernelConstruction* c) -> OpKernel* { return new GatherOp<I>(c); }));
      continue;
    }
    for (DataType at : {DT_INT32, DT_INT64})
      KernelRegistry::Global()->Register(
          KernelDefBuilder(op)
              .TypeConstraint("Tparams", t)
              .TypeConstraint<I>("Tindices")
              .TypeConstraint("Taxis", at)
              .Build([](OpKernelConstruction* c) -> OpKernel* { return new GatherOp<I>(c); }));
  }
}

const bool kRegistered = [] {
  RegisterFor<int32_t>("Gather", false);
  RegisterFor<int64_t>("Gather", false);
  RegisterFor<int16_t>("GatherV2", true);
  RegisterFor<int32_t>("GatherV2", true);
  RegisterFor<int64_t>("GatherV2", true);
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

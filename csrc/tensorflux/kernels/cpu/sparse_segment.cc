// CPU kernels for SparseSegmentSum, SparseSegmentMean and SparseSegmentSqrtN: output row
// segment_ids[k] accumulates data row indices[k]; Mean and SqrtN then divide each non-empty row
// by its count or the count's square root. Indices out of range and unsorted or negative segment
// ids are errors.
#include <cmath>
#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

enum class Scale { kSum, kMean, kSqrtN };

template <typename T, Scale S>
class SparseSegmentOp : public OpKernel {
 public:
  explicit SparseSegmentOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& data = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& ids = ctx->input(2);
    if (data.rank() < 1 || indices.rank() != 1 || ids.rank() != 1) {
      ctx->SetStatus(InvalidArgument("data must have rank >= 1 and indices and segment_ids rank 1, got shapes ",
                                     data.shape().ToString(), ", ", indices.shape().ToString(), " and ",
                                     ids.shape().ToString()));
      return;
    }
    const int64_t k = indices.dim(0), rows = data.dim(0);
    if (ids.dim(0) != k) {
      ctx->SetStatus(InvalidArgument("segment_ids and indices should have same size: ", ids.dim(0), " vs. ", k));
      return;
    }
    int64_t last = -1;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t s = IndexAt(ids, i), r = IndexAt(indices, i);
      if (s < 0) {
        ctx->SetStatus(InvalidArgument("segment ids must be >= 0, got ", s));
        return;
      }
      if (s < last) {
        ctx->SetStatus(InvalidArgument("segment ids are not increasing: ", s, " follows ", last));
        return;
      }
      if (r < 0 || r >= rows) {
        ctx->SetStatus(InvalidArgument("indices[", i, "] = ", r, " is out of range [0, ", rows, ")"));
        return;
      }
      last = s;
    }
    const int64_t segments = last + 1;
    TensorShape out_shape = data.shape();
    out_shape.set_dim(0, segments);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t inner = DimProduct(data.shape(), 1, data.rank());
    T* o = out->data<T>();
    for (int64_t i = 0; i < out->num_elements(); ++i) o[i] = T(0);
    std::vector<int64_t> counts(static_cast<size_t>(segments), 0);
    const T* x = data.data<T>();
    for (int64_t i = 0; i < k; ++i) {
      const int64_t s = IndexAt(ids, i);
      AccumulateRow(o + s * inner, x + IndexAt(indices, i) * inner, inner);
      ++counts[static_cast<size_t>(s)];
    }
    if constexpr (S != Scale::kSum) {
      for (int64_t s = 0; s < segments; ++s) {
        const int64_t n = counts[static_cast<size_t>(s)];
        if (n == 0) continue;
        const T d = S == Scale::kMean ? static_cast<T>(n) : static_cast<T>(std::sqrt(static_cast<double>(n)));
        for (int64_t j = 0; j < inner; ++j) o[s * inner + j] /= d;
      }
    }
  }
};

template <typename T, Scale S>
void RegisterOne(const char* op) {
  for (DataType ti : {DT_INT32, DT_INT64})
    for (DataType ts : {DT_INT32, DT_INT64})
      KernelRegistry::Global()->Register(
          KernelDefBuilder(op)
              .TypeConstraint("T", DataTypeOf<T>::value)
              .TypeConstraint("Tidx", ti)
              .TypeConstraint("Tsegmentids", ts)
              .Build([](OpKernelConstruction* c) -> OpKernel* { return new SparseSegmentOp<T, S>(c); }));
}

const bool kRegistered = [] {
  RegisterOne<float, Scale::kSum>("SparseSegmentSum");
  RegisterOne<double, Scale::kSum>("SparseSegmentSum");
  RegisterOne<int32_t, Scale::kSum>("SparseSegmentSum");
  RegisterOne<int64_t, Scale::kSum>("SparseSegmentSum");
  RegisterOne<float, Scale::kMean>("SparseSegmentMean");
  RegisterOne<double, Scale::kMean>("SparseSegmentMean");
  RegisterOne<float, Scale::kSqrtN>("SparseSegmentSqrtN");
  RegisterOne<double, Scale::kSqrtN>("SparseSegmentSqrtN");
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

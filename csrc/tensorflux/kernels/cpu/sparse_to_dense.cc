// CPU kernels for SparseToDense (any dtype: the output is a gather of the values and the default)
// and SparseTensorDenseAdd (b plus the sparse values at their indices).
#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/index_copy.h"
#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/kernels/cpu/sparse_util.h"

namespace tx {
namespace cpu {
namespace {

class SparseToDenseOp : public OpKernel {
 public:
  explicit SparseToDenseOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("validate_indices", &validate_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(2);
    const Tensor& def = ctx->input(3);
    if (indices.rank() > 2) {
      ctx->SetStatus(InvalidArgument("sparse_indices should be a scalar, vector, or matrix, got shape ",
                                     indices.shape().ToString()));
      return;
    }
    std::vector<int64_t> out_dims;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 1, "output_shape", 1, &out_dims));
    const int64_t n = indices.rank() == 0 ? 1 : indices.dim(0);
    const int64_t rank = indices.rank() < 2 ? 1 : indices.dim(1);
    if (static_cast<int64_t>(out_dims.size()) != rank) {
      ctx->SetStatus(
          InvalidArgument("output_shape has incorrect number of elements: ", out_dims.size(), " should be: ", rank));
      return;
    }
    if (!(values.rank() == 0 || (values.rank() == 1 && values.dim(0) == n))) {
      ctx->SetStatus(InvalidArgument("sparse_values has incorrect shape ", values.shape().ToString(),
                                     ", should be [] or [", n, "]"));
      return;
    }
    if (def.rank() != 0) {
      ctx->SetStatus(InvalidArgument("default_value should be a scalar."));
      return;
    }
    for (int64_t d : out_dims)
      if (d < 0) {
        ctx->SetStatus(InvalidArgument("output_shape has a negative dimension: ", ShapeString(out_dims)));
        return;
      }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateChecked(ctx, 0, out_dims, &out));
    // The indices as a [n, rank] SparseInput (scalar and vector indices are one coordinate each).
    SparseInput sp;
    sp.nnz = n;
    sp.rank = static_cast<int>(rank);
    sp.shape = out_dims;
    sp.owned.resize(static_cast<size_t>(n * rank));
    for (int64_t i = 0; i < n * rank; ++i) sp.owned[i] = IndexAt(indices, i);
    sp.indices = sp.owned.data();
    if (validate_) {
      TX_CTX_RETURN_IF_ERROR(ctx, CheckCanonical(sp));
    } else if (!CheckInBounds(sp).ok()) {
      ctx->SetStatus(InvalidArgument("Indices are not valid (out of bounds).  Shape: ", ShapeString(out_dims)));
      return;
    }
    // out[k] = values[source[k]], the default where source[k] is -1; later duplicates win.
    std::vector<int64_t> source(static_cast<size_t>(out->num_elements()), -1);
    const std::vector<int64_t> strides = DenseStrides(out_dims);
    for (int64_t i = 0; i < n; ++i) {
      int64_t flat = 0;
      for (int d = 0; d < sp.rank; ++d) flat += sp.index(i)[d] * strides[d];
      source[static_cast<size_t>(flat)] = values.rank() == 0 ? 0 : i;
    }
    GatherValues(values, source, out, def.raw_data());
  }

 private:
  bool validate_ = true;
};

template <typename T>
class SparseTensorDenseAddOp : public OpKernel {
 public:
  explicit SparseTensorDenseAddOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& ind = ctx->input(0);
    const Tensor& vals = ctx->input(1);
    const Tensor& shp = ctx->input(2);
    const Tensor& b = ctx->input(3);
    if (ind.rank() != 2) {
      ctx->SetStatus(
          InvalidArgument("Input a_indices should be a matrix but received shape: ", ind.shape().ToString()));
      return;
    }
    if (vals.rank() != 1 || shp.rank() != 1) {
      ctx->SetStatus(InvalidArgument("Inputs a_values and a_shape should be vectors but received shapes: ",
                                     vals.shape().ToString(), " and ", shp.shape().ToString()));
      return;
    }
    SparseInput sp;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadSparseInput(ctx, 0, 1, 2, "a_", &sp));
    if (b.rank() != sp.rank) {
      ctx->SetStatus(InvalidArgument("The sparse operand has rank ", sp.rank, " but the dense operand has shape ",
                                     b.shape().ToString(), " (no broadcasting is supported)"));
      return;
    }
    for (int d = 0; d < sp.rank; ++d)
      if (b.dim(d) != sp.shape[d]) {
        ctx->SetStatus(InvalidArgument("Dimension ", d, " does not equal (no broadcasting is supported): sparse side ",
                                       sp.shape[d], " vs dense side ", b.dim(d)));
        return;
      }
    for (int64_t i = 0; i < sp.nnz; ++i)
      for (int d = 0; d < sp.rank; ++d) {
        const int64_t x = sp.index(i)[d];
        if (x < 0 || x >= sp.shape[d]) {
          std::string dims;
          for (int k = 0; k < sp.rank; ++k) dims += (k ? " " : "") + std::to_string(b.dim(k));
          ctx->SetStatus(InvalidArgument("Sparse tensor has an invalid index on dimension ", d, ": a_indices(", i, ",",
                                         d, ") = ", x, ", dense tensor shape: ", dims));
          return;
        }
      }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, b.shape(), &out));
    T* o = out->data<T>();
    const T* bp = b.data<T>();
    std::copy(bp, bp + b.num_elements(), o);
    const std::vector<int64_t> strides = DenseStrides(sp.shape);
    const T* v = vals.data<T>();
    for (int64_t i = 0; i < sp.nnz; ++i) {
      int64_t flat = 0;
      for (int d = 0; d < sp.rank; ++d) flat += sp.index(i)[d] * strides[d];
      o[flat] += v[i];
    }
  }
};

TX_REGISTER_ARRAY_KERNEL("SparseToDense", SparseToDenseOp);

template <typename T>
void RegisterDenseAdd() {
  for (DataType ti : {DT_INT32, DT_INT64})
    KernelRegistry::Global()->Register(
        KernelDefBuilder("SparseTensorDenseAdd")
            .TypeConstraint("T", DataTypeOf<T>::value)
            .TypeConstraint("Tindices", ti)
            .Build([](OpKernelConstruction* c) -> OpKernel* { return new SparseTensorDenseAddOp<T>(c); }));
}

const bool kRegistered = [] {
  RegisterDenseAdd<float>();
  RegisterDenseAdd<double>();
  RegisterDenseAdd<int32_t>();
  RegisterDenseAdd<int64_t>();
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

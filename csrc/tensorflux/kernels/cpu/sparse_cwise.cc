// CPU kernels for SparseSoftmax (softmax over the stored values sharing all but the last
// coordinate; the entries may come in any order) and SparseDenseCwiseMul/Div/Add (the dense
// operand, broadcast to the sparse shape, read at each stored entry).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/sparse_util.h"

namespace tx {
namespace cpu {
namespace {

template <typename T>
class SparseSoftmaxOp : public OpKernel {
 public:
  explicit SparseSoftmaxOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& ind = ctx->input(0);
    if (ind.rank() != 2) {
      ctx->SetStatus(
          InvalidArgument("Input sp_indices should be a matrix but received shape: ", ind.shape().ToString()));
      return;
    }
    if (ctx->input(1).rank() != 1 || ctx->input(2).rank() != 1) {
      ctx->SetStatus(InvalidArgument("Inputs sp_values and sp_shape should be vectors but received shapes: ",
                                     ctx->input(1).shape().ToString(), " and ", ctx->input(2).shape().ToString()));
      return;
    }
    if (ctx->input(2).dim(0) < 2) {
      ctx->SetStatus(InvalidArgument("Input should have rank >= 2, but received shape: ",
                                     ctx->input(2).num_elements() ? std::to_string(IndexAt(ctx->input(2), 0)) : "[]"));
      return;
    }
    SparseInput sp;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadSparseInput(ctx, 0, 1, 2, "sp_", &sp));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInBounds(sp));
    // Entries sorted (stably) by all coordinates but the last; each run is one softmax.
    const int prefix = sp.rank - 1;
    std::vector<int64_t> order(static_cast<size_t>(sp.nnz));
    std::iota(order.begin(), order.end(), int64_t{0});
    auto less = [&](int64_t a, int64_t b) { return CompareIndices(sp.index(a), sp.index(b), prefix) < 0; };
    std::stable_sort(order.begin(), order.end(), less);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({sp.nnz}), &out));
    const T* v = sp.values->data<T>();
    T* o = out->data<T>();
    for (int64_t begin = 0; begin < sp.nnz;) {
      int64_t end = begin + 1;
      while (end < sp.nnz && !less(order[begin], order[end])) ++end;
      T mx = v[order[begin]];
      for (int64_t k = begin; k < end; ++k) mx = std::max(mx, v[order[k]]);
      T sum = T(0);
      for (int64_t k = begin; k < end; ++k) sum += (o[order[k]] = std::exp(v[order[k]] - mx));
      for (int64_t k = begin; k < end; ++k) o[order[k]] /= sum;
      begin = end;
    }
  }
};

enum class Cwise { kMul, kDiv, kAdd };

template <typename T, Cwise kOp>
class SparseDenseCwiseOp : public OpKernel {
 public:
  explicit SparseDenseCwiseOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& ind = ctx->input(0);
    const Tensor& dense = ctx->input(3);
    if (ind.rank() != 2) {
      ctx->SetStatus(
          InvalidArgument("Input sp_indices should be a matrix but received shape: ", ind.shape().ToString()));
      return;
    }
    if (ctx->input(1).rank() != 1 || ctx->input(2).rank() != 1) {
      ctx->SetStatus(InvalidArgument("Inputs sp_values and sp_shape should be vectors but received shapes: ",
                                     ctx->input(1).shape().ToString(), " and ", ctx->input(2).shape().ToString()));
      return;
    }
    if (ctx->input(1).dim(0) != ind.dim(0)) {
      ctx->SetStatus(InvalidArgument("The first dimension of values and indices should match. (", ctx->input(1).dim(0),
                                     " vs. ", ind.dim(0), ")"));
      return;
    }
    if (ctx->input(2).dim(0) != ind.dim(1)) {
      ctx->SetStatus(InvalidArgument("Number of dimensions must match second dimension of indices. Got ",
                                     ctx->input(2).dim(0), " dimensions, indices shape: ", ind.shape().ToString()));
      return;
    }
    SparseInput sp;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadSparseInput(ctx, 0, 1, 2, "sp_", &sp));
    // dense's dims, right-aligned with the sparse shape, must each be 1 or equal.
    const int lead = sp.rank - dense.rank();
    bool ok = lead >= 0;
    for (int d = 0; ok && d < dense.rank(); ++d) ok = dense.dim(d) == 1 || dense.dim(d) == sp.shape[lead + d];
    if (!ok) {
      ctx->SetStatus(
          InvalidArgument("SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible "
                          "shapes: ",
                          ShapeString(sp.shape), " vs. ", dense.shape().ToString()));
      return;
    }
    if (Status bounds = CheckInBounds(sp); !bounds.ok()) {
      ctx->SetStatus(InvalidArgument("Provided indices are out-of-bounds w.r.t. dense side with broadcasted shape; ",
                                     bounds.message()));
      return;
    }
    const T* dv = dense.data<T>();
    if constexpr (kOp == Cwise::kDiv) {  // TensorFlow rejects a zero anywhere in dense, for every dtype
      if (std::find(dv, dv + dense.num_elements(), T(0)) != dv + dense.num_elements()) {
        ctx->SetStatus(
            InvalidArgument("SparseDenseCwiseDiv cannot divide by zero, but input dense tensor contains "
                            "zero"));
        return;
      }
    }
    // Strides of dense in the sparse operand's coordinates (0 where broadcast).
    std::vector<int64_t> strides(static_cast<size_t>(sp.rank), 0);
    for (int64_t d = dense.rank() - 1, s = 1; d >= 0; --d) {
      strides[lead + d] = dense.dim(static_cast<int>(d)) == 1 ? 0 : s;
      s *= dense.dim(static_cast<int>(d));
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({sp.nnz}), &out));
    const T* v = sp.values->data<T>();
    T* o = out->data<T>();
    for (int64_t i = 0; i < sp.nnz; ++i) {
      int64_t flat = 0;
      for (int d = 0; d < sp.rank; ++d) flat += sp.index(i)[d] * strides[d];
      o[i] = kOp == Cwise::kMul ? v[i] * dv[flat] : kOp == Cwise::kDiv ? v[i] / dv[flat] : v[i] + dv[flat];
    }
  }
};

template <typename T>
void RegisterCwise() {
  KernelRegistry* r = KernelRegistry::Global();
  r->Register(
      KernelDefBuilder("SparseDenseCwiseMul")
          .TypeConstraint("T", DataTypeOf<T>::value)
          .Build([](OpKernelConstruction* c) -> OpKernel* { return new SparseDenseCwiseOp<T, Cwise::kMul>(c); }));
  r->Register(
      KernelDefBuilder("SparseDenseCwiseDiv")
          .TypeConstraint("T", DataTypeOf<T>::value)
          .Build([](OpKernelConstruction* c) -> OpKernel* { return new SparseDenseCwiseOp<T, Cwise::kDiv>(c); }));
  r->Register(
      KernelDefBuilder("SparseDenseCwiseAdd")
          .TypeConstraint("T", DataTypeOf<T>::value)
          .Build([](OpKernelConstruction* c) -> OpKernel* { return new SparseDenseCwiseOp<T, Cwise::kAdd>(c); }));
}

const bool kRegistered = [] {
  RegisterCwise<float>();
  RegisterCwise<double>();
  RegisterCwise<int32_t>();
  RegisterCwise<int64_t>();
  return true;
}();

TX_REGISTER_KERNEL(KernelDefBuilder("SparseSoftmax").TypeConstraint<float>("T"), SparseSoftmaxOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("SparseSoftmax").TypeConstraint<double>("T"), SparseSoftmaxOp<double>);

}  // namespace
}  // namespace cpu
}  // namespace tx

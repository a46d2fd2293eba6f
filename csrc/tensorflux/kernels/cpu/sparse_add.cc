// CPU kernels that merge two SparseTensors in canonical order: SparseAdd (entries present in both
// are summed and dropped when |sum| < thresh), its gradient SparseAddGrad, and
// SparseSparseMaximum/Minimum (the union of the entries; a missing entry counts as 0).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/sparse_util.h"

namespace tx {
namespace cpu {
namespace {

// One merged entry: its source row in a and in b (-1 where absent).
struct Merged {
  int64_t a, b;
};

// Reads operands a (inputs 0-2) and b (inputs 3-5), checks equal dense shapes, bounds and
// canonical order, and merges their entries in row-major order.
Status MergeOperands(const OpKernelContext* ctx, SparseInput* a, SparseInput* b, std::vector<Merged>* out) {
  TX_RETURN_IF_ERROR(ReadSparseInput(ctx, 0, 1, 2, "a_", a));
  TX_RETURN_IF_ERROR(ReadSparseInput(ctx, 3, 4, 5, "b_", b));
  if (a->rank != b->rank)
    return InvalidArgument("Operands do not have the same ranks; got shapes: ", ShapeString(a->shape), " and ",
                           ShapeString(b->shape));
  for (int d = 0; d < a->rank; ++d)
    if (a->shape[d] != b->shape[d])
      return InvalidArgument("Operands' shapes do not match: got ", a->shape[d], " and ", b->shape[d],
                             " for dimension ", d);
  TX_RETURN_IF_ERROR(CheckCanonical(*a));
  TX_RETURN_IF_ERROR(CheckCanonical(*b));
  int64_t i = 0, j = 0;
  out->reserve(static_cast<size_t>(a->nnz + b->nnz));
  while (i < a->nnz || j < b->nnz) {
    const int c = i == a->nnz ? 1 : j == b->nnz ? -1 : CompareIndices(a->index(i), b->index(j), a->rank);
    if (c < 0)
      out->push_back({i++, -1});
    else if (c > 0)
      out->push_back({-1, j++});
    else
      out->push_back({i++, j++});
  }
  return Status::OK();
}

// Writes the indices of the kept merged entries to output 0 (shape [kept, rank]).
Status EmitMergedIndices(OpKernelContext* ctx, const SparseInput& a, const SparseInput& b,
                         const std::vector<Merged>& kept, Tensor** ind) {
  TX_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({static_cast<int64_t>(kept.size()), a.rank}), ind));
  int64_t* o = (*ind)->data<int64_t>();
  for (size_t k = 0; k < kept.size(); ++k) {
    const int64_t* src = kept[k].a >= 0 ? a.index(kept[k].a) : b.index(kept[k].b);
    std::copy(src, src + a.rank, o + k * a.rank);
  }
  return Status::OK();
}

// The threshold (of any real dtype, as TensorFlow's kernels accept) as a T.
template <typename T>
T ReadThresh(const Tensor& t) {
  switch (t.dtype()) {
    case DT_FLOAT: return static_cast<T>(t.data<float>()[0]);
    case DT_DOUBLE: return static_cast<T>(t.data<double>()[0]);
    case DT_INT32: return static_cast<T>(t.data<int32_t>()[0]);
    case DT_INT64: return static_cast<T>(t.data<int64_t>()[0]);
    default: return T(0);
  }
}

template <typename T>
class SparseAddOp : public OpKernel {
 public:
  explicit SparseAddOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& thresh_t = ctx->input(6);
    if (thresh_t.rank() != 0) {
      ctx->SetStatus(
          InvalidArgument("The magnitude threshold must be a scalar: got shape ", thresh_t.shape().ToString()));
      return;
    }
    SparseInput a, b;
    std::vector<Merged> merged;
    TX_CTX_RETURN_IF_ERROR(ctx, MergeOperands(ctx, &a, &b, &merged));
    const T thresh = ReadThresh<T>(thresh_t);
    const T *av = a.values->data<T>(), *bv = b.values->data<T>();
    std::vector<Merged> kept;
    std::vector<T> sums;
    for (const Merged& m : merged) {
      T s = m.a >= 0 && m.b >= 0 ? av[m.a] + bv[m.b] : m.a >= 0 ? av[m.a] : bv[m.b];
      if (m.a >= 0 && m.b >= 0 && !(thresh <= (s < T(0) ? -s : s))) continue;
      kept.push_back(m);
      sums.push_back(s);
    }
    Tensor *ind = nullptr, *vals = nullptr, *shape = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, EmitMergedIndices(ctx, a, b, kept, &ind));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, TensorShape({static_cast<int64_t>(kept.size())}), &vals));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(2, TensorShape({a.rank}), &shape));
    std::copy(sums.begin(), sums.end(), vals->data<T>());
    std::copy(a.shape.begin(), a.shape.end(), shape->data<int64_t>());
  }
};

template <typename T, bool kMax>
class SparseSparseMinOrMaxOp : public OpKernel {
 public:
  explicit SparseSparseMinOrMaxOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    SparseInput a, b;
    std::vector<Merged> merged;
    TX_CTX_RETURN_IF_ERROR(ctx, MergeOperands(ctx, &a, &b, &merged));
    Tensor *ind = nullptr, *vals = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, EmitMergedIndices(ctx, a, b, merged, &ind));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, TensorShape({static_cast<int64_t>(merged.size())}), &vals));
    const T *av = a.values->data<T>(), *bv = b.values->data<T>();
    T* o = vals->data<T>();
    for (size_t k = 0; k < merged.size(); ++k) {
      const T x = merged[k].a >= 0 ? av[merged[k].a] : T(0);
      const T y = merged[k].b >= 0 ? bv[merged[k].b] : T(0);
      o[k] = kMax ? std::max(x, y) : std::min(x, y);
    }
  }
};

// Finds each sum entry in a and b (all three in canonical order) and routes its gradient there.
template <typename T>
class SparseAddGradOp : public OpKernel {
 public:
  explicit SparseAddGradOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& a = ctx->input(1);
    const Tensor& b = ctx->input(2);
    const Tensor& sum = ctx->input(3);
    if (a.rank() != 2 || b.rank() != 2 || sum.rank() != 2) {
      ctx->SetStatus(InvalidArgument("Input indices should be matrices but received shapes: ", a.shape().ToString(),
                                     ", ", b.shape().ToString(), ", ", sum.shape().ToString()));
      return;
    }
    if (grad.rank() != 1) {
      ctx->SetStatus(
          InvalidArgument("Input backprop_val_grad should be a vector but received shape: ", grad.shape().ToString()));
      return;
    }
    if (grad.dim(0) != sum.dim(0)) {
      ctx->SetStatus(
          InvalidArgument("# elements of backprop_val_grad and # rows of sum_indices should match (#nnz of "
                          "sum): got ",
                          grad.dim(0), " and ", sum.dim(0)));
      return;
    }
    const int64_t rank = sum.dim(1);
    if (a.dim(1) != rank || b.dim(1) != rank) {
      ctx->SetStatus(InvalidArgument("Index ranks must match: a_indices ", a.shape().ToString(), ", b_indices ",
                                     b.shape().ToString(), ", sum_indices ", sum.shape().ToString()));
      return;
    }
    Tensor *da = nullptr, *db = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({a.dim(0)}), &da));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, TensorShape({b.dim(0)}), &db));
    Route(grad, sum, a, da);
    Route(grad, sum, b, db);
  }

 private:
  static void Route(const Tensor& grad, const Tensor& sum, const Tensor& x, Tensor* dx) {
    const int rank = static_cast<int>(sum.dim(1));
    const int64_t* s = sum.data<int64_t>();
    const int64_t* p = x.data<int64_t>();
    T* o = dx->data<T>();
    std::fill(o, o + x.dim(0), T(0));
    int64_t i = 0;
    for (int64_t k = 0; k < sum.dim(0) && i < x.dim(0); ++k) {
      while (i < x.dim(0) && CompareIndices(p + i * rank, s + k * rank, rank) < 0) ++i;
      if (i < x.dim(0) && CompareIndices(p + i * rank, s + k * rank, rank) == 0) o[i++] = grad.data<T>()[k];
    }
  }
};

template <typename T>
void RegisterFor() {
  KernelRegistry* r = KernelRegistry::Global();
  for (DataType treal : {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64})
    r->Register(KernelDefBuilder("SparseAdd")
                    .TypeConstraint("T", DataTypeOf<T>::value)
                    .TypeConstraint("Treal", treal)
                    .Build([](OpKernelConstruction* c) -> OpKernel* { return new SparseAddOp<T>(c); }));
  r->Register(KernelDefBuilder("SparseAddGrad")
                  .TypeConstraint("T", DataTypeOf<T>::value)
                  .Build([](OpKernelConstruction* c) -> OpKernel* { return new SparseAddGradOp<T>(c); }));
  r->Register(KernelDefBuilder("SparseSparseMaximum")
                  .TypeConstraint("T", DataTypeOf<T>::value)
                  .Build([](OpKernelConstruction* c) -> OpKernel* { return new SparseSparseMinOrMaxOp<T, true>(c); }));
  r->Register(KernelDefBuilder("SparseSparseMinimum")
                  .TypeConstraint("T", DataTypeOf<T>::value)
                  .Build([](OpKernelConstruction* c) -> OpKernel* { return new SparseSparseMinOrMaxOp<T, false>(c); }));
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

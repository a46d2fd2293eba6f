// CPU kernels for SparseReduceSum/Max and SparseReduceSumSparse/MaxSparse: the stored values are
// grouped by their coordinates in the kept (unreduced) dimensions and each group is summed or
// maxed. Max sees only stored values (implicit zeros do not count); the dense results hold 0
// where a group is empty. No reduction axes reduce nothing (TensorFlow's kernel; tx.sparse
// passes every axis for axis=None, as tf.sparse does).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "tensorflux/kernels/cpu/index_copy.h"
#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/kernels/cpu/sparse_util.h"

namespace tx {
namespace cpu {
namespace {

// The reduction of one SparseTensor: which dimensions are kept and the groups of entries.
struct Reduction {
  std::vector<bool> reduced;  // per input dimension
  std::vector<int64_t> out_shape;  // kept dims (1 at reduced ones with keep_dims)
  std::vector<int64_t> order;  // entries sorted by their kept coordinates
  std::vector<int64_t> group_start;  // start of each group in `order`, plus order.size()
};

Status PlanReduction(const OpKernelContext* ctx, const SparseInput& sp, bool keep_dims, Reduction* r) {
  const Tensor& axes_t = ctx->input(3);
  if (axes_t.rank() > 1)
    return InvalidArgument("reduction_axes must be a scalar or vector, got shape ", axes_t.shape().ToString());
  r->reduced.assign(static_cast<size_t>(sp.rank), false);
  for (int64_t i = 0; i < axes_t.num_elements(); ++i) {
    const int64_t a = IndexAt(axes_t, i);
    if (a < -sp.rank || a >= sp.rank)
      return InvalidArgument("Invalid reduction dimension ", a, ", for input with ", sp.rank, " dimensions.");
    r->reduced[a < 0 ? a + sp.rank : a] = true;
  }
  for (int d = 0; d < sp.rank; ++d) {
    if (!r->reduced[d])
      r->out_shape.push_back(sp.shape[d]);
    else if (keep_dims)
      r->out_shape.push_back(1);
  }
  auto kept_less = [&](int64_t x, int64_t y) {
    for (int d = 0; d < sp.rank; ++d) {
      if (r->reduced[d]) continue;
      if (sp.index(x)[d] != sp.index(y)[d]) return sp.index(x)[d] < sp.index(y)[d];
    }
    return false;
  };
  r->order.resize(static_cast<size_t>(sp.nnz));
  std::iota(r->order.begin(), r->order.end(), int64_t{0});
  std::stable_sort(r->order.begin(), r->order.end(), kept_less);
  for (int64_t k = 0; k < sp.nnz; ++k)
    if (k == 0 || kept_less(r->order[k - 1], r->order[k])) r->group_start.push_back(k);
  r->group_start.push_back(sp.nnz);
  return Status::OK();
}

template <typename T, bool kMax>
T ReduceGroup(const T* v, const std::vector<int64_t>& order, int64_t begin, int64_t end) {
  T acc = kMax ? std::numeric_limits<T>::lowest() : T(0);
  for (int64_t k = begin; k < end; ++k) acc = kMax ? std::max(acc, v[order[k]]) : acc + v[order[k]];
  return acc;
}

template <typename T, bool kMax, bool kSparseOutput>
class SparseReduceOp : public OpKernel {
 public:
  explicit SparseReduceOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("keep_dims", &keep_dims_)); }

  void Compute(OpKernelContext* ctx) override {
    SparseInput sp;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadSparseInput(ctx, 0, 1, 2, "", &sp));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInBounds(sp));
    Reduction r;
    TX_CTX_RETURN_IF_ERROR(ctx, PlanReduction(ctx, sp, keep_dims_, &r));
    const int64_t groups = static_cast<int64_t>(r.group_start.size()) - 1;
    const T* v = sp.values->data<T>();
    const int out_rank = static_cast<int>(r.out_shape.size());
    // The output coordinates of group g (those of its first entry, reduced dims dropped or 0).
    auto coords = [&](int64_t g, int64_t* dst) {
      const int64_t* idx = sp.index(r.order[r.group_start[g]]);
      for (int d = 0; d < sp.rank; ++d) {
        if (!r.reduced[d])
          *dst++ = idx[d];
        else if (keep_dims_)
          *dst++ = 0;
      }
    };
    if (kSparseOutput) {
      Tensor *ind = nullptr, *vals = nullptr;
      TX_CTX_RETURN_IF_ERROR(ctx, AllocateSparseOutput(ctx, 0, groups, out_rank, r.out_shape, &ind, &vals));
      for (int64_t g = 0; g < groups; ++g) {
        coords(g, ind->data<int64_t>() + g * out_rank);
        vals->data<T>()[g] = ReduceGroup<T, kMax>(v, r.order, r.group_start[g], r.group_start[g + 1]);
      }
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateChecked(ctx, 0, r.out_shape, &out));
    T* o = out->data<T>();
    std::fill(o, o + out->num_elements(), T(0));
    const std::vector<int64_t> strides = DenseStrides(r.out_shape);
    std::vector<int64_t> c(static_cast<size_t>(out_rank));
    for (int64_t g = 0; g < groups; ++g) {
      coords(g, c.data());
      int64_t flat = 0;
      for (int d = 0; d < out_rank; ++d) flat += c[d] * strides[d];
      o[flat] = ReduceGroup<T, kMax>(v, r.order, r.group_start[g], r.group_start[g + 1]);
    }
  }

 private:
  bool keep_dims_ = false;
};

template <typename T>
void RegisterFor() {
  KernelRegistry* reg = KernelRegistry::Global();
  reg->Register(
      KernelDefBuilder("SparseReduceSum")
          .TypeConstraint("T", DataTypeOf<T>::value)
          .Build([](OpKernelConstruction* c) -> OpKernel* { return new SparseReduceOp<T, false, false>(c); }));
  reg->Register(KernelDefBuilder("SparseReduceSumSparse")
                    .TypeConstraint("T", DataTypeOf<T>::value)
                    .Build([](OpKernelConstruction* c) -> OpKernel* { return new SparseReduceOp<T, false, true>(c); }));
  reg->Register(KernelDefBuilder("SparseReduceMax")
                    .TypeConstraint("T", DataTypeOf<T>::value)
                    .Build([](OpKernelConstruction* c) -> OpKernel* { return new SparseReduceOp<T, true, false>(c); }));
  reg->Register(KernelDefBuilder("SparseReduceMaxSparse")
                    .TypeConstraint("T", DataTypeOf<T>::value)
                    .Build([](OpKernelConstruction* c) -> OpKernel* { return new SparseReduceOp<T, true, true>(c); }));
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

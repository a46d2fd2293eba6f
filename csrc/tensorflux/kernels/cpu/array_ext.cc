// CPU kernels for Roll, LinSpace, LowerBound and UpperBound.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tensorflux/core/complex.h"
#include "tensorflux/kernels/cpu/index_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// The values of a scalar or 1-D integer tensor.
std::vector<int64_t> IntValues(const Tensor& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.num_elements()));
  for (int64_t i = 0; i < t.num_elements(); ++i) out[static_cast<size_t>(i)] = IndexAt(t, i);
  return out;
}

// out[(i + shift) mod n] = in[i] along every rolled axis; element by element through a
// multi-index (each output element reads one input element).
template <typename T>
class RollOp : public OpKernel {
 public:
  explicit RollOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& in = ctx->input(0);
    const Tensor& shift_t = ctx->input(1);
    const Tensor& axis_t = ctx->input(2);
    if (in.rank() < 1) {
      ctx->SetStatus(InvalidArgument("input must be 1-D or higher, got a scalar"));
      return;
    }
    if (shift_t.rank() > 1 || axis_t.rank() > 1) {
      ctx->SetStatus(InvalidArgument("shift and axis must be scalars or 1-D vectors"));
      return;
    }
    const std::vector<int64_t> shifts = IntValues(shift_t), axes = IntValues(axis_t);
    if (shifts.size() != axes.size()) {
      ctx->SetStatus(
          InvalidArgument("shift and axis must have the same size, got ", shifts.size(), " and ", axes.size()));
      return;
    }
    const int rank = in.rank();
    std::vector<int64_t> total(static_cast<size_t>(rank), 0);
    for (size_t k = 0; k < axes.size(); ++k) {
      const int64_t a = axes[k] < 0 ? axes[k] + rank : axes[k];
      if (a < 0 || a >= rank) {
        ctx->SetStatus(InvalidArgument("axis ", axes[k], " is out of range for a tensor of rank ", rank));
        return;
      }
      const int64_t n = in.dim(static_cast<int>(a));
      if (n > 0) total[static_cast<size_t>(a)] = ((total[static_cast<size_t>(a)] + shifts[k] % n) % n + n) % n;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int64_t size = in.num_elements();
    if (size == 0) return;
    std::vector<int64_t> strides(static_cast<size_t>(rank), 1);
    for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * in.dim(d + 1);
    const T* x = in.data<T>();
    T* y = out->data<T>();
    ParallelRange(ctx->intra_op_pool(), size, rank + 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        int64_t rest = i, src = 0;
        for (int d = 0; d < rank; ++d) {
          const int64_t n = in.dim(d), coord = rest / strides[d];
          rest -= coord * strides[d];
          int64_t from = coord - total[static_cast<size_t>(d)];
          if (from < 0) from += n;
          src += from * strides[d];
        }
        y[i] = x[src];
      }
    });
  }
};

template <typename T, typename N>
class LinSpaceOp : public OpKernel {
 public:
  explicit LinSpaceOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& start_t = ctx->input(0);
    const Tensor& stop_t = ctx->input(1);
    const Tensor& num_t = ctx->input(2);
    if (start_t.rank() != 0 || stop_t.rank() != 0 || num_t.rank() != 0) {
      ctx->SetStatus(InvalidArgument("start, stop and num must be scalars, got shapes ", start_t.shape().ToString(),
                                     ", ", stop_t.shape().ToString(), " and ", num_t.shape().ToString()));
      return;
    }
    const int64_t num = static_cast<int64_t>(num_t.data<N>()[0]);
    if (num <= 0) {
      ctx->SetStatus(InvalidArgument("Requires num > 0: ", num));
      return;
    }
    const T start = start_t.data<T>()[0], stop = stop_t.data<T>()[0];
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({num}), &out));
    T* y = out->data<T>();
    if (num == 1) {
      y[0] = start;
      return;
    }
    const T step = (stop - start) / static_cast<T>(num - 1);
    for (int64_t i = 0; i < num - 1; ++i) y[i] = start + step * static_cast<T>(i);
    y[num - 1] = stop;
  }
};

// LowerBound (kUpper false) and UpperBound: std::lower_bound / upper_bound in each sorted row.
template <typename T, typename O, bool kUpper>
class BoundOp : public OpKernel {
 public:
  explicit BoundOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    const Tensor& sorted = ctx->input(0);
    const Tensor& values = ctx->input(1);
    if (sorted.rank() != 2 || values.rank() != 2) {
      ctx->SetStatus(InvalidArgument("sorted_inputs and values must be 2-D, got shapes ", sorted.shape().ToString(),
                                     " and ", values.shape().ToString()));
      return;
    }
    if (sorted.dim(0) != values.dim(0)) {
      ctx->SetStatus(
          InvalidArgument("Leading dim_size of both tensors must match: ", sorted.dim(0), " vs. ", values.dim(0)));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, values.shape(), &out));
    const int64_t rows = sorted.dim(0), n = sorted.dim(1), m = values.dim(1);
    const T* s = sorted.data<T>();
    const T* v = values.data<T>();
    O* o = out->data<O>();
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = s + r * n;
      for (int64_t j = 0; j < m; ++j) {
        const T x = v[r * m + j];
        const T* it = kUpper ? std::upper_bound(row, row + n, x) : std::lower_bound(row, row + n, x);
        o[r * m + j] = static_cast<O>(it - row);
      }
    }
  }
};

template <typename T>
void RegisterRoll() {
  constexpr DataType t = DataTypeOf<T>::value;
  for (DataType ts : {DT_INT32, DT_INT64})
    for (DataType ta : {DT_INT32, DT_INT64})
      KernelRegistry::Global()->Register(
          KernelDefBuilder("Roll")
              .TypeConstraint("T", t)
              .TypeConstraint("Tshift", ts)
              .TypeConstraint("Taxis", ta)
              .Build([](OpKernelConstruction* c) -> OpKernel* { return new RollOp<T>(c); }));
}

template <typename T>
void RegisterTyped() {
  RegisterRoll<T>();
  auto bound = [](auto out_tag) {
    using O = decltype(out_tag);
    constexpr DataType o = DataTypeOf<O>::value;
    KernelRegistry::Global()->Register(
        KernelDefBuilder("LowerBound")
            .TypeConstraint("T", DataTypeOf<T>::value)
            .TypeConstraint("out_type", o)
            .Build([](OpKernelConstruction* c) -> OpKernel* { return new BoundOp<T, O, false>(c); }));
    KernelRegistry::Global()->Register(
        KernelDefBuilder("UpperBound")
            .TypeConstraint("T", DataTypeOf<T>::value)
            .TypeConstraint("out_type", o)
            .Build([](OpKernelConstruction* c) -> OpKernel* { return new BoundOp<T, O, true>(c); }));
  };
  bound(int32_t{});
  bound(int64_t{});
}

template <typename T>
void RegisterLinSpace() {
  KernelRegistry::Global()->Register(
      KernelDefBuilder("LinSpace")
          .TypeConstraint("T", DataTypeOf<T>::value)
          .TypeConstraint("Tidx", DT_INT32)
          .Build([](OpKernelConstruction* c) -> OpKernel* { return new LinSpaceOp<T, int32_t>(c); }));
  KernelRegistry::Global()->Register(
      KernelDefBuilder("LinSpace")
          .TypeConstraint("T", DataTypeOf<T>::value)
          .TypeConstraint("Tidx", DT_INT64)
          .Build([](OpKernelConstruction* c) -> OpKernel* { return new LinSpaceOp<T, int64_t>(c); }));
}

const bool kRegistered = [] {
  RegisterTyped<float>();
  RegisterTyped<double>();
  RegisterTyped<int32_t>();
  RegisterTyped<int64_t>();
  RegisterTyped<uint8_t>();
  RegisterLinSpace<float>();
  RegisterLinSpace<double>();
  RegisterRoll<bool>();
  RegisterRoll<complex64>();  // complex block
  RegisterRoll<complex128>();
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernel for SelectV2: output = condition ? t : e, with the three inputs broadcast together
// (strings are assigned element by element, never forwarded: Note [Object element types]).
#include <algorithm>
#include <vector>

#include "tensorflux/core/complex.h"
#include "tensorflux/core/tstring.h"
#include "tensorflux/kernels/cpu/broadcast.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Element strides of an input of shape `in` over the output dims `out` (right-aligned; 0 where
// the input is broadcast).
std::vector<int64_t> BroadcastStrides(const TensorShape& in, const std::vector<int64_t>& out) {
  const int r = static_cast<int>(out.size());
  std::vector<int64_t> strides(r, 0);
  int64_t s = 1;
  for (int k = r - 1, j = in.rank() - 1; j >= 0; --k, --j) {
    if (in.dim(j) != 1) strides[k] = s;
    s *= in.dim(j);
  }
  return strides;
}

template <typename T>
class SelectV2Op : public OpKernel {
 public:
  explicit SelectV2Op(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_BOOL));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, DataTypeOf<T>::value));
    const Tensor& ct = ctx->input(0);
    const Tensor& tt = ctx->input(1);
    const Tensor& et = ctx->input(2);
    BroadcastPlan te, all;
    Status s = MakeBroadcastPlan(tt.shape(), et.shape(), &te);
    if (s.ok()) s = MakeBroadcastPlan(ct.shape(), te.out_shape, &all);
    if (!s.ok()) {
      ctx->SetStatus(InvalidArgument("condition ", ct.shape().ToString(), ", t ", tt.shape().ToString(), " and e ",
                                     et.shape().ToString(), " must be broadcastable"));
      return;
    }
    const TensorShape& shape = all.out_shape;
    Tensor* out = nullptr;
    const int forward = tt.shape() == shape ? 1 : (et.shape() == shape ? 2 : -1);
    if (forward > 0)
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->forward_input_or_allocate_output(forward, 0, shape, &out));
    else
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = shape.num_elements();
    if (n == 0) return;
    const bool* c = ct.data<bool>();
    const T* t = tt.data<T>();
    const T* e = et.data<T>();
    T* z = out->data<T>();
    if (ct.shape() == shape && tt.shape() == shape && et.shape() == shape) {
      ParallelRange(ctx->intra_op_pool(), n, 1, [&](int64_t b, int64_t end) {
#pragma GCC ivdep
        for (int64_t i = b; i < end; ++i) z[i] = c[i] ? t[i] : e[i];
      });
      return;
    }
    // General case: rows of the innermost output dim, each input at its own stride (0 or 1 there).
    std::vector<int64_t> dims = shape.dims();
    if (dims.empty()) dims.push_back(1);
    const std::vector<int64_t> cs = BroadcastStrides(ct.shape(), dims), ts = BroadcastStrides(tt.shape(), dims),
                               es = BroadcastStrides(et.shape(), dims);
    const int r = static_cast<int>(dims.size());
    const int64_t inner = dims[r - 1], rows = n / inner;
    const int64_t ci = cs[r - 1], ti = ts[r - 1], ei = es[r - 1];
    ParallelItems(ctx->intra_op_pool(), rows, inner, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        int64_t co = 0, to = 0, eo = 0, rem = row;
        for (int k = r - 2; k >= 0; --k) {
          const int64_t idx = rem % dims[k];
          rem /= dims[k];
          co += idx * cs[k];
          to += idx * ts[k];
          eo += idx * es[k];
        }
        T* zr = z + row * inner;
        for (int64_t i = 0; i < inner; ++i) zr[i] = c[co + i * ci] ? t[to + i * ti] : e[eo + i * ei];
      }
    });
  }
};

#define TX_REGISTER_SELECT(T) TX_REGISTER_KERNEL(KernelDefBuilder("SelectV2").TypeConstraint<T>("T"), SelectV2Op<T>)
TX_REGISTER_SELECT(float);
TX_REGISTER_SELECT(double);
TX_REGISTER_SELECT(int32_t);
TX_REGISTER_SELECT(int64_t);
TX_REGISTER_SELECT(uint8_t);
TX_REGISTER_SELECT(bool);
TX_REGISTER_SELECT(TString);
// half and bfloat16 (a mixed-precision loss clips its 16-bit predictions; the gradient selects).
TX_REGISTER_SELECT(Half);
TX_REGISTER_SELECT(BFloat16);
// Complex block.
TX_REGISTER_SELECT(complex64);
TX_REGISTER_SELECT(complex128);

}  // namespace
}  // namespace cpu
}  // namespace tx

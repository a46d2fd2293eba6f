// CPU kernel for Where: the int64 coordinates of the non-zero (true) elements, in row-major order.
#include <algorithm>
#include <complex>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Non-zero tests; floats compare by value (-0.0 is zero, NaN is not), 16-bit floats by bits.
template <typename T>
inline bool NonZero(const T& v) {
  return v != T(0);
}
inline bool NonZero16Float(uint16_t bits) { return (bits & 0x7fff) != 0; }

template <typename T, bool kHalfBits = false>
class WhereOp : public OpKernel {
 public:
  explicit WhereOp(OpKernelConstruction* c) : OpKernel(c), dtype_(c->input_type(0)) {}

  static bool Test(const T& v) {
    if constexpr (kHalfBits)
      return NonZero16Float(v);
    else
      return NonZero(v);
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, dtype_));
    const Tensor& in = ctx->input(0);
    const T* x = in.data<T>();
    const int64_t n = in.num_elements();
    const int rank = in.rank();
    // Count per chunk, then write each chunk's coordinates at its prefix offset.
    const int64_t chunks = WorthParallel(ctx->intra_op_pool(), n, 2) ? std::min<int64_t>(64, (n + 4095) / 4096) : 1;
    const int64_t per = chunks > 0 ? (n + chunks - 1) / chunks : 0;
    std::vector<int64_t> counts(chunks + 1, 0);
    auto count_chunk = [&](int64_t c) {
      int64_t k = 0;
      for (int64_t i = c * per, e = std::min(n, (c + 1) * per); i < e; ++i) k += Test(x[i]) ? 1 : 0;
      counts[c + 1] = k;
    };
    if (chunks > 1)
      ctx->intra_op_pool()->ParallelFor(chunks, per, [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c) count_chunk(c);
      });
    else if (n > 0)
      count_chunk(0);
    for (int64_t c = 0; c < chunks; ++c) counts[c + 1] += counts[c];
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({counts[chunks], rank}), &out));
    if (counts[chunks] == 0 || rank == 0) return;
    int64_t* o = out->data<int64_t>();
    const std::vector<int64_t>& dims = in.shape().dims();
    auto fill_chunk = [&](int64_t c) {
      const int64_t begin = c * per, end = std::min(n, (c + 1) * per);
      if (begin >= end) return;
      // Coordinates of `begin`, then advanced like an odometer.
      std::vector<int64_t> coord(rank);
      int64_t rem = begin;
      for (int d = rank - 1; d >= 0; --d) {
        coord[d] = rem % dims[d];
        rem /= dims[d];
      }
      int64_t* w = o + counts[c] * rank;
      for (int64_t i = begin; i < end; ++i) {
        if (Test(x[i])) {
          for (int d = 0; d < rank; ++d) w[d] = coord[d];
          w += rank;
        }
        for (int d = rank - 1; d >= 0; --d) {
          if (++coord[d] < dims[d]) break;
          coord[d] = 0;
        }
      }
    };
    if (chunks > 1)
      ctx->intra_op_pool()->ParallelFor(chunks, per * rank, [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c) fill_chunk(c);
      });
    else
      fill_chunk(0);
  }

 private:
  const DataType dtype_;
};

#define TX_REGISTER_WHERE(dt, ...) TX_REGISTER_KERNEL(KernelDefBuilder("Where").TypeConstraint("T", dt), __VA_ARGS__)

TX_REGISTER_WHERE(DT_FLOAT, WhereOp<float>);
TX_REGISTER_WHERE(DT_DOUBLE, WhereOp<double>);
TX_REGISTER_WHERE(DT_INT32, WhereOp<int32_t>);
TX_REGISTER_WHERE(DT_UINT8, WhereOp<uint8_t>);
TX_REGISTER_WHERE(DT_INT16, WhereOp<int16_t>);
TX_REGISTER_WHERE(DT_INT8, WhereOp<int8_t>);
TX_REGISTER_WHERE(DT_COMPLEX64, WhereOp<std::complex<float>>);
TX_REGISTER_WHERE(DT_INT64, WhereOp<int64_t>);
TX_REGISTER_WHERE(DT_BFLOAT16, WhereOp<uint16_t, true>);
TX_REGISTER_WHERE(DT_UINT16, WhereOp<uint16_t>);
TX_REGISTER_WHERE(DT_COMPLEX128, WhereOp<std::complex<double>>);
TX_REGISTER_WHERE(DT_HALF, WhereOp<uint16_t, true>);
TX_REGISTER_WHERE(DT_UINT32, WhereOp<uint32_t>);
TX_REGISTER_WHERE(DT_UINT64, WhereOp<uint64_t>);
// Bool elements are read as bytes: counting and writing then agree whatever a byte holds, even
// though inputs are canonical (Note [Canonical bool] in core/tensor.h).
TX_REGISTER_WHERE(DT_BOOL, WhereOp<uint8_t>);

}  // namespace
}  // namespace cpu
}  // namespace tx

// CPU kernels for Cast to and from complex64/complex128: a real value x becomes x + 0i (bool as 0
// or 1), a complex value keeps its real part (what TensorFlow's Cast kernel does; tx.cast warns
// first, as tf.cast does), and complex64 <-> complex128 converts both parts. Kept apart from
// cast.cc, which registers the real pairs.
#include <complex>
#include <cstdint>
#include <type_traits>

#include "tensorflux/core/complex.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// A real part R to Dst with cast.cc's rules (Note [Cast semantics]): to bool x != 0; to 8- and
// 16-bit integers through int32, to uint32 through int64, then wrapping.
template <typename Dst, typename R>
inline Dst FromReal(R x) {
  if constexpr (std::is_same_v<Dst, bool>) return x != R(0);
  else if constexpr (std::is_integral_v<Dst> && sizeof(Dst) < 4) return static_cast<Dst>(static_cast<int32_t>(x));
  else if constexpr (std::is_same_v<Dst, uint32_t>) return static_cast<Dst>(static_cast<int64_t>(x));
  else return static_cast<Dst>(x);
}

// out[i] = in[i] converted, for i in [begin, end).
template <typename Dst, typename Src>
void ConvertRange(const void* in, void* out, int64_t begin, int64_t end) {
  Dst* y = static_cast<Dst*>(out);
  if constexpr (std::is_same_v<Src, bool>) {
    const uint8_t* x = static_cast<const uint8_t*>(in);  // any non-zero byte is true
    for (int64_t i = begin; i < end; ++i) y[i] = Dst(x[i] != 0 ? 1 : 0);
  } else {
    const Src* x = static_cast<const Src*>(in);
    for (int64_t i = begin; i < end; ++i) {
      if constexpr (kIsComplex<Src> && kIsComplex<Dst>) y[i] = Dst(x[i]);
      else if constexpr (kIsComplex<Src>) y[i] = FromReal<Dst>(x[i].real());
      else y[i] = Dst(static_cast<typename Dst::value_type>(x[i]));
    }
  }
}

using ConvertFn = void (*)(const void*, void*, int64_t, int64_t);

// The loop converting `other` to C (to_complex) or C to `other`; nullptr for unsupported types.
template <typename C>
ConvertFn Pick(DataType other, bool to_complex) {
#define TX_CASE(DT, T) \
  case DT: return to_complex ? ConvertRange<C, T> : ConvertRange<T, C>;
  switch (other) {
    TX_CASE(DT_FLOAT, float)
    TX_CASE(DT_DOUBLE, double)
    TX_CASE(DT_INT8, int8_t)
    TX_CASE(DT_INT16, int16_t)
    TX_CASE(DT_INT32, int32_t)
    TX_CASE(DT_INT64, int64_t)
    TX_CASE(DT_UINT8, uint8_t)
    TX_CASE(DT_UINT16, uint16_t)
    TX_CASE(DT_UINT32, uint32_t)
    TX_CASE(DT_UINT64, uint64_t)
    TX_CASE(DT_BOOL, bool)
    TX_CASE(DT_COMPLEX64, complex64)
    TX_CASE(DT_COMPLEX128, complex128)
    default: return nullptr;
  }
#undef TX_CASE
}

ConvertFn PickComplexCast(DataType src, DataType dst) {
  if (dst == DT_COMPLEX64) return Pick<complex64>(src, true);
  if (dst == DT_COMPLEX128) return Pick<complex128>(src, true);
  if (src == DT_COMPLEX64) return Pick<complex64>(dst, false);
  if (src == DT_COMPLEX128) return Pick<complex128>(dst, false);
  return nullptr;
}

// y = Cast(x) where SrcT or DstT is complex; the same type shares the input's buffer.
class ComplexCastOp : public OpKernel {
 public:
  explicit ComplexCastOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("SrcT", &src_));
    c->SetStatus(c->GetAttr("DstT", &dst_));
    if (c->status().ok() && src_ != dst_ && (fn_ = PickComplexCast(src_, dst_)) == nullptr)
      c->SetStatus(
          Unimplemented("Cast from ", DataTypeString(src_), " to ", DataTypeString(dst_), " is not supported"));
  }
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, src_));
    const Tensor& x = ctx->input(0);
    if (src_ == dst_) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, x.shape(), &out));
    const void* in = x.raw_data();
    void* o = out->raw_data();
    ConvertFn fn = fn_;
    ParallelRange(ctx->intra_op_pool(), x.num_elements(), 2, [&](int64_t b, int64_t e) { fn(in, o, b, e); });
  }

 private:
  DataType src_ = DT_INVALID, dst_ = DT_INVALID;
  ConvertFn fn_ = nullptr;
};

// One registration per (SrcT, DstT) pair with a complex side, so HasKernel answers exactly.
const bool kRegistered = [] {
  constexpr DataType kOthers[] = {DT_FLOAT,  DT_DOUBLE, DT_INT8,   DT_INT16,  DT_INT32,     DT_INT64,     DT_UINT8,
                                  DT_UINT16, DT_UINT32, DT_UINT64, DT_BOOL,   DT_COMPLEX64, DT_COMPLEX128};
  auto add = [](DataType s, DataType d) {
    KernelRegistry::Global()->Register(
        KernelDefBuilder("Cast").TypeConstraint("SrcT", s).TypeConstraint("DstT", d).Build(
            [](OpKernelConstruction* c) -> OpKernel* { return new ComplexCastOp(c); }));
  };
  for (DataType c : {DT_COMPLEX64, DT_COMPLEX128})
    for (DataType o : kOthers) {
      add(o, c);
      if (!IsComplexType(o)) add(c, o);
    }
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace tx

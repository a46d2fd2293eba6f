// CPU kernel for Cast between bool and the integer and floating types (16-bit floats included), and to
// and from the complex types (whose conversions are in cast_complex.cc).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tensorflux/core/complex.h"
#include "tensorflux/kernels/cpu/cast_complex.h"
#include "tensorflux/kernels/cpu/convert16.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Note [Cast semantics]
// To bool: x != 0. From bool: 0 or 1 (any non-zero byte reads as true). Float to integer
// truncates toward zero like C; narrow integer targets (8 and 16 bits) convert through int32 and
// uint32 through int64, then wrap, which is what NumPy and TensorFlow produce on x86 (300.7 ->
// uint8 44, -1.5 -> uint8 255). Out-of-range and NaN values give the hardware's answer (the
// "integer indefinite" value for int32/int64), as in TensorFlow; nothing traps. half and bfloat16
// convert through float (Note [16-bit floats]): to them, the source is first converted to float
// (exact for 16-bit sources, rounded for double and wide integers) and then rounded once to 16
// bits; from them, the exact float value is converted by the float rules above.
template <typename Dst, typename Src>
inline Dst Convert(Src x) {
  if constexpr (std::is_same_v<Dst, bool>) {
    return x != Src(0);
  } else if constexpr (std::is_floating_point_v<Src> && std::is_integral_v<Dst> && sizeof(Dst) < 4) {
    return static_cast<Dst>(static_cast<int32_t>(x));
  } else if constexpr (std::is_floating_point_v<Src> && std::is_same_v<Dst, uint32_t>) {
    return static_cast<Dst>(static_cast<int64_t>(x));
  } else {
    return static_cast<Dst>(x);
  }
}

template <typename Dst, typename Src>
void CastPlain(const void* in, Dst* y, int64_t begin, int64_t end) {
  if constexpr (std::is_same_v<Src, bool>) {
    const uint8_t* x = static_cast<const uint8_t*>(in);  // read bytes: any non-zero is true
    for (int64_t i = begin; i < end; ++i) y[i - begin] = static_cast<Dst>(x[i] != 0);
  } else {
    const Src* x = static_cast<const Src*>(in);
    for (int64_t i = begin; i < end; ++i) y[i - begin] = Convert<Dst, Src>(x[i]);
  }
}

// Converts elements [begin, end) of `in` (Src) into `out` (Dst); `truncate` drops bits instead of
// rounding on the way to bfloat16 (Cast's Truncate attr).
template <typename Dst, typename Src>
void CastRange(const void* in, void* out, int64_t begin, int64_t end, bool truncate) {
  Dst* y = static_cast<Dst*>(out);
  if constexpr (std::is_same_v<Src, float> && std::is_same_v<Dst, BFloat16>) {  // one pass, vectorized
    FloatToBFloat16(static_cast<const float*>(in) + begin, y + begin, end - begin, truncate);
  } else if constexpr (std::is_same_v<Src, BFloat16> && std::is_same_v<Dst, float>) {
    BFloat16ToFloat(static_cast<const BFloat16*>(in) + begin, y + begin, end - begin);
  } else if constexpr (kIsFloat16<Dst> || kIsFloat16<Src>) {
    float tmp[kConvertBlock];
    for (int64_t b = begin; b < end; b += kConvertBlock) {
      const int64_t m = std::min(kConvertBlock, end - b);
      if constexpr (kIsFloat16<Src>)
        ToFloat(static_cast<const Src*>(in) + b, tmp, m);
      else
        CastPlain<float, Src>(in, tmp, b, b + m);
      if constexpr (std::is_same_v<Dst, BFloat16>) {
        if (truncate)
          FromFloatTruncated(tmp, y + b, m);
        else
          FromFloat(tmp, y + b, m);
      } else if constexpr (std::is_same_v<Dst, Half>) {
        FromFloat(tmp, y + b, m);
      } else {
        CastPlain<Dst, float>(tmp, y + b, 0, m);
      }
    }
  } else {
    CastPlain<Dst, Src>(in, y + begin, begin, end);
  }
}

using CastFn = void (*)(const void*, void*, int64_t, int64_t, bool);

template <typename Dst>
CastFn PickSrc(DataType src) {
  switch (src) {
    case DT_FLOAT: return CastRange<Dst, float>;
    case DT_DOUBLE: return CastRange<Dst, double>;
    case DT_INT32: return CastRange<Dst, int32_t>;
    case DT_INT64: return CastRange<Dst, int64_t>;
    case DT_UINT8: return CastRange<Dst, uint8_t>;
    case DT_INT8: return CastRange<Dst, int8_t>;
    case DT_INT16: return CastRange<Dst, int16_t>;
    case DT_UINT16: return CastRange<Dst, uint16_t>;
    case DT_UINT32: return CastRange<Dst, uint32_t>;
    case DT_UINT64: return CastRange<Dst, uint64_t>;
    case DT_BOOL: return CastRange<Dst, bool>;
    case DT_HALF: return CastRange<Dst, Half>;
    case DT_BFLOAT16: return CastRange<Dst, BFloat16>;
    default: return nullptr;
  }
}

// The conversion loop for (src, dst), or nullptr when the pair is not supported.
CastFn PickCast(DataType src, DataType dst) {
  if (IsComplexType(src) || IsComplexType(dst)) return PickComplexCast(src, dst);  // complex block
  switch (dst) {
    case DT_FLOAT: return PickSrc<float>(src);
    case DT_DOUBLE: return PickSrc<double>(src);
    case DT_INT32: return PickSrc<int32_t>(src);
    case DT_INT64: return PickSrc<int64_t>(src);
    case DT_UINT8: return PickSrc<uint8_t>(src);
    case DT_INT8: return PickSrc<int8_t>(src);
    case DT_INT16: return PickSrc<int16_t>(src);
    case DT_UINT16: return PickSrc<uint16_t>(src);
    case DT_UINT32: return PickSrc<uint32_t>(src);
    case DT_UINT64: return PickSrc<uint64_t>(src);
    case DT_BOOL: return PickSrc<bool>(src);
    case DT_HALF: return PickSrc<Half>(src);
    case DT_BFLOAT16: return PickSrc<BFloat16>(src);
    default: return nullptr;
  }
}

constexpr DataType kCastTypes[] = {DT_FLOAT,  DT_DOUBLE, DT_INT32,  DT_INT64, DT_UINT8, DT_INT8,    DT_INT16,
                                   DT_UINT16, DT_UINT32, DT_UINT64, DT_BOOL,  DT_HALF,  DT_BFLOAT16};

// y = Cast(x); a cast to the same type shares the input's buffer.
class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("SrcT", &src_));
    c->SetStatus(c->GetAttr("DstT", &dst_));
    c->SetStatus(c->GetAttr("Truncate", &truncate_));  // only matters for bfloat16 results
    if (c->status().ok() && src_ != dst_ && (fn_ = PickCast(src_, dst_)) == nullptr)
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
    CastFn fn = fn_;
    const bool truncate = truncate_;
    ParallelRange(ctx->intra_op_pool(), x.num_elements(), 1, [&](int64_t b, int64_t e) { fn(in, o, b, e, truncate); });
  }

 private:
  DataType src_ = DT_INVALID, dst_ = DT_INVALID;
  CastFn fn_ = nullptr;
  bool truncate_ = false;
};

// One registration per supported (SrcT, DstT) pair, so HasKernel answers exactly.
struct RegisterCasts {
  RegisterCasts() {
    for (DataType s : kCastTypes)
      for (DataType d : kCastTypes) Register(s, d);
    // Complex block: every pair with a complex side (cast_complex.cc).
    for (DataType c : {DT_COMPLEX64, DT_COMPLEX128})
      for (DataType t : kComplexCastTypes) {
        Register(t, c);
        if (!IsComplexType(t)) Register(c, t);
      }
  }
  static void Register(DataType s, DataType d) {
    KernelRegistry::Global()->Register(
        KernelDefBuilder("Cast").TypeConstraint("SrcT", s).TypeConstraint("DstT", d).Build(
            [](OpKernelConstruction* c) -> OpKernel* { return new CastOp(c); }));
  }
};
RegisterCasts register_casts;

}  // namespace
}  // namespace cpu
}  // namespace tx

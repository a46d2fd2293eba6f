// The conversion loops of Cast to and from complex64/complex128 (cast.cc's kernel runs them): a
// real value x becomes x + 0i (bool as 0 or 1), a complex value keeps its real part (what
// TensorFlow's Cast kernel does), and complex64 <-> complex128 converts both parts.
#include "tensorflux/kernels/cpu/cast_complex.h"

#include <complex>
#include <cstdint>
#include <type_traits>

#include "tensorflux/core/complex.h"

namespace tx {
namespace cpu {
namespace {

// A real part R to Dst with cast.cc's rules (Note [Cast semantics]): to bool x != 0; to 8- and
// 16-bit integers through int32, to uint32 through int64, then wrapping.
template <typename Dst, typename R>
inline Dst FromReal(R x) {
  if constexpr (std::is_same_v<Dst, bool>)
    return x != R(0);
  else if constexpr (std::is_integral_v<Dst> && sizeof(Dst) < 4)
    return static_cast<Dst>(static_cast<int32_t>(x));
  else if constexpr (std::is_same_v<Dst, uint32_t>)
    return static_cast<Dst>(static_cast<int64_t>(x));
  else
    return static_cast<Dst>(x);
}

// out[i] = in[i] converted, for i in [begin, end).
template <typename Dst, typename Src>
void ConvertRange(const void* in, void* out, int64_t begin, int64_t end, bool /*truncate*/) {
  Dst* y = static_cast<Dst*>(out);
  if constexpr (std::is_same_v<Src, bool>) {
    const uint8_t* x = static_cast<const uint8_t*>(in);  // any non-zero byte is true
    for (int64_t i = begin; i < end; ++i) y[i] = Dst(x[i] != 0 ? 1 : 0);
  } else {
    const Src* x = static_cast<const Src*>(in);
    for (int64_t i = begin; i < end; ++i) {
      if constexpr (kIsComplex<Src> && kIsComplex<Dst>)
        y[i] = Dst(x[i]);
      else if constexpr (kIsComplex<Src>)
        y[i] = FromReal<Dst>(x[i].real());
      else
        y[i] = Dst(static_cast<typename Dst::value_type>(x[i]));
    }
  }
}

// The loop converting `other` to C (to_complex) or C to `other`; nullptr for unsupported types.
template <typename C>
ComplexCastFn Pick(DataType other, bool to_complex) {
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

}  // namespace

ComplexCastFn PickComplexCast(DataType src, DataType dst) {
  if (dst == DT_COMPLEX64) return Pick<complex64>(src, true);
  if (dst == DT_COMPLEX128) return Pick<complex128>(src, true);
  if (src == DT_COMPLEX64) return Pick<complex64>(dst, false);
  if (src == DT_COMPLEX128) return Pick<complex128>(dst, false);
  return nullptr;
}

}  // namespace cpu
}  // namespace tx

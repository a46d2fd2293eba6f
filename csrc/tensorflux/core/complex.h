// Complex element types: complex64 and complex128 are std::complex<float> and std::complex<double>
// (the layout of TensorFlow's and NumPy's complex types: real part first), mapped to their DataType.
#pragma once

#include <complex>
#include <type_traits>

#include "tensorflux/core/dtype.h"

namespace tx {

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

template <>
struct DataTypeOf<complex64> {
  static constexpr DataType value = DT_COMPLEX64;
};
template <>
struct DataTypeOf<complex128> {
  static constexpr DataType value = DT_COMPLEX128;
};

// True for complex64 and complex128.
template <typename T>
struct IsComplex : std::false_type {};
template <typename R>
struct IsComplex<std::complex<R>> : std::true_type {};
template <typename T>
inline constexpr bool kIsComplex = IsComplex<T>::value;

// True for the DataTypes DT_COMPLEX64 and DT_COMPLEX128.
inline bool IsComplexType(DataType dt) { return dt == DT_COMPLEX64 || dt == DT_COMPLEX128; }

}  // namespace tx

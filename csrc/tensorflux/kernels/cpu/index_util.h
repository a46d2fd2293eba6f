// Helpers shared by the gather/scatter/index kernels: reading index tensors of any integer type,
// element-size dispatch for type-agnostic copies, and error text naming a bad index.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tensorflux/core/tensor.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// A trivially copyable element of N bytes, for kernels that only move data.
template <size_t N>
struct Bytes {
  unsigned char b[N];
};

// Element i of an int16/int32/int64 tensor as int64 (callers check the dtype first).
inline int64_t IndexAt(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_INT16: return t.data<int16_t>()[i];
    case DT_INT32: return t.data<int32_t>()[i];
    case DT_INT64: return t.data<int64_t>()[i];
    case DT_UINT8: return t.data<uint8_t>()[i];
    case DT_INT8: return t.data<int8_t>()[i];
    default: return 0;
  }
}

// True for the integer dtypes IndexAt reads.
inline bool IsIndexType(DataType dt) {
  return dt == DT_INT16 || dt == DT_INT32 || dt == DT_INT64 || dt == DT_UINT8 || dt == DT_INT8;
}

// "[1,2]": the coordinates of flat element `flat` in a tensor of `shape`.
inline std::string CoordString(const TensorShape& shape, int64_t flat) {
  std::vector<int64_t> c(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    const int64_t n = shape.dim(d);
    c[d] = n > 0 ? flat % n : 0;
    flat = n > 0 ? flat / n : 0;
  }
  std::string s = "[";
  for (size_t d = 0; d < c.size(); ++d) s += (d ? "," : "") + std::to_string(c[d]);
  return s + "]";
}

// Product of dims [begin, end) of `s`.
inline int64_t DimProduct(const TensorShape& s, int begin, int end) {
  int64_t p = 1;
  for (int i = begin; i < end; ++i) p *= s.dim(i);
  return p;
}

// Calls f.template operator()<Bytes<size>>() for the element size of `dt`; false if unsupported.
template <typename F>
bool DispatchBySize(DataType dt, F&& f) {
  switch (DataTypeSize(dt)) {
    case 1: f(Bytes<1>{}); return true;
    case 2: f(Bytes<2>{}); return true;
    case 4: f(Bytes<4>{}); return true;
    case 8: f(Bytes<8>{}); return true;
    case 16: f(Bytes<16>{}); return true;
    default: return false;
  }
}

// Every dtype the engine stores, for data-movement kernels registered over all of them.
inline constexpr DataType kStorageTypes[] = {DT_FLOAT,  DT_DOUBLE, DT_INT32,    DT_UINT8,      DT_INT16,
                                             DT_INT8,   DT_INT64,  DT_BOOL,     DT_BFLOAT16,   DT_UINT16,
                                             DT_HALF,   DT_UINT32, DT_UINT64,   DT_COMPLEX64, DT_COMPLEX128};

}  // namespace cpu
}  // namespace tx

// Helpers shared by the gather/scatter/index kernels: reading index tensors of any integer type,
// element-size dispatch for type-agnostic copies, error text naming a bad index, index tuples
// to slice offsets, and race-free scatter-adds.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "tensorflux/core/tensor.h"
#include "tensorflux/kernels/cpu/binary_functors.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
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

// Reads the bad_indices_policy attr: *ignore is true for "IGNORE" (out-of-range tuples are
// skipped); "", "DEFAULT" and "ERROR" make them errors; anything else is InvalidArgument.
inline Status ParseBadIndicesPolicy(const OpKernelConstruction* c, bool* ignore) {
  std::string policy;
  TX_RETURN_IF_ERROR(c->GetAttr("bad_indices_policy", &policy));
  if (policy != "" && policy != "DEFAULT" && policy != "ERROR" && policy != "IGNORE")
    return InvalidArgument("bad_indices_policy must be one of '', 'DEFAULT', 'ERROR', 'IGNORE', got '", policy, "'");
  *ignore = policy == "IGNORE";
  return Status::OK();
}

// Note [Index tuples]
// GatherNd, ScatterNd and TensorScatterAdd address slices of a tensor of shape S by tuples in the
// last axis of `indices` (n = indices.dim(-1) <= rank(S) coordinates each); tuple t selects slice
// number sum_j idx[t, j] * stride_j of the tensor viewed as [S[0] * ... * S[n-1], S[n:]].

// Slice number of every index tuple of `indices` (Note [Index tuples]) in a tensor of `shape`;
// a tuple out of range is -1 when `ignore_bad`, else InvalidArgument
// "indices[i] = [a, b] does not index into <what> <shape>". Requires rank(indices) >= 1 and
// indices.dim(-1) <= rank(shape).
template <typename I>
Status IndexTupleOffsets(const Tensor& indices, const TensorShape& shape, bool ignore_bad, const char* what,
                         std::vector<int64_t>* offsets) {
  const int64_t n = indices.dim(indices.rank() - 1);
  const int nn = static_cast<int>(n);
  const int64_t tuples = DimProduct(indices.shape(), 0, indices.rank() - 1);
  std::vector<int64_t> strides(nn, 1);
  for (int j = nn - 2; j >= 0; --j) strides[j] = strides[j + 1] * shape.dim(j + 1);
  const I* idx = indices.data<I>();
  offsets->resize(static_cast<size_t>(tuples));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t off = 0;
    bool bad = false;
    for (int j = 0; j < nn; ++j) {
      const int64_t v = idx[t * n + j];
      if (v < 0 || v >= shape.dim(j))
        bad = true;
      else
        off += v * strides[j];
    }
    if (bad && !ignore_bad) {
      std::string vals;
      for (int j = 0; j < nn; ++j) vals += (j ? ", " : "") + std::to_string(static_cast<int64_t>(idx[t * n + j]));
      std::vector<int64_t> outer(indices.shape().dims().begin(), indices.shape().dims().end() - 1);
      return InvalidArgument("indices", CoordString(TensorShape(outer), t), " = [", vals, "] does not index into ",
                             what, " ", shape.ToString());
    }
    (*offsets)[t] = bad ? -1 : off;
  }
  return Status::OK();
}

// dst[i] += src[i] for i < n: integers wrap (two's complement), bool is logical or.
template <typename T>
inline void AccumulateRow(T* dst, const T* src, int64_t n) {
  if constexpr (std::is_same_v<T, bool>) {
    for (int64_t i = 0; i < n; ++i) dst[i] = dst[i] || src[i];
  } else if constexpr (std::is_integral_v<T>) {
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(WrapType<T>(dst[i]) + WrapType<T>(src[i]));
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] += src[i];
  }
}

// Adds update slice t (`slice` elements of `updates`) into slice offsets[t] of `out` for every t
// with offsets[t] >= 0. Threads split the columns of the slices, so duplicate offsets never race
// and each sum keeps the order of the updates (deterministic).
template <typename T>
void ScatterAddSlices(ThreadPool* pool, const std::vector<int64_t>& offsets, const T* updates, int64_t slice, T* out) {
  const int64_t tuples = static_cast<int64_t>(offsets.size());
  ParallelRange(pool, slice, tuples + 1, [&](int64_t b, int64_t e) {
    for (int64_t t = 0; t < tuples; ++t)
      if (offsets[t] >= 0) AccumulateRow(out + offsets[t] * slice + b, updates + t * slice + b, e - b);
  });
}

// Calls f(T{}, dtype) for every element type the summing kernels support (the numeric storage
// types with C++ arithmetic: no half or bfloat16).
template <typename F>
void ForEachSummableType(F&& f) {
  f(float{}, DT_FLOAT), f(double{}, DT_DOUBLE), f(int32_t{}, DT_INT32), f(int64_t{}, DT_INT64);
  f(uint8_t{}, DT_UINT8), f(int8_t{}, DT_INT8), f(int16_t{}, DT_INT16), f(uint16_t{}, DT_UINT16);
  f(uint32_t{}, DT_UINT32), f(uint64_t{}, DT_UINT64);
  f(std::complex<float>{}, DT_COMPLEX64), f(std::complex<double>{}, DT_COMPLEX128);
}

// Registers K<T, I> as the CPU kernel of `op` for every summable T (type attr "T") and every I
// of Is (type attr `index_attr`).
template <template <typename, typename> class K, typename... Is>
void RegisterSummableKernels(const char* op, const char* index_attr) {
  ForEachSummableType([&](auto tag, DataType dt) {
    using T = decltype(tag);
    (KernelRegistry::Global()->Register(
         KernelDefBuilder(op)
             .TypeConstraint("T", dt)
             .template TypeConstraint<Is>(index_attr)
             .Build([](OpKernelConstruction* c) -> OpKernel* { return new K<T, Is>(c); })),
     ...);
  });
}

// Every plain-bytes dtype the engine stores, for data-movement kernels registered over all of
// them (kernels that also move strings register DT_STRING themselves).
inline constexpr DataType kStorageTypes[] = {DT_FLOAT, DT_DOUBLE, DT_INT32,  DT_UINT8,     DT_INT16,
                                             DT_INT8,  DT_INT64,  DT_BOOL,   DT_BFLOAT16,  DT_UINT16,
                                             DT_HALF,  DT_UINT32, DT_UINT64, DT_COMPLEX64, DT_COMPLEX128};

}  // namespace cpu
}  // namespace tx

// DataType: element types, numbered exactly as TensorFlow's DataType enum (types.proto).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tensorflux/core/float16.h"

namespace tx {

// Element type of a tensor. Values equal TensorFlow's DataType and the C API's TX_DataType.
enum DataType : int {
  DT_INVALID = 0,
  DT_FLOAT = 1,
  DT_DOUBLE = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 5,
  DT_INT8 = 6,
  DT_STRING = 7,
  DT_COMPLEX64 = 8,
  DT_INT64 = 9,
  DT_BOOL = 10,
  DT_QINT8 = 11,
  DT_QUINT8 = 12,
  DT_QINT32 = 13,
  DT_BFLOAT16 = 14,
  DT_QINT16 = 15,
  DT_QUINT16 = 16,
  DT_UINT16 = 17,
  DT_COMPLEX128 = 18,
  DT_HALF = 19,
  DT_RESOURCE = 20,
  DT_VARIANT = 21,
  DT_UINT32 = 22,
  DT_UINT64 = 23,
  DT_FLOAT8_E5M2 = 24,
  DT_FLOAT8_E4M3FN = 25,
  DT_FLOAT8_E4M3FNUZ = 26,
  DT_FLOAT8_E4M3B11FNUZ = 27,
  DT_FLOAT8_E5M2FNUZ = 28,
  DT_INT4 = 29,
  DT_UINT4 = 30,
  DT_INT2 = 31,
  DT_UINT2 = 32,
  DT_FLOAT4_E2M1FN = 33,
};

// The highest DataType value this build knows; reference types are base + 100.
constexpr int kLastDataType = DT_FLOAT4_E2M1FN;

// Bytes per element: of a fixed-size type, or of an object element type's element (DT_STRING's
// TString, Note [Object element types]); 0 for types without one (unknown, resource, the
// sub-byte types, and object element types not registered).
size_t DataTypeSize(DataType dt);

// True when `value` names a DataType enumerator (reference types excluded).
bool IsValidDataType(int value);

// True when tensors of this type can be allocated and hold data in this engine (object element
// types once their ObjectElementOps are registered).
bool IsSupportedStorageType(DataType dt);

// TensorFlow's lowercase name ("float", "int32", ...), as in error messages and OpDef specs.
std::string DataTypeString(DataType dt);

// Parses "float", "int32", or "DT_FLOAT"-style names; returns false if unknown.
bool ParseDataType(std::string_view name, DataType* out);

// Maps a C++ element type to its DataType at compile time.
template <typename T>
struct DataTypeOf;
template <>
struct DataTypeOf<float> {
  static constexpr DataType value = DT_FLOAT;
};
template <>
struct DataTypeOf<double> {
  static constexpr DataType value = DT_DOUBLE;
};
template <>
struct DataTypeOf<int32_t> {
  static constexpr DataType value = DT_INT32;
};
template <>
struct DataTypeOf<int64_t> {
  static constexpr DataType value = DT_INT64;
};
template <>
struct DataTypeOf<uint8_t> {
  static constexpr DataType value = DT_UINT8;
};
template <>
struct DataTypeOf<int8_t> {
  static constexpr DataType value = DT_INT8;
};
template <>
struct DataTypeOf<int16_t> {
  static constexpr DataType value = DT_INT16;
};
template <>
struct DataTypeOf<uint16_t> {
  static constexpr DataType value = DT_UINT16;
};
template <>
struct DataTypeOf<uint32_t> {
  static constexpr DataType value = DT_UINT32;
};
template <>
struct DataTypeOf<uint64_t> {
  static constexpr DataType value = DT_UINT64;
};
template <>
struct DataTypeOf<bool> {
  static constexpr DataType value = DT_BOOL;
};
template <>
struct DataTypeOf<Half> {
  static constexpr DataType value = DT_HALF;
};
template <>
struct DataTypeOf<BFloat16> {
  static constexpr DataType value = DT_BFLOAT16;
};

}  // namespace tx

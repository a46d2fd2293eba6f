#include "tensorflux/core/dtype.h"

#include <cstring>

#include "tensorflux/core/object_types.h"

namespace tx {
namespace {

struct TypeInfo {
  DataType dt;
  const char* name;
  size_t size;
  bool storage;  // allocatable here
};

// One row per DataType: TensorFlow's name, element size, whether we store it. Object element
// types (string, variant) say 0/false here; their registered ObjectElementOps decide.
constexpr TypeInfo kTypes[] = {
    {DT_FLOAT, "float", 4, true},
    {DT_DOUBLE, "double", 8, true},
    {DT_INT32, "int32", 4, true},
    {DT_UINT8, "uint8", 1, true},
    {DT_INT16, "int16", 2, true},
    {DT_INT8, "int8", 1, true},
    {DT_STRING, "string", 0, false},
    {DT_COMPLEX64, "complex64", 8, true},
    {DT_INT64, "int64", 8, true},
    {DT_BOOL, "bool", 1, true},
    {DT_QINT8, "qint8", 1, false},
    {DT_QUINT8, "quint8", 1, false},
    {DT_QINT32, "qint32", 4, false},
    {DT_BFLOAT16, "bfloat16", 2, true},
    {DT_QINT16, "qint16", 2, false},
    {DT_QUINT16, "quint16", 2, false},
    {DT_UINT16, "uint16", 2, true},
    {DT_COMPLEX128, "complex128", 16, true},
    {DT_HALF, "half", 2, true},
    {DT_RESOURCE, "resource", 0, false},
    {DT_VARIANT, "variant", 0, false},
    {DT_UINT32, "uint32", 4, true},
    {DT_UINT64, "uint64", 8, true},
    {DT_FLOAT8_E5M2, "float8_e5m2", 1, false},
    {DT_FLOAT8_E4M3FN, "float8_e4m3fn", 1, false},
    {DT_FLOAT8_E4M3FNUZ, "float8_e4m3fnuz", 1, false},
    {DT_FLOAT8_E4M3B11FNUZ, "float8_e4m3b11fnuz", 1, false},
    {DT_FLOAT8_E5M2FNUZ, "float8_e5m2fnuz", 1, false},
    {DT_INT4, "int4", 0, false},
    {DT_UINT4, "uint4", 0, false},
    {DT_INT2, "int2", 0, false},
    {DT_UINT2, "uint2", 0, false},
    {DT_FLOAT4_E2M1FN, "float4_e2m1fn", 0, false},
};

const TypeInfo* Find(DataType dt) {
  for (const TypeInfo& t : kTypes)
    if (t.dt == dt) return &t;
  return nullptr;
}

}  // namespace

size_t DataTypeSize(DataType dt) {
  if (const ObjectElementOps* ops = ObjectOpsFor(dt)) return ops->element_size;  // Note [Object element types]
  const TypeInfo* t = Find(dt);
  return t ? t->size : 0;
}

bool IsValidDataType(int value) { return value >= 1 && value <= kLastDataType; }

bool IsSupportedStorageType(DataType dt) {
  if (ObjectOpsFor(dt) != nullptr) return true;
  const TypeInfo* t = Find(dt);
  return t != nullptr && t->storage;
}

std::string DataTypeString(DataType dt) {
  if (static_cast<int>(dt) > 100 && IsValidDataType(dt - 100))
    return DataTypeString(static_cast<DataType>(dt - 100)) + "_ref";
  const TypeInfo* t = Find(dt);
  if (t) return t->name;
  return "invalid(" + std::to_string(static_cast<int>(dt)) + ")";
}

bool ParseDataType(std::string_view name, DataType* out) {
  std::string lower;
  if (name.size() > 3 && name.substr(0, 3) == "DT_") {
    for (char c : name.substr(3)) lower.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
  } else {
    lower = std::string(name);
  }
  for (const TypeInfo& t : kTypes) {
    if (lower == t.name) {
      *out = t.dt;
      return true;
    }
  }
  return false;
}

}  // namespace tx

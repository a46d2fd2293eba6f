// AttrValue: the value of a node attribute, mirroring TensorFlow's AttrValue proto.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tensorflux/core/dtype.h"
#include "tensorflux/core/shape.h"
#include "tensorflux/core/tensor.h"

namespace tx {

struct NameAttrList;

// One attribute value. `kind` says which field is meaningful; a list keeps all its
// elements in the vector matching the attr's declared list type.
struct AttrValue {
  enum class Kind { kNone, kString, kInt, kFloat, kBool, kType, kShape, kTensor, kFunc, kList, kPlaceholder };

  Kind kind = Kind::kNone;
  std::string s;  // kString (bytes); kPlaceholder (name)
  int64_t i = 0;  // kInt
  float f = 0;  // kFloat
  bool b = false;  // kBool
  DataType type = DT_INVALID;  // kType
  PartialShape shape;  // kShape
  Tensor tensor;  // kTensor
  std::shared_ptr<NameAttrList> func;  // kFunc

  struct List {
    std::vector<std::string> s;
    std::vector<int64_t> i;
    std::vector<float> f;
    std::vector<bool> b;
    std::vector<DataType> type;
    std::vector<PartialShape> shape;
    std::vector<Tensor> tensor;
    std::vector<NameAttrList> func;
    // Number of elements across all vectors (only one is non-empty in valid values).
    size_t size() const {
      return s.size() + i.size() + f.size() + b.size() + type.size() + shape.size() + tensor.size() + func.size();
    }
  } list;

  static AttrValue String(std::string v) {
    AttrValue a;
    a.kind = Kind::kString;
    a.s = std::move(v);
    return a;
  }
  static AttrValue Int(int64_t v) {
    AttrValue a;
    a.kind = Kind::kInt;
    a.i = v;
    return a;
  }
  static AttrValue Float(float v) {
    AttrValue a;
    a.kind = Kind::kFloat;
    a.f = v;
    return a;
  }
  static AttrValue Bool(bool v) {
    AttrValue a;
    a.kind = Kind::kBool;
    a.b = v;
    return a;
  }
  static AttrValue Type(DataType v) {
    AttrValue a;
    a.kind = Kind::kType;
    a.type = v;
    return a;
  }
  static AttrValue Shape(PartialShape v) {
    AttrValue a;
    a.kind = Kind::kShape;
    a.shape = std::move(v);
    return a;
  }
  static AttrValue FromTensor(Tensor v) {
    AttrValue a;
    a.kind = Kind::kTensor;
    a.tensor = std::move(v);
    return a;
  }
  static AttrValue EmptyList() {
    AttrValue a;
    a.kind = Kind::kList;
    return a;
  }

  // Human-readable form for error messages, e.g. `DT_FLOAT`, `[1, 2]`, `"NHWC"`.
  std::string DebugString() const;
  // Value equality (tensors compare dtype, shape and bytes).
  bool Equals(const AttrValue& other) const;
};

// A function name with its attrs (the "func" attr kind).
struct NameAttrList {
  std::string name;
  std::map<std::string, AttrValue> attr;
};

// Attributes of a node, ordered by name (deterministic export).
using AttrMap = std::map<std::string, AttrValue>;

}  // namespace tx

// OpDef: the signature of an op, field for field TensorFlow's OpDef proto.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/core/dtype.h"
#include "tensorflux/framework/attr_value.h"

namespace tx {

// One input or output argument of an op.
struct ArgDef {
  std::string name;
  std::string description;
  DataType type = DT_INVALID;    // fixed type, or DT_INVALID when given by an attr
  std::string type_attr;         // names a "type" attr
  std::string number_attr;       // names an "int" attr: N tensors of one type
  std::string type_list_attr;    // names a "list(type)" attr
  bool is_ref = false;
};

// One attribute an op accepts.
struct AttrDef {
  std::string name;
  std::string type;  // "string", "int", "float", "bool", "type", "shape", "tensor", "func", "list(...)"
  bool has_default = false;
  AttrValue default_value;
  std::string description;
  bool has_minimum = false;
  int64_t minimum = 0;
  bool has_allowed_values = false;
  AttrValue allowed_values;  // a list
};

// The full signature of an op.
struct OpDef {
  std::string name;
  std::vector<ArgDef> input_arg;
  std::vector<ArgDef> output_arg;
  std::vector<AttrDef> attr;
  std::string summary;
  std::string description;
  bool is_commutative = false;
  bool is_aggregate = false;
  bool is_stateful = false;
  bool allows_uninitialized_input = false;

  // The attr named `name`, or nullptr.
  const AttrDef* FindAttr(const std::string& name) const;
};

}  // namespace tx

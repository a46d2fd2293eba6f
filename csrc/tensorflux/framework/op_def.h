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
  DataType type = DT_INVALID;  // fixed type, or DT_INVALID when given by an attr
  std::string type_attr;  // names a "type" attr
  std::string number_attr;  // names an "int" attr: N tensors of one type
  std::string type_list_attr;  // names a "list(type)" attr
  bool is_ref = false;
  // Serialized fields this engine does not model (handle_data, experimental_full_type), kept
  // verbatim so that FunctionDef signatures round-trip; empty for registered ops.
  std::string unknown_fields;
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
  bool is_distributed_communication = false;
  // Names of the control outputs (FunctionDef signatures: the keys of control_ret).
  std::vector<std::string> control_output;

  // The attr named `name`, or nullptr.
  const AttrDef* FindAttr(const std::string& name) const;
};

}  // namespace tx

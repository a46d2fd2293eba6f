// C API: building operations. A description collects the NodeSpec; the first error recorded
// while building is reported by TX_FinishOperation, which hands the spec to Graph::AddNode (where
// all OpDef validation and shape inference happen) and always consumes the description.
#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/core/canonical_bool.h"

using namespace tx::capi;

namespace {

using tx::AttrValue;

// Records `s` as the description's error unless one is already recorded.
void Record(TX_OperationDescription* desc, const tx::Status& s) {
  if (desc != nullptr && desc->error.ok() && !s.ok()) desc->error = s.WithPrefix("[" + desc->spec.name + "] ");
}

// Runs `fn` (returning Status) for a non-NULL description, recording failures and exceptions.
template <typename F>
tx::Status Build(TX_OperationDescription* desc, F&& fn) {
  if (desc == nullptr) return tx::InvalidArgument("operation description is NULL");
  tx::Status s;
  try {
    s = fn();
  } catch (...) { s = FromException(std::current_exception()); }
  if (s.ok()) return s;
  Record(desc, s);
  return s.WithPrefix("[" + desc->spec.name + "] ");
}

// Stores attr `name` = `value` (a later setter of the same attr replaces the earlier value).
tx::Status SetAttr(TX_OperationDescription* desc, const char* name, AttrValue value) {
  if (name == nullptr) return tx::InvalidArgument("attr name is NULL");
  desc->spec.attrs[name] = std::move(value);
  return tx::Status::OK();
}

tx::Status CheckArray(const void* values, int n, const char* name) {
  if (n < 0) return tx::InvalidArgument("attr '", name ? name : "", "': negative list length ", n);
  if (n > 0 && values == nullptr) return tx::InvalidArgument("attr '", name ? name : "", "': values are NULL");
  return tx::Status::OK();
}

tx::Status CheckType(TX_DataType t, const char* name) {
  if (!tx::IsValidDataType(static_cast<int>(t)))
    return tx::InvalidArgument("attr '", name ? name : "", "': ", static_cast<int>(t), " is not a valid data type");
  return tx::Status::OK();
}

// Checks the byte strings values[k] (lengths[k] bytes; NULL only when empty) of a list attr and
// calls add(data, length) for each; `what` names an element in messages.
template <typename Add>
tx::Status ForEachBytes(const void* const* values, const size_t* lengths, int n, const char* name, const char* what,
                        Add add) {
  TX_RETURN_IF_ERROR(CheckArray(values, n, name));
  TX_RETURN_IF_ERROR(CheckArray(lengths, n, name));
  for (int k = 0; k < n; ++k) {
    if (values[k] == nullptr && lengths[k] > 0)
      return tx::InvalidArgument("attr '", name ? name : "", "': ", what, " ", k, " is NULL");
    add(values[k] ? static_cast<const char*>(values[k]) : "", values[k] ? lengths[k] : 0);
  }
  return tx::Status::OK();
}

tx::Status AddInputs(TX_OperationDescription* desc, const TX_Output* inputs, int n, bool is_list) {
  tx::NodeSpec::InputArg arg;
  arg.is_list = is_list;
  for (int k = 0; k < n; ++k) {
    if (inputs[k].oper == nullptr)
      return tx::InvalidArgument("input argument ", desc->spec.inputs.size(),
                                 is_list ? " element " + std::to_string(k) : std::string(), " has a NULL operation");
    arg.values.push_back(tx::Endpoint{ToNode(inputs[k].oper), inputs[k].index});
  }
  desc->spec.inputs.push_back(std::move(arg));
  return tx::Status::OK();
}

}  // namespace

extern "C" {

TX_OperationDescription* TX_NewOperation(TX_Graph* graph, const char* op_type, const char* oper_name) {
  return GuardValue<TX_OperationDescription*>(nullptr, [&] {
    auto desc = std::make_unique<TX_OperationDescription>();
    desc->graph = graph;
    desc->spec.name = oper_name ? oper_name : "";
    desc->spec.op_type = op_type ? op_type : "";
    if (graph == nullptr) Record(desc.get(), tx::InvalidArgument("graph is NULL"));
    if (op_type == nullptr) Record(desc.get(), tx::InvalidArgument("op type is NULL"));
    if (oper_name == nullptr) Record(desc.get(), tx::InvalidArgument("operation name is NULL"));
    return desc.release();
  });
}

void TX_DeleteOperationDescription(TX_OperationDescription* desc) { delete desc; }

void TX_SetDevice(TX_OperationDescription* desc, const char* device) {
  Build(desc, [&] {
    desc->spec.device = device ? device : "";
    return tx::Status::OK();
  });
}

void TX_AddInput(TX_OperationDescription* desc, TX_Output input) {
  Build(desc, [&] { return AddInputs(desc, &input, 1, false); });
}

void TX_AddInputList(TX_OperationDescription* desc, const TX_Output* inputs, int num_inputs) {
  Build(desc, [&]() -> tx::Status {
    if (num_inputs < 0 || (num_inputs > 0 && inputs == nullptr))
      return tx::InvalidArgument("input list argument ", desc->spec.inputs.size(), " is NULL or has negative length");
    return AddInputs(desc, inputs, num_inputs, true);
  });
}

void TX_AddControlInput(TX_OperationDescription* desc, TX_Operation* input) {
  Build(desc, [&]() -> tx::Status {
    if (input == nullptr) return tx::InvalidArgument("control input is NULL");
    desc->spec.control_inputs.push_back(ToNode(input));
    return tx::Status::OK();
  });
}

void TX_SetAttrString(TX_OperationDescription* desc, const char* attr_name, const void* value, size_t length) {
  Build(desc, [&]() -> tx::Status {
    if (value == nullptr && length > 0)
      return tx::InvalidArgument("attr '", attr_name ? attr_name : "", "': value is NULL");
    return SetAttr(desc, attr_name,
                   AttrValue::String(std::string(static_cast<const char*>(value), value ? length : 0)));
  });
}

void TX_SetAttrStringList(TX_OperationDescription* desc, const char* attr_name, const void* const* values,
                          const size_t* lengths, int num_values) {
  Build(desc, [&]() -> tx::Status {
    AttrValue v = AttrValue::EmptyList();
    TX_RETURN_IF_ERROR(ForEachBytes(values, lengths, num_values, attr_name, "value",
                                    [&](const char* data, size_t n) { v.list.s.emplace_back(data, n); }));
    return SetAttr(desc, attr_name, std::move(v));
  });
}

void TX_SetAttrInt(TX_OperationDescription* desc, const char* attr_name, int64_t value) {
  Build(desc, [&] { return SetAttr(desc, attr_name, AttrValue::Int(value)); });
}

void TX_SetAttrIntList(TX_OperationDescription* desc, const char* attr_name, const int64_t* values, int num_values) {
  Build(desc, [&]() -> tx::Status {
    TX_RETURN_IF_ERROR(CheckArray(values, num_values, attr_name));
    AttrValue v = AttrValue::EmptyList();
    v.list.i.assign(values, values + num_values);
    return SetAttr(desc, attr_name, std::move(v));
  });
}

void TX_SetAttrFloat(TX_OperationDescription* desc, const char* attr_name, float value) {
  Build(desc, [&] { return SetAttr(desc, attr_name, AttrValue::Float(value)); });
}

void TX_SetAttrFloatList(TX_OperationDescription* desc, const char* attr_name, const float* values, int num_values) {
  Build(desc, [&]() -> tx::Status {
    TX_RETURN_IF_ERROR(CheckArray(values, num_values, attr_name));
    AttrValue v = AttrValue::EmptyList();
    v.list.f.assign(values, values + num_values);
    return SetAttr(desc, attr_name, std::move(v));
  });
}

void TX_SetAttrBool(TX_OperationDescription* desc, const char* attr_name, unsigned char value) {
  Build(desc, [&] { return SetAttr(desc, attr_name, AttrValue::Bool(value != 0)); });
}

void TX_SetAttrBoolList(TX_OperationDescription* desc, const char* attr_name, const unsigned char* values,
                        int num_values) {
  Build(desc, [&]() -> tx::Status {
    TX_RETURN_IF_ERROR(CheckArray(values, num_values, attr_name));
    AttrValue v = AttrValue::EmptyList();
    for (int k = 0; k < num_values; ++k) v.list.b.push_back(values[k] != 0);
    return SetAttr(desc, attr_name, std::move(v));
  });
}

void TX_SetAttrType(TX_OperationDescription* desc, const char* attr_name, TX_DataType value) {
  Build(desc, [&]() -> tx::Status {
    TX_RETURN_IF_ERROR(CheckType(value, attr_name));
    return SetAttr(desc, attr_name, AttrValue::Type(static_cast<tx::DataType>(value)));
  });
}

void TX_SetAttrTypeList(TX_OperationDescription* desc, const char* attr_name, const TX_DataType* values,
                        int num_values) {
  Build(desc, [&]() -> tx::Status {
    TX_RETURN_IF_ERROR(CheckArray(values, num_values, attr_name));
    AttrValue v = AttrValue::EmptyList();
    for (int k = 0; k < num_values; ++k) {
      TX_RETURN_IF_ERROR(CheckType(values[k], attr_name));
      v.list.type.push_back(static_cast<tx::DataType>(values[k]));
    }
    return SetAttr(desc, attr_name, std::move(v));
  });
}

void TX_SetAttrShape(TX_OperationDescription* desc, const char* attr_name, const int64_t* dims, int num_dims) {
  Build(desc, [&]() -> tx::Status {
    tx::PartialShape shape;
    TX_RETURN_IF_ERROR(MakePartialShape(dims, num_dims, &shape)
                           .WithPrefix(std::string("attr '") + (attr_name ? attr_name : "") + "': "));
    return SetAttr(desc, attr_name, AttrValue::Shape(std::move(shape)));
  });
}

void TX_SetAttrShapeList(TX_OperationDescription* desc, const char* attr_name, const int64_t* const* dims,
                         const int* num_dims, int num_shapes) {
  Build(desc, [&]() -> tx::Status {
    TX_RETURN_IF_ERROR(CheckArray(dims, num_shapes, attr_name));
    TX_RETURN_IF_ERROR(CheckArray(num_dims, num_shapes, attr_name));
    AttrValue v = AttrValue::EmptyList();
    for (int k = 0; k < num_shapes; ++k) {
      tx::PartialShape shape;
      TX_RETURN_IF_ERROR(MakePartialShape(dims[k], num_dims[k], &shape)
                             .WithPrefix(std::string("attr '") + (attr_name ? attr_name : "") + "' shape " +
                                         std::to_string(k) + ": "));
      v.list.shape.push_back(std::move(shape));
    }
    return SetAttr(desc, attr_name, std::move(v));
  });
}

void TX_SetAttrTensor(TX_OperationDescription* desc, const char* attr_name, TX_Tensor* value, TX_Status* status) {
  Set(status, Build(desc, [&]() -> tx::Status {
        if (value == nullptr) return tx::InvalidArgument("attr '", attr_name ? attr_name : "", "': tensor is NULL");
        tx::Tensor canonical;
        TX_RETURN_IF_ERROR(tx::AdoptCallerTensor(value->tensor, &canonical));  // Note [Canonical bool]
        return SetAttr(desc, attr_name, AttrValue::FromTensor(canonical));
      }));
}

void TX_SetAttrTensorList(TX_OperationDescription* desc, const char* attr_name, TX_Tensor* const* values,
                          int num_values, TX_Status* status) {
  Set(status, Build(desc, [&]() -> tx::Status {
        TX_RETURN_IF_ERROR(CheckArray(values, num_values, attr_name));
        AttrValue v = AttrValue::EmptyList();
        for (int k = 0; k < num_values; ++k) {
          if (values[k] == nullptr)
            return tx::InvalidArgument("attr '", attr_name ? attr_name : "", "': tensor ", k, " is NULL");
          tx::Tensor canonical;
          TX_RETURN_IF_ERROR(tx::AdoptCallerTensor(values[k]->tensor, &canonical));  // Note [Canonical bool]
          v.list.tensor.push_back(std::move(canonical));
        }
        return SetAttr(desc, attr_name, std::move(v));
      }));
}

void TX_SetAttrFuncName(TX_OperationDescription* desc, const char* attr_name, const char* value, size_t length) {
  Build(desc, [&]() -> tx::Status {
    if (value == nullptr && length > 0)
      return tx::InvalidArgument("attr '", attr_name ? attr_name : "", "': value is NULL");
    AttrValue v;
    v.kind = AttrValue::Kind::kFunc;
    v.func = std::make_shared<tx::NameAttrList>();
    v.func->name.assign(value ? value : "", value ? length : 0);
    return SetAttr(desc, attr_name, std::move(v));
  });
}

void TX_SetAttrFuncNameList(TX_OperationDescription* desc, const char* attr_name, const void* const* values,
                            const size_t* lengths, int num_values) {
  Build(desc, [&]() -> tx::Status {
    AttrValue v = AttrValue::EmptyList();
    auto add = [&](const char* data, size_t n) {
      v.list.func.emplace_back();
      v.list.func.back().name.assign(data, n);
    };
    TX_RETURN_IF_ERROR(ForEachBytes(values, lengths, num_values, attr_name, "function name", add));
    return SetAttr(desc, attr_name, std::move(v));
  });
}

void TX_SetAttrValueProto(TX_OperationDescription* desc, const char* attr_name, const void* proto, size_t proto_len,
                          TX_Status* status) {
  Set(status, Build(desc, [&]() -> tx::Status {
        if (proto == nullptr && proto_len > 0)
          return tx::InvalidArgument("attr '", attr_name ? attr_name : "", "': proto is NULL");
        AttrValue v;
        TX_RETURN_IF_ERROR(tx::ParseAttrValue(std::string(static_cast<const char*>(proto), proto ? proto_len : 0), &v)
                               .WithPrefix(std::string("attr '") + (attr_name ? attr_name : "") + "': "));
        return SetAttr(desc, attr_name, std::move(v));
      }));
}

TX_Operation* TX_FinishOperation(TX_OperationDescription* desc, TX_Status* status) {
  if (desc == nullptr) {
    Set(status, tx::InvalidArgument("operation description is NULL"));
    return nullptr;
  }
  std::unique_ptr<TX_OperationDescription> owned(desc);
  if (!desc->error.ok()) {
    Set(status, desc->error);
    return nullptr;
  }
  tx::Node* node = nullptr;
  tx::Status s;
  const std::string name = desc->spec.name;  // the spec is moved into AddNode
  try {
    s = desc->graph->graph->AddNode(std::move(desc->spec), &node);
  } catch (...) { s = FromException(std::current_exception()).WithPrefix("[" + name + "] "); }
  Set(status, s);
  return s.ok() ? ToOper(node) : nullptr;
}

}  // extern "C"

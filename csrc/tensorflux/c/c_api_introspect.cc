// C API: operation introspection (names, inputs, outputs, edges, NodeDef) and attr getters.
// Errors name the node and the attr: "[x] operation has no attr named 'foo'".
#include <algorithm>
#include <cstring>

#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/core/object_types.h"

using namespace tx::capi;
using tx::AttrValue;
using tx::Node;

namespace {

using Kind = AttrValue::Kind;

tx::Status NullOper() { return tx::InvalidArgument("operation is NULL"); }

// The TX_AttrType of an attr def type name such as "int" or "list(int)" (INT when unknown).
TX_AttrType TypeFromName(std::string type) {
  if (type.rfind("list(", 0) == 0 && type.size() > 6) type = type.substr(5, type.size() - 6);
  if (type == "string") return TX_ATTR_STRING;
  if (type == "float") return TX_ATTR_FLOAT;
  if (type == "bool") return TX_ATTR_BOOL;
  if (type == "type") return TX_ATTR_TYPE;
  if (type == "shape") return TX_ATTR_SHAPE;
  if (type == "tensor") return TX_ATTR_TENSOR;
  if (type == "func") return TX_ATTR_FUNC;
  return TX_ATTR_INT;
}

// The TX_AttrType of a value, or of a list's elements (an empty list takes its OpDef's type).
TX_AttrType ValueType(const Node* n, const std::string& name, const AttrValue& v) {
  switch (v.kind) {
    case Kind::kString: return TX_ATTR_STRING;
    case Kind::kInt: return TX_ATTR_INT;
    case Kind::kFloat: return TX_ATTR_FLOAT;
    case Kind::kBool: return TX_ATTR_BOOL;
    case Kind::kType: return TX_ATTR_TYPE;
    case Kind::kShape: return TX_ATTR_SHAPE;
    case Kind::kTensor: return TX_ATTR_TENSOR;
    case Kind::kFunc: return TX_ATTR_FUNC;
    case Kind::kPlaceholder: return TX_ATTR_PLACEHOLDER;
    case Kind::kNone:
    case Kind::kList: break;
  }
  const AttrValue::List& l = v.list;
  if (!l.s.empty()) return TX_ATTR_STRING;
  if (!l.i.empty()) return TX_ATTR_INT;
  if (!l.f.empty()) return TX_ATTR_FLOAT;
  if (!l.b.empty()) return TX_ATTR_BOOL;
  if (!l.type.empty()) return TX_ATTR_TYPE;
  if (!l.shape.empty()) return TX_ATTR_SHAPE;
  if (!l.tensor.empty()) return TX_ATTR_TENSOR;
  if (!l.func.empty()) return TX_ATTR_FUNC;
  const tx::AttrDef* def = n->op_def().FindAttr(name);
  return def ? TypeFromName(def->type) : TX_ATTR_INT;
}

const char* TypeWord(TX_AttrType t) {
  static const char* const kWords[] = {"string", "int",    "float",       "bool", "type",
                                       "shape",  "tensor", "placeholder", "func"};
  return t >= 0 && t <= TX_ATTR_FUNC ? kWords[t] : "unknown";
}

// "int", "list(int)", ... for messages.
std::string Describe(const Node* n, const std::string& name, const AttrValue& v) {
  std::string w = TypeWord(ValueType(n, name, v));
  return v.kind == Kind::kList ? "list(" + w + ")" : w;
}

// Finds attr `attr_name` on `oper`.
tx::Status Lookup(TX_Operation* oper, const char* attr_name, const Node** node, const AttrValue** value) {
  if (oper == nullptr) return NullOper();
  const Node* n = ToNode(oper);
  if (attr_name == nullptr) return tx::InvalidArgument(Where(n), "attr name is NULL");
  const AttrValue* v = n->attr(attr_name);
  if (v == nullptr) return tx::NotFound(Where(n), "operation has no attr named '", attr_name, "'");
  *node = n;
  *value = v;
  return tx::Status::OK();
}

// Looks up a single (non-list) attr of type `want`.
tx::Status GetScalar(TX_Operation* oper, const char* attr_name, TX_AttrType want, const void* out,
                     const AttrValue** value) {
  const Node* n = nullptr;
  TX_RETURN_IF_ERROR(Lookup(oper, attr_name, &n, value));
  if ((*value)->kind == Kind::kList || ValueType(n, attr_name, **value) != want)
    return tx::InvalidArgument(Where(n), "attr '", attr_name, "' is of type ", Describe(n, attr_name, **value),
                               ", expected ", TypeWord(want));
  if (out == nullptr) return tx::InvalidArgument(Where(n), "output pointer for attr '", attr_name, "' is NULL");
  return tx::Status::OK();
}

// Looks up a list attr whose elements are of type `want` (an empty list matches any type).
tx::Status GetList(TX_Operation* oper, const char* attr_name, TX_AttrType want, const void* out, int max_values,
                   const AttrValue** value) {
  const Node* n = nullptr;
  TX_RETURN_IF_ERROR(Lookup(oper, attr_name, &n, value));
  const AttrValue& v = **value;
  if (v.kind != Kind::kList || (v.list.size() > 0 && ValueType(n, attr_name, v) != want))
    return tx::InvalidArgument(Where(n), "attr '", attr_name, "' is of type ", Describe(n, attr_name, v),
                               ", expected list(", TypeWord(want), ")");
  if (max_values < 0 || (max_values > 0 && out == nullptr))
    return tx::InvalidArgument(Where(n), "output array for attr '", attr_name, "' is NULL or has negative size");
  return tx::Status::OK();
}

// Copies up to max_values elements of `src` into `dst`, converting each with `conv`.
template <typename Src, typename Dst, typename Conv>
void CopyList(const std::vector<Src>& src, Dst* dst, int max_values, Conv conv) {
  const size_t n = std::min(src.size(), static_cast<size_t>(max_values));
  for (size_t k = 0; k < n; ++k) dst[k] = conv(src[k]);
}

// Copies the strings get(src[k]) of the first max_values elements back to back into caller-owned
// `storage` (storage_size bytes), pointing values[k] at each and setting lengths[k].
template <typename T, typename Get>
tx::Status CopyStrings(TX_Operation* oper, const char* attr_name, const std::vector<T>& src, Get get, void** values,
                       size_t* lengths, int max_values, void* storage, size_t storage_size) {
  if (max_values > 0 && lengths == nullptr) return tx::InvalidArgument(Where(ToNode(oper)), "lengths is NULL");
  const size_t n = std::min(src.size(), static_cast<size_t>(max_values));
  size_t used = 0;
  for (size_t k = 0; k < n; ++k) {
    const std::string& s = get(src[k]);
    if (s.size() > storage_size - used || (storage == nullptr && !s.empty()))
      return tx::InvalidArgument(Where(ToNode(oper)), "storage of ", storage_size,
                                 " bytes is too small for the strings of attr '", attr_name, "'");
    char* dst = static_cast<char*>(storage) + used;
    if (!s.empty()) std::memcpy(dst, s.data(), s.size());
    values[k] = dst;
    lengths[k] = s.size();
    used += s.size();
  }
  return tx::Status::OK();
}

}  // namespace

extern "C" {

const char* TX_OperationName(TX_Operation* oper) { return oper ? ToNode(oper)->name().c_str() : ""; }

const char* TX_OperationOpType(TX_Operation* oper) { return oper ? ToNode(oper)->op_type().c_str() : ""; }

const char* TX_OperationDevice(TX_Operation* oper) { return oper ? ToNode(oper)->requested_device().c_str() : ""; }

int TX_OperationNumOutputs(TX_Operation* oper) { return oper ? ToNode(oper)->num_outputs() : 0; }

TX_DataType TX_OperationOutputType(TX_Output oper_out) {
  if (!CheckOutput(nullptr, oper_out, "TX_Output").ok()) return static_cast<TX_DataType>(0);
  return static_cast<TX_DataType>(ToNode(oper_out.oper)->output_type(oper_out.index));
}

int TX_OperationOutputListLength(TX_Operation* oper, const char* arg_name, TX_Status* status) {
  int len = -1;
  Guard(status, [&]() -> tx::Status {
    if (oper == nullptr) return NullOper();
    const Node* n = ToNode(oper);
    int start = 0, stop = 0;
    if (arg_name == nullptr || !n->OutputRange(arg_name, &start, &stop))
      return tx::InvalidArgument(Where(n), "operation has no output argument named '", arg_name ? arg_name : "", "'");
    len = stop - start;
    return tx::Status::OK();
  });
  return len;
}

int TX_OperationNumInputs(TX_Operation* oper) { return oper ? ToNode(oper)->num_inputs() : 0; }

TX_DataType TX_OperationInputType(TX_Input oper_in) {
  if (oper_in.oper == nullptr || oper_in.index < 0 || oper_in.index >= ToNode(oper_in.oper)->num_inputs())
    return static_cast<TX_DataType>(0);
  return static_cast<TX_DataType>(ToNode(oper_in.oper)->input_type(oper_in.index));
}

int TX_OperationInputListLength(TX_Operation* oper, const char* arg_name, TX_Status* status) {
  int len = -1;
  Guard(status, [&]() -> tx::Status {
    if (oper == nullptr) return NullOper();
    const Node* n = ToNode(oper);
    int start = 0, stop = 0;
    if (arg_name == nullptr || !n->InputRange(arg_name, &start, &stop))
      return tx::InvalidArgument(Where(n), "operation has no input argument named '", arg_name ? arg_name : "", "'");
    len = stop - start;
    return tx::Status::OK();
  });
  return len;
}

TX_Output TX_OperationInput(TX_Input oper_in) {
  if (oper_in.oper == nullptr || oper_in.index < 0 || oper_in.index >= ToNode(oper_in.oper)->num_inputs())
    return TX_Output{nullptr, -1};
  const tx::Endpoint& e = ToNode(oper_in.oper)->input(oper_in.index);
  return TX_Output{ToOper(e.node), e.index};
}

void TX_OperationAllInputs(TX_Operation* oper, TX_Output* inputs, int max_inputs) {
  if (oper == nullptr || inputs == nullptr) return;
  const Node* n = ToNode(oper);
  const int count = std::min(n->num_inputs(), max_inputs);
  for (int i = 0; i < count; ++i) inputs[i] = TX_Output{ToOper(n->input(i).node), n->input(i).index};
}

int TX_OperationOutputNumConsumers(TX_Output oper_out) {
  if (!CheckOutput(nullptr, oper_out, "TX_Output").ok()) return 0;
  const Node* n = ToNode(oper_out.oper);
  return GuardValue<int>(0, [&] { return static_cast<int>(n->graph()->Consumers(n, oper_out.index).size()); });
}

int TX_OperationOutputConsumers(TX_Output oper_out, TX_Input* consumers, int max_consumers) {
  if (!CheckOutput(nullptr, oper_out, "TX_Output").ok()) return 0;
  const Node* n = ToNode(oper_out.oper);
  return GuardValue<int>(0, [&] {
    auto cs = n->graph()->Consumers(n, oper_out.index);
    if (consumers != nullptr)
      for (int k = 0; k < std::min(static_cast<int>(cs.size()), max_consumers); ++k)
        consumers[k] = TX_Input{ToOper(cs[k].first), cs[k].second};
    return static_cast<int>(cs.size());
  });
}

int TX_OperationNumControlInputs(TX_Operation* oper) {
  return oper ? static_cast<int>(ToNode(oper)->control_inputs().size()) : 0;
}

int TX_OperationGetControlInputs(TX_Operation* oper, TX_Operation** control_inputs, int max_control_inputs) {
  if (oper == nullptr) return 0;
  const auto& cs = ToNode(oper)->control_inputs();
  if (control_inputs != nullptr)
    for (int k = 0; k < std::min(static_cast<int>(cs.size()), max_control_inputs); ++k)
      control_inputs[k] = ToOper(cs[k]);
  return static_cast<int>(cs.size());
}

int TX_OperationNumControlOutputs(TX_Operation* oper) {
  if (oper == nullptr) return 0;
  const Node* n = ToNode(oper);
  return GuardValue<int>(0, [&] { return static_cast<int>(n->graph()->ControlOutputs(n).size()); });
}

int TX_OperationGetControlOutputs(TX_Operation* oper, TX_Operation** control_outputs, int max_control_outputs) {
  if (oper == nullptr) return 0;
  const Node* n = ToNode(oper);
  return GuardValue<int>(0, [&] {
    auto cs = n->graph()->ControlOutputs(n);
    if (control_outputs != nullptr)
      for (int k = 0; k < std::min(static_cast<int>(cs.size()), max_control_outputs); ++k)
        control_outputs[k] = ToOper(cs[k]);
    return static_cast<int>(cs.size());
  });
}

void TX_OperationToNodeDef(TX_Operation* oper, TX_Buffer* output_node_def, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (oper == nullptr) return NullOper();
    std::string bytes;
    TX_RETURN_IF_ERROR(tx::ExportNodeDef(*ToNode(oper), &bytes));
    return FillBuffer(output_node_def, bytes);
  });
}

TX_AttrMetadata TX_OperationGetAttrMetadata(TX_Operation* oper, const char* attr_name, TX_Status* status) {
  TX_AttrMetadata m{0, -1, TX_ATTR_INT, -1};
  Guard(status, [&]() -> tx::Status {
    const Node* n = nullptr;
    const AttrValue* v = nullptr;
    TX_RETURN_IF_ERROR(Lookup(oper, attr_name, &n, &v));
    if (v->kind == Kind::kNone) return tx::InvalidArgument(Where(n), "attr '", attr_name, "' has no value");
    m.type = ValueType(n, attr_name, *v);
    if (v->kind == Kind::kList) {
      m.is_list = 1;
      m.list_size = static_cast<int64_t>(v->list.size());
      if (m.type == TX_ATTR_STRING || m.type == TX_ATTR_SHAPE || m.type == TX_ATTR_FUNC) m.total_size = 0;
      for (const std::string& s : v->list.s) m.total_size += static_cast<int64_t>(s.size());
      for (const tx::NameAttrList& f : v->list.func) m.total_size += static_cast<int64_t>(f.name.size());
      for (const tx::PartialShape& s : v->list.shape) m.total_size += s.known_rank() ? s.rank() : 0;
    } else if (v->kind == Kind::kString) {
      m.total_size = static_cast<int64_t>(v->s.size());
    } else if (v->kind == Kind::kShape) {
      m.total_size = v->shape.rank();
    } else if (v->kind == Kind::kFunc && v->func) {
      m.total_size = static_cast<int64_t>(v->func->name.size());
    }
    return tx::Status::OK();
  });
  return m;
}

int TX_OperationGetNumAttrs(TX_Operation* oper) { return oper ? static_cast<int>(ToNode(oper)->attrs().size()) : 0; }

const char* TX_OperationGetAttrName(TX_Operation* oper, int i, TX_Status* status) {
  const char* name = nullptr;
  Guard(status, [&]() -> tx::Status {
    if (oper == nullptr) return NullOper();
    const Node* n = ToNode(oper);
    const int count = static_cast<int>(n->attrs().size());
    if (i < 0 || i >= count) return tx::OutOfRange(Where(n), "attr index ", i, " is out of range [0, ", count, ")");
    name = std::next(n->attrs().begin(), i)->first.c_str();
    return tx::Status::OK();
  });
  return name;
}

void TX_OperationGetAttrString(TX_Operation* oper, const char* attr_name, void* value, size_t max_length,
                               TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    const AttrValue* v = nullptr;
    TX_RETURN_IF_ERROR(GetScalar(oper, attr_name, TX_ATTR_STRING, max_length == 0 ? "" : value, &v));
    if (max_length > 0) std::memcpy(value, v->s.data(), std::min(max_length, v->s.size()));
    return tx::Status::OK();
  });
}

void TX_OperationGetAttrStringList(TX_Operation* oper, const char* attr_name, void** values, size_t* lengths,
                                   int max_values, void* storage, size_t storage_size, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    const AttrValue* v = nullptr;
    TX_RETURN_IF_ERROR(GetList(oper, attr_name, TX_ATTR_STRING, values, max_values, &v));
    return CopyStrings(
        oper, attr_name, v->list.s, [](const std::string& s) -> const std::string& { return s; }, values, lengths,
        max_values, storage, storage_size);
  });
}

void TX_OperationGetAttrFuncNameList(TX_Operation* oper, const char* attr_name, void** values, size_t* lengths,
                                     int max_values, void* storage, size_t storage_size, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    const AttrValue* v = nullptr;
    TX_RETURN_IF_ERROR(GetList(oper, attr_name, TX_ATTR_FUNC, values, max_values, &v));
    return CopyStrings(
        oper, attr_name, v->list.func, [](const tx::NameAttrList& f) -> const std::string& { return f.name; }, values,
        lengths, max_values, storage, storage_size);
  });
}

void TX_OperationGetAttrInt(TX_Operation* oper, const char* attr_name, int64_t* value, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    const AttrValue* v = nullptr;
    TX_RETURN_IF_ERROR(GetScalar(oper, attr_name, TX_ATTR_INT, value, &v));
    *value = v->i;
    return tx::Status::OK();
  });
}

void TX_OperationGetAttrIntList(TX_Operation* oper, const char* attr_name, int64_t* values, int max_values,
                                TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    const AttrValue* v = nullptr;
    TX_RETURN_IF_ERROR(GetList(oper, attr_name, TX_ATTR_INT, values, max_values, &v));
    CopyList(v->list.i, values, max_values, [](int64_t x) { return x; });
    return tx::Status::OK();
  });
}

void TX_OperationGetAttrFloat(TX_Operation* oper, const char* attr_name, float* value, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    const AttrValue* v = nullptr;
    TX_RETURN_IF_ERROR(GetScalar(oper, attr_name, TX_ATTR_FLOAT, value, &v));
    *value = v->f;
    return tx::Status::OK();
  });
}

void TX_OperationGetAttrFloatList(TX_Operation* oper, const char* attr_name, float* values, int max_values,
                                  TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    const AttrValue* v = nullptr;
    TX_RETURN_IF_ERROR(GetList(oper, attr_name, TX_ATTR_FLOAT, values, max_values, &v));
    CopyList(v->list.f, values, max_values, [](float x) { return x; });
    return tx::Status::OK();
  });
}

void TX_OperationGetAttrBool(TX_Operation* oper, const char* attr_name, unsigned char* value, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    const AttrValue* v = nullptr;
    TX_RETURN_IF_ERROR(GetScalar(oper, attr_name, TX_ATTR_BOOL, value, &v));
    *value = v->b ? 1 : 0;
    return tx::Status::OK();
  });
}

void TX_OperationGetAttrBoolList(TX_Operation* oper, const char* attr_name, unsigned char* values, int max_values,
                                 TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    const AttrValue* v = nullptr;
    TX_RETURN_IF_ERROR(GetList(oper, attr_name, TX_ATTR_BOOL, values, max_values, &v));
    CopyList(v->list.b, values, max_values, [](bool x) -> unsigned char { return x ? 1 : 0; });
    return tx::Status::OK();
  });
}

void TX_OperationGetAttrType(TX_Operation* oper, const char* attr_name, TX_DataType* value, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    const AttrValue* v = nullptr;
    TX_RETURN_IF_ERROR(GetScalar(oper, attr_name, TX_ATTR_TYPE, value, &v));
    *value = static_cast<TX_DataType>(v->type);
    return tx::Status::OK();
  });
}

void TX_OperationGetAttrTypeList(TX_Operation* oper, const char* attr_name, TX_DataType* values, int max_values,
                                 TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    const AttrValue* v = nullptr;
    TX_RETURN_IF_ERROR(GetList(oper, attr_name, TX_ATTR_TYPE, values, max_values, &v));
    CopyList(v->list.type, values, max_values, [](tx::DataType x) { return static_cast<TX_DataType>(x); });
    return tx::Status::OK();
  });
}

void TX_OperationGetAttrShape(TX_Operation* oper, const char* attr_name, int64_t* value, int num_dims,
                              TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    const AttrValue* v = nullptr;
    TX_RETURN_IF_ERROR(
        GetScalar(oper, attr_name, TX_ATTR_SHAPE, num_dims > 0 ? static_cast<const void*>(value) : "", &v));
    if (num_dims != v->shape.rank())
      return tx::InvalidArgument(Where(ToNode(oper)), "attr '", attr_name, "' has rank ", v->shape.rank(), " (shape ",
                                 v->shape.ToString(), ") but num_dims is ", num_dims);
    for (int i = 0; i < num_dims; ++i) value[i] = v->shape.dim(i);
    return tx::Status::OK();
  });
}

void TX_OperationGetAttrTensor(TX_Operation* oper, const char* attr_name, TX_Tensor** value, TX_Status* status) {
  if (value != nullptr) *value = nullptr;
  Guard(status, [&]() -> tx::Status {
    const AttrValue* v = nullptr;
    TX_RETURN_IF_ERROR(GetScalar(oper, attr_name, TX_ATTR_TENSOR, value, &v));
    // A copy: the caller may write into the result, and the Const keeps its value (c_api.h).
    tx::Tensor copy;
    if (v->tensor.initialized()) {
      TX_RETURN_IF_ERROR(tx::DeepCopyTensor(v->tensor, &copy));
    } else {
      copy = v->tensor;
    }
    *value = new TX_Tensor{std::move(copy)};
    return tx::Status::OK();
  });
}

void TX_OperationGetAttrValueProto(TX_Operation* oper, const char* attr_name, TX_Buffer* output_attr_value,
                                   TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    const Node* n = nullptr;
    const AttrValue* v = nullptr;
    TX_RETURN_IF_ERROR(Lookup(oper, attr_name, &n, &v));
    return FillBuffer(output_attr_value, tx::SerializeAttrValue(*v)).WithPrefix(Where(n));
  });
}

}  // extern "C"

#include "tensorflux/framework/op_registry.h"

#include <cstdio>
#include <cstdlib>
#include <set>

namespace tx {

const AttrDef* OpDef::FindAttr(const std::string& attr_name) const {
  for (const AttrDef& a : attr)
    if (a.name == attr_name) return &a;
  return nullptr;
}

OpRegistry* OpRegistry::Global() {
  static OpRegistry* registry = new OpRegistry();  // never destroyed: used by static initializers
  return registry;
}

namespace {

// The attr kinds an AttrDef's type names (alone or inside "list(...)").
bool IsAttrKind(const std::string& kind) {
  static const std::set<std::string> kKinds = {"string", "int", "float", "bool", "type", "shape", "tensor", "func"};
  return kKinds.count(kind) > 0;
}

}  // namespace

Status ValidateOpDef(const OpDef& def) {
  if (def.name.empty() || !(def.name[0] >= 'A' && def.name[0] <= 'Z'))
    if (def.name.empty() || def.name[0] != '_')
      return InvalidArgument("op name '", def.name, "' must start with an uppercase letter or '_'");
  std::set<std::string> names;
  for (const AttrDef& a : def.attr) {
    if (!names.insert(a.name).second) return InvalidArgument("duplicate attr '", a.name, "'");
    const bool is_list = a.type.rfind("list(", 0) == 0 && a.type.size() > 6 && a.type.back() == ')';
    if (!IsAttrKind(is_list ? a.type.substr(5, a.type.size() - 6) : a.type))
      return InvalidArgument("attr '", a.name, "' has unknown type '", a.type, "'");
  }
  auto check_args = [&](const std::vector<ArgDef>& args) -> Status {
    for (const ArgDef& arg : args) {
      int sources = (arg.type != DT_INVALID) + !arg.type_attr.empty() + !arg.type_list_attr.empty();
      if (sources != 1) return InvalidArgument("arg '", arg.name, "' needs exactly one type source");
      if (!arg.type_attr.empty()) {
        const AttrDef* a = def.FindAttr(arg.type_attr);
        if (!a || a->type != "type")
          return InvalidArgument("arg '", arg.name, "' names missing type attr '", arg.type_attr, "'");
      }
      if (!arg.type_list_attr.empty()) {
        const AttrDef* a = def.FindAttr(arg.type_list_attr);
        if (!a || a->type != "list(type)")
          return InvalidArgument("arg '", arg.name, "' names missing list(type) attr '", arg.type_list_attr, "'");
      }
      if (!arg.number_attr.empty()) {
        const AttrDef* a = def.FindAttr(arg.number_attr);
        if (!a || a->type != "int")
          return InvalidArgument("arg '", arg.name, "' names missing int attr '", arg.number_attr, "'");
      }
    }
    return Status::OK();
  };
  TX_RETURN_IF_ERROR(check_args(def.input_arg));
  return check_args(def.output_arg);
}

Status OpRegistry::Register(std::unique_ptr<OpRegistration> reg) {
  TX_RETURN_IF_ERROR(ValidateOpDef(reg->def).WithPrefix("[" + reg->def.name + "] invalid OpDef: "));
  std::lock_guard<std::mutex> l(mu_);
  const std::string name = reg->def.name;
  if (ops_.count(name)) return AlreadyExists("op '", name, "' is already registered");
  ops_[name] = std::move(reg);
  return Status::OK();
}

const OpRegistration* OpRegistry::LookUp(const std::string& op_type) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = ops_.find(op_type);
  return it == ops_.end() ? nullptr : it->second.get();
}

std::vector<const OpRegistration*> OpRegistry::All() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<const OpRegistration*> out;
  for (const auto& kv : ops_) out.push_back(kv.second.get());
  return out;
}

// ----------------------------------------------------------------------------
// Spec parsing.

namespace {

std::string Trim(std::string s) {
  size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> SplitTopLevel(const std::string& s, char sep) {
  std::vector<std::string> out;
  int depth = 0;
  bool in_quote = false;
  std::string cur;
  for (char c : s) {
    if (c == '\'' || c == '"') in_quote = !in_quote;
    if (!in_quote && (c == '(' || c == '[' || c == '{')) ++depth;
    if (!in_quote && (c == ')' || c == ']' || c == '}')) --depth;
    if (!in_quote && depth == 0 && c == sep) {
      out.push_back(Trim(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!Trim(cur).empty()) out.push_back(Trim(cur));
  return out;
}

bool IsQuoted(const std::string& s) {
  return s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front();
}

// Named type sets, in TensorFlow's order.
bool ExpandTypeSet(const std::string& name, std::vector<DataType>* out) {
  if (name == "numbertype") {
    *out = {DT_FLOAT,  DT_DOUBLE,     DT_INT32,  DT_UINT8,  DT_INT16,    DT_INT8,   DT_COMPLEX64,
            DT_INT64,  DT_QINT8,      DT_QUINT8, DT_QINT32, DT_BFLOAT16, DT_QINT16, DT_QUINT16,
            DT_UINT16, DT_COMPLEX128, DT_HALF,   DT_UINT32, DT_UINT64};
  } else if (name == "realnumbertype") {
    *out = {DT_FLOAT, DT_DOUBLE,   DT_INT32,  DT_UINT8, DT_INT16,  DT_INT8,
            DT_INT64, DT_BFLOAT16, DT_UINT16, DT_HALF,  DT_UINT32, DT_UINT64};
  } else if (name == "floatingpoint") {
    *out = {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE};
  } else if (name == "quantizedtype") {
    *out = {DT_QINT8, DT_QUINT8, DT_QINT32, DT_QINT16, DT_QUINT16};
  } else {
    return false;
  }
  return true;
}

Status ParseTypeList(const std::string& body, std::vector<DataType>* out) {
  for (const std::string& item : SplitTopLevel(body, ',')) {
    DataType dt;
    if (!ParseDataType(item, &dt)) return InvalidArgument("unknown type '", item, "'");
    out->push_back(dt);
  }
  return Status::OK();
}

// Parses a scalar default of attr kind `kind` ("int", "type", ...).
Status ParseScalar(const std::string& kind, const std::string& text, AttrValue* v) {
  std::string t = Trim(text);
  if (kind == "string") {
    if (!IsQuoted(t)) return InvalidArgument("string default must be quoted: ", t);
    *v = AttrValue::String(t.substr(1, t.size() - 2));
  } else if (kind == "int") {
    char* end = nullptr;
    long long x = std::strtoll(t.c_str(), &end, 10);
    if (t.empty() || *end) return InvalidArgument("bad int default: ", t);
    *v = AttrValue::Int(x);
  } else if (kind == "float") {
    char* end = nullptr;
    float x = std::strtof(t.c_str(), &end);
    if (t.empty() || *end) return InvalidArgument("bad float default: ", t);
    *v = AttrValue::Float(x);
  } else if (kind == "bool") {
    if (t != "true" && t != "false") return InvalidArgument("bad bool default: ", t);
    *v = AttrValue::Bool(t == "true");
  } else if (kind == "type") {
    DataType dt;
    if (!ParseDataType(t, &dt)) return InvalidArgument("bad type default: ", t);
    *v = AttrValue::Type(dt);
  } else if (kind == "shape") {
    std::string compact;
    for (char c : t)
      if (c != ' ') compact.push_back(c);
    if (compact == "{unknown_rank:true}") {
      *v = AttrValue::Shape(PartialShape::Unknown());
    } else if (compact.size() >= 2 && compact.front() == '[' && compact.back() == ']') {
      std::vector<int64_t> dims;
      for (const std::string& d : SplitTopLevel(compact.substr(1, compact.size() - 2), ','))
        dims.push_back(std::strtoll(d.c_str(), nullptr, 10));
      *v = AttrValue::Shape(PartialShape(dims));
    } else {
      return InvalidArgument("bad shape default: ", t);
    }
  } else {
    return InvalidArgument("attrs of kind '", kind, "' cannot have a default here");
  }
  return Status::OK();
}

Status ParseDefault(const std::string& type, const std::string& text, AttrValue* v) {
  if (type.rfind("list(", 0) == 0) {
    std::string inner = type.substr(5, type.size() - 6);
    std::string t = Trim(text);
    if (t.size() < 2 || t.front() != '[' || t.back() != ']') return InvalidArgument("bad list default: ", t);
    *v = AttrValue::EmptyList();
    for (const std::string& item : SplitTopLevel(t.substr(1, t.size() - 2), ',')) {
      AttrValue e;
      TX_RETURN_IF_ERROR(ParseScalar(inner, item, &e));
      if (inner == "string")
        v->list.s.push_back(e.s);
      else if (inner == "int")
        v->list.i.push_back(e.i);
      else if (inner == "float")
        v->list.f.push_back(e.f);
      else if (inner == "bool")
        v->list.b.push_back(e.b);
      else if (inner == "type")
        v->list.type.push_back(e.type);
      else if (inner == "shape")
        v->list.shape.push_back(e.shape);
    }
    return Status::OK();
  }
  return ParseScalar(type, text, v);
}

Status ParseAttrSpec(const std::string& spec, AttrDef* a) {
  size_t colon = spec.find(':');
  if (colon == std::string::npos) return InvalidArgument("attr spec needs 'name: type': ", spec);
  a->name = Trim(spec.substr(0, colon));
  std::string rest = Trim(spec.substr(colon + 1));
  std::string default_text;
  // The default follows the first top-level '='.
  {
    int depth = 0;
    bool q = false;
    for (size_t k = 0; k < rest.size(); ++k) {
      char c = rest[k];
      if (c == '\'' || c == '"') q = !q;
      if (q) continue;
      if (c == '(' || c == '{' || c == '[') ++depth;
      if (c == ')' || c == '}' || c == ']') --depth;
      if (depth == 0 && c == '=' && (k == 0 || rest[k - 1] != '>')) {
        default_text = Trim(rest.substr(k + 1));
        rest = Trim(rest.substr(0, k));
        a->has_default = true;
        break;
      }
    }
  }
  size_t ge = rest.find(">=");
  if (ge != std::string::npos) {
    a->has_minimum = true;
    a->minimum = std::strtoll(Trim(rest.substr(ge + 2)).c_str(), nullptr, 10);
    rest = Trim(rest.substr(0, ge));
  }
  // Type with optional allowed values: "{...}", a named set, "list({...})", or a kind.
  bool is_list = false;
  std::string base = rest;
  if (rest.rfind("list(", 0) == 0 && rest.back() == ')') {
    is_list = true;
    base = Trim(rest.substr(5, rest.size() - 6));
  }
  std::vector<DataType> types;
  if (!base.empty() && base.front() == '{') {
    std::string body = base.substr(1, base.size() - 2);
    std::vector<std::string> items = SplitTopLevel(body, ',');
    a->has_allowed_values = true;
    a->allowed_values = AttrValue::EmptyList();
    if (!items.empty() && IsQuoted(items[0])) {
      for (const std::string& it : items) a->allowed_values.list.s.push_back(it.substr(1, it.size() - 2));
      base = "string";
    } else {
      TX_RETURN_IF_ERROR(ParseTypeList(body, &a->allowed_values.list.type));
      base = "type";
    }
  } else if (ExpandTypeSet(base, &types)) {
    a->has_allowed_values = true;
    a->allowed_values = AttrValue::EmptyList();
    a->allowed_values.list.type = types;
    base = "type";
  }
  if (!IsAttrKind(base)) return InvalidArgument("unknown attr type '", base, "' in: ", spec);
  a->type = is_list ? "list(" + base + ")" : base;
  if (a->has_default) TX_RETURN_IF_ERROR(ParseDefault(a->type, default_text, &a->default_value));
  return Status::OK();
}

Status ParseArgSpec(const std::string& spec, const OpDef& def, ArgDef* arg) {
  size_t colon = spec.find(':');
  if (colon == std::string::npos) return InvalidArgument("arg spec needs 'name: type': ", spec);
  arg->name = Trim(spec.substr(0, colon));
  std::string t = Trim(spec.substr(colon + 1));
  if (t.rfind("Ref(", 0) == 0 && t.back() == ')') {
    arg->is_ref = true;
    t = Trim(t.substr(4, t.size() - 5));
  }
  size_t star = t.find('*');
  if (star != std::string::npos) {
    arg->number_attr = Trim(t.substr(0, star));
    t = Trim(t.substr(star + 1));
  }
  DataType dt;
  const AttrDef* a = def.FindAttr(t);
  if (a != nullptr && a->type == "type") {
    arg->type_attr = t;
  } else if (a != nullptr && a->type == "list(type)") {
    arg->type_list_attr = t;
  } else if (ParseDataType(t, &dt)) {
    arg->type = dt;
  } else {
    return InvalidArgument("arg '", arg->name, "' has unknown type or attr '", t, "'");
  }
  return Status::OK();
}

}  // namespace

OpDefBuilder::OpDefBuilder(std::string name) { reg_.def.name = std::move(name); }
OpDefBuilder& OpDefBuilder::Input(std::string spec) {
  inputs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::Output(std::string spec) {
  outputs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::Attr(std::string spec) {
  attrs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsCommutative() {
  reg_.def.is_commutative = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsAggregate() {
  reg_.def.is_aggregate = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsStateful() {
  reg_.def.is_stateful = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetAllowsUninitializedInput() {
  reg_.def.allows_uninitialized_input = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsDistributedCommunication() {
  reg_.def.is_distributed_communication = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn fn) {
  reg_.shape_fn = fn;
  return *this;
}
OpDefBuilder& OpDefBuilder::Summary(std::string s) {
  reg_.def.summary = std::move(s);
  return *this;
}
OpDefBuilder& OpDefBuilder::Description(std::string s) {
  reg_.def.description = std::move(s);
  return *this;
}

Status OpDefBuilder::Finalize(OpRegistration* out) const {
  *out = reg_;
  OpDef& def = out->def;
  const std::string where = "[" + def.name + "] ";
  for (const std::string& s : attrs_) {
    AttrDef a;
    TX_RETURN_IF_ERROR(ParseAttrSpec(s, &a).WithPrefix(where));
    def.attr.push_back(std::move(a));
  }
  for (const std::string& s : inputs_) {
    ArgDef arg;
    TX_RETURN_IF_ERROR(ParseArgSpec(s, def, &arg).WithPrefix(where));
    def.input_arg.push_back(std::move(arg));
  }
  for (const std::string& s : outputs_) {
    ArgDef arg;
    TX_RETURN_IF_ERROR(ParseArgSpec(s, def, &arg).WithPrefix(where));
    def.output_arg.push_back(std::move(arg));
  }
  return Status::OK();
}

OpRegistrar::OpRegistrar(const OpDefBuilder& b) {
  auto reg = std::make_unique<OpRegistration>();
  Status s = b.Finalize(reg.get());
  if (s.ok()) s = OpRegistry::Global()->Register(std::move(reg));
  if (!s.ok()) {
    std::fprintf(stderr, "tensorflux: failed to register a built-in op: %s\n", s.message().c_str());
    std::abort();
  }
}

}  // namespace tx

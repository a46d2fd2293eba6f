// Plugin ABI (c_api_plugin.h): the table itself, status entries, op definitions, attrs and shape
// inference.
#include <cstring>
#include <memory>
#include <string>

#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/c/plugin_internal.h"
#include "tensorflux/framework/proto_codec.h"
#include "tensorflux/framework/proto_wire.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace plugin {
namespace {

using capi::Set;

// ---- status

void SetStatusImpl(TX_Status* status, TX_Code code, const char* message) { TX_SetStatus(status, code, message); }
TX_Code GetCodeImpl(const TX_Status* status) { return TX_GetCode(status); }
const char* MessageImpl(const TX_Status* status) { return TX_Message(status); }

// ---- op definitions

// Runs a builder call; an exception (out of memory) is kept as the builder's error.
template <typename F>
void Build(TX_OpDefinitionBuilder* b, F&& fn) {
  if (b != nullptr) KeepFirstError(&b->error, fn);
}

TX_OpDefinitionBuilder* NewOpDefinitionBuilder(const char* op_name) {
  try {
    return new TX_OpDefinitionBuilder(op_name == nullptr ? "" : op_name);
  } catch (...) { return nullptr; }
}

void AddInput(TX_OpDefinitionBuilder* b, const char* spec) {
  Build(b, [&] { b->builder.Input(spec ? spec : ""); });
}
void AddOutput(TX_OpDefinitionBuilder* b, const char* spec) {
  Build(b, [&] { b->builder.Output(spec ? spec : ""); });
}
void AddAttr(TX_OpDefinitionBuilder* b, const char* spec) {
  Build(b, [&] { b->builder.Attr(spec ? spec : ""); });
}
void SetIsStateful(TX_OpDefinitionBuilder* b, unsigned char v) {
  Build(b, [&] {
    if (v) b->builder.SetIsStateful();
  });
}
void SetIsCommutative(TX_OpDefinitionBuilder* b, unsigned char v) {
  Build(b, [&] {
    if (v) b->builder.SetIsCommutative();
  });
}
void SetSummary(TX_OpDefinitionBuilder* b, const char* s) {
  Build(b, [&] { b->builder.Summary(s ? s : ""); });
}
void SetDescription(TX_OpDefinitionBuilder* b, const char* s) {
  Build(b, [&] { b->builder.Description(s ? s : ""); });
}
void SetShapeFunction(TX_OpDefinitionBuilder* b, TX_ShapeInferenceFn fn) {
  if (b != nullptr) b->shape_fn = fn;
}
void DeleteOpDefinitionBuilder(TX_OpDefinitionBuilder* b) { delete b; }

// Validates `reg` and stages it in `registrar`.
Status Stage(TX_PluginRegistrar* registrar, std::unique_ptr<OpRegistration> reg) {
  const std::string& name = reg->def.name;
  TX_RETURN_IF_ERROR(ValidateOpDef(reg->def).WithPrefix("[" + name + "] invalid OpDef: "));
  if (OpRegistry::Global()->LookUp(name) != nullptr) return AlreadyExists("op '", name, "' is already registered");
  for (const auto& op : registrar->ops)
    if (op->def.name == name) return AlreadyExists("op '", name, "' is already registered by this plugin");
  registrar->ops.push_back(std::move(reg));
  return Status::OK();
}

void RegisterOpDefinition(TX_PluginRegistrar* registrar, TX_OpDefinitionBuilder* builder, TX_Status* status) {
  std::unique_ptr<TX_OpDefinitionBuilder> b(builder);
  capi::Guard(status, [&]() -> Status {
    if (registrar == nullptr || b == nullptr) return InvalidArgument("RegisterOpDefinition: NULL registrar or builder");
    TX_RETURN_IF_ERROR(b->error);
    auto reg = std::make_unique<OpRegistration>();
    TX_RETURN_IF_ERROR(b->builder.Finalize(reg.get()));
    if (b->shape_fn != nullptr) reg->shape_fn = WrapShapeFn(b->shape_fn);
    return Stage(registrar, std::move(reg));
  });
}

void RegisterOpDef(TX_PluginRegistrar* registrar, const void* op_def, size_t length, TX_ShapeInferenceFn shape_fn,
                   TX_Status* status) {
  capi::Guard(status, [&]() -> Status {
    if (registrar == nullptr || (op_def == nullptr && length > 0))
      return InvalidArgument("RegisterOpDef: NULL registrar or data");
    auto reg = std::make_unique<OpRegistration>();
    wire::Reader reader(std::string_view(static_cast<const char*>(op_def), op_def == nullptr ? 0 : length));
    TX_RETURN_IF_ERROR(codec::DecodeOpDef(reader, &reg->def).WithPrefix("RegisterOpDef: the bytes are not an OpDef: "));
    if (shape_fn != nullptr) reg->shape_fn = WrapShapeFn(shape_fn);
    return Stage(registrar, std::move(reg));
  });
}

// ---- attrs

// The attr `name` when it has `kind`; else sets `status` and returns nullptr.
const AttrValue* Find(const TX_Attrs* attrs, const char* name, AttrValue::Kind kind, const char* what,
                      TX_Status* status) {
  if (attrs == nullptr || name == nullptr) {
    Set(status, InvalidArgument("attr getter: NULL attrs or name"));
    return nullptr;
  }
  const AttrMap& m = FromAttrs(attrs);
  auto it = m.find(name);
  if (it == m.end() || it->second.kind != kind) {
    Set(status, InvalidArgument("attr '", name, "' is ", it == m.end() ? "missing" : "not " + std::string(what)));
    return nullptr;
  }
  capi::SetOk(status);
  return &it->second;
}

unsigned char AttrsHas(const TX_Attrs* attrs, const char* name) {
  return attrs != nullptr && name != nullptr && FromAttrs(attrs).count(name) > 0;
}

void GetInt(const TX_Attrs* a, const char* name, int64_t* v, TX_Status* s) {
  if (const AttrValue* x = Find(a, name, AttrValue::Kind::kInt, "an int", s)) *v = x->i;
}
void GetFloat(const TX_Attrs* a, const char* name, float* v, TX_Status* s) {
  if (const AttrValue* x = Find(a, name, AttrValue::Kind::kFloat, "a float", s)) *v = x->f;
}
void GetBool(const TX_Attrs* a, const char* name, unsigned char* v, TX_Status* s) {
  if (const AttrValue* x = Find(a, name, AttrValue::Kind::kBool, "a bool", s)) *v = x->b ? 1 : 0;
}
void GetType(const TX_Attrs* a, const char* name, TX_DataType* v, TX_Status* s) {
  if (const AttrValue* x = Find(a, name, AttrValue::Kind::kType, "a type", s)) *v = static_cast<TX_DataType>(x->type);
}
void GetString(const TX_Attrs* a, const char* name, const char** data, size_t* length, TX_Status* s) {
  if (const AttrValue* x = Find(a, name, AttrValue::Kind::kString, "a string", s)) {
    *data = x->s.data();
    *length = x->s.size();
  }
}
int GetListSize(const TX_Attrs* a, const char* name, TX_Status* s) {
  const AttrValue* x = Find(a, name, AttrValue::Kind::kList, "a list", s);
  return x == nullptr ? -1 : static_cast<int>(x->list.size());
}

// Copies up to `max` elements of list attr `name` (elements taken from `field`) into `out`.
template <typename Out, typename Field>
void GetList(const TX_Attrs* a, const char* name, Out* out, int max, TX_Status* s, Field field) {
  const AttrValue* x = Find(a, name, AttrValue::Kind::kList, "a list", s);
  if (x == nullptr) return;
  const auto& values = field(x->list);
  if (!values.empty() || x->list.size() == 0) {
    for (int k = 0; k < max && k < static_cast<int>(values.size()); ++k) out[k] = static_cast<Out>(values[k]);
    return;
  }
  Set(s, InvalidArgument("attr '", name, "' is a list of another kind"));
}
void GetIntList(const TX_Attrs* a, const char* name, int64_t* v, int max, TX_Status* s) {
  GetList(a, name, v, max, s, [](const AttrValue::List& l) -> const auto& { return l.i; });
}
void GetFloatList(const TX_Attrs* a, const char* name, float* v, int max, TX_Status* s) {
  GetList(a, name, v, max, s, [](const AttrValue::List& l) -> const auto& { return l.f; });
}
void GetTypeList(const TX_Attrs* a, const char* name, TX_DataType* v, int max, TX_Status* s) {
  GetList(a, name, v, max, s, [](const AttrValue::List& l) -> const auto& { return l.type; });
}
void GetShape(const TX_Attrs* a, const char* name, int64_t* dims, int max, int* num_dims, TX_Status* s) {
  const AttrValue* x = Find(a, name, AttrValue::Kind::kShape, "a shape", s);
  if (x == nullptr) return;
  *num_dims = x->shape.rank();
  for (int k = 0; k < max && k < x->shape.rank(); ++k) dims[k] = x->shape.dim(k);
}

// ---- shape inference

InferenceContext* Ctx(TX_ShapeInferenceContext* c) { return reinterpret_cast<InferenceContext*>(c); }
const InferenceContext* Ctx(const TX_ShapeInferenceContext* c) { return reinterpret_cast<const InferenceContext*>(c); }

int ShapeNumInputs(const TX_ShapeInferenceContext* c) { return Ctx(c)->num_inputs(); }
int ShapeNumOutputs(const TX_ShapeInferenceContext* c) { return Ctx(c)->num_outputs(); }
const TX_Attrs* ShapeAttrs(const TX_ShapeInferenceContext* c) { return ToAttrs(&Ctx(c)->attrs()); }
int ShapeInputRank(const TX_ShapeInferenceContext* c, int i) {
  return i < 0 || i >= Ctx(c)->num_inputs() ? -1 : Ctx(c)->input(i).rank();
}
int64_t ShapeInputDim(const TX_ShapeInferenceContext* c, int i, int d) {
  if (d < 0 || d >= ShapeInputRank(c, i)) return -1;
  return Ctx(c)->input(i).dim(d);
}
const void* ShapeInputConstant(const TX_ShapeInferenceContext* c, int i, TX_DataType* dtype, int64_t* n) {
  if (i < 0 || i >= Ctx(c)->num_inputs()) return nullptr;
  const Tensor* t = Ctx(c)->input_tensor(i);
  if (t == nullptr) return nullptr;
  if (dtype != nullptr) *dtype = static_cast<TX_DataType>(t->dtype());
  if (n != nullptr) *n = t->num_elements();
  return t->raw_data();
}
void ShapeSetOutput(TX_ShapeInferenceContext* c, int i, const int64_t* dims, int num_dims, TX_Status* s) {
  capi::Guard(s, [&]() -> Status {
    if (i < 0 || i >= Ctx(c)->num_outputs())
      return InvalidArgument("ShapeContextSetOutput: output ", i, " out of range [0, ", Ctx(c)->num_outputs(), ")");
    PartialShape shape;
    TX_RETURN_IF_ERROR(capi::MakePartialShape(dims, num_dims, &shape));
    Ctx(c)->set_output(i, std::move(shape));
    return Status::OK();
  });
}

}  // namespace

ShapeFn WrapShapeFn(TX_ShapeInferenceFn fn) {
  return [fn](InferenceContext* c) -> Status {
    TX_Status status;
    fn(reinterpret_cast<TX_ShapeInferenceContext*>(c), &status);
    return status.status;
  };
}

void FillOpApi(TX_PluginApi* api) {
  api->SetStatus = SetStatusImpl;
  api->GetCode = GetCodeImpl;
  api->Message = MessageImpl;
  api->NewOpDefinitionBuilder = NewOpDefinitionBuilder;
  api->OpDefinitionBuilderAddInput = AddInput;
  api->OpDefinitionBuilderAddOutput = AddOutput;
  api->OpDefinitionBuilderAddAttr = AddAttr;
  api->OpDefinitionBuilderSetIsStateful = SetIsStateful;
  api->OpDefinitionBuilderSetIsCommutative = SetIsCommutative;
  api->OpDefinitionBuilderSetSummary = SetSummary;
  api->OpDefinitionBuilderSetDescription = SetDescription;
  api->OpDefinitionBuilderSetShapeFunction = SetShapeFunction;
  api->DeleteOpDefinitionBuilder = DeleteOpDefinitionBuilder;
  api->RegisterOpDefinition = RegisterOpDefinition;
  api->RegisterOpDef = RegisterOpDef;
  api->AttrsHas = AttrsHas;
  api->AttrsGetInt = GetInt;
  api->AttrsGetFloat = GetFloat;
  api->AttrsGetBool = GetBool;
  api->AttrsGetType = GetType;
  api->AttrsGetString = GetString;
  api->AttrsGetListSize = GetListSize;
  api->AttrsGetIntList = GetIntList;
  api->AttrsGetFloatList = GetFloatList;
  api->AttrsGetTypeList = GetTypeList;
  api->AttrsGetShape = GetShape;
  api->ShapeContextNumInputs = ShapeNumInputs;
  api->ShapeContextNumOutputs = ShapeNumOutputs;
  api->ShapeContextAttrs = ShapeAttrs;
  api->ShapeContextInputRank = ShapeInputRank;
  api->ShapeContextInputDim = ShapeInputDim;
  api->ShapeContextInputConstant = ShapeInputConstant;
  api->ShapeContextSetOutput = ShapeSetOutput;
}

const TX_PluginApi* Api() {
  static const TX_PluginApi* api = [] {
    auto* a = new TX_PluginApi{};
    a->abi_version = TX_PLUGIN_ABI_VERSION;
    FillOpApi(a);
    FillKernelApi(a);
    FillGradientApi(a);
    return a;
  }();
  return api;
}

}  // namespace plugin
}  // namespace tx

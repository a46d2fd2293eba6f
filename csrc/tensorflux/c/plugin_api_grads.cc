// Plugin ABI (c_api_plugin.h): gradient registration and the C face of GradContext / GradScope,
// so a plugin's gradient serves graph mode, the eager tape and tx.function like a built-in one
// (Note [One gradient, every mode] in gradients/grad_builder.h).
#include <cstring>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/c/plugin_internal.h"

// The values a plugin's gradient function may name: the forward op's inputs and outputs and
// whatever the context handed it since. Ids from elsewhere (garbage, another call) are rejected
// instead of indexing the builder's tables.
struct TX_GradContext {
  explicit TX_GradContext(tx::GradContext* g) : g(g) {
    for (int i = 0; i < g->num_inputs(); ++i) Hand(g->input(i));
    for (int i = 0; i < g->num_outputs(); ++i) Hand(g->output(i));
  }
  TX_GradValue Hand(tx::GValue v) {
    if (v.valid()) known.insert(v.id());
    return TX_GradValue{v.valid() ? v.id() : -1};
  }
  bool Known(TX_GradValue v) const { return v.id >= 0 && known.count(v.id) > 0; }

  tx::GradContext* g;
  std::unordered_set<int> known;
};

struct TX_GradOp {
  TX_GradContext* ctx;
  std::string type;
  std::vector<std::vector<tx::GValue>> inputs;
  tx::AttrMap attrs;
  tx::Status error;  // the first bad call, reported by GradFinishOp
};

namespace tx {
namespace plugin {
namespace {

using capi::Set;

void RegisterGradient(TX_PluginRegistrar* registrar, const char* op_name, TX_GradientFn fn, TX_Status* status) {
  capi::Guard(status, [&]() -> Status {
    if (registrar == nullptr || op_name == nullptr || *op_name == '\0')
      return InvalidArgument("RegisterGradient: NULL registrar or empty op name");
    const std::string op = op_name;
    for (const auto& staged : registrar->gradients)
      if (staged.first == op) return AlreadyExists("op ", op, " already has a gradient from this plugin");
    if (GradientRegistry::Global()->LookUp(op) != nullptr)
      return AlreadyExists("op ", op, " already has a gradient or a not-differentiable declaration");
    registrar->gradients.emplace_back(op, fn == nullptr ? GradFn() : WrapGradientFn(fn, op, registrar->library));
    return Status::OK();
  });
}

const TX_Attrs* Attrs(const TX_GradContext* c) { return ToAttrs(&c->g->attrs()); }
int NumInputs(const TX_GradContext* c) { return c->g->num_inputs(); }
int NumOutputs(const TX_GradContext* c) { return c->g->num_outputs(); }
TX_GradValue Input(const TX_GradContext* c, int i) {
  return TX_GradValue{i >= 0 && i < c->g->num_inputs() ? c->g->input(i).id() : -1};
}
TX_GradValue Output(const TX_GradContext* c, int i) {
  return TX_GradValue{i >= 0 && i < c->g->num_outputs() ? c->g->output(i).id() : -1};
}
TX_GradValue OutputGrad(TX_GradContext* c, int i) {
  if (i < 0 || i >= c->g->num_outputs()) return TX_GradValue{-1};
  return c->Hand(c->g->grad(i));
}
unsigned char HasOutputGrad(const TX_GradContext* c, int i) {
  return i >= 0 && i < c->g->num_outputs() && c->g->has_grad(i);
}
unsigned char NeedsInputGrad(const TX_GradContext* c, int i) {
  return i >= 0 && i < c->g->num_inputs() && c->g->needs_grad(i);
}
void SetInputGrad(TX_GradContext* c, int i, TX_GradValue v) {
  if (i < 0 || i >= c->g->num_inputs())
    return c->g->ops().Fail(
        InvalidArgument("GradContextSetInputGrad: input ", i, " out of range [0, ", c->g->num_inputs(), ")"));
  if (v.id >= 0 && !c->Known(v))
    return c->g->ops().Fail(InvalidArgument("GradContextSetInputGrad: value ", v.id, " was not made by this context"));
  c->g->set_grad(i, v.id >= 0 ? GValue(v.id) : GValue());
}

TX_DataType ValueType(const TX_GradContext* c, TX_GradValue v) {
  return c->Known(v) ? static_cast<TX_DataType>(c->g->ops().dtype(GValue(v.id))) : TX_DataType(0);
}
int ValueRank(const TX_GradContext* c, TX_GradValue v) {
  return c->Known(v) ? c->g->ops().shape(GValue(v.id)).rank() : -1;
}
int64_t ValueDim(const TX_GradContext* c, TX_GradValue v, int d) {
  if (!c->Known(v)) return -1;
  PartialShape s = c->g->ops().shape(GValue(v.id));
  return d >= 0 && d < s.rank() ? s.dim(d) : -1;
}

TX_GradValue Constant(TX_GradContext* c, TX_DataType dtype, const int64_t* dims, int num_dims, const void* data,
                      size_t length, TX_Status* status) {
  TX_GradValue out{-1};
  capi::Guard(status, [&]() -> Status {
    if (num_dims < 0 || (num_dims > 0 && dims == nullptr)) return InvalidArgument("GradConstant: bad dims");
    TensorShape shape;
    TX_RETURN_IF_ERROR(TensorShape::Make(dims, num_dims, &shape));
    Tensor t;
    TX_RETURN_IF_ERROR(Tensor::Allocate(static_cast<DataType>(dtype), shape, &t));
    if (t.byte_size() != length || (length > 0 && data == nullptr))
      return InvalidArgument("GradConstant: ", length, " bytes for a ", DataTypeString(t.dtype()), " tensor of shape ",
                             shape.ToString(), ", which takes ", t.byte_size());
    if (length > 0) std::memcpy(t.raw_data(), data, length);
    out = c->Hand(c->g->ops().Const(t));
    return c->g->ops().status();
  });
  return out;
}

TX_GradOp* NewOp(TX_GradContext* c, const char* op_type) {
  try {
    return new TX_GradOp{c, op_type == nullptr ? "" : op_type, {}, {}, Status::OK()};
  } catch (...) { return nullptr; }
}

// Runs a builder call; an exception (out of memory) becomes the op's error.
template <typename F>
void Edit(TX_GradOp* op, F&& fn) {
  if (op != nullptr) KeepFirstError(&op->error, fn);
}

void AddInputList(TX_GradOp* op, const TX_GradValue* inputs, int n) {
  Edit(op, [&] {
    std::vector<GValue> group;
    for (int k = 0; k < n; ++k) {
      if ((inputs == nullptr || !op->ctx->Known(inputs[k])) && op->error.ok())
        op->error =
            InvalidArgument("input ", op->inputs.size(), " of ", op->type, " is not a value of this gradient context");
      group.push_back(inputs == nullptr ? GValue() : GValue(inputs[k].id));
    }
    op->inputs.push_back(std::move(group));
  });
}
void AddInput(TX_GradOp* op, TX_GradValue input) { AddInputList(op, &input, 1); }
void SetInt(TX_GradOp* op, const char* name, int64_t v) {
  Edit(op, [&] { op->attrs[name] = AttrValue::Int(v); });
}
void SetFloat(TX_GradOp* op, const char* name, float v) {
  Edit(op, [&] { op->attrs[name] = AttrValue::Float(v); });
}
void SetBool(TX_GradOp* op, const char* name, unsigned char v) {
  Edit(op, [&] { op->attrs[name] = AttrValue::Bool(v != 0); });
}
void SetType(TX_GradOp* op, const char* name, TX_DataType v) {
  Edit(op, [&] { op->attrs[name] = AttrValue::Type(static_cast<DataType>(v)); });
}
void SetString(TX_GradOp* op, const char* name, const void* v, size_t n) {
  Edit(op, [&] { op->attrs[name] = AttrValue::String(std::string(static_cast<const char*>(v), v ? n : 0)); });
}
void SetIntList(TX_GradOp* op, const char* name, const int64_t* v, int n) {
  Edit(op, [&] { op->attrs[name] = IntListAttr(std::vector<int64_t>(v, v + (v != nullptr && n > 0 ? n : 0))); });
}

int FinishOp(TX_GradOp* op_in, TX_GradValue* outputs, int max_outputs, TX_Status* status) {
  std::unique_ptr<TX_GradOp> op(op_in);
  int n = -1;
  capi::Guard(status, [&]() -> Status {
    if (op == nullptr) return InvalidArgument("GradFinishOp: NULL op");
    GradScope& scope = op->ctx->g->ops();
    if (!op->error.ok()) scope.Fail(op->error);  // the gradient fails even if the plugin ignores the status
    std::vector<GValue> outs = scope.Op(op->type, op->inputs, op->attrs);
    TX_RETURN_IF_ERROR(scope.status());
    for (size_t k = 0; k < outs.size(); ++k) {
      TX_GradValue v = op->ctx->Hand(outs[k]);
      if (outputs != nullptr && static_cast<int>(k) < max_outputs) outputs[k] = v;
    }
    n = static_cast<int>(outs.size());
    return Status::OK();
  });
  return n;
}

}  // namespace

GradFn WrapGradientFn(TX_GradientFn fn, std::string op, std::string library) {
  return [fn, op, library](GradContext& g) -> Status {
    TX_GradContext c(&g);
    TX_Status status;
    fn(&c, &status);
    if (!status.status.ok())
      return Status(status.status.code(),
                    "the gradient function of plugin '" + library + "' failed: " + status.status.message());
    return g.ops().status();
  };
}

void FillGradientApi(TX_PluginApi* api) {
  api->RegisterGradient = RegisterGradient;
  api->GradContextAttrs = Attrs;
  api->GradContextNumInputs = NumInputs;
  api->GradContextNumOutputs = NumOutputs;
  api->GradContextInput = Input;
  api->GradContextOutput = Output;
  api->GradContextOutputGrad = OutputGrad;
  api->GradContextHasOutputGrad = HasOutputGrad;
  api->GradContextNeedsInputGrad = NeedsInputGrad;
  api->GradContextSetInputGrad = SetInputGrad;
  api->GradValueType = ValueType;
  api->GradValueRank = ValueRank;
  api->GradValueDim = ValueDim;
  api->GradConstant = Constant;
  api->GradNewOp = NewOp;
  api->GradOpAddInput = AddInput;
  api->GradOpAddInputList = AddInputList;
  api->GradOpSetAttrInt = SetInt;
  api->GradOpSetAttrFloat = SetFloat;
  api->GradOpSetAttrBool = SetBool;
  api->GradOpSetAttrType = SetType;
  api->GradOpSetAttrString = SetString;
  api->GradOpSetAttrIntList = SetIntList;
  api->GradFinishOp = FinishOp;
}

}  // namespace plugin
}  // namespace tx

// C API: eager contexts, tensor handles and op execution (c_api_eager.h) over tx::EagerContext and
// tx::EagerOp. Attr setters without a status record their first error in the op; TXE_Execute
// reports it.
#include "tensorflux/c/c_api_eager.h"

#include <algorithm>

#include "tensorflux/c/c_api_eager_internal.h"
#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/core/canonical_bool.h"
#include "tensorflux/eager/tape.h"
#include "tensorflux/runtime/device.h"

using namespace tx::capi;
using tx::AttrValue;

namespace {

// Records a setter failure on `op` (the first one wins).
void Record(TXE_Op* op, const tx::Status& s) {
  if (op != nullptr && op->error.ok() && !s.ok()) op->error = s;
}

void SetOpAttr(TXE_Op* op, const char* name, AttrValue v) {
  if (op == nullptr) return;
  if (name == nullptr) return Record(op, tx::InvalidArgument("attr name is NULL"));
  op->op.SetAttr(name, std::move(v));
}

template <typename T, typename F>
void SetListAttr(TXE_Op* op, const char* name, const T* values, int n, F&& add) {
  if (op == nullptr) return;
  if (n < 0 || (n > 0 && values == nullptr))
    return Record(op, tx::InvalidArgument("attr '", name ? name : "", "': values is NULL or num_values < 0"));
  AttrValue v = AttrValue::EmptyList();
  for (int k = 0; k < n; ++k) add(&v.list, values[k]);
  SetOpAttr(op, name, std::move(v));
}

tx::Status CheckHandle(const TXE_TensorHandle* h) {
  return h == nullptr ? tx::InvalidArgument("tensor handle is NULL") : tx::Status::OK();
}

const char* DeviceNameOf(const TXE_TensorHandle* h) {
  static const std::string cpu0 = tx::LocalCpuDeviceName();
  return h->ctx ? h->ctx->ctx->device_name(h->t.device).c_str() : cpu0.c_str();
}

}  // namespace

TXE_ContextOptions* TXE_NewContextOptions(void) { return new TXE_ContextOptions; }
void TXE_DeleteContextOptions(TXE_ContextOptions* options) { delete options; }

void TXE_ContextOptionsSetDevicePlacementPolicy(TXE_ContextOptions* options, TXE_ContextDevicePlacementPolicy policy) {
  if (options != nullptr && policy >= TXE_DEVICE_PLACEMENT_EXPLICIT && policy <= TXE_DEVICE_PLACEMENT_SILENT_FOR_INT32)
    options->opts.policy = static_cast<tx::PlacementPolicy>(policy);
}

void TXE_ContextOptionsSetThreads(TXE_ContextOptions* options, int intra_op, int inter_op) {
  if (options == nullptr) return;
  options->opts.intra_op_threads = intra_op > 0 ? intra_op : 0;
  options->opts.inter_op_threads = inter_op > 0 ? inter_op : 0;
}

void TXE_ContextOptionsSetNumCpuDevices(TXE_ContextOptions* options, int n) {
  if (options != nullptr) options->opts.num_cpu_devices = n > 0 ? (n < 64 ? n : 64) : 1;
}

TXE_Context* TXE_NewContext(const TXE_ContextOptions* options, TX_Status* status) {
  TXE_Context* out = nullptr;
  Guard(status, [&]() -> tx::Status {
    tx::EagerContextOptions opts = options ? options->opts : tx::EagerContextOptions();
    out = new TXE_Context{std::make_unique<tx::EagerContext>(opts)};
    return tx::Status::OK();
  });
  return out;
}

void TXE_DeleteContext(TXE_Context* ctx) { delete ctx; }

int TXE_ContextNumDevices(const TXE_Context* ctx) { return ctx ? ctx->ctx->num_devices() : 0; }

const char* TXE_ContextDeviceName(const TXE_Context* ctx, int index, TX_Status* status) {
  if (ctx == nullptr || index < 0 || index >= ctx->ctx->num_devices()) {
    Set(status,
        tx::InvalidArgument("device index ", index, " out of range [0, ", ctx ? ctx->ctx->num_devices() : 0, ")"));
    return nullptr;
  }
  SetOk(status);
  return ctx->ctx->device_name(index).c_str();
}

void TXE_ContextSetSoftDevicePlacement(TXE_Context* ctx, unsigned char enable, TX_Status* status) {
  if (ctx == nullptr) {
    Set(status, tx::InvalidArgument("TXE_ContextSetSoftDevicePlacement: ctx is NULL"));
    return;
  }
  ctx->ctx->set_soft_placement(enable != 0);
  SetOk(status);
}

unsigned char TXE_ContextGetSoftDevicePlacement(const TXE_Context* ctx) {
  return ctx != nullptr && ctx->ctx->soft_placement() ? 1 : 0;
}

void TXE_ContextClearCaches(TXE_Context* ctx) {
  if (ctx != nullptr) ctx->ctx->ClearCaches();
}

int64_t TXE_ContextNumCachedKernels(const TXE_Context* ctx) { return ctx ? ctx->ctx->num_cached_kernels() : 0; }

void TXE_ContextAddFunctionWithGradient(TXE_Context* ctx, const TX_Function* function, const TX_Function* grad,
                                        TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (ctx == nullptr || function == nullptr) return tx::InvalidArgument("context or function is NULL");
    tx::FunctionDefLibraryProto lib;
    lib.function.push_back(function->def);
    if (grad != nullptr) {
      lib.function.push_back(grad->def);
      lib.gradient.emplace_back(function->def.name(), grad->def.name());
    }
    return ctx->ctx->library().MergeFrom(lib);
  });
}

void TXE_ContextAddFunction(TXE_Context* ctx, const TX_Function* function, TX_Status* status) {
  TXE_ContextAddFunctionWithGradient(ctx, function, nullptr, status);
}

void TXE_ContextAddFunctionDef(TXE_Context* ctx, const void* proto, size_t size, TX_Status* status) {
  if (ctx == nullptr) return Set(status, tx::InvalidArgument("context is NULL"));
  TX_Function* f = TX_FunctionImportFunctionDef(proto, size, status);
  if (f == nullptr) return;
  TXE_ContextAddFunction(ctx, f, status);
  TX_DeleteFunction(f);
}

void TXE_ContextRemoveFunction(TXE_Context* ctx, const char* name, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (ctx == nullptr || name == nullptr) return tx::InvalidArgument("context or function name is NULL");
    return ctx->ctx->RemoveFunction(name);
  });
}

int TXE_ContextNumFunctions(const TXE_Context* ctx) { return ctx ? ctx->ctx->library().size() : 0; }

unsigned char TXE_ContextHasFunction(TXE_Context* ctx, const char* name) {
  return ctx != nullptr && name != nullptr && ctx->ctx->library().Find(name) != nullptr ? 1 : 0;
}

TXE_TensorHandle* TXE_NewTensorHandle(const TX_Tensor* t, TX_Status* status) {
  TXE_TensorHandle* out = nullptr;
  Guard(status, [&]() -> tx::Status {
    if (t == nullptr) return tx::InvalidArgument("tensor is NULL");
    if (t->tensor.dtype() != tx::DT_RESOURCE && !t->tensor.initialized() && t->tensor.num_elements() > 0)
      return tx::InvalidArgument("tensor holds no data");
    tx::Tensor value;
    TX_RETURN_IF_ERROR(tx::AdoptCallerTensor(t->tensor, &value));  // Note [Canonical bool]
    out = new TXE_TensorHandle;
    out->t.tensor = std::move(value);
    out->t.id = tx::NewEagerTensorId();
    return tx::Status::OK();
  });
  return out;
}

void TXE_DeleteTensorHandle(TXE_TensorHandle* h) { delete h; }

TX_DataType TXE_TensorHandleDataType(const TXE_TensorHandle* h) {
  return h ? static_cast<TX_DataType>(h->t.tensor.dtype()) : static_cast<TX_DataType>(0);
}

int TXE_TensorHandleNumDims(const TXE_TensorHandle* h, TX_Status* status) {
  Set(status, CheckHandle(h));
  return h ? h->t.tensor.rank() : -1;
}

int64_t TXE_TensorHandleNumElements(const TXE_TensorHandle* h, TX_Status* status) {
  Set(status, CheckHandle(h));
  return h ? h->t.tensor.num_elements() : -1;
}

int64_t TXE_TensorHandleDim(const TXE_TensorHandle* h, int dim_index, TX_Status* status) {
  if (h == nullptr || dim_index < 0 || dim_index >= h->t.tensor.rank()) {
    Set(status,
        h ? tx::InvalidArgument("dimension ", dim_index, " out of range for a tensor of rank ", h->t.tensor.rank())
          : CheckHandle(h));
    return -1;
  }
  SetOk(status);
  return h->t.tensor.dim(dim_index);
}

int TXE_TensorHandleShape(const TXE_TensorHandle* h, int64_t* dims, int max_dims, TX_Status* status) {
  if (h == nullptr) {
    Set(status, CheckHandle(h));
    return -1;
  }
  const int rank = h->t.tensor.rank();
  if (rank > max_dims || (rank > 0 && dims == nullptr)) {
    Set(status, tx::InvalidArgument("dims has room for ", max_dims, " dimensions, the tensor has rank ", rank));
    return -1;
  }
  for (int i = 0; i < rank; ++i) dims[i] = h->t.tensor.dim(i);
  SetOk(status);
  return rank;
}

const char* TXE_TensorHandleDeviceName(const TXE_TensorHandle* h, TX_Status* status) {
  Set(status, CheckHandle(h));
  return h ? DeviceNameOf(h) : nullptr;
}

const char* TXE_TensorHandleBackingDeviceName(const TXE_TensorHandle* h, TX_Status* status) {
  return TXE_TensorHandleDeviceName(h, status);
}

TXE_TensorHandle* TXE_TensorHandleCopySharingTensor(const TXE_TensorHandle* h, TX_Status* status) {
  Set(status, CheckHandle(h));
  return h ? new TXE_TensorHandle(*h) : nullptr;
}

TX_Tensor* TXE_TensorHandleResolve(const TXE_TensorHandle* h, TX_Status* status) {
  Set(status, CheckHandle(h));
  return h ? new TX_Tensor{h->t.tensor} : nullptr;
}

TXE_TensorHandle* TXE_TensorHandleCopyToDevice(const TXE_TensorHandle* h, TXE_Context* ctx, const char* device_name,
                                               TX_Status* status) {
  TXE_TensorHandle* out = nullptr;
  Guard(status, [&]() -> tx::Status {
    TX_RETURN_IF_ERROR(CheckHandle(h));
    if (ctx == nullptr) return tx::InvalidArgument("context is NULL");
    int device = -1;
    TX_RETURN_IF_ERROR(ctx->ctx->FindDevice(device_name ? device_name : "", &device, ctx->ctx->soft_placement()));
    out = new TXE_TensorHandle(*h);
    out->ctx = ctx;
    out->t.device = device < 0 ? 0 : device;
    out->t.id = tx::NewEagerTensorId();  // a copy is a new value for tapes (its gradient flows back through the copy)
    tx::RecordTensorCopy(ctx->ctx.get(), h->t, out->t);
    return tx::Status::OK();
  });
  return out;
}

TXE_Op* TXE_NewOp(TXE_Context* ctx, const char* op_or_function_name, TX_Status* status) {
  TXE_Op* out = nullptr;
  Guard(status, [&]() -> tx::Status {
    if (ctx == nullptr) return tx::InvalidArgument("context is NULL");
    auto op = std::make_unique<TXE_Op>(ctx);
    TX_RETURN_IF_ERROR(op->op.Reset(op_or_function_name, nullptr));
    out = op.release();
    return tx::Status::OK();
  });
  return out;
}

void TXE_DeleteOp(TXE_Op* op) { delete op; }

void TXE_OpReset(TXE_Op* op, const char* op_or_function_name, const char* raw_device_name, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (op == nullptr) return tx::InvalidArgument("op is NULL");
    op->error = tx::Status::OK();
    return op->op.Reset(op_or_function_name, raw_device_name);
  });
}

void TXE_OpClearInputs(TXE_Op* op, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (op == nullptr) return tx::InvalidArgument("op is NULL");
    op->op.ClearInputs();  // a recorded error (a rejected attr or input) stays until TXE_OpReset
    return tx::Status::OK();
  });
}

const char* TXE_OpGetName(const TXE_Op* op, TX_Status* status) {
  Set(status, op ? tx::Status::OK() : tx::InvalidArgument("op is NULL"));
  return op ? op->op.op_name().c_str() : nullptr;
}

TXE_Context* TXE_OpGetContext(const TXE_Op* op, TX_Status* status) {
  Set(status, op ? tx::Status::OK() : tx::InvalidArgument("op is NULL"));
  return op ? op->ctx : nullptr;
}

void TXE_OpSetDevice(TXE_Op* op, const char* device_name, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (op == nullptr) return tx::InvalidArgument("op is NULL");
    return op->op.SetDevice(device_name);
  });
}

const char* TXE_OpGetDevice(const TXE_Op* op, TX_Status* status) {
  Set(status, op ? tx::Status::OK() : tx::InvalidArgument("op is NULL"));
  return op ? op->op.device().c_str() : nullptr;
}

void TXE_OpAddInput(TXE_Op* op, TXE_TensorHandle* input, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (op == nullptr) return tx::InvalidArgument("op is NULL");
    if (input == nullptr) return tx::InvalidArgument("input ", op->op.num_inputs(), ": tensor handle is NULL");
    op->op.AddInput(input->t);
    return tx::Status::OK();
  });
}

void TXE_OpAddInputList(TXE_Op* op, TXE_TensorHandle** inputs, int num_inputs, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (op == nullptr) return tx::InvalidArgument("op is NULL");
    if (num_inputs < 0 || (num_inputs > 0 && inputs == nullptr))
      return tx::InvalidArgument("inputs is NULL or num_inputs < 0");
    op->list_scratch.clear();
    for (int i = 0; i < num_inputs; ++i) {
      if (inputs[i] == nullptr) return tx::InvalidArgument("input list element ", i, ": tensor handle is NULL");
      op->list_scratch.push_back(&inputs[i]->t);
    }
    op->op.AddInputList(op->list_scratch.data(), num_inputs);
    return tx::Status::OK();
  });
}

int TXE_OpGetFlatInputCount(const TXE_Op* op, TX_Status* status) {
  Set(status, op ? tx::Status::OK() : tx::InvalidArgument("op is NULL"));
  return op ? op->op.num_inputs() : -1;
}

TX_AttrType TXE_OpGetAttrType(TXE_Op* op, const char* attr_name, unsigned char* is_list, TX_Status* status) {
  TX_AttrType out = TX_ATTR_STRING;
  Guard(status, [&]() -> tx::Status {
    if (op == nullptr || attr_name == nullptr) return tx::InvalidArgument("op or attr name is NULL");
    std::string type;
    TX_RETURN_IF_ERROR(op->op.AttrTypeString(attr_name, &type));
    const bool list = type.rfind("list(", 0) == 0;
    if (list) type = type.substr(5, type.size() - 6);
    if (is_list != nullptr) *is_list = list;
    static const char* kNames[] = {"string", "int", "float", "bool", "type", "shape", "tensor", "placeholder", "func"};
    for (int k = 0; k < 9; ++k)
      if (type == kNames[k]) out = static_cast<TX_AttrType>(k);
    return tx::Status::OK();
  });
  return out;
}

void TXE_OpSetAttrString(TXE_Op* op, const char* attr_name, const void* value, size_t length) {
  if (value == nullptr && length > 0)
    return Record(op, tx::InvalidArgument("attr '", attr_name ? attr_name : "", "': value is NULL"));
  SetOpAttr(op, attr_name, AttrValue::String(std::string(static_cast<const char*>(value), value ? length : 0)));
}

void TXE_OpSetAttrInt(TXE_Op* op, const char* attr_name, int64_t value) {
  SetOpAttr(op, attr_name, AttrValue::Int(value));
}
void TXE_OpSetAttrFloat(TXE_Op* op, const char* attr_name, float value) {
  SetOpAttr(op, attr_name, AttrValue::Float(value));
}
void TXE_OpSetAttrBool(TXE_Op* op, const char* attr_name, unsigned char value) {
  SetOpAttr(op, attr_name, AttrValue::Bool(value != 0));
}
void TXE_OpSetAttrType(TXE_Op* op, const char* attr_name, TX_DataType value) {
  SetOpAttr(op, attr_name, AttrValue::Type(static_cast<tx::DataType>(value)));
}

void TXE_OpSetAttrShape(TXE_Op* op, const char* attr_name, const int64_t* dims, const int num_dims, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (op == nullptr) return tx::InvalidArgument("op is NULL");
    tx::PartialShape shape;
    TX_RETURN_IF_ERROR(MakePartialShape(dims, num_dims, &shape)
                           .WithPrefix(std::string("attr '") + (attr_name ? attr_name : "") + "': "));
    SetOpAttr(op, attr_name, AttrValue::Shape(std::move(shape)));
    return tx::Status::OK();
  });
}

void TXE_OpSetAttrFunctionName(TXE_Op* op, const char* attr_name, const char* data, size_t length) {
  if (data == nullptr && length > 0)
    return Record(op, tx::InvalidArgument("attr '", attr_name ? attr_name : "", "': name is NULL"));
  AttrValue v;
  v.kind = AttrValue::Kind::kFunc;
  v.func = std::make_shared<tx::NameAttrList>();
  v.func->name.assign(data ? data : "", data ? length : 0);
  SetOpAttr(op, attr_name, std::move(v));
}

void TXE_OpSetAttrTensor(TXE_Op* op, const char* attr_name, TX_Tensor* tensor, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (op == nullptr || tensor == nullptr) return tx::InvalidArgument("op or tensor is NULL");
    tx::Tensor value;
    TX_RETURN_IF_ERROR(tx::AdoptCallerTensor(tensor->tensor, &value));  // Note [Canonical bool]
    SetOpAttr(op, attr_name, AttrValue::FromTensor(value));
    return tx::Status::OK();
  });
}

void TXE_OpSetAttrStringList(TXE_Op* op, const char* attr_name, const void* const* values, const size_t* lengths,
                             int num_values) {
  if (num_values > 0 && lengths == nullptr)
    return Record(op, tx::InvalidArgument("attr '", attr_name ? attr_name : "", "': lengths is NULL"));
  int k = 0;
  SetListAttr(op, attr_name, values, num_values, [&](AttrValue::List* l, const void* v) {
    const size_t n = lengths[k++];
    l->s.emplace_back(static_cast<const char*>(v), v ? n : 0);
  });
}

void TXE_OpSetAttrFunctionNameList(TXE_Op* op, const char* attr_name, const void* const* values, const size_t* lengths,
                                   int num_values) {
  if (num_values > 0 && lengths == nullptr)
    return Record(op, tx::InvalidArgument("attr '", attr_name ? attr_name : "", "': lengths is NULL"));
  int k = 0;
  SetListAttr(op, attr_name, values, num_values, [&](AttrValue::List* l, const void* v) {
    tx::NameAttrList f;
    f.name.assign(static_cast<const char*>(v), v ? lengths[k] : 0);
    ++k;
    l->func.push_back(std::move(f));
  });
}

void TXE_OpSetAttrIntList(TXE_Op* op, const char* attr_name, const int64_t* values, int num_values) {
  SetListAttr(op, attr_name, values, num_values, [](AttrValue::List* l, int64_t v) { l->i.push_back(v); });
}

void TXE_OpSetAttrFloatList(TXE_Op* op, const char* attr_name, const float* values, int num_values) {
  SetListAttr(op, attr_name, values, num_values, [](AttrValue::List* l, float v) { l->f.push_back(v); });
}

void TXE_OpSetAttrBoolList(TXE_Op* op, const char* attr_name, const unsigned char* values, int num_values) {
  SetListAttr(op, attr_name, values, num_values, [](AttrValue::List* l, unsigned char v) { l->b.push_back(v != 0); });
}

void TXE_OpSetAttrTypeList(TXE_Op* op, const char* attr_name, const TX_DataType* values, int num_values) {
  SetListAttr(op, attr_name, values, num_values,
              [](AttrValue::List* l, TX_DataType v) { l->type.push_back(static_cast<tx::DataType>(v)); });
}

void TXE_OpSetAttrShapeList(TXE_Op* op, const char* attr_name, const int64_t** dims, const int* num_dims,
                            int num_values, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (op == nullptr) return tx::InvalidArgument("op is NULL");
    if (num_values < 0 || (num_values > 0 && (dims == nullptr || num_dims == nullptr)))
      return tx::InvalidArgument("attr '", attr_name ? attr_name : "", "': dims or num_dims is NULL");
    AttrValue v = AttrValue::EmptyList();
    for (int k = 0; k < num_values; ++k) {
      tx::PartialShape s;
      TX_RETURN_IF_ERROR(MakePartialShape(dims[k], num_dims[k], &s)
                             .WithPrefix(std::string("attr '") + (attr_name ? attr_name : "") + "': "));
      v.list.shape.push_back(std::move(s));
    }
    SetOpAttr(op, attr_name, std::move(v));
    return tx::Status::OK();
  });
}

void TXE_Execute(TXE_Op* op, TXE_TensorHandle** retvals, int* num_retvals, TX_Status* status) {
  TXE_ExecuteWithCancellation(op, retvals, num_retvals, nullptr, status);
}

void TXE_ExecuteWithCancellation(TXE_Op* op, TXE_TensorHandle** retvals, int* num_retvals,
                                 TX_Cancellation* cancellation, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (op == nullptr || num_retvals == nullptr) return tx::InvalidArgument("op or num_retvals is NULL");
    if (!op->error.ok()) {
      tx::Status e = op->error;
      op->error = tx::Status::OK();
      return tx::Status(e.code(), e.message() + " [Op:" + op->op.op_name() + "]");
    }
    std::vector<tx::EagerTensor>& outs = op->outputs;
    // Too little room is reported before the kernel runs, so the caller may retry.
    TX_RETURN_IF_ERROR(op->op.Execute(&outs, retvals == nullptr ? 0 : std::max(*num_retvals, 0),
                                      cancellation != nullptr ? &cancellation->token : nullptr));
    const int n = static_cast<int>(outs.size());
    for (int i = 0; i < n; ++i) retvals[i] = new TXE_TensorHandle{std::move(outs[i]), op->ctx};
    outs.clear();
    *num_retvals = n;
    return tx::Status::OK();
  });
}

int TXE_OpGetOutputLength(TXE_Op* op, const char* output_name, TX_Status* status) {
  int out = -1;
  Guard(status, [&]() -> tx::Status {
    if (op == nullptr || output_name == nullptr) return tx::InvalidArgument("op or output name is NULL");
    const tx::Node* node = op->op.last_node();
    if (node == nullptr) return tx::FailedPrecondition("op ", op->op.op_name(), " has not been executed");
    int start = 0, stop = 0;
    if (!node->OutputRange(output_name, &start, &stop))
      return tx::InvalidArgument("op ", op->op.op_name(), " has no output argument '", output_name, "'");
    out = stop - start;
    return tx::Status::OK();
  });
  return out;
}

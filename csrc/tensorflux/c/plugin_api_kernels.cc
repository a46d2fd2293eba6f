// Plugin ABI (c_api_plugin.h): kernel registration, the OpKernel that calls a plugin's C
// callbacks, the kernel contexts and resource variable locks.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/c/plugin_internal.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/resource_util.h"

// Note [Plugin output checks]
// A plugin kernel's outputs are checked before anything downstream sees them: every output must
// be set, with the dtype the op's signature gives and a shape compatible with what shape
// inference promised for the node. When the node's static shapes are not fully known (always the
// case in eager mode, whose one-node graphs have inputs of unknown shape) the op's shape function
// is run again on the actual input shapes, with every input as a known constant, so a kernel
// disagreeing with its own shape function fails in every mode with a message naming the output,
// both shapes and the library, instead of corrupting a later op.

namespace {

// What a kernel registration calls, shared by every kernel instance it creates.
struct KernelFns {
  TX_KernelCreateFn create = nullptr;
  TX_KernelComputeFn compute = nullptr;
  TX_KernelDeleteFn destroy = nullptr;
  bool expensive = true;
  std::string library;
};

}  // namespace

struct TX_KernelBuilder {
  tx::KernelRegistration reg;
  std::shared_ptr<KernelFns> fns = std::make_shared<KernelFns>();
  tx::Status error;  // the first failure of a builder call (out of memory), reported by RegisterKernel
};

struct TX_OpKernelContext;

struct TX_VariableLock {
  TX_OpKernelContext* owner = nullptr;  // whose compute call took it
  std::vector<tx::RefPtr<tx::Var>> vars;  // per input passed, repeats included
  std::unique_ptr<tx::cpu::VarsLock> lock;
};

struct TX_OpKernelContext {
  tx::OpKernelContext* ctx;
  const tx::AttrMap* attrs;
  std::vector<TX_VariableLock*> locks;  // not yet released
};

namespace tx {
namespace plugin {
namespace {

using capi::Set;

class PluginKernel : public OpKernel {
 public:
  PluginKernel(OpKernelConstruction* c, std::shared_ptr<const KernelFns> fns)
      : OpKernel(c), fns_(std::move(fns)), attrs_(c->node().attrs()), reg_(&c->node().registration()) {
    Node* node = const_cast<Node*>(&c->node());
    for (int i = 0; i < c->num_outputs(); ++i) {
      static_shapes_.push_back(node->graph() != nullptr ? node->graph()->OutputShape({node, i}) : PartialShape());
      all_known_ = all_known_ && static_shapes_.back().fully_defined();
    }
    if (fns_->create == nullptr) return;
    TX_Status status;
    state_ = fns_->create(reinterpret_cast<TX_OpKernelConstruction*>(c), &status);
    if (!status.status.ok()) c->SetStatus(status.status);
  }
  ~PluginKernel() override {
    if (fns_->destroy != nullptr) fns_->destroy(state_);
  }
  bool IsExpensive() const override { return fns_->expensive; }

  void Compute(OpKernelContext* ctx) override {
    TX_OpKernelContext pc{ctx, &attrs_, {}};
    TX_Status status;
    try {
      fns_->compute(state_, &pc, &status);
    } catch (...) {  // a C++ plugin's exception must not cross into the executor
      status.status = capi::FromException(std::current_exception());
    }
    for (TX_VariableLock* l : pc.locks) delete l;  // what the kernel forgot to release
    if (!status.status.ok()) return ctx->SetStatus(status.status);
    ctx->SetStatus(CheckOutputs(ctx));
  }

 private:
  // Note [Plugin output checks].
  Status CheckOutputs(OpKernelContext* ctx) const {
    const std::string who = "the " + type_string() + " kernel of plugin '" + fns_->library + "'";
    std::vector<PartialShape> inferred;
    if (!all_known_ && reg_->shape_fn) TX_RETURN_IF_ERROR(InferFromInputs(ctx, &inferred));
    for (int i = 0; i < ctx->num_outputs(); ++i) {
      const Tensor& t = *ctx->mutable_output(i);
      if (!t.initialized()) return Internal(who, " set no value for output ", i);
      if (t.dtype() != ctx->output_type(i))
        return Internal(who, " produced output ", i, " of type ", DataTypeString(t.dtype()), ", but the op's output ",
                        "is ", DataTypeString(ctx->output_type(i)));
      const PartialShape& want = inferred.empty() ? static_shapes_[i] : inferred[i];
      if (!want.IsCompatibleWith(t.shape()))
        return Internal(who, " produced output ", i, " of shape ", t.shape().ToString(), ", but the op's shape ",
                        "function gives ", want.ToString());
    }
    return Status::OK();
  }

  // The op's shape function run on the actual inputs (shapes, and values as constants).
  Status InferFromInputs(OpKernelContext* ctx, std::vector<PartialShape>* out) const {
    std::vector<PartialShape> shapes;
    std::vector<const Tensor*> values;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& t = ctx->input(i);
      shapes.emplace_back(t.shape());
      values.push_back(t.dtype() == DT_RESOURCE || t.dtype() == DT_STRING ? nullptr : &t);
    }
    InferenceContext ic(reg_->def, attrs_, std::move(shapes), std::move(values), ctx->num_outputs());
    TX_RETURN_IF_ERROR(reg_->shape_fn(&ic));
    *out = std::move(ic.outputs());
    return Status::OK();
  }

  std::shared_ptr<const KernelFns> fns_;
  AttrMap attrs_;
  const OpRegistration* reg_;
  std::vector<PartialShape> static_shapes_;
  bool all_known_ = true;
  void* state_ = nullptr;
};

// ---- registration

TX_KernelBuilder* NewKernelBuilder(const char* op_name, const char* device_type, TX_KernelCreateFn create,
                                   TX_KernelComputeFn compute, TX_KernelDeleteFn destroy) {
  try {
    auto* b = new TX_KernelBuilder;
    b->reg.op = op_name == nullptr ? "" : op_name;
    b->reg.device = device_type == nullptr ? "" : device_type;
    b->fns->create = create;
    b->fns->compute = compute;
    b->fns->destroy = destroy;
    return b;
  } catch (...) { return nullptr; }
}

void TypeConstraint(TX_KernelBuilder* b, const char* attr_name, TX_DataType dtype) {
  if (b == nullptr) return;
  KeepFirstError(&b->error, [&] {
    b->reg.type_constraints.emplace_back(attr_name == nullptr ? "" : attr_name, static_cast<DataType>(dtype));
  });
}

void SetIsExpensive(TX_KernelBuilder* b, unsigned char expensive) {
  if (b != nullptr) b->fns->expensive = expensive != 0;
}

void DeleteKernelBuilder(TX_KernelBuilder* b) { delete b; }

// The OpDef of `op`, registered or staged by `registrar`; nullptr when neither.
const OpDef* FindOp(const TX_PluginRegistrar& registrar, const std::string& op) {
  if (const OpRegistration* r = OpRegistry::Global()->LookUp(op)) return &r->def;
  for (const auto& staged : registrar.ops)
    if (staged->def.name == op) return &staged->def;
  return nullptr;
}

void RegisterKernel(TX_PluginRegistrar* registrar, TX_KernelBuilder* builder, TX_Status* status) {
  std::unique_ptr<TX_KernelBuilder> b(builder);
  capi::Guard(status, [&]() -> Status {
    if (registrar == nullptr || b == nullptr) return InvalidArgument("RegisterKernel: NULL registrar or builder");
    TX_RETURN_IF_ERROR(b->error);
    if (b->reg.op.empty()) return InvalidArgument("RegisterKernel: the kernel names no op");
    if (b->reg.device != kDeviceCPU)
      return Unimplemented("kernel for op '", b->reg.op, "': plugins can register CPU kernels only, not '",
                           b->reg.device, "'");
    if (b->fns->compute == nullptr) return InvalidArgument("kernel for op '", b->reg.op, "' has no compute function");
    const OpDef* def = FindOp(*registrar, b->reg.op);
    if (def == nullptr) return NotFound("kernel for op '", b->reg.op, "', which is not registered");
    for (const auto& [attr, dtype] : b->reg.type_constraints) {
      const AttrDef* a = def->FindAttr(attr);
      if (a == nullptr || a->type != "type")
        return InvalidArgument("kernel for op '", b->reg.op, "' constrains '", attr, "', which is not a type attr");
    }
    b->fns->library = registrar->library;
    std::shared_ptr<const KernelFns> fns = b->fns;
    b->reg.factory = [fns](OpKernelConstruction* c) -> OpKernel* { return new PluginKernel(c, fns); };
    registrar->kernels.push_back(std::move(b->reg));
    return Status::OK();
  });
}

// ---- kernel construction

const OpKernelConstruction* Cons(const TX_OpKernelConstruction* c) {
  return reinterpret_cast<const OpKernelConstruction*>(c);
}
const char* ConsNodeName(const TX_OpKernelConstruction* c) { return Cons(c)->name().c_str(); }
int ConsNumInputs(const TX_OpKernelConstruction* c) { return Cons(c)->num_inputs(); }
int ConsNumOutputs(const TX_OpKernelConstruction* c) { return Cons(c)->num_outputs(); }
TX_DataType ConsInputType(const TX_OpKernelConstruction* c, int i) {
  return i < 0 || i >= Cons(c)->num_inputs() ? TX_DataType(0) : static_cast<TX_DataType>(Cons(c)->input_type(i));
}
TX_DataType ConsOutputType(const TX_OpKernelConstruction* c, int i) {
  return i < 0 || i >= Cons(c)->num_outputs() ? TX_DataType(0) : static_cast<TX_DataType>(Cons(c)->output_type(i));
}
const TX_Attrs* ConsAttrs(const TX_OpKernelConstruction* c) { return ToAttrs(&Cons(c)->node().attrs()); }

// ---- kernel compute

bool InRange(const TX_OpKernelContext* c, int i) { return i >= 0 && i < c->ctx->num_inputs(); }
bool OutRange(const TX_OpKernelContext* c, int i) { return i >= 0 && i < c->ctx->num_outputs(); }

const char* CtxNodeName(const TX_OpKernelContext* c) { return c->ctx->name().c_str(); }
const TX_Attrs* CtxAttrs(const TX_OpKernelContext* c) { return ToAttrs(c->attrs); }
int CtxNumInputs(const TX_OpKernelContext* c) { return c->ctx->num_inputs(); }
int CtxNumOutputs(const TX_OpKernelContext* c) { return c->ctx->num_outputs(); }
TX_DataType CtxInputType(const TX_OpKernelContext* c, int i) {
  return InRange(c, i) ? static_cast<TX_DataType>(c->ctx->input(i).dtype()) : TX_DataType(0);
}
int CtxInputNumDims(const TX_OpKernelContext* c, int i) { return InRange(c, i) ? c->ctx->input(i).rank() : -1; }
int64_t CtxInputDim(const TX_OpKernelContext* c, int i, int d) {
  return InRange(c, i) && d >= 0 && d < c->ctx->input(i).rank() ? c->ctx->input(i).dim(d) : -1;
}
int64_t CtxInputNumElements(const TX_OpKernelContext* c, int i) {
  return InRange(c, i) ? c->ctx->input(i).num_elements() : -1;
}
const void* CtxInputData(const TX_OpKernelContext* c, int i) {
  return InRange(c, i) ? c->ctx->input(i).raw_data() : nullptr;
}
TX_DataType CtxOutputType(const TX_OpKernelContext* c, int i) {
  return OutRange(c, i) ? static_cast<TX_DataType>(c->ctx->output_type(i)) : TX_DataType(0);
}

// Output `out`'s memory after `make` filled the slot, or nullptr with `status` set.
template <typename F>
void* OutputData(TX_OpKernelContext* c, int out, const int64_t* dims, int num_dims, TX_Status* status, F&& make) {
  void* data = nullptr;
  capi::Guard(status, [&]() -> Status {
    if (!OutRange(c, out)) return InvalidArgument("output ", out, " is out of range [0, ", c->ctx->num_outputs(), ")");
    if (num_dims < 0 || (num_dims > 0 && dims == nullptr)) return InvalidArgument("bad dims for output ", out);
    TensorShape shape;
    TX_RETURN_IF_ERROR(TensorShape::Make(dims, num_dims, &shape));
    Tensor* t = nullptr;
    TX_RETURN_IF_ERROR(make(shape, &t));
    data = t->raw_data();
    return Status::OK();
  });
  return data;
}

void* AllocateOutput(TX_OpKernelContext* c, int i, const int64_t* dims, int num_dims, TX_Status* status) {
  return OutputData(c, i, dims, num_dims, status,
                    [&](const TensorShape& s, Tensor** t) { return c->ctx->allocate_output(i, s, t); });
}

void* ForwardOrAllocate(TX_OpKernelContext* c, int in, int out, const int64_t* dims, int num_dims, TX_Status* status) {
  if (!InRange(c, in)) {
    Set(status, InvalidArgument("input ", in, " is out of range [0, ", c->ctx->num_inputs(), ")"));
    return nullptr;
  }
  return OutputData(c, out, dims, num_dims, status, [&](const TensorShape& s, Tensor** t) {
    return c->ctx->forward_input_or_allocate_output(in, out, s, t);
  });
}

void SetOutputToInput(TX_OpKernelContext* c, int out, int in, TX_Status* status) {
  capi::Guard(status, [&]() -> Status {
    if (!InRange(c, in) || !OutRange(c, out)) return InvalidArgument("SetOutputToInput: index out of range");
    if (c->ctx->input(in).dtype() != c->ctx->output_type(out))
      return InvalidArgument("input ", in, " has type ", DataTypeString(c->ctx->input(in).dtype()), ", output ", out,
                             " needs ", DataTypeString(c->ctx->output_type(out)));
    c->ctx->set_output(out, c->ctx->input(in));
    return Status::OK();
  });
}

int NumIntraOpThreads(const TX_OpKernelContext* c) { return c->ctx->intra_op_pool()->num_threads(); }

void ParallelFor(TX_OpKernelContext* c, int64_t total, int64_t cost, TX_ParallelForFn fn, void* arg) {
  if (fn == nullptr) return;
  cpu::ParallelRange(c->ctx->intra_op_pool(), total, cost, [&](int64_t b, int64_t e) { fn(arg, b, e); });
}

TX_VariableLock* LockVariables(TX_OpKernelContext* c, const int* inputs, int n, TX_Status* status) {
  TX_VariableLock* result = nullptr;
  capi::Guard(status, [&]() -> Status {
    if (n < 0 || (n > 0 && inputs == nullptr)) return InvalidArgument("LockVariables: bad input list");
    auto lock = std::make_unique<TX_VariableLock>();
    std::vector<Var*> raw;
    std::vector<const ResourceHandle*> handles;
    for (int k = 0; k < n; ++k) {
      const int i = inputs[k];
      if (!InRange(c, i) || c->ctx->input(i).dtype() != DT_RESOURCE)
        return InvalidArgument("LockVariables: input ", i, " is not a resource input");
      RefPtr<Var> var;
      const ResourceHandle* h = nullptr;
      TX_RETURN_IF_ERROR(cpu::LookupVar(c->ctx, i, &var, &h));
      raw.push_back(var.get());
      handles.push_back(h);
      lock->vars.push_back(std::move(var));
    }
    lock->lock = std::make_unique<cpu::VarsLock>(raw);
    for (int k = 0; k < n; ++k) {
      if (!raw[k]->initialized) return cpu::UninitializedError(*handles[k]);
      TX_RETURN_IF_ERROR(cpu::PrepareToUpdate(raw[k]));
    }
    lock->owner = c;
    c->locks.push_back(lock.get());
    result = lock.release();
    return Status::OK();
  });
  return result;
}

bool LockRange(const TX_VariableLock* l, int k) {
  return l != nullptr && k >= 0 && k < static_cast<int>(l->vars.size());
}
TX_DataType LockType(const TX_VariableLock* l, int k) {
  return LockRange(l, k) ? static_cast<TX_DataType>(l->vars[k]->value.dtype()) : TX_DataType(0);
}
int LockNumDims(const TX_VariableLock* l, int k) { return LockRange(l, k) ? l->vars[k]->value.rank() : -1; }
int64_t LockDim(const TX_VariableLock* l, int k, int d) {
  return LockRange(l, k) && d >= 0 && d < l->vars[k]->value.rank() ? l->vars[k]->value.dim(d) : -1;
}
int64_t LockNumElements(const TX_VariableLock* l, int k) {
  return LockRange(l, k) ? l->vars[k]->value.num_elements() : -1;
}
void* LockData(TX_VariableLock* l, int k) { return LockRange(l, k) ? l->vars[k]->value.raw_data() : nullptr; }

void ReleaseVariableLock(TX_VariableLock* l) {
  if (l == nullptr) return;
  auto& held = l->owner->locks;
  held.erase(std::remove(held.begin(), held.end(), l), held.end());
  delete l;
}

}  // namespace

void FillKernelApi(TX_PluginApi* api) {
  api->NewKernelBuilder = NewKernelBuilder;
  api->KernelBuilderTypeConstraint = TypeConstraint;
  api->KernelBuilderSetIsExpensive = SetIsExpensive;
  api->DeleteKernelBuilder = DeleteKernelBuilder;
  api->RegisterKernel = RegisterKernel;
  api->KernelConstructionNodeName = ConsNodeName;
  api->KernelConstructionNumInputs = ConsNumInputs;
  api->KernelConstructionNumOutputs = ConsNumOutputs;
  api->KernelConstructionInputType = ConsInputType;
  api->KernelConstructionOutputType = ConsOutputType;
  api->KernelConstructionAttrs = ConsAttrs;
  api->KernelContextNodeName = CtxNodeName;
  api->KernelContextAttrs = CtxAttrs;
  api->KernelContextNumInputs = CtxNumInputs;
  api->KernelContextNumOutputs = CtxNumOutputs;
  api->KernelContextInputType = CtxInputType;
  api->KernelContextInputNumDims = CtxInputNumDims;
  api->KernelContextInputDim = CtxInputDim;
  api->KernelContextInputNumElements = CtxInputNumElements;
  api->KernelContextInputData = CtxInputData;
  api->KernelContextOutputType = CtxOutputType;
  api->KernelContextAllocateOutput = AllocateOutput;
  api->KernelContextForwardInputOrAllocateOutput = ForwardOrAllocate;
  api->KernelContextSetOutputToInput = SetOutputToInput;
  api->KernelContextNumIntraOpThreads = NumIntraOpThreads;
  api->KernelContextParallelFor = ParallelFor;
  api->KernelContextLockVariables = LockVariables;
  api->VariableLockType = LockType;
  api->VariableLockNumDims = LockNumDims;
  api->VariableLockDim = LockDim;
  api->VariableLockNumElements = LockNumElements;
  api->VariableLockData = LockData;
  api->ReleaseVariableLock = ReleaseVariableLock;
}

}  // namespace plugin
}  // namespace tx

// CPU kernels for resource variables: VarHandleOp, ReadVariableOp, AssignVariableOp,
// AssignAdd/SubVariableOp, VarIsInitializedOp, DestroyResourceOp, ResourceGather. Variables live
// in the session's ResourceMgr; reads are snapshots (Note [Variable snapshots]).
#include <cstring>
#include <string>

#include "tensorflux/core/complex.h"
#include "tensorflux/kernels/cpu/binary_functors.h"
#include "tensorflux/kernels/cpu/convert16.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/core/object_types.h"
#include "tensorflux/kernels/cpu/resource_util.h"

namespace tx {
namespace cpu {
namespace {

// Outputs one handle, built at construction; makes sure the variable exists (uninitialized).
class VarHandleOp : public OpKernel {
 public:
  explicit VarHandleOp(OpKernelConstruction* c) : OpKernel(c) {
    ResourceHandle h;
    c->SetStatus(c->GetAttr("container", &h.container));
    c->SetStatus(c->GetAttr("shared_name", &h.name));
    c->SetStatus(c->GetAttr("dtype", &h.dtype));
    c->SetStatus(c->GetAttr("shape", &h.shape));
    if (h.name.empty()) h.name = c->name();  // as TensorFlow's graph-mode default
    handle_ = MakeResourceHandleTensor(std::move(h));
  }
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    if (ctx->resource_manager() == nullptr) {
      ctx->SetStatus(FailedPrecondition("resource variables need a session (no resource manager)"));
      return;
    }
    RefPtr<Var> var;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->resource_manager()->LookupOrCreate(*HandleFromTensor(handle_), &var));
    ctx->set_output(0, handle_);
  }

 private:
  Tensor handle_;
};

// Base of the kernels with a `dtype` attr that must match the variable's.
class VarDtypeKernel : public OpKernel {
 public:
  explicit VarDtypeKernel(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("dtype", &dtype_)); }
  bool IsExpensive() const override { return false; }

 protected:
  // The initialized variable behind input 0 with its lock held in *lock.
  Status LockedInitializedVar(OpKernelContext* ctx, RefPtr<Var>* var, std::unique_lock<std::mutex>* lock,
                              const char* verb = "read") const {
    const ResourceHandle* h;
    TX_RETURN_IF_ERROR(LookupVar(ctx, 0, var, &h));
    *lock = std::unique_lock<std::mutex>((*var)->mu);
    if (!(*var)->initialized) return UninitializedError(*h);
    return CheckDtype(*var->get(), verb);
  }
  Status CheckDtype(const Var& v, const char* verb) const {
    if (v.dtype != dtype_)
      return InvalidArgument("Trying to ", verb, " variable with wrong dtype. Expected ", DataTypeString(v.dtype),
                             " got ", DataTypeString(dtype_));
    return Status::OK();
  }
  DataType dtype_ = DT_INVALID;
};

// Output 0 is a snapshot sharing the variable's current buffer.
class ReadVariableOp : public VarDtypeKernel {
 public:
  using VarDtypeKernel::VarDtypeKernel;
  void Compute(OpKernelContext* ctx) override {
    RefPtr<Var> var;
    std::unique_lock<std::mutex> lock;
    TX_CTX_RETURN_IF_ERROR(ctx, LockedInitializedVar(ctx, &var, &lock));
    ctx->set_output(0, var->value);
  }
};

// Creates the variable if needed and sets its value (engine-owned buffers are shared, others copied).
class AssignVariableOp : public VarDtypeKernel {
 public:
  using VarDtypeKernel::VarDtypeKernel;
  void Compute(OpKernelContext* ctx) override {
    const ResourceHandle* h;
    TX_CTX_RETURN_IF_ERROR(ctx, GetHandle(ctx, 0, &h));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, dtype_));
    RefPtr<Var> var;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->resource_manager()->LookupOrCreate(*h, &var));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckDtype(*var.get(), "assign"));
    const Tensor& value = ctx->input(1);
    // Static shapes of reads come from the declared shape, so every assignment must fit it
    // (validate_shape or not); a variable whose shape changes declares an unknown shape.
    if (!var->shape.IsCompatibleWith(value.shape())) {
      ctx->SetStatus(InvalidArgument("Trying to assign to variable with tensor with wrong shape. Expected ",
                                     var->shape.ToString(), " got ", value.shape().ToString()));
      return;
    }
    Tensor stored = value;
    // Caller memory (a fed array) may change later: copy it. Strings are engine-made and immutable
    // (Note [Object element types]) although their buffers are not owned().
    if (!value.buffer()->owned() && ObjectOpsFor(value.dtype()) == nullptr) {
      TX_CTX_RETURN_IF_ERROR(ctx, DeepCopyTensor(value, &stored));
    }
    std::lock_guard<std::mutex> l(var->mu);
    var->value = std::move(stored);
    var->initialized = true;
  }
};

// var (+|-)= value, in place under the variable's lock (copy-on-write when a snapshot is out).
template <typename T, bool kAdd>
class AssignUpdateVariableOp : public VarDtypeKernel {
 public:
  using VarDtypeKernel::VarDtypeKernel;
  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, dtype_));
    const Tensor& value = ctx->input(1);
    RefPtr<Var> var;
    std::unique_lock<std::mutex> lock;
    TX_CTX_RETURN_IF_ERROR(ctx, LockedInitializedVar(ctx, &var, &lock, "update"));
    if (var->value.shape() != value.shape()) {
      ctx->SetStatus(InvalidArgument("Cannot update variable with shape ", var->value.shape().ToString(),
                                     " using a Tensor with shape ", value.shape().ToString(),
                                     ", shapes must be equal."));
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, PrepareToUpdate(var.get()));
    T* dst = var->value.data<T>();
    const T* src = value.data<T>();
    ParallelRange(ctx->intra_op_pool(), value.num_elements(), 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        if constexpr (kIsFloat16<T>)  // computed in float, rounded once (Note [16-bit floats])
          dst[i] = T(kAdd ? static_cast<float>(dst[i]) + static_cast<float>(src[i])
                          : static_cast<float>(dst[i]) - static_cast<float>(src[i]));
        else
          dst[i] = kAdd ? AddFn::Apply(dst[i], src[i]) : SubFn::Apply(dst[i], src[i]);  // integers wrap
      }
    });
  }
};

// True when the variable exists and holds a value.
class VarIsInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    const ResourceHandle* h;
    TX_CTX_RETURN_IF_ERROR(ctx, GetHandle(ctx, 0, &h));
    RefPtr<Var> var;
    bool initialized = false;
    if (ctx->resource_manager()->Lookup(*h, &var).ok()) {
      std::lock_guard<std::mutex> l(var->mu);
      initialized = var->initialized;
    }
    Tensor* out;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    *out->data<bool>() = initialized;
  }
};

// Removes the variable from the session.
class DestroyResourceOp : public OpKernel {
 public:
  explicit DestroyResourceOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("ignore_lookup_error", &ignore_lookup_error_));
  }
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    const ResourceHandle* h;
    TX_CTX_RETURN_IF_ERROR(ctx, GetHandle(ctx, 0, &h));
    Status s = ctx->resource_manager()->Delete(*h);
    if (!s.ok() && !ignore_lookup_error_) ctx->SetStatus(s);
  }

 private:
  bool ignore_lookup_error_ = true;
};

constexpr DataType kStoredTypes[] = {DT_FLOAT, DT_DOUBLE,    DT_HALF,       DT_BFLOAT16, DT_INT32,  DT_INT64,
                                     DT_INT8,  DT_UINT8,     DT_INT16,      DT_UINT16,   DT_UINT32, DT_UINT64,
                                     DT_BOOL,  DT_COMPLEX64, DT_COMPLEX128, DT_STRING};

// Registers the dtype-agnostic kernels for every stored type at static-initialization time.
struct RegisterVariableKernels {
  RegisterVariableKernels() {
    auto add = [](const char* op, DataType t, KernelFactory f) {
      KernelRegistry::Global()->Register(KernelDefBuilder(op).TypeConstraint("dtype", t).Build(std::move(f)));
    };
    for (DataType t : kStoredTypes) {
      add("ReadVariableOp", t, [](OpKernelConstruction* c) -> OpKernel* { return new ReadVariableOp(c); });
      add("AssignVariableOp", t, [](OpKernelConstruction* c) -> OpKernel* { return new AssignVariableOp(c); });
    }
  }
};
const RegisterVariableKernels register_variable_kernels;

TX_REGISTER_KERNEL(KernelDefBuilder("VarHandleOp"), VarHandleOp);
TX_REGISTER_KERNEL(KernelDefBuilder("VarIsInitializedOp"), VarIsInitializedOp);
TX_REGISTER_KERNEL(KernelDefBuilder("DestroyResourceOp"), DestroyResourceOp);
#define TX_REGISTER_ASSIGN_UPDATE(T)                                                     \
  TX_REGISTER_KERNEL(KernelDefBuilder("AssignAddVariableOp").TypeConstraint<T>("dtype"), \
                     AssignUpdateVariableOp<T, true>);                                   \
  TX_REGISTER_KERNEL(KernelDefBuilder("AssignSubVariableOp").TypeConstraint<T>("dtype"), \
                     AssignUpdateVariableOp<T, false>)
TX_REGISTER_ASSIGN_UPDATE(float);
TX_REGISTER_ASSIGN_UPDATE(double);
TX_REGISTER_ASSIGN_UPDATE(int32_t);
TX_REGISTER_ASSIGN_UPDATE(int64_t);
// Complex block.
TX_REGISTER_ASSIGN_UPDATE(complex64);
TX_REGISTER_ASSIGN_UPDATE(complex128);

// --- half, bfloat16 and the other integer types (TensorFlow's CPU list) ---
TX_REGISTER_ASSIGN_UPDATE(Half);
TX_REGISTER_ASSIGN_UPDATE(BFloat16);
TX_REGISTER_ASSIGN_UPDATE(int8_t);
TX_REGISTER_ASSIGN_UPDATE(int16_t);
TX_REGISTER_ASSIGN_UPDATE(uint8_t);
TX_REGISTER_ASSIGN_UPDATE(uint16_t);
TX_REGISTER_ASSIGN_UPDATE(uint32_t);
TX_REGISTER_ASSIGN_UPDATE(uint64_t);
#undef TX_REGISTER_ASSIGN_UPDATE

}  // namespace
}  // namespace cpu
}  // namespace tx

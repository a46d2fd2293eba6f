// CPU kernels of StackV2, StackPushV2, StackPopV2 and StackCloseV2. A stack lives as long as
// the handle tensors referring to it (ResourceHandle::owned); pushed tensors are shared, not copied.
#include <mutex>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/resource_mgr.h"

namespace tx {
namespace cpu {
namespace {

class Stack : public RefCounted {
 public:
  Stack(DataType dtype, int64_t max_size, std::string name) : dtype(dtype), max_size(max_size), name(std::move(name)) {}
  const DataType dtype;
  const int64_t max_size;  // negative: unbounded
  const std::string name;
  std::mutex mu;
  std::vector<Tensor> elems;  // guarded by mu
  bool closed = false;  // guarded by mu
};

// The stack behind input 0.
Status GetStack(OpKernelContext* ctx, Stack** out) {
  const ResourceHandle* h = HandleFromTensor(ctx->input(0));
  *out = h == nullptr ? nullptr : dynamic_cast<Stack*>(h->owned.get());
  if (*out == nullptr) return InvalidArgument("input 0 is not a stack handle (made by StackV2)");
  return Status::OK();
}

class StackOp : public OpKernel {
 public:
  explicit StackOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("elem_type", &dtype_));
    c->SetStatus(c->GetAttr("stack_name", &stack_name_));
    if (stack_name_.empty()) stack_name_ = c->name();
  }
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& max_size = ctx->input(0);
    if (max_size.rank() != 0)
      return ctx->SetStatus(InvalidArgument("max_size must be a scalar, got shape ", max_size.shape().ToString()));
    ResourceHandle h;
    h.name = stack_name_;
    h.dtype = dtype_;
    h.owned = RefPtr<RefCounted>::Adopt(new Stack(dtype_, *max_size.data<int32_t>(), stack_name_));
    ctx->set_output(0, MakeResourceHandleTensor(std::move(h)));
  }

 private:
  DataType dtype_;
  std::string stack_name_;
};

class StackPushOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    Stack* stack;
    TX_CTX_RETURN_IF_ERROR(ctx, GetStack(ctx, &stack));
    const Tensor& elem = ctx->input(1);
    {
      std::lock_guard<std::mutex> l(stack->mu);
      if (stack->closed) return ctx->SetStatus(FailedPrecondition("stack '", stack->name, "' is closed"));
      if (elem.dtype() != stack->dtype)
        return ctx->SetStatus(InvalidArgument("stack '", stack->name, "' holds ", DataTypeString(stack->dtype),
                                              " tensors, cannot push a ", DataTypeString(elem.dtype())));
      if (stack->max_size >= 0 && static_cast<int64_t>(stack->elems.size()) >= stack->max_size)
        return ctx->SetStatus(ResourceExhausted("stack '", stack->name, "' is full (max_size ", stack->max_size, ")"));
      stack->elems.push_back(elem);
    }
    ctx->set_output(0, elem);
  }
};

class StackPopOp : public OpKernel {
 public:
  explicit StackPopOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("elem_type", &dtype_)); }
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    Stack* stack;
    TX_CTX_RETURN_IF_ERROR(ctx, GetStack(ctx, &stack));
    Tensor top;
    {
      std::lock_guard<std::mutex> l(stack->mu);
      if (stack->closed) return ctx->SetStatus(FailedPrecondition("stack '", stack->name, "' is closed"));
      if (stack->dtype != dtype_)
        return ctx->SetStatus(InvalidArgument("stack '", stack->name, "' holds ", DataTypeString(stack->dtype),
                                              " tensors, but elem_type is ", DataTypeString(dtype_)));
      if (stack->elems.empty())
        return ctx->SetStatus(OutOfRange("stack '", stack->name, "' is empty: more pops than pushes"));
      top = std::move(stack->elems.back());
      stack->elems.pop_back();
    }
    ctx->set_output(0, std::move(top));
  }

 private:
  DataType dtype_;
};

class StackCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    Stack* stack;
    TX_CTX_RETURN_IF_ERROR(ctx, GetStack(ctx, &stack));
    std::vector<Tensor> dropped;
    std::lock_guard<std::mutex> l(stack->mu);
    dropped.swap(stack->elems);
    stack->closed = true;
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("StackV2"), StackOp);
TX_REGISTER_KERNEL(KernelDefBuilder("StackPushV2"), StackPushOp);
TX_REGISTER_KERNEL(KernelDefBuilder("StackPopV2"), StackPopOp);
TX_REGISTER_KERNEL(KernelDefBuilder("StackCloseV2"), StackCloseOp);

}  // namespace
}  // namespace cpu
}  // namespace tx

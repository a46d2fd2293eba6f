// Calling a traced function through the C API's eager entry points.
#include "function.h"

namespace txd {

Function::~Function() {
  for (CallObjects& c : idle_) {
    api.TXE_DeleteOp(c.op);
    api.TX_DeleteStatus(c.status);
  }
}

Function::CallObjects Function::Take() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      CallObjects c = idle_.back();
      idle_.pop_back();
      return c;
    }
  }
  return CallObjects{nullptr, api.TX_NewStatus()};
}

void Function::Give(CallObjects c) const {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(c);
}

namespace {

// The handles of one call, deleted when it returns.
struct Handles {
  std::vector<TXE_TensorHandle*> all;
  ~Handles() {
    for (TXE_TensorHandle* h : all) api.TXE_DeleteTensorHandle(h);
  }
};

Status Failed(TX_Status* status) { return Status::Error(api.TX_GetCode(status), api.TX_Message(status)); }

}  // namespace

Status Function::Call(const std::vector<const TX_Tensor*>& args, std::vector<Tensor>* outs) const {
  Status result;
  TXE_Context* ctx = Context(&result);
  if (ctx == nullptr) return result;
  CallObjects call = Take();
  if (call.status == nullptr) return Status::Error(TX_RESOURCE_EXHAUSTED, name_ + ": cannot make a status");
  result = Run(ctx, &call, args, outs);
  if (call.op != nullptr && !result.ok()) {  // an op that failed is not reused
    api.TXE_DeleteOp(call.op);
    call.op = nullptr;
  }
  Give(call);
  return result;
}

Status Function::Run(TXE_Context* ctx, CallObjects* call, const std::vector<const TX_Tensor*>& args,
                     std::vector<Tensor>* outs) const {
  TX_Status* status = call->status;
  // The op keeps its attrs between calls (TXE_OpClearInputs); after a failed call it starts over.
  const bool ready = call->op != nullptr && call->ready;
  call->ready = false;
  if (ready) {
    api.TXE_OpClearInputs(call->op, status);
  } else if (call->op == nullptr) {
    call->op = api.TXE_NewOp(ctx, "PartitionedCall", status);
  } else {
    api.TXE_OpReset(call->op, "PartitionedCall", nullptr, status);
  }
  if (api.TX_GetCode(status) != TX_OK) return Failed(status);
  Handles handles;
  handles.all.reserve(args.size() + captures_.size() + output_dtypes_.size());
  for (const TX_Tensor* t : args) {
    handles.all.push_back(api.TXE_NewTensorHandle(t, status));
    if (api.TX_GetCode(status) != TX_OK) return Failed(status);
  }
  for (const Tensor& t : captures_) {
    handles.all.push_back(api.TXE_NewTensorHandle(t.get(), status));
    if (api.TX_GetCode(status) != TX_OK) return Failed(status);
  }
  api.TXE_OpAddInputList(call->op, handles.all.data(), static_cast<int>(handles.all.size()), status);
  if (api.TX_GetCode(status) != TX_OK) return Failed(status);
  if (!ready) {
    api.TXE_OpSetAttrFunctionName(call->op, "f", name_.data(), name_.size());
    api.TXE_OpSetAttrTypeList(call->op, "Tout", output_dtypes_.data(), static_cast<int>(output_dtypes_.size()));
  }
  size_t n_out = output_dtypes_.size();
  std::vector<TXE_TensorHandle*> retvals(n_out + 1, nullptr);
  int n = static_cast<int>(retvals.size());
  api.TXE_Execute(call->op, retvals.data(), &n, status);
  if (api.TX_GetCode(status) != TX_OK) return Failed(status);
  call->ready = true;
  for (int i = 0; i < n; ++i) handles.all.push_back(retvals[static_cast<size_t>(i)]);
  if (n != static_cast<int>(n_out)) {
    return Status::Error(TX_INTERNAL,
                         name_ + " returned " + std::to_string(n) + " outputs, expected " + std::to_string(n_out));
  }
  outs->clear();
  for (int i = 0; i < n; ++i) {
    TX_Tensor* t = api.TXE_TensorHandleResolve(retvals[static_cast<size_t>(i)], status);
    if (api.TX_GetCode(status) != TX_OK) return Failed(status);
    outs->emplace_back(t);
  }
  return Status{};
}

}  // namespace txd

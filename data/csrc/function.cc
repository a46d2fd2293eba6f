// Calling a traced function through the C API's eager entry points.
#include "function.h"

namespace txd {
namespace {

// Owns the C API objects of one call.
struct CallState {
  TX_Status* status = api.TX_NewStatus();
  TXE_Op* op = nullptr;
  std::vector<TXE_TensorHandle*> handles;
  ~CallState() {
    for (TXE_TensorHandle* h : handles) api.TXE_DeleteTensorHandle(h);
    api.TXE_DeleteOp(op);
    api.TX_DeleteStatus(status);
  }
  bool failed(Status* out) const {
    if (api.TX_GetCode(status) == TX_OK) return false;
    *out = Status::Error(api.TX_GetCode(status), api.TX_Message(status));
    return true;
  }
};

}  // namespace

Status Function::Call(const std::vector<const TX_Tensor*>& args, std::vector<Tensor>* outs) const {
  Status result;
  TXE_Context* ctx = Context(&result);
  if (ctx == nullptr) return result;
  CallState call;
  call.op = api.TXE_NewOp(ctx, "PartitionedCall", call.status);
  if (call.failed(&result)) return result;
  for (const TX_Tensor* t : args) {
    call.handles.push_back(api.TXE_NewTensorHandle(t, call.status));
    if (call.failed(&result)) return result;
  }
  for (const Tensor& t : captures_) {
    call.handles.push_back(api.TXE_NewTensorHandle(t.get(), call.status));
    if (call.failed(&result)) return result;
  }
  api.TXE_OpAddInputList(call.op, call.handles.data(), static_cast<int>(call.handles.size()), call.status);
  if (call.failed(&result)) return result;
  api.TXE_OpSetAttrFunctionName(call.op, "f", name_.data(), name_.size());
  api.TXE_OpSetAttrTypeList(call.op, "Tout", output_dtypes_.data(), static_cast<int>(output_dtypes_.size()));
  size_t n_out = output_dtypes_.size();
  std::vector<TXE_TensorHandle*> retvals(n_out + 1, nullptr);
  int n = static_cast<int>(retvals.size());
  api.TXE_Execute(call.op, retvals.data(), &n, call.status);
  if (call.failed(&result)) return result;
  for (int i = 0; i < n; ++i) call.handles.push_back(retvals[static_cast<size_t>(i)]);
  if (n != static_cast<int>(n_out)) {
    return Status::Error(TX_INTERNAL,
                         name_ + " returned " + std::to_string(n) + " outputs, expected " + std::to_string(n_out));
  }
  outs->clear();
  for (int i = 0; i < n; ++i) {
    TX_Tensor* t = api.TXE_TensorHandleResolve(retvals[static_cast<size_t>(i)], call.status);
    if (call.failed(&result)) return result;
    outs->emplace_back(t);
  }
  return result;
}

}  // namespace txd

// C API: host callbacks (c_api_callback.h) over the engine's HostCallbackRegistry.
#include "tensorflux/c/c_api_callback.h"

#include <memory>
#include <string>
#include <vector>

#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/runtime/host_callback.h"

namespace {

// Owns the caller's context: calls its deleter when the last reference to the callback goes.
struct CallbackContext {
  TX_HostCallbackFn fn;
  void* context;
  void (*deleter)(void*);
  ~CallbackContext() {
    if (deleter != nullptr) deleter(context);
  }
};

// Calls the C callback with borrowed wrappers of `inputs`, and moves its outputs into `outputs`.
tx::Status CallHost(const CallbackContext& cb, const std::vector<tx::Tensor>& inputs,
                    std::vector<tx::Tensor>* outputs) {
  std::vector<TX_Tensor> in(inputs.size());
  std::vector<TX_Tensor*> in_ptrs(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    in[i].tensor = inputs[i];
    in_ptrs[i] = &in[i];
  }
  std::vector<TX_Tensor*> out(outputs->size(), nullptr);
  TX_Status status;
  cb.fn(cb.context, in_ptrs.data(), static_cast<int>(in_ptrs.size()), out.data(), static_cast<int>(out.size()),
        &status);
  tx::Status result = status.status;
  for (size_t i = 0; i < out.size(); ++i) {
    std::unique_ptr<TX_Tensor> owned(out[i]);
    if (owned == nullptr) {
      if (result.ok()) result = tx::InvalidArgument("the host function set no value for output ", i);
      continue;
    }
    (*outputs)[i] = std::move(owned->tensor);
  }
  return result;
}

}  // namespace

void TX_RegisterHostCallback(const char* token, TX_HostCallbackFn fn, void* context, void (*deleter)(void* context),
                             TX_Status* status) {
  if (token == nullptr || fn == nullptr) {
    status->status = tx::InvalidArgument("TX_RegisterHostCallback: token and fn must not be NULL");
    return;
  }
  auto holder = std::make_shared<CallbackContext>(CallbackContext{fn, context, nullptr});
  auto call = std::make_shared<tx::HostCallbackFn>(
      [holder](const std::vector<tx::Tensor>& inputs, std::vector<tx::Tensor>* outputs) {
        return CallHost(*holder, inputs, outputs);
      });
  status->status = tx::HostCallbackRegistry::Global()->Register(token, std::move(call));
  if (status->status.ok()) holder->deleter = deleter;  // from here the registry's entry owns `context`
}

unsigned char TX_UnregisterHostCallback(const char* token) {
  if (token == nullptr) return 0;
  return tx::HostCallbackRegistry::Global()->Unregister(token) ? 1 : 0;
}

int TX_NumHostCallbacks(void) { return static_cast<int>(tx::HostCallbackRegistry::Global()->size()); }

// Helpers shared by the kernels that use resource variables: handle lookup, the errors
// TensorFlow gives for missing or uninitialized variables, and copy-on-write before an update.
#pragma once

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "tensorflux/core/object_types.h"
#include "tensorflux/core/status.h"
#include "tensorflux/runtime/op_kernel.h"
#include "tensorflux/runtime/resource_mgr.h"

namespace tx {
namespace cpu {

// The handle held by resource input `i`; InvalidArgument when it is not a handle.
inline Status GetHandle(const OpKernelContext* ctx, int i, const ResourceHandle** out) {
  *out = HandleFromTensor(ctx->input(i));
  if (*out == nullptr) return InvalidArgument("input ", i, " is not a resource handle");
  if (ctx->resource_manager() == nullptr)
    return FailedPrecondition("resource variables need a session (no resource manager)");
  return Status::OK();
}

// "Error while reading resource variable x ...": the variable is absent or was never assigned.
inline Status UninitializedError(const ResourceHandle& h) {
  return FailedPrecondition("Error while reading resource variable ", h.name,
                            " from Container: ", h.container.empty() ? "localhost" : h.container,
                            ". This could mean that the variable was uninitialized or destroyed.");
}

// The variable behind resource input `i` (which must exist); *h receives its handle.
inline Status LookupVar(OpKernelContext* ctx, int i, RefPtr<Var>* var, const ResourceHandle** h) {
  TX_RETURN_IF_ERROR(GetHandle(ctx, i, h));
  if (!ctx->resource_manager()->Lookup(**h, var).ok()) return UninitializedError(**h);
  return Status::OK();
}

// Makes v->value safe to write in place (Note [Variable snapshots]): copies it into a fresh
// buffer unless the variable holds the only reference to an engine-owned buffer. Requires v->mu.
inline Status PrepareToUpdate(Var* v) {
  if (v->value.CanReuseBuffer()) return Status::OK();
  Tensor copy;
  TX_RETURN_IF_ERROR(DeepCopyTensor(v->value, &copy));
  v->value = std::move(copy);
  return Status::OK();
}

// Locks the distinct mutexes of `vars` in address order (no deadlock between updates that share
// variables) and unlocks them on destruction.
class VarsLock {
 public:
  explicit VarsLock(const std::vector<Var*>& vars) {
    for (Var* v : vars) mus_.push_back(&v->mu);
    std::sort(mus_.begin(), mus_.end());
    mus_.erase(std::unique(mus_.begin(), mus_.end()), mus_.end());
    for (std::mutex* m : mus_) m->lock();
  }
  ~VarsLock() {
    for (auto it = mus_.rbegin(); it != mus_.rend(); ++it) (*it)->unlock();
  }
  VarsLock(const VarsLock&) = delete;
  VarsLock& operator=(const VarsLock&) = delete;

 private:
  std::vector<std::mutex*> mus_;
};

}  // namespace cpu
}  // namespace tx

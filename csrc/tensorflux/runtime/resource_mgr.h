// ResourceMgr: the per-session store of resource variables, and DT_RESOURCE handle tensors.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "tensorflux/core/refcount.h"
#include "tensorflux/core/shape.h"
#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"

namespace tx {

// What a DT_RESOURCE scalar tensor carries: the variable's key and its declared dtype and shape,
// or, for a resource that lives only as long as its handles (a stack), the object itself.
struct ResourceHandle {
  std::string container;
  std::string name;
  DataType dtype = DT_INVALID;
  PartialShape shape;
  RefPtr<RefCounted> owned;  // set for handle-owned resources; the session's ResourceMgr does not know them
};

// A resource variable (Note [Variable snapshots]). Every field is guarded by `mu`.
class Var : public RefCounted {
 public:
  Var(DataType dtype, PartialShape shape) : dtype(dtype), shape(std::move(shape)) {}

  std::mutex mu;
  const DataType dtype;
  const PartialShape shape;  // declared shape (from VarHandleOp's `shape` attr)
  Tensor value;              // meaningful only when initialized
  bool initialized = false;
};

// Maps (container, name) to variables. Thread-safe; owned by one Session, so variables live as
// long as the session does (as in TensorFlow).
class ResourceMgr {
 public:
  ResourceMgr() = default;
  ResourceMgr(const ResourceMgr&) = delete;
  ResourceMgr& operator=(const ResourceMgr&) = delete;

  // The variable for `h`, created uninitialized when absent; InvalidArgument when it exists with
  // another dtype.
  Status LookupOrCreate(const ResourceHandle& h, RefPtr<Var>* out);
  // The variable for `h`; NotFound when absent.
  Status Lookup(const ResourceHandle& h, RefPtr<Var>* out) const;
  // Removes the variable for `h` (holders of a reference keep it alive); NotFound when absent.
  Status Delete(const ResourceHandle& h);
  // Drops every variable.
  void Clear();

 private:
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, RefPtr<Var>> vars_;
};

// A scalar DT_RESOURCE tensor owning a copy of `h` (freed with the tensor's last reference).
Tensor MakeResourceHandleTensor(ResourceHandle h);

// The handle inside `t`, or nullptr when `t` is not a handle tensor made by MakeResourceHandleTensor.
const ResourceHandle* HandleFromTensor(const Tensor& t);

}  // namespace tx

// ResourceMgr: the per-session store of resource variables and shared resources (lookup tables),
// and DT_RESOURCE handle tensors.
#pragma once

#include <cstdint>
#include <functional>
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
  // The object itself, for resources reached through the handle rather than by name: a stack
  // (owned by its handles alone) or a lookup table (also kept by the ResourceMgr under its name).
  RefPtr<RefCounted> owned;
};

// A resource variable (Note [Variable snapshots]). Every field is guarded by `mu`.
class Var : public RefCounted {
 public:
  Var(DataType dtype, PartialShape shape) : dtype(dtype), shape(std::move(shape)) {}

  std::mutex mu;
  const DataType dtype;
  const PartialShape shape;  // declared shape (from VarHandleOp's `shape` attr)
  Tensor value;  // meaningful only when initialized
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
  // The shared resource (not a variable: a lookup table) named (container, name), made by
  // `make` when absent; the caller checks that an existing one is of the kind it expects.
  Status LookupOrCreateResource(const std::string& container, const std::string& name,
                                const std::function<Status(RefPtr<RefCounted>*)>& make, RefPtr<RefCounted>* out);
  // Drops every variable and shared resource.
  void Clear();

 private:
  using Key = std::pair<std::string, std::string>;
  mutable std::mutex mu_;
  std::map<Key, RefPtr<Var>> vars_;
  std::map<Key, RefPtr<RefCounted>> resources_;
};

// A scalar DT_RESOURCE tensor owning a copy of `h` (freed with the tensor's last reference).
Tensor MakeResourceHandleTensor(ResourceHandle h);

// The handle inside `t`, or nullptr when `t` is not a handle tensor made by MakeResourceHandleTensor.
const ResourceHandle* HandleFromTensor(const Tensor& t);

}  // namespace tx

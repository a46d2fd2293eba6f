#include "tensorflux/runtime/resource_mgr.h"

// Note [Variable snapshots]
// A Var's value is an ordinary refcounted Tensor. ReadVariableOp returns it under the variable's
// lock, sharing the buffer: a snapshot. Updates (Assign*, the ResourceApply* kernels) write in
// place only when the variable holds the buffer's only reference and the engine owns it
// (Tensor::CanReuseBuffer); otherwise they first copy the value into a fresh buffer
// (copy-on-write), so a snapshot handed out earlier never changes. Both checks happen under
// the variable's lock, and new references are only taken under that lock, so an in-place update
// can never race with a reader. AssignVariableOp shares the assigned tensor's buffer (no copy);
// a later update then copies once if someone else (a Const, a fed array) still holds it.

namespace tx {
namespace {

// Tags handle buffers so a foreign DT_RESOURCE tensor is never misread as a handle.
constexpr uint64_t kHandleMagic = 0x7846686e646c6531ull;

struct HandleBox {
  uint64_t magic = kHandleMagic;
  ResourceHandle handle;
};

void DeleteHandleBox(void* data, size_t, void*) { delete static_cast<HandleBox*>(data); }

std::string Describe(const ResourceHandle& h) {
  return "resource variable " + h.name + (h.container.empty() ? "" : " in container " + h.container);
}

}  // namespace

Status ResourceMgr::LookupOrCreate(const ResourceHandle& h, RefPtr<Var>* out) {
  std::lock_guard<std::mutex> l(mu_);
  RefPtr<Var>& slot = vars_[{h.container, h.name}];
  if (!slot) slot = RefPtr<Var>::Adopt(new Var(h.dtype, h.shape));
  if (slot->dtype != h.dtype)
    return InvalidArgument("the ", Describe(h), " exists with dtype ", DataTypeString(slot->dtype),
                           ", but a handle asks for dtype ", DataTypeString(h.dtype));
  *out = slot;
  return Status::OK();
}

Status ResourceMgr::Lookup(const ResourceHandle& h, RefPtr<Var>* out) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = vars_.find({h.container, h.name});
  if (it == vars_.end())
    return NotFound("the ", Describe(h), " does not exist (it was never created or was destroyed)");
  *out = it->second;
  return Status::OK();
}

Status ResourceMgr::Delete(const ResourceHandle& h) {
  std::lock_guard<std::mutex> l(mu_);
  if (vars_.erase({h.container, h.name}) == 0) return NotFound("the ", Describe(h), " does not exist");
  return Status::OK();
}

Status ResourceMgr::LookupOrCreateResource(const std::string& container, const std::string& name,
                                           const std::function<Status(RefPtr<RefCounted>*)>& make,
                                           RefPtr<RefCounted>* out) {
  std::lock_guard<std::mutex> l(mu_);
  RefPtr<RefCounted>& slot = resources_[{container, name}];
  if (!slot) {
    Status s = make(&slot);
    if (!s.ok() || !slot) {
      resources_.erase({container, name});
      return s.ok() ? Internal("making the resource ", name, " returned nothing") : s;
    }
  }
  *out = slot;
  return Status::OK();
}

void ResourceMgr::Clear() {
  std::map<Key, RefPtr<Var>> dropped;
  std::map<Key, RefPtr<RefCounted>> dropped_resources;
  std::lock_guard<std::mutex> l(mu_);
  dropped.swap(vars_);
  dropped_resources.swap(resources_);
}

Tensor MakeResourceHandleTensor(ResourceHandle h) {
  auto* box = new HandleBox();
  box->handle = std::move(h);
  Buffer* b = Buffer::Wrap(box, sizeof(HandleBox), DeleteHandleBox, nullptr);
  return Tensor(DT_RESOURCE, TensorShape({}), RefPtr<Buffer>::Adopt(b));
}

const ResourceHandle* HandleFromTensor(const Tensor& t) {
  if (t.dtype() != DT_RESOURCE || !t.initialized() || t.rank() != 0 || t.buffer()->owned() ||
      t.buffer()->size() != sizeof(HandleBox))
    return nullptr;
  const auto* box = static_cast<const HandleBox*>(t.raw_data());
  return box->magic == kHandleMagic ? &box->handle : nullptr;
}

}  // namespace tx

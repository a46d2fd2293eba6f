#include "tensorflux/eager/context.h"

#include <algorithm>
#include <utility>

#include "tensorflux/kernels/cpu/blas.h"
#include "tensorflux/runtime/device.h"

namespace tx {

EagerContext::EagerContext(const EagerContextOptions& opts) : policy_(opts.policy) {
  const int n = std::max(1, opts.num_cpu_devices);
  for (int i = 0; i < n; ++i) devices_.push_back("/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(i));
  const int inter = opts.inter_op_threads > 0 ? opts.inter_op_threads : DefaultThreadCount();
  const int intra = opts.intra_op_threads > 0 ? opts.intra_op_threads : DefaultThreadCount();
  // The calling thread takes part in the work, so each pool has one worker fewer.
  inter_op_ = std::make_unique<ThreadPool>(inter - 1);
  intra_op_ = std::make_unique<ThreadPool>(intra - 1);
  resources_ = std::make_unique<ResourceMgr>();
  UseSingleThreadedBlas();  // Note [Single-threaded BLAS]
}

EagerContext::~EagerContext() {
  ClearCaches();
  resources_->Clear();
}

Status EagerContext::FindDevice(const std::string& request, int* index, bool soft) const {
  *index = -1;
  if (request.empty()) return Status::OK();
  DeviceSpec spec;
  TX_RETURN_IF_ERROR(ParseDeviceSpec(request, &spec));
  const bool local = (spec.job.empty() || spec.job == "localhost") && spec.replica <= 0 && spec.task <= 0;
  if (local && (spec.type.empty() || spec.type == "CPU") && spec.id < num_devices()) {
    *index = spec.id < 0 ? 0 : spec.id;
    return Status::OK();
  }
  if (soft) return Status::OK();  // -1: placed by the inputs (CPU:0 when there are none)
  std::string names;
  for (const auto& d : devices_) names += (names.empty() ? "" : ", ") + d;
  return InvalidArgument("Could not satisfy device specification '", request, "': the devices are ", names);
}

std::shared_ptr<const CachedKernel> EagerContext::FindKernel(const std::string& key) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = kernels_.find(key);
  if (it == kernels_.end()) return nullptr;
  recency_.splice(recency_.begin(), recency_, it->second.recency);
  return it->second.kernel;
}

void EagerContext::EraseKernel(std::unordered_map<std::string, CacheEntry>::iterator it,
                               std::vector<std::shared_ptr<const CachedKernel>>* dropped) {
  dropped->push_back(std::move(it->second.kernel));
  recency_.erase(it->second.recency);
  kernels_.erase(it);
}

std::shared_ptr<const CachedKernel> EagerContext::AddKernel(const std::string& key,
                                                            std::shared_ptr<const CachedKernel> k) {
  std::vector<std::shared_ptr<const CachedKernel>> dropped;  // freed outside the lock
  std::lock_guard<std::mutex> l(mu_);
  auto inserted = kernels_.emplace(key, CacheEntry{std::move(k), {}});
  auto it = inserted.first;
  if (!inserted.second) return it->second.kernel;  // another thread cached it first
  it->second.recency = recency_.insert(recency_.begin(), &it->first);
  std::shared_ptr<const CachedKernel> result = it->second.kernel;
  while (kernels_.size() > kMaxCachedKernels) EraseKernel(kernels_.find(*recency_.back()), &dropped);
  return result;
}

void EagerContext::ClearCaches() {
  std::unordered_map<std::string, CacheEntry> old;
  {
    std::lock_guard<std::mutex> l(mu_);
    old.swap(kernels_);
    recency_.clear();
    cache_generation_.fetch_add(1, std::memory_order_relaxed);
  }
  library_->ClearBodies();
}

namespace {

// True when one of `node`'s func or list(func) attrs names `function`.
bool CallsFunction(const Node& node, const std::string& function) {
  for (const auto& kv : node.attrs()) {
    const AttrValue& a = kv.second;
    if (a.kind == AttrValue::Kind::kFunc && a.func != nullptr && a.func->name == function) return true;
    if (a.kind == AttrValue::Kind::kList)
      for (const NameAttrList& f : a.list.func)
        if (f.name == function) return true;
  }
  return false;
}

}  // namespace

Status EagerContext::RemoveFunction(const std::string& name) {
  TX_RETURN_IF_ERROR(library_->RemoveFunction(name));
  {
    std::vector<std::shared_ptr<const CachedKernel>> dropped;  // freed outside the lock
    std::lock_guard<std::mutex> l(mu_);
    for (auto it = kernels_.begin(); it != kernels_.end();) {
      auto next = std::next(it);
      if (it->second.kernel->node != nullptr && CallsFunction(*it->second.kernel->node, name))
        EraseKernel(it, &dropped);
      it = next;
    }
    // Ops that kept their last kernel (TXE_OpReset reuse) must not call the removed body, nor a
    // new definition added later under the same name through the old kernel.
    cache_generation_.fetch_add(1, std::memory_order_relaxed);
  }
  // The gradient functions a tape generated for it ("<name>_grad_<hash>", Note [Function
  // gradients]) serve only its calls, so they go too (and theirs, recursively).
  const std::string generated = name + "_grad_";
  for (const std::string& other : library_->Names())
    if (other.compare(0, generated.size(), generated) == 0) (void)RemoveFunction(other);  // NotFound: gone already
  return Status::OK();
}

int64_t EagerContext::num_cached_kernels() const {
  std::lock_guard<std::mutex> l(mu_);
  return static_cast<int64_t>(kernels_.size());
}

}  // namespace tx

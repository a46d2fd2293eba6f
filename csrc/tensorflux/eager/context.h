// EagerContext: what executing ops one at a time needs — devices, thread pools, the resource
// manager holding eager variables, and the cache of instantiated kernels (Note [Eager kernel cache]).
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/core/thread_pool.h"
#include "tensorflux/framework/attr_value.h"
#include "tensorflux/framework/function.h"
#include "tensorflux/runtime/op_kernel.h"
#include "tensorflux/runtime/resource_mgr.h"

namespace tx {

// What happens when an op's inputs live on a device other than the op's (TensorFlow's numbering).
enum class PlacementPolicy { kExplicit = 0, kWarn = 1, kSilent = 2, kSilentForInt32 = 3 };

struct EagerContextOptions {
  int intra_op_threads = 0;  // 0: number of cores
  int inter_op_threads = 0;  // 0: number of cores
  int num_cpu_devices = 1;  // logical CPU devices /device:CPU:0..n-1, sharing host memory
  PlacementPolicy policy = PlacementPolicy::kSilent;
};

// A kernel instantiated for one (op, device, input dtypes, attrs) signature: the single-node graph
// that gave the kernel its attrs and types, and the kernel itself. Immutable once built.
struct CachedKernel {
  std::unique_ptr<Graph> graph;
  const Node* node = nullptr;
  std::unique_ptr<OpKernel> kernel;
};

// Thread-safe. Ops, handles and tapes must not outlive the context.
class EagerContext {
 public:
  explicit EagerContext(const EagerContextOptions& opts);
  ~EagerContext();

  int num_devices() const { return static_cast<int>(devices_.size()); }
  // The full name of device `index`, e.g. "/job:localhost/replica:0/task:0/device:CPU:0".
  const std::string& device_name(int index) const { return devices_[index]; }
  // Resolves a device request ("", "/cpu:1", "/device:CPU:0", full names) to a device index;
  // "" yields -1 (no preference). InvalidArgument names the request and the devices there are,
  // unless `soft` (soft placement): then a request no device satisfies yields -1 as "" does.
  Status FindDevice(const std::string& request, int* index, bool soft = false) const;

  // Soft device placement (TensorFlow's default, on): ops requesting an absent device run where
  // their inputs are (CPU:0 without inputs).
  bool soft_placement() const { return soft_placement_.load(std::memory_order_relaxed); }
  void set_soft_placement(bool on) { soft_placement_.store(on, std::memory_order_relaxed); }

  PlacementPolicy policy() const { return policy_; }
  // The functions call ops executed eagerly may call (TXE_ContextAddFunction); shared with the
  // one-node graphs of their kernels.
  FunctionLibrary& library() const { return *library_; }
  const std::shared_ptr<FunctionLibrary>& shared_library() const { return library_; }

  ThreadPool* intra_op_pool() const { return intra_op_.get(); }
  ThreadPool* inter_op_pool() const { return inter_op_.get(); }
  ResourceMgr* resources() const { return resources_.get(); }

  // The kernel cached under `key`, or nullptr.
  std::shared_ptr<const CachedKernel> FindKernel(const std::string& key) const;
  // Caches `k` under `key` (keeps an entry another thread added first) and returns the cached one.
  std::shared_ptr<const CachedKernel> AddKernel(const std::string& key, std::shared_ptr<const CachedKernel> k);
  // Drops every cached kernel and instantiated function body (ops executing now keep theirs
  // alive); ops that kept their last kernel look it up again (the generation changes).
  void ClearCaches();
  uint64_t cache_generation() const { return cache_generation_.load(std::memory_order_relaxed); }
  // Removes function `name` from the library with its instantiated bodies, the cached kernels
  // that call it (ops executing now keep theirs) and the gradient functions generated for it
  // ("<name>_grad_<hash>"); NotFound when absent.
  Status RemoveFunction(const std::string& name);
  int64_t num_cached_kernels() const;

 private:
  std::atomic<bool> soft_placement_{true};
  std::atomic<uint64_t> cache_generation_{1};
  std::vector<std::string> devices_;
  PlacementPolicy policy_;
  std::unique_ptr<ThreadPool> inter_op_, intra_op_;
  std::unique_ptr<ResourceMgr> resources_;
  std::shared_ptr<FunctionLibrary> library_ = std::make_shared<FunctionLibrary>();
  struct CacheEntry {
    std::shared_ptr<const CachedKernel> kernel;
    std::list<const std::string*>::iterator recency;  // its place in recency_
  };
  // Drops `it` from the cache; the kernel goes to `dropped`, to be freed outside the lock.
  void EraseKernel(std::unordered_map<std::string, CacheEntry>::iterator it,
                   std::vector<std::shared_ptr<const CachedKernel>>* dropped);

  mutable std::mutex mu_;
  std::unordered_map<std::string, CacheEntry> kernels_;
  mutable std::list<const std::string*> recency_;  // keys of kernels_, most recently used first
};

// At most this many kernels stay cached per context (Note [Eager kernel cache]).
constexpr size_t kMaxCachedKernels = 4096;

}  // namespace tx

// Note [Eager kernel cache]
// Executing an op eagerly needs what a session builds once per plan: attrs validated against the
// OpDef with defaults filled and type attrs inferred, output dtypes, and a kernel instance. The
// first call with a given signature builds a one-node graph (a Placeholder per input, of the
// input's dtype and unknown shape, feeding the op) through Graph::AddNode — so eager ops get the
// same checks and error messages as graph ops — and instantiates the kernel for it. The key is the
// op name, device, input dtypes and list lengths, and the attrs the caller set (type attrs inferred
// from inputs and defaulted attrs follow from those). Later calls look the key up and run the
// kernel directly; an EagerOp reused for the same op (TXE_OpReset) also remembers its last kernel
// and skips the lookup when the key repeats. Kernels are stateless per call (OpKernel), so one
// cached kernel serves every thread; stateful kernels (random ops) keep their state across calls,
// as in TensorFlow's eager mode.
// The cache is bounded (kMaxCachedKernels, least recently used dropped first): signatures are keyed
// by attr values, and a program that executes ever new values (a loop over seeds, shapes given as
// attrs) would otherwise grow it for ever. Signatures that can never repeat are not cached at all:
// tensor attrs (a Const per value) and non-empty shared_name attrs (every eager tx.Variable creates
// its resource with a VarHandleOp of a new unique shared_name; caching those kernels cost the soak
// test ~4.4 KiB per variable).

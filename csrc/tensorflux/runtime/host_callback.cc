// The host callback registry (Note [Host callbacks]).
#include "tensorflux/runtime/host_callback.h"

#include <mutex>
#include <unordered_map>

namespace tx {
namespace {

struct Table {
  mutable std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<HostCallbackFn>> entries;
};

Table& GlobalTable() {
  static Table* table = new Table;  // never destroyed: callbacks may be unregistered at exit
  return *table;
}

}  // namespace

HostCallbackRegistry* HostCallbackRegistry::Global() {
  static HostCallbackRegistry registry;
  return &registry;
}

Status HostCallbackRegistry::Register(const std::string& token, std::shared_ptr<HostCallbackFn> fn) {
  if (token.empty()) return InvalidArgument("host callback token must not be empty");
  if (fn == nullptr || !*fn) return InvalidArgument("host callback '", token, "' has no function");
  Table& t = GlobalTable();
  std::lock_guard<std::mutex> lock(t.mu);
  if (!t.entries.emplace(token, std::move(fn)).second)
    return AlreadyExists("host callback '", token, "' is already registered");
  return Status::OK();
}

bool HostCallbackRegistry::Unregister(const std::string& token) {
  std::shared_ptr<HostCallbackFn> dropped;  // destroyed after the lock is released
  Table& t = GlobalTable();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.entries.find(token);
  if (it == t.entries.end()) return false;
  dropped = std::move(it->second);
  t.entries.erase(it);
  return true;
}

std::shared_ptr<HostCallbackFn> HostCallbackRegistry::Lookup(const std::string& token) const {
  Table& t = GlobalTable();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.entries.find(token);
  return it == t.entries.end() ? nullptr : it->second;
}

size_t HostCallbackRegistry::size() const {
  Table& t = GlobalTable();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.entries.size();
}

}  // namespace tx

// C API: loading plugins (TX_LoadLibrary and friends, c_api_plugin.h): dlopen, the ABI version
// check, TX_InitPlugin, and the all-or-nothing commit of what the plugin registered.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/c/plugin_internal.h"
#include "tensorflux/framework/graph_def_io.h"

// Note [Plugin ABI versions]
// A plugin is built against some version M'.n' of c_api_plugin.h and reports it through its
// exported TX_PluginAbiVersion(). The core serves version M.n: a table (TX_PluginApi) holding every
// entry added up to n. Entries are only appended, so a table of minor n holds everything a plugin
// of minor n' <= n can call, at the offsets it was compiled with: such a plugin loads. A plugin of a
// newer minor could call entries this core lacks, and a different major means the existing entries
// changed: both are refused before TX_InitPlugin runs, with a message naming both versions. The
// plugin links nothing from Tensorflux, so no symbol version or soname ties it to one core build.
//
// Note [Plugin registration is all or nothing]
// TX_InitPlugin only stages registrations in a TX_PluginRegistrar; they reach the process-wide
// registries after it returns OK and every one of them has been checked (op names free, kernels
// and gradients naming known ops, no duplicates), under one loader lock. A plugin that fails
// halfway, or registers a name that exists, leaves the engine exactly as it was, and its file is
// closed again. Registrations are never removed afterwards, so a loaded library is never unloaded
// (as in TensorFlow): graphs, kernels and gradient closures point into its code.

namespace {

// A library whose registrations were committed; lives for the rest of the process.
struct LoadedLibrary {
  std::string path;
  std::string op_list;  // serialized OpList of the ops it registered
};

std::mutex& LoaderMutex() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}

// dlopen handle -> the library loaded through it.
std::map<void*, std::shared_ptr<const LoadedLibrary>>& Loaded() {
  static auto* loaded = new std::map<void*, std::shared_ptr<const LoadedLibrary>>;
  return *loaded;
}

using VersionFn = uint32_t (*)(void);
using InitFn = void (*)(const TX_PluginApi*, TX_PluginRegistrar*, TX_Status*);

// The kernels' (op, device, sorted constraints), to find a registration made twice.
using KernelKey = std::tuple<std::string, std::string, std::vector<std::pair<std::string, tx::DataType>>>;
KernelKey KeyOf(const tx::KernelRegistration& r) {
  auto c = r.type_constraints;
  std::sort(c.begin(), c.end());
  return {r.op, r.device, c};
}

// Checks everything `reg` stages against the registries and itself (Note [Plugin registration
// is all or nothing]). Requires the loader lock.
tx::Status CheckStaged(const TX_PluginRegistrar& reg) {
  const std::string where = "[" + reg.library + "] ";
  std::set<std::string> ops;
  for (const auto& op : reg.ops) {
    const std::string& name = op->def.name;
    if (tx::OpRegistry::Global()->LookUp(name) != nullptr || !ops.insert(name).second)
      return tx::AlreadyExists(where, "op '", name, "' is already registered");
  }
  auto known = [&](const std::string& op) { return ops.count(op) || tx::OpRegistry::Global()->LookUp(op); };
  std::set<KernelKey> kernels;
  for (const auto& r : tx::KernelRegistry::Global()->All()) kernels.insert(KeyOf(r));
  for (const auto& r : reg.kernels) {
    if (!known(r.op)) return tx::NotFound(where, "a kernel names op '", r.op, "', which is not registered");
    if (!kernels.insert(KeyOf(r)).second)
      return tx::AlreadyExists(where, "a ", r.device, " kernel for op '", r.op,
                               "' with these type constraints is already registered");
  }
  std::set<std::string> grads;
  for (const auto& [op, fn] : reg.gradients) {
    if (!known(op)) return tx::NotFound(where, "a gradient names op '", op, "', which is not registered");
    if (tx::GradientRegistry::Global()->LookUp(op) != nullptr || !grads.insert(op).second)
      return tx::AlreadyExists(where, "op '", op, "' already has a gradient or a not-differentiable declaration");
  }
  return tx::Status::OK();
}

// Moves the staged registrations into the registries; returns the serialized OpList of the ops.
// Requires the loader lock and CheckStaged's OK.
tx::Status Commit(TX_PluginRegistrar* reg, std::string* op_list) {
  std::vector<const tx::OpRegistration*> added;
  for (auto& op : reg->ops) {
    const std::string name = op->def.name;
    TX_RETURN_IF_ERROR(tx::OpRegistry::Global()->Register(std::move(op)));
    added.push_back(tx::OpRegistry::Global()->LookUp(name));
  }
  for (auto& k : reg->kernels) tx::KernelRegistry::Global()->Register(std::move(k));
  for (auto& [op, fn] : reg->gradients) TX_RETURN_IF_ERROR(tx::GradientRegistry::Global()->TryRegister(op, fn));
  *op_list = tx::SerializeOpList(added);
  return tx::Status::OK();
}

// Opens `path`; a message that says whether the file is missing or not a library on error.
tx::Status Open(const std::string& path, void** handle) {
  dlerror();
  *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (*handle != nullptr) return tx::Status::OK();
  const char* err = dlerror();
  const std::string why = err != nullptr ? err : "unknown dlopen error";
  if (access(path.c_str(), F_OK) != 0)
    return tx::NotFound("could not load plugin library '", path, "': no such file (", why, ")");
  return tx::InvalidArgument("could not load plugin library '", path, "': not a loadable shared library (", why, ")");
}

// Everything TX_LoadLibrary does after opening `handle`. On error the caller closes it, unless
// *committing is set (registrations reached the registries and may point into the library).
tx::Status Initialize(const std::string& path, void* handle, std::string* op_list, bool* committing) {
  auto version_fn = reinterpret_cast<VersionFn>(dlsym(handle, "TX_PluginAbiVersion"));
  auto init_fn = reinterpret_cast<InitFn>(dlsym(handle, "TX_InitPlugin"));
  if (version_fn == nullptr || init_fn == nullptr)
    return tx::InvalidArgument("'", path, "' is not a Tensorflux plugin: it does not export ",
                               version_fn == nullptr ? "TX_PluginAbiVersion" : "TX_InitPlugin",
                               " (see c_api_plugin.h)");
  TX_RETURN_IF_ERROR(tx::plugin::CheckAbiVersion(version_fn(), TX_PLUGIN_ABI_VERSION, path));
  TX_PluginRegistrar reg;
  reg.library = path;
  TX_Status status;
  try {
    init_fn(tx::plugin::Api(), &reg, &status);
  } catch (...) { status.status = tx::capi::FromException(std::current_exception()); }
  if (!status.status.ok())
    return tx::Status(status.status.code(), "[" + path + "] TX_InitPlugin failed: " + status.status.message());
  TX_RETURN_IF_ERROR(CheckStaged(reg));
  *committing = true;
  return Commit(&reg, op_list);
}

}  // namespace

struct TX_Library {
  std::shared_ptr<const LoadedLibrary> lib;
};

namespace tx {
namespace plugin {

std::string AbiVersionString(uint32_t version) {
  return std::to_string(TX_PLUGIN_ABI_MAJOR(version)) + "." + std::to_string(TX_PLUGIN_ABI_MINOR(version));
}

Status CheckAbiVersion(uint32_t plugin, uint32_t core, const std::string& library) {
  const std::string p = AbiVersionString(plugin), c = AbiVersionString(core);
  if (TX_PLUGIN_ABI_MAJOR(plugin) != TX_PLUGIN_ABI_MAJOR(core))
    return FailedPrecondition("the plugin '", library, "' was built for plugin ABI ", p, ", but this core serves ABI ",
                              c,
                              ": a different major version is incompatible (rebuild the plugin against this "
                              "core's c_api_plugin.h)");
  if (TX_PLUGIN_ABI_MINOR(plugin) > TX_PLUGIN_ABI_MINOR(core))
    return FailedPrecondition("the plugin '", library, "' needs plugin ABI ", p, ", newer than this core's ", c,
                              " (upgrade Tensorflux, or build the plugin with TX_PLUGIN_TARGET_ABI_VERSION ", c, ")");
  return Status::OK();
}

}  // namespace plugin
}  // namespace tx

extern "C" {

uint32_t TX_GetPluginAbiVersion(void) { return TX_PLUGIN_ABI_VERSION; }

TX_Library* TX_LoadLibrary(const char* library_filename, TX_Status* status) {
  TX_Library* result = nullptr;
  tx::capi::Guard(status, [&]() -> tx::Status {
    if (library_filename == nullptr || *library_filename == '\0')
      return tx::InvalidArgument("TX_LoadLibrary: the library file name is empty");
    const std::string path = library_filename;
    std::lock_guard<std::mutex> lock(LoaderMutex());
    void* handle = nullptr;
    TX_RETURN_IF_ERROR(Open(path, &handle));
    auto it = Loaded().find(handle);
    if (it != Loaded().end()) {
      dlclose(handle);  // the library stays open through the first load's reference
      result = new TX_Library{it->second};
      return tx::Status::OK();
    }
    auto lib = std::make_shared<LoadedLibrary>();
    lib->path = path;
    bool committing = false;
    tx::Status s = Initialize(path, handle, &lib->op_list, &committing);
    if (!s.ok()) {
      if (!committing) dlclose(handle);
      return s;
    }
    Loaded()[handle] = lib;
    result = new TX_Library{std::move(lib)};
    return tx::Status::OK();
  });
  return result;
}

TX_Buffer TX_GetOpList(TX_Library* lib_handle) {
  TX_Buffer buf{nullptr, 0, nullptr};
  if (lib_handle == nullptr) return buf;
  buf.data = lib_handle->lib->op_list.data();
  buf.length = lib_handle->lib->op_list.size();
  return buf;
}

void TX_DeleteLibraryHandle(TX_Library* lib_handle) { delete lib_handle; }

}  // extern "C"

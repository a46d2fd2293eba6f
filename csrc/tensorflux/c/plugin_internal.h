// Internal definitions behind the plugin ABI (c_api_plugin.h): the registrar a plugin's
// TX_InitPlugin fills, the builders, and the functions that fill the TX_PluginApi table.
// Nothing here is exported.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/c/c_api_plugin.h"
#include "tensorflux/core/status.h"
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/gradients/gradient_registry.h"
#include "tensorflux/runtime/op_kernel.h"

// What one TX_InitPlugin call asked for, staged until the loader commits it all at once
// (Note [Plugin registration is all or nothing] in plugin_loader.cc).
struct TX_PluginRegistrar {
  std::string library;  // the file name, for messages
  std::vector<std::unique_ptr<tx::OpRegistration>> ops;
  std::vector<tx::KernelRegistration> kernels;
  std::vector<std::pair<std::string, tx::GradFn>> gradients;
};

struct TX_OpDefinitionBuilder {
  explicit TX_OpDefinitionBuilder(std::string name) : builder(std::move(name)) {}
  tx::OpDefBuilder builder;
  TX_ShapeInferenceFn shape_fn = nullptr;
  tx::Status error;  // the first failure of a builder call (out of memory), reported on registration
};

// TX_Attrs, TX_ShapeInferenceContext and TX_OpKernelConstruction are never defined: pointers to
// them are the engine objects themselves (tx::AttrMap, tx::InferenceContext, tx::OpKernelConstruction).

namespace tx {
namespace plugin {

// Runs `fn` (a builder call); an exception it throws (out of memory) becomes *error unless one is
// already recorded there. Builders report it when they are registered or finished.
template <typename F>
void KeepFirstError(Status* error, F&& fn) {
  try {
    fn();
  } catch (...) {
    if (error->ok()) *error = capi::FromException(std::current_exception());
  }
}

inline const TX_Attrs* ToAttrs(const AttrMap* attrs) { return reinterpret_cast<const TX_Attrs*>(attrs); }
inline const AttrMap& FromAttrs(const TX_Attrs* attrs) { return *reinterpret_cast<const AttrMap*>(attrs); }

// The table handed to every plugin; static storage, filled once.
const TX_PluginApi* Api();

// Checks that a core serving ABI `core` can load a plugin built for ABI `plugin` (same major,
// plugin minor <= core minor); FailedPrecondition naming both versions and `library` otherwise.
Status CheckAbiVersion(uint32_t plugin, uint32_t core, const std::string& library);

// "major.minor" of a packed version.
std::string AbiVersionString(uint32_t version);

// Wraps a plugin's C shape function as an engine shape function (errors keep the plugin's code).
ShapeFn WrapShapeFn(TX_ShapeInferenceFn fn);

// Wraps a plugin's C gradient function; errors name the op and the library.
GradFn WrapGradientFn(TX_GradientFn fn, std::string op, std::string library);

// Table fillers, one per file (plugin_api_ops.cc, plugin_api_kernels.cc, plugin_api_grads.cc).
void FillOpApi(TX_PluginApi* api);
void FillKernelApi(TX_PluginApi* api);
void FillGradientApi(TX_PluginApi* api);

}  // namespace plugin
}  // namespace tx

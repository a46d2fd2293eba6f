/* Plugins that must fail to load, one per TX_BAD_PLUGIN_* definition (csrc/tests/CMakeLists.txt
 * and the Python and Go tests build one library per variant):
 *
 *  TX_BAD_PLUGIN_ABI=<version>   claims ABI <version> (TX_PLUGIN_MAKE_ABI_VERSION(major, minor))
 *                                and would register PluginOnlyHere if it were initialized
 *  TX_BAD_PLUGIN_DUPLICATE       registers PluginOnlyHere, then MatMul, which the core has
 *  TX_BAD_PLUGIN_FAILING_INIT    registers PluginOnlyHere, then fails with its own error
 *  TX_BAD_PLUGIN_KERNEL_NO_OP    registers a kernel for an op nobody registered
 *  TX_BAD_PLUGIN_DUPLICATE_KERNEL registers a CPU kernel for MatMul with T=float, which the core has
 *  TX_BAD_PLUGIN_NOT_A_PLUGIN    a shared library that exports neither entry point
 *
 * In every case the load fails and PluginOnlyHere must not be registered afterwards. */
#include <stddef.h>

#include "tensorflux/c/c_api_plugin.h"

#if !defined(TX_BAD_PLUGIN_NOT_A_PLUGIN)

#if defined(TX_BAD_PLUGIN_ABI)
TX_PLUGIN_EXPORT uint32_t TX_PluginAbiVersion(void) { return TX_BAD_PLUGIN_ABI; }
#else
TX_PLUGIN_DEFINE_ABI_VERSION()
#endif

__attribute__((unused)) static void Compute(void* state, TX_OpKernelContext* ctx, TX_Status* status) {
  (void)state;
  (void)ctx;
  (void)status;
}

TX_PLUGIN_EXPORT void TX_InitPlugin(const TX_PluginApi* api, TX_PluginRegistrar* reg, TX_Status* status) {
  TX_OpDefinitionBuilder* b = api->NewOpDefinitionBuilder("PluginOnlyHere");
  api->OpDefinitionBuilderAddOutput(b, "y: float");
  api->RegisterOpDefinition(reg, b, status);
  if (api->GetCode(status) != TX_OK) return;
#if defined(TX_BAD_PLUGIN_DUPLICATE)
  b = api->NewOpDefinitionBuilder("MatMul");
  api->OpDefinitionBuilderAddOutput(b, "y: float");
  api->RegisterOpDefinition(reg, b, status);
#elif defined(TX_BAD_PLUGIN_FAILING_INIT)
  api->SetStatus(status, TX_INTERNAL, "this plugin fails on purpose");
#elif defined(TX_BAD_PLUGIN_KERNEL_NO_OP)
  api->RegisterKernel(reg, api->NewKernelBuilder("NoSuchOpAnywhere", "CPU", NULL, Compute, NULL), status);
#elif defined(TX_BAD_PLUGIN_DUPLICATE_KERNEL)
  TX_KernelBuilder* k = api->NewKernelBuilder("MatMul", "CPU", NULL, Compute, NULL);
  api->KernelBuilderTypeConstraint(k, "T", TX_FLOAT);
  api->RegisterKernel(reg, k, status);
#endif
}

#else

/* Exported, so the library is a real shared object with symbols, just not the plugin's. */
__attribute__((visibility("default"))) int tx_not_a_plugin(void) { return 42; }

#endif

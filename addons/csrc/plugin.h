/* The tensorflux-addons plugin: shared declarations of its kernel files. Each optimizer with a
 * fused kernel has one file here defining Register<Name>(), called by TX_InitPlugin (plugin.c). */
#ifndef TENSORFLUX_ADDONS_PLUGIN_H_
#define TENSORFLUX_ADDONS_PLUGIN_H_

/* The add-on targets plugin ABI 1.0, so it loads into every 1.x core (c_api_plugin.h). */
#define TX_PLUGIN_TARGET_ABI_VERSION TX_PLUGIN_MAKE_ABI_VERSION(1, 0)
#include "tensorflux/c/c_api_plugin.h"

/* The core's function table, set by TX_InitPlugin before any Register* runs. */
extern const TX_PluginApi* txa_api;

/* Sets `status` to TX_INVALID_ARGUMENT with a printf-style message. */
void txa_error(TX_Status* status, const char* format, ...) __attribute__((format(printf, 2, 3)));

/* "float32", "float64", ...: the Python name of `dtype`, for messages. */
const char* txa_dtype_name(TX_DataType dtype);

/* Registers AddonsResourceApplyLion and its kernels (lion.c). */
void txa_register_lion(TX_PluginRegistrar* reg, TX_Status* status);

#endif /* TENSORFLUX_ADDONS_PLUGIN_H_ */

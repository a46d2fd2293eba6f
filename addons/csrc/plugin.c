/* The tensorflux-addons plugin's entry points: its ABI version and TX_InitPlugin, which registers
 * every fused kernel file's ops (add one line per new file). */
#include "plugin.h"

#include <stdarg.h>
#include <stdio.h>

const TX_PluginApi* txa_api;

void txa_error(TX_Status* status, const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  txa_api->SetStatus(status, TX_INVALID_ARGUMENT, message);
}

const char* txa_dtype_name(TX_DataType dtype) {
  switch (dtype) {
    case TX_FLOAT: return "float32";
    case TX_DOUBLE: return "float64";
    case TX_HALF: return "float16";
    case TX_BFLOAT16: return "bfloat16";
    case TX_INT32: return "int32";
    case TX_INT64: return "int64";
    default: return "another dtype";
  }
}

TX_PLUGIN_DEFINE_ABI_VERSION()

TX_PLUGIN_EXPORT void TX_InitPlugin(const TX_PluginApi* api, TX_PluginRegistrar* reg, TX_Status* status) {
  txa_api = api;
  txa_register_lion(reg, status);
}

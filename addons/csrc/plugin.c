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

int txa_read_scalar(TX_OpKernelContext* ctx, int i, const char* name, TX_DataType dtype, double* out,
                    TX_Status* status) {
  const int rank = txa_api->KernelContextInputNumDims(ctx, i);
  if (rank != 0) {
    txa_error(status, "%s must be a scalar, got a tensor of rank %d", name, rank);
    return 0;
  }
  const void* p = txa_api->KernelContextInputData(ctx, i);
  *out = dtype == TX_FLOAT ? (double)*(const float*)p : *(const double*)p;
  return 1;
}

int txa_same_as_grad(TX_OpKernelContext* ctx, TX_VariableLock* lock, int k, const char* name, int grad,
                     TX_Status* status) {
  const TX_PluginApi* api = txa_api;
  const TX_DataType dtype = api->KernelContextInputType(ctx, grad);
  if (api->VariableLockType(lock, k) != dtype) {
    txa_error(status, "%s holds %s values but grad is %s", name, txa_dtype_name(api->VariableLockType(lock, k)),
              txa_dtype_name(dtype));
    return 0;
  }
  const int rank = api->KernelContextInputNumDims(ctx, grad);
  int same = api->VariableLockNumDims(lock, k) == rank;
  for (int d = 0; same && d < rank; ++d)
    same = api->VariableLockDim(lock, k, d) == api->KernelContextInputDim(ctx, grad, d);
  if (!same) txa_error(status, "%s and grad do not have the same shape", name);
  return same;
}

TX_PLUGIN_DEFINE_ABI_VERSION()

TX_PLUGIN_EXPORT void TX_InitPlugin(const TX_PluginApi* api, TX_PluginRegistrar* reg, TX_Status* status) {
  txa_api = api;
  txa_register_lion(reg, status);
  if (api->GetCode(status) != TX_OK) return;
  txa_register_lamb(reg, status);
}

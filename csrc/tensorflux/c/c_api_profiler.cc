// C API: the process-wide profiler (TX_ProfilerStart/Stop, Note [Profiler]).
#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/c/c_api_profiler.h"
#include "tensorflux/runtime/profiler.h"

using namespace tx::capi;

extern "C" {

void TX_ProfilerStart(TX_Status* status) {
  Guard(status, [] { return tx::profiler::Start(); });
}

void TX_ProfilerStop(TX_Buffer* trace_json, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (trace_json == nullptr) return tx::InvalidArgument("trace_json buffer is NULL");
    if (trace_json->data != nullptr) return tx::InvalidArgument("trace_json buffer must be empty (use TX_NewBuffer)");
    std::string json;
    TX_RETURN_IF_ERROR(tx::profiler::Stop(&json));
    return FillBuffer(trace_json, json);
  });
}

unsigned char TX_ProfilerIsActive(void) { return tx::profiler::Active() ? 1 : 0; }

}  // extern "C"

// The process-wide profiler behind tx.profiler and TX_ProfilerStart/Stop (Note [Profiler]).
#pragma once

#include <string>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/runtime/step_stats.h"

namespace tx {
namespace profiler {

// True while a profiling session records (one relaxed atomic load: the only cost when off).
bool Active();
// Starts a session; FailedPrecondition when one is already recording.
Status Start();
// Ends the session and returns what it recorded as Chrome trace-event JSON (what Perfetto,
// chrome://tracing and TensorBoard's trace viewer open); FailedPrecondition when none records.
Status Stop(std::string* trace_json);
// Adds the kernels of one traced run or eager op on `device`; dropped when no session records.
void Record(const std::string& device, std::vector<NodeExecStats> nodes);

}  // namespace profiler
}  // namespace tx

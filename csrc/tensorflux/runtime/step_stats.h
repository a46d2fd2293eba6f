// Per-kernel statistics of traced runs, serialized as TensorFlow's RunMetadata (Note [Step stats]).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "tensorflux/core/dtype.h"
#include "tensorflux/core/shape.h"

namespace tx {

// What one kernel execution recorded: the NodeExecStats fields the engine fills.
struct NodeExecStats {
  std::string node_name;
  std::string timeline_label;  // "name = Op(input, ...)"
  int64_t start_nanos = 0;  // wall clock, since the Unix epoch
  int64_t duration_nanos = 0;
  uint32_t thread_id = 0;
  struct Output {
    int slot = 0;
    DataType dtype = DT_INVALID;
    TensorShape shape;
    int64_t bytes = 0;
  };
  std::vector<Output> outputs;
};

// Collects the statistics of the kernels of one traced run; Record is thread-safe.
class StepStatsCollector {
 public:
  void Record(NodeExecStats stats);
  // RunMetadata (serialized) whose step_stats hold what was recorded, in recording order, as one
  // DeviceStepStats of `device`.
  std::string SerializeRunMetadata(const std::string& device) const;
  // What was recorded, in recording order; the collector is empty afterwards.
  std::vector<NodeExecStats> Take();

 private:
  mutable std::mutex mu_;
  std::vector<NodeExecStats> nodes_;  // guarded by mu_
};

// The collector of the traced run whose kernel this thread is executing, or nullptr: the function
// bodies that kernel runs (calls, If, While) record into it too (Note [Step stats]).
StepStatsCollector* CurrentStepStats();

// Makes `c` this thread's CurrentStepStats for the span of a kernel, then restores the previous one.
class ScopedStepStats {
 public:
  explicit ScopedStepStats(StepStatsCollector* c);
  ~ScopedStepStats();
  ScopedStepStats(const ScopedStepStats&) = delete;
  ScopedStepStats& operator=(const ScopedStepStats&) = delete;

 private:
  StepStatsCollector* previous_;
};

// Wall-clock nanoseconds since the Unix epoch (the clock traces use).
int64_t NowNanos();
// This thread's id as the OS numbers it (what TensorFlow reports as thread_id).
uint32_t CurrentThreadId();

}  // namespace tx

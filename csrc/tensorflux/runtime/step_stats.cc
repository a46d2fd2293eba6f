#include "tensorflux/runtime/step_stats.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <utility>

#include "tensorflux/framework/proto_codec.h"
#include "tensorflux/framework/proto_wire.h"

// Note [Step stats]
// A Session run with RunOptions.trace_level other than NO_TRACE times each kernel the executor
// runs and records TensorFlow's NodeExecStats for it: node name, "name = Op(inputs)" label, start
// (wall clock), duration, thread and the dtype, shape and size of each output. RunMetadata's
// step_stats holds them as one DeviceStepStats for the CPU, wire-compatible with TensorFlow's
// step_stats.proto, so TensorFlow's tooling (its timeline module) reads them. A fused Conv2D chain
// (Note [Conv2D epilogues]) is one entry labelled "_FusedConv2D(Conv2D, BiasAdd, ...)"; a folded
// node (Note [Plan constant folding]) is recorded handing out its value. While a traced run's
// kernel executes, its collector is the thread's CurrentStepStats, so the function bodies that
// kernel runs (PartitionedCall, If, While: FunctionRunner) are traced into the same step stats,
// each body node after its own kernel and before the call's entry, which spans them. An untraced
// run pays one null check per node.

namespace tx {

void StepStatsCollector::Record(NodeExecStats stats) {
  std::lock_guard<std::mutex> l(mu_);
  nodes_.push_back(std::move(stats));
}

std::vector<NodeExecStats> StepStatsCollector::Take() {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<NodeExecStats> out;
  out.swap(nodes_);
  return out;
}

namespace {
thread_local StepStatsCollector* t_current_stats = nullptr;
}  // namespace

StepStatsCollector* CurrentStepStats() { return t_current_stats; }

ScopedStepStats::ScopedStepStats(StepStatsCollector* c) : previous_(t_current_stats) { t_current_stats = c; }

ScopedStepStats::~ScopedStepStats() { t_current_stats = previous_; }

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

uint32_t CurrentThreadId() {
  thread_local const uint32_t id = static_cast<uint32_t>(syscall(SYS_gettid));
  return id;
}

namespace {

// NodeExecStats (step_stats.proto): node_name = 1, all_start_micros = 2, op_end_rel_micros = 4,
// all_end_rel_micros = 5, output = 7, timeline_label = 8, scheduled_micros = 9, thread_id = 10,
// all_start_nanos = 13, op_end_rel_nanos = 15, all_end_rel_nanos = 16, scheduled_nanos = 17
// (op_start_rel_* are 0: the kernel starts when the node does).
std::string EncodeNode(const NodeExecStats& n) {
  wire::Writer w;
  w.WriteBytesField(1, n.node_name);
  w.WriteInt64Field(2, n.start_nanos / 1000);
  w.WriteInt64Field(4, n.duration_nanos / 1000);
  w.WriteInt64Field(5, n.duration_nanos / 1000);
  for (const NodeExecStats::Output& o : n.outputs) {
    wire::Writer alloc;  // AllocationDescription: requested_bytes = 1, allocated_bytes = 2, allocator_name = 3
    alloc.WriteInt64Field(1, o.bytes);
    alloc.WriteInt64Field(2, o.bytes);
    alloc.WriteBytesField(3, "cpu");
    wire::Writer desc;  // TensorDescription: dtype = 1, shape = 2, allocation_description = 4
    desc.WriteVarintField(1, static_cast<uint64_t>(o.dtype));
    wire::Writer shape;
    codec::EncodeTensorShape(PartialShape(o.shape), &shape);
    desc.WriteBytesField(2, shape.data());
    desc.WriteBytesField(4, alloc.data());
    wire::Writer out;  // NodeOutput: slot = 1, tensor_description = 3
    if (o.slot != 0) out.WriteInt32Field(1, o.slot);
    out.WriteBytesField(3, desc.data());
    w.WriteBytesField(7, out.data());
  }
  w.WriteBytesField(8, n.timeline_label);
  w.WriteInt64Field(9, n.start_nanos / 1000);
  w.WriteVarintField(10, n.thread_id);
  w.WriteInt64Field(13, n.start_nanos);
  w.WriteInt64Field(15, n.duration_nanos);
  w.WriteInt64Field(16, n.duration_nanos);
  w.WriteInt64Field(17, n.start_nanos);
  return w.Release();
}

}  // namespace

std::string StepStatsCollector::SerializeRunMetadata(const std::string& device) const {
  wire::Writer dev;  // DeviceStepStats: device = 1, node_stats = 2
  dev.WriteBytesField(1, device);
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const NodeExecStats& n : nodes_) dev.WriteBytesField(2, EncodeNode(n));
  }
  wire::Writer step;  // StepStats: dev_stats = 1
  step.WriteBytesField(1, dev.data());
  wire::Writer meta;  // RunMetadata: step_stats = 1
  meta.WriteBytesField(1, step.data());
  return meta.Release();
}

}  // namespace tx

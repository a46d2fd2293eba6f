// Session: runs pruned subgraphs of a Graph with cached, prepared plans.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/core/thread_pool.h"
#include "tensorflux/framework/graph.h"
#include "tensorflux/runtime/cancellation.h"

namespace tx {

class ExecutionPlan;
class ResourceMgr;

// Per-run options (TensorFlow's RunOptions fields the engine reads).
struct RunOptions {
  int64_t timeout_in_ms = 0;  // > 0: the run fails with DEADLINE_EXCEEDED after this long
  int trace_level = 0;  // RunOptions.TraceLevel; > 0: record step stats (Note [Step stats])
};

// The values of TensorFlow's RewriterConfig.Toggle the engine tells apart (the others mean on).
inline constexpr int kToggleDefault = 0;
inline constexpr int kToggleOff = 2;

struct SessionOptions {
  int inter_op_threads = 0;  // 0: number of cores
  int intra_op_threads = 0;  // 0: number of cores
  bool allow_soft_placement = true;  // run nodes requesting an absent device on the CPU
  // ConfigProto.graph_options.rewrite_options.remapping, TensorFlow's Toggle: DEFAULT (0) follows
  // RemappingDefault(), OFF (2) turns plan fusion off, any other value on.
  int remapping = 0;
};

// A session over a shared graph. Run may be called from many threads at once; nodes added
// to the graph after the session was created are usable in later runs.
class Session {
 public:
  Session(std::shared_ptr<Graph> graph, const SessionOptions& opts);
  ~Session();

  // Feeds replace the values of the given endpoints; fetches are returned in order; targets
  // are run for their side effects. Errors name the node: "[layer1/MatMul] ...". The run stops
  // at its next kernel or loop iteration with `cancel`'s status once `cancel` (may be null) is
  // cancelled, the session is closed, or `run_opts.timeout_in_ms` passes (Note [Cancellation]).
  // With run_opts.trace_level > 0 and `run_metadata` set, it receives a serialized RunMetadata
  // with the run's step stats, also when the run fails.
  Status Run(const std::vector<std::pair<Endpoint, Tensor>>& feeds, const std::vector<Endpoint>& fetches,
             const std::vector<Node*>& targets, std::vector<Tensor>* outputs, const RunOptions& run_opts = {},
             CancellationToken* cancel = nullptr, std::string* run_metadata = nullptr);

  // Cancels the runs in flight (they fail with CANCELLED), waits for them to end, and releases
  // resources (plans and resource variables); later Run calls fail with CANCELLED ("session is
  // closed"). Must not be called from inside a run of this session.
  Status Close();

  const std::shared_ptr<Graph>& graph() const { return graph_; }
  int inter_op_threads() const { return inter_op_->num_threads(); }
  int intra_op_threads() const { return intra_op_->num_threads() + 1; }

 private:
  // Registers `token` as a run in flight (fails when closed; *registered tells whether it was) and
  // returns the plan for the signature, built on first use.
  Status GetPlan(const std::vector<std::pair<Endpoint, Tensor>>& feeds, const std::vector<Endpoint>& fetches,
                 const std::vector<Node*>& targets, CancellationToken* token, bool* registered,
                 std::shared_ptr<ExecutionPlan>* plan);

  std::shared_ptr<Graph> graph_;
  SessionOptions opts_;
  std::unique_ptr<ThreadPool> inter_op_;
  std::unique_ptr<ThreadPool> intra_op_;
  std::unique_ptr<ResourceMgr> resources_;  // variables live as long as the session
  // Unregisters a run's token; wakes Close when it was the last run in flight.
  void EndRun(CancellationToken* token);

  std::mutex mu_;
  std::condition_variable runs_done_;  // signalled when running_ becomes empty
  std::vector<CancellationToken*> running_;  // tokens of the runs in flight (guarded by mu_)
  bool closed_ = false;
  std::unordered_map<std::string, std::shared_ptr<ExecutionPlan>> plans_;  // Note [Plan cache]
};

}  // namespace tx

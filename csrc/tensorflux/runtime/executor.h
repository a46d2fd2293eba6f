// ExecutionPlan: a pruned, kernel-instantiated subgraph for one (feeds, fetches, targets)
// signature, and the executor that runs it.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/core/thread_pool.h"
#include "tensorflux/framework/graph.h"
#include "tensorflux/runtime/cancellation.h"
#include "tensorflux/runtime/op_kernel.h"
#include "tensorflux/runtime/step_stats.h"

namespace tx {

struct RunState;

// Whether plans fuse (Conv2D epilogues, elementwise loops) unless their options say otherwise:
// TensorFlow's "remapping" rewrite, on at start; tx.config.optimizer and TX_SetOptimizerOption set it.
bool RemappingDefault();
void SetRemappingDefault(bool on);

// Built once per signature and then shared by every run with that signature; immutable after
// Build, so concurrent runs only read it (Note [Plan cache]).
class ExecutionPlan {
 public:
  struct Options {
    bool allow_soft_placement = true;
    // Conv2D epilogue and loop fusion (Note [Conv2D epilogues], Note [Loop fusion]).
    bool remap = RemappingDefault();
  };

  // Prunes `graph` to what `fetches` and `targets` need given `feeds`, places nodes and
  // instantiates one kernel per node. Errors name the node.
  static Status Build(const Graph& graph, const std::vector<Endpoint>& feeds, const std::vector<Endpoint>& fetches,
                      const std::vector<Node*>& targets, const Options& opts, std::unique_ptr<ExecutionPlan>* out);

  // Runs the plan with `feed_values` (in the order of Build's feeds) and returns the fetched
  // tensors. Cheap nodes run inline on the calling thread; independent expensive nodes are
  // spread over `inter_op`. Kernels see `resources` (may be null). Once `cancel` (may be null) is
  // cancelled no further kernel starts and its status is returned (Note [Cancellation]). Safe to
  // call concurrently. The plan takes `feed_values` (Note [Loop variables move into the body]).
  // With `stats` (may be null) each kernel run is recorded there (Note [Step stats]).
  Status Run(std::vector<Tensor> feed_values, ThreadPool* inter_op, ThreadPool* intra_op, std::vector<Tensor>* outputs,
             ResourceMgr* resources = nullptr, const CancellationToken* cancel = nullptr,
             StepStatsCollector* stats = nullptr) const;

  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  // How many plan nodes run a loop-fusion group (Note [Loop fusion]).
  int num_fused_loops() const;

 private:
  struct PlanNode {
    const Node* node = nullptr;  // a fused Conv2D chain's last node; a loop group's node in fused_graph_
    std::unique_ptr<OpKernel> kernel;
    bool expensive = true;
    bool fused = false;  // runs a ConvFusion or a loop; its kernel names the failing node itself
    int num_inputs = 0;
    int num_outputs = 0;
    std::string timeline_label;  // "name = Op(input, ...)" for step stats
    int input_begin = 0;  // into input_slots_
    int output_begin = 0;  // first output slot; outputs are contiguous
    std::vector<int> successors;  // plan node indices, one entry per edge
    int initial_pending = 0;
  };

  void Process(RunState* rs, int first, ThreadPool* inter_op, ThreadPool* intra_op) const;
  void RunNode(RunState* rs, int n, ThreadPool* inter_op, ThreadPool* intra_op) const;
  // Records node `pn`'s kernel run that started at `start` (NowNanos) and produced `out`.
  static void Record(StepStatsCollector* stats, const PlanNode& pn, int64_t start, const Tensor* out);

  std::unique_ptr<Graph> fused_graph_;  // the _FusedElementwise nodes of loop groups (outlives nodes_)
  std::vector<PlanNode> nodes_;
  std::vector<int> input_slots_;  // slot read by each (node, input)
  std::vector<char> input_moves_;  // 1 when that read is the slot's only one (move, not copy)
  int num_slots_ = 0;
  std::vector<int> slot_reads_;  // reads per slot by plan nodes
  std::vector<char> slot_pinned_;  // fetched slots, kept until the end of the run
  std::vector<int> feed_slots_;
  std::vector<int> fetch_slots_;
  std::vector<int> roots_;
};

}  // namespace tx

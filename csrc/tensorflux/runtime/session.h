// Session: runs pruned subgraphs of a Graph with cached, prepared plans.
#pragma once

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

namespace tx {

class ExecutionPlan;
class ResourceMgr;

struct SessionOptions {
  int inter_op_threads = 0;  // 0: number of cores
  int intra_op_threads = 0;  // 0: number of cores
  bool allow_soft_placement = true;  // run nodes requesting an absent device on the CPU
};

// A session over a shared graph. Run may be called from many threads at once; nodes added
// to the graph after the session was created are usable in later runs.
class Session {
 public:
  Session(std::shared_ptr<Graph> graph, const SessionOptions& opts);
  ~Session();

  // Feeds replace the values of the given endpoints; fetches are returned in order; targets
  // are run for their side effects. Errors name the node: "[layer1/MatMul] ...".
  Status Run(const std::vector<std::pair<Endpoint, Tensor>>& feeds, const std::vector<Endpoint>& fetches,
             const std::vector<Node*>& targets, std::vector<Tensor>* outputs);

  // Releases resources (plans and resource variables); later Run calls fail with Cancelled
  // ("session is closed").
  Status Close();

  const std::shared_ptr<Graph>& graph() const { return graph_; }
  int inter_op_threads() const { return inter_op_->num_threads(); }
  int intra_op_threads() const { return intra_op_->num_threads() + 1; }

 private:
  Status GetPlan(const std::vector<std::pair<Endpoint, Tensor>>& feeds, const std::vector<Endpoint>& fetches,
                 const std::vector<Node*>& targets, std::shared_ptr<ExecutionPlan>* plan);

  std::shared_ptr<Graph> graph_;
  SessionOptions opts_;
  std::unique_ptr<ThreadPool> inter_op_;
  std::unique_ptr<ThreadPool> intra_op_;
  std::unique_ptr<ResourceMgr> resources_;  // variables live as long as the session
  std::mutex mu_;
  bool closed_ = false;
  std::unordered_map<std::string, std::shared_ptr<ExecutionPlan>> plans_;  // Note [Plan cache]
};

}  // namespace tx

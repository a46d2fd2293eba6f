#include "tensorflux/runtime/session.h"

#include <algorithm>
#include <cstring>

#include "tensorflux/kernels/cpu/blas.h"
#include "tensorflux/runtime/executor.h"
#include "tensorflux/runtime/resource_mgr.h"

namespace tx {
namespace {

// Appends the little-endian bytes of `v` to a plan-cache key.
void AppendKey(std::string* key, int64_t v) { key->append(reinterpret_cast<const char*>(&v), sizeof(v)); }

Status CheckEndpoint(const Graph& g, const Endpoint& e, const char* what) {
  if (e.node == nullptr) return InvalidArgument("a ", what, " refers to a null operation");
  if (e.node->graph() != &g)
    return InvalidArgument("[", e.node->name(), "] the ", what, " belongs to another graph");
  if (e.index < 0 || e.index >= e.node->num_outputs())
    return OutOfRange("[", e.node->name(), "] the ", what, " refers to output ", e.index, " but the operation has ",
                      e.node->num_outputs(), " output", e.node->num_outputs() == 1 ? "" : "s");
  return Status::OK();
}

// A fetched tensor must not alias engine memory that outlives the run (a Const's value):
// such results are copied so the caller may write into them.
Tensor OwnedResult(const Tensor& t) {
  if (!t.initialized() || !t.buffer()->owned() || t.buffer()->RefCountIsOne()) return t;
  Tensor copy;
  if (!Tensor::Allocate(t.dtype(), t.shape(), &copy).ok()) return t;
  std::memcpy(copy.raw_data(), t.raw_data(), t.byte_size());
  return copy;
}

}  // namespace

Session::Session(std::shared_ptr<Graph> graph, const SessionOptions& opts) : graph_(std::move(graph)), opts_(opts) {
  int inter = opts.inter_op_threads > 0 ? opts.inter_op_threads : DefaultThreadCount();
  int intra = opts.intra_op_threads > 0 ? opts.intra_op_threads : DefaultThreadCount();
  // The calling thread takes part in both kinds of work, so each pool has one worker fewer.
  inter_op_ = std::make_unique<ThreadPool>(inter - 1);
  intra_op_ = std::make_unique<ThreadPool>(intra - 1);
  resources_ = std::make_unique<ResourceMgr>();
  UseSingleThreadedBlas();  // Note [Single-threaded BLAS]
}

Session::~Session() { Close(); }

Status Session::Close() {
  std::lock_guard<std::mutex> l(mu_);
  closed_ = true;
  plans_.clear();
  resources_->Clear();
  return Status::OK();
}

Status Session::GetPlan(const std::vector<std::pair<Endpoint, Tensor>>& feeds, const std::vector<Endpoint>& fetches,
                        const std::vector<Node*>& targets, std::shared_ptr<ExecutionPlan>* plan) {
  std::string key;
  key.reserve(16 * (feeds.size() + fetches.size() + targets.size()) + 24);
  AppendKey(&key, static_cast<int64_t>(feeds.size()));
  for (const auto& f : feeds) {
    AppendKey(&key, f.first.node->id());
    AppendKey(&key, f.first.index);
  }
  AppendKey(&key, static_cast<int64_t>(fetches.size()));
  for (const Endpoint& e : fetches) {
    AppendKey(&key, e.node->id());
    AppendKey(&key, e.index);
  }
  for (const Node* t : targets) AppendKey(&key, t->id());
  {
    std::lock_guard<std::mutex> l(mu_);
    if (closed_) return Cancelled("session is closed");
    auto it = plans_.find(key);
    if (it != plans_.end()) {
      *plan = it->second;
      return Status::OK();
    }
  }
  std::vector<Endpoint> feed_eps;
  feed_eps.reserve(feeds.size());
  for (const auto& f : feeds) feed_eps.push_back(f.first);
  std::unique_ptr<ExecutionPlan> built;
  ExecutionPlan::Options popts;
  popts.allow_soft_placement = opts_.allow_soft_placement;
  TX_RETURN_IF_ERROR(ExecutionPlan::Build(*graph_, feed_eps, fetches, targets, popts, &built));
  std::lock_guard<std::mutex> l(mu_);
  if (closed_) return Cancelled("session is closed");
  auto& slot = plans_[key];
  if (!slot) slot = std::shared_ptr<ExecutionPlan>(std::move(built));
  *plan = slot;
  return Status::OK();
}

Status Session::Run(const std::vector<std::pair<Endpoint, Tensor>>& feeds, const std::vector<Endpoint>& fetches,
                    const std::vector<Node*>& targets, std::vector<Tensor>* outputs) {
  outputs->clear();
  const Graph& g = *graph_;
  std::vector<Tensor> feed_values;
  feed_values.reserve(feeds.size());
  for (const auto& f : feeds) {
    TX_RETURN_IF_ERROR(CheckEndpoint(g, f.first, "feed"));
    const Tensor& t = f.second;
    const std::string& name = f.first.node->name();
    if (!t.initialized()) return InvalidArgument("[", name, "] the value fed to output ", f.first.index, " is empty");
    DataType want = f.first.node->output_type(f.first.index);
    if (want == DT_RESOURCE)
      return InvalidArgument("[", name, "] cannot feed a resource handle (output ", f.first.index, ")");
    if (t.dtype() != want)
      return InvalidArgument("[", name, "] cannot feed a ", DataTypeString(t.dtype()), " tensor to output ",
                             f.first.index, " of type ", DataTypeString(want));
    PartialShape expected = g.OutputShape(f.first);
    if (!expected.IsCompatibleWith(t.shape()))
      return InvalidArgument("[", name, "] cannot feed a value of shape ", t.shape().ToString(), " to output ",
                             f.first.index, ", which has shape ", expected.ToString());
    feed_values.push_back(t);
  }
  for (const Endpoint& e : fetches) {
    TX_RETURN_IF_ERROR(CheckEndpoint(g, e, "fetch"));
    if (e.node->output_type(e.index) == DT_RESOURCE)
      return InvalidArgument("[", e.node->name(), "] cannot fetch a resource handle (output ", e.index,
                             "); fetch a ReadVariableOp of it instead");
  }
  for (const Node* t : targets) {
    if (t == nullptr) return InvalidArgument("a target refers to a null operation");
    if (t->graph() != &g) return InvalidArgument("[", t->name(), "] the target belongs to another graph");
  }
  std::shared_ptr<ExecutionPlan> plan;
  TX_RETURN_IF_ERROR(GetPlan(feeds, fetches, targets, &plan));
  std::vector<Tensor> raw;
  TX_RETURN_IF_ERROR(plan->Run(feed_values, inter_op_.get(), intra_op_.get(), &raw, resources_.get()));
  outputs->reserve(raw.size());
  for (Tensor& t : raw) {
    Tensor owned = OwnedResult(t);
    t = Tensor();
    outputs->push_back(std::move(owned));
  }
  return Status::OK();
}

}  // namespace tx

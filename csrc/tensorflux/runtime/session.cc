#include "tensorflux/runtime/session.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "tensorflux/core/object_types.h"
#include "tensorflux/kernels/cpu/blas.h"
#include "tensorflux/runtime/executor.h"
#include "tensorflux/runtime/device.h"
#include "tensorflux/runtime/profiler.h"
#include "tensorflux/runtime/resource_mgr.h"

namespace tx {
namespace {

// Appends the little-endian bytes of `v` to a plan-cache key.
void AppendKey(std::string* key, int64_t v) { key->append(reinterpret_cast<const char*>(&v), sizeof(v)); }

Status CheckEndpoint(const Graph& g, const Endpoint& e, const char* what) {
  if (e.node == nullptr) return InvalidArgument("a ", what, " refers to a null operation");
  if (e.node->graph() != &g) return InvalidArgument("[", e.node->name(), "] the ", what, " belongs to another graph");
  if (e.index < 0 || e.index >= e.node->num_outputs())
    return OutOfRange("[", e.node->name(), "] the ", what, " refers to output ", e.index, " but the operation has ",
                      e.node->num_outputs(), " output", e.node->num_outputs() == 1 ? "" : "s");
  return Status::OK();
}

// A fetched tensor must not alias engine memory that outlives the run (a Const's value):
// such results are copied so the caller may write into them. Wrapped caller memory (a feed) is
// returned as is, but object elements (strings) are always engine-made (Note [Object element
// types]) although their buffers are not owned().
Tensor OwnedResult(const Tensor& t) {
  if (!t.initialized() || t.buffer()->RefCountIsOne()) return t;
  if (!t.buffer()->owned() && ObjectOpsFor(t.dtype()) == nullptr) return t;
  Tensor copy;
  if (!DeepCopyTensor(t, &copy).ok()) return t;
  return copy;
}

// Cancels a run's token with DEADLINE_EXCEEDED unless destroyed (the run ended) first.
class DeadlineTimer {
 public:
  // Deadlines beyond ~30 years are treated as that (steady_clock nanoseconds would overflow).
  static constexpr int64_t kMaxTimeoutMs = int64_t{1} << 40;

  DeadlineTimer(CancellationToken* token, int64_t timeout_ms)
      : deadline_(std::chrono::steady_clock::now() + std::chrono::milliseconds(std::min(timeout_ms, kMaxTimeoutMs))),
        thread_([this, token] {
          std::unique_lock<std::mutex> l(mu_);
          if (!cv_.wait_until(l, deadline_, [&] { return done_; })) token->Cancel(CancellationToken::kDeadlineExceeded);
        }) {}
  ~DeadlineTimer() {
    {
      std::lock_guard<std::mutex> l(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  const std::chrono::steady_clock::time_point deadline_;
  std::thread thread_;  // last: starts after the members it reads
};

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
  std::unique_lock<std::mutex> l(mu_);
  closed_ = true;
  for (CancellationToken* t : running_) t->Cancel(CancellationToken::kSessionClosed);
  runs_done_.wait(l, [&] { return running_.empty(); });  // each stops at its next kernel or iteration
  plans_.clear();
  resources_->Clear();
  return Status::OK();
}

void Session::EndRun(CancellationToken* token) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = std::find(running_.begin(), running_.end(), token);
  if (it != running_.end()) {
    *it = running_.back();
    running_.pop_back();
  }
  if (running_.empty()) runs_done_.notify_all();
}

Status Session::GetPlan(const std::vector<std::pair<Endpoint, Tensor>>& feeds, const std::vector<Endpoint>& fetches,
                        const std::vector<Node*>& targets, CancellationToken* token, bool* registered,
                        std::shared_ptr<ExecutionPlan>* plan) {
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
    running_.push_back(token);
    *registered = true;
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
  if (opts_.remapping != kToggleDefault) popts.remap = opts_.remapping != kToggleOff;
  TX_RETURN_IF_ERROR(ExecutionPlan::Build(*graph_, feed_eps, fetches, targets, popts, &built));
  std::lock_guard<std::mutex> l(mu_);
  if (closed_) return token->status();
  auto& slot = plans_[key];
  if (!slot) slot = std::shared_ptr<ExecutionPlan>(std::move(built));
  *plan = slot;
  return Status::OK();
}

Status Session::Run(const std::vector<std::pair<Endpoint, Tensor>>& feeds, const std::vector<Endpoint>& fetches,
                    const std::vector<Node*>& targets, std::vector<Tensor>* outputs, const RunOptions& run_opts,
                    CancellationToken* cancel, std::string* run_metadata) {
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
  CancellationToken own_token;
  CancellationToken* token = cancel != nullptr ? cancel : &own_token;
  token->set_timeout_ms(run_opts.timeout_in_ms);
  std::vector<Tensor> raw;
  {
    bool registered = false;
    struct Unregister {
      Session* s;
      CancellationToken* t;
      bool* on;
      ~Unregister() {
        if (*on) s->EndRun(t);
      }
    } unregister{this, token, &registered};
    std::shared_ptr<ExecutionPlan> plan;
    TX_RETURN_IF_ERROR(GetPlan(feeds, fetches, targets, token, &registered, &plan));
    std::unique_ptr<DeadlineTimer> timer;
    if (run_opts.timeout_in_ms > 0) timer = std::make_unique<DeadlineTimer>(token, run_opts.timeout_in_ms);
    // Traced for RunMetadata, for a recording profile (Note [Profiler]), or both.
    const bool metadata = run_opts.trace_level > 0 && run_metadata != nullptr, profiled = profiler::Active();
    std::unique_ptr<StepStatsCollector> stats;
    if (metadata || profiled) stats = std::make_unique<StepStatsCollector>();
    Status s = plan->Run(feed_values, inter_op_.get(), intra_op_.get(), &raw, resources_.get(), token, stats.get());
    timer.reset();
    if (metadata) *run_metadata = stats->SerializeRunMetadata(LocalCpuDeviceName());
    if (profiled) profiler::Record(LocalCpuDeviceName(), stats->Take());
    TX_RETURN_IF_ERROR(s);  // a run whose kernels all finished before a cancellation succeeds
  }
  outputs->reserve(raw.size());
  for (Tensor& t : raw) {
    Tensor owned = OwnedResult(t);
    t = Tensor();
    outputs->push_back(std::move(owned));
  }
  return Status::OK();
}

}  // namespace tx

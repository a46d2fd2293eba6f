// ExecutionPlan::Run: the executor that runs a built plan (ExecutionPlan::Build is in
// executor_build.cc).
#include "tensorflux/runtime/executor.h"

#include <atomic>
#include <condition_variable>

#include "tensorflux/runtime/node_status.h"

namespace tx {

// Per-run mutable state: value slots, pending counts, completion tracking.
struct RunState {
  explicit RunState(int num_nodes, int num_slots)
      : slots(num_slots), pending(new std::atomic<int>[num_nodes]), reads(new std::atomic<int>[num_slots]) {}
  std::vector<Tensor> slots;
  std::unique_ptr<std::atomic<int>[]> pending;
  std::unique_ptr<std::atomic<int>[]> reads;
  std::atomic<int> inflight{0};
  std::atomic<bool> failed{false};
  ResourceMgr* resources = nullptr;
  const CancellationToken* cancel = nullptr;
  StepStatsCollector* stats = nullptr;
  std::mutex mu;
  std::condition_variable cv;
  Status status;  // guarded by mu

  void Fail(const Status& s) {
    std::lock_guard<std::mutex> l(mu);
    if (status.ok()) status = s;
    failed.store(true, std::memory_order_release);
  }
};

namespace {

// The dispatch rule for a node that became ready: cheap nodes and the first expensive one run on
// this thread (pushed on `local`); further expensive ones run concurrently on the inter-op pool
// (`schedule`). `kept_expensive` tracks, per batch of ready nodes, whether one was kept.
template <typename Schedule>
void Dispatch(int n, bool expensive, bool can_dispatch, bool* kept_expensive, std::vector<int>* local,
              const Schedule& schedule) {
  if (!expensive || !can_dispatch || !*kept_expensive) {
    *kept_expensive |= expensive;
    local->push_back(n);
  } else {
    schedule(n);
  }
}

}  // namespace

void ExecutionPlan::RunNode(RunState* rs, int n, ThreadPool* inter_op, ThreadPool* intra_op) const {
  const PlanNode& pn = nodes_[n];
  const int nin = pn.num_inputs, nout = pn.num_outputs;
  constexpr int kInline = 8;
  Tensor in_small[kInline], out_small[kInline];
  std::vector<Tensor> in_big, out_big;
  Tensor* in = in_small;
  Tensor* out = out_small;
  if (nin > kInline) {
    in_big.resize(nin);
    in = in_big.data();
  }
  if (nout > kInline) {
    out_big.resize(nout);
    out = out_big.data();
  }

  for (int k = 0; k < nin; ++k) {
    int idx = pn.input_begin + k;
    int s = input_slots_[idx];
    if (input_moves_[idx]) {
      in[k] = std::move(rs->slots[s]);
    } else {
      in[k] = rs->slots[s];
      // The last reader drops the slot's reference (pinned slots live to the end).
      if (rs->reads[s].fetch_sub(1, std::memory_order_acq_rel) == 1 && !slot_pinned_[s]) rs->slots[s] = Tensor();
    }
  }
  OpKernelContext ctx(pn.node, in, out, intra_op);
  ctx.set_resource_manager(rs->resources);
  ctx.set_inter_op_pool(inter_op);
  ctx.set_cancellation(rs->cancel);
  ctx.set_inputs_releasable(true);  // `in` is this node's alone and unread after Compute
  if (rs->stats == nullptr) {
    pn.kernel->Compute(&ctx);
  } else {
    const int64_t start = NowNanos();
    {
      ScopedStepStats current(rs->stats);  // function bodies the kernel runs are traced too
      pn.kernel->Compute(&ctx);
    }
    Record(rs->stats, pn, start, out);
  }
  Status s = ctx.status();
  for (int j = 0; s.ok() && j < nout; ++j) {
    if (!out[j].initialized()) {
      s = Internal("kernel did not produce output ", j);
    } else if (out[j].dtype() != pn.node->output_type(j)) {
      s = Internal("kernel produced a ", DataTypeString(out[j].dtype()), " output ", j, ", expected ",
                   DataTypeString(pn.node->output_type(j)));
    }
  }
  if (!s.ok()) {
    // A kernel that stopped because the run was cancelled reports the token's status as is.
    if (rs->cancel != nullptr && rs->cancel->cancelled() &&
        (s.code() == Code::kCancelled || s.code() == Code::kDeadlineExceeded)) {
      rs->Fail(rs->cancel->status());
      return;
    }
    rs->Fail(pn.fused ? s : NamedForNode(pn.node->name(), s));  // a fused kernel names its failing member
    return;
  }
  for (int j = 0; j < nout; ++j) {
    int slot = pn.output_begin + j;
    if (slot_reads_[slot] > 0 || slot_pinned_[slot]) rs->slots[slot] = std::move(out[j]);
  }
}

void ExecutionPlan::Record(StepStatsCollector* stats, const PlanNode& pn, int64_t start, const Tensor* out) {
  NodeExecStats ns;
  ns.duration_nanos = NowNanos() - start;
  ns.start_nanos = start;
  ns.node_name = pn.node->name();
  ns.timeline_label = pn.timeline_label;
  ns.thread_id = CurrentThreadId();
  for (int j = 0; j < pn.num_outputs; ++j)
    if (out[j].initialized())
      ns.outputs.push_back({j, out[j].dtype(), out[j].shape(), static_cast<int64_t>(out[j].byte_size())});
  stats->Record(std::move(ns));
}

void ExecutionPlan::Process(RunState* rs, int first, ThreadPool* inter_op, ThreadPool* intra_op) const {
  std::vector<int> stack;
  stack.push_back(first);
  const bool can_dispatch = inter_op != nullptr && inter_op->num_threads() > 0;
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    if (rs->failed.load(std::memory_order_acquire)) continue;
    if (rs->cancel != nullptr && rs->cancel->cancelled()) {  // Note [Cancellation]
      rs->Fail(rs->cancel->status());
      continue;
    }
    RunNode(rs, n, inter_op, intra_op);
    if (rs->failed.load(std::memory_order_acquire)) continue;
    bool kept_expensive = false;
    for (int succ : nodes_[n].successors) {
      if (rs->pending[succ].fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
      Dispatch(succ, nodes_[succ].expensive, can_dispatch, &kept_expensive, &stack, [&](int m) {
        rs->inflight.fetch_add(1, std::memory_order_acq_rel);
        inter_op->Schedule([this, rs, m, inter_op, intra_op] { Process(rs, m, inter_op, intra_op); });
      });
    }
  }
  if (rs->inflight.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    std::lock_guard<std::mutex> l(rs->mu);
    rs->cv.notify_all();
  }
}

Status ExecutionPlan::Run(std::vector<Tensor> feed_values, ThreadPool* inter_op, ThreadPool* intra_op,
                          std::vector<Tensor>* outputs, ResourceMgr* resources, const CancellationToken* cancel,
                          StepStatsCollector* stats) const {
  RunState rs(num_nodes(), num_slots_);
  rs.resources = resources;
  rs.cancel = cancel;
  rs.stats = stats;
  for (int p = 0; p < num_nodes(); ++p) rs.pending[p].store(nodes_[p].initial_pending, std::memory_order_relaxed);
  for (int s = 0; s < num_slots_; ++s) rs.reads[s].store(slot_reads_[s], std::memory_order_relaxed);
  for (size_t i = 0; i < feed_slots_.size(); ++i) rs.slots[feed_slots_[i]] = std::move(feed_values[i]);

  if (!roots_.empty()) {
    rs.inflight.store(1, std::memory_order_relaxed);  // this thread
    const bool can_dispatch = inter_op != nullptr && inter_op->num_threads() > 0;
    std::vector<int> local;
    bool kept_expensive = false;
    for (int r : roots_) {
      Dispatch(r, nodes_[r].expensive, can_dispatch, &kept_expensive, &local, [&](int m) {
        rs.inflight.fetch_add(1, std::memory_order_acq_rel);
        inter_op->Schedule([this, &rs, m, inter_op, intra_op] { Process(&rs, m, inter_op, intra_op); });
      });
    }
    // Process the local roots as one work list: the last Process call releases this thread's count.
    for (size_t i = 0; i + 1 < local.size(); ++i) {
      rs.inflight.fetch_add(1, std::memory_order_acq_rel);
      Process(&rs, local[i], inter_op, intra_op);
    }
    if (!local.empty()) {
      Process(&rs, local.back(), inter_op, intra_op);
    } else if (rs.inflight.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // nothing local; fallthrough to wait
    }
    std::unique_lock<std::mutex> l(rs.mu);
    rs.cv.wait(l, [&] { return rs.inflight.load(std::memory_order_acquire) == 0; });
    if (!rs.status.ok()) return rs.status;
  }

  outputs->clear();
  outputs->reserve(fetch_slots_.size());
  for (int s : fetch_slots_) outputs->push_back(rs.slots[s]);
  return Status::OK();
}

}  // namespace tx

// ThreadPool: a fixed set of worker threads for inter-op scheduling and intra-op ParallelFor.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tx {

class ThreadPool {
 public:
  // Starts `num_threads` workers (0 is allowed: Schedule then runs work inline).
  explicit ThreadPool(int num_threads);
  // Finishes queued work, then joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()); }
  // True when called from one of this pool's worker threads.
  bool IsWorkerThread() const;

  // Runs `fn` on a worker (inline when the pool has no workers).
  void Schedule(std::function<void()> fn);

  // Calls fn(begin, end) over disjoint ranges covering [0, total), in parallel when
  // total * cost_per_unit is large enough to pay for it; returns when all ranges are done.
  // The caller participates, so nested use never deadlocks.
  void ParallelFor(int64_t total, int64_t cost_per_unit, const std::function<void(int64_t, int64_t)>& fn);

 private:
  void WorkerLoop();

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
};

// Number of hardware threads, at least 1.
int DefaultThreadCount();

}  // namespace tx

#include "tensorflux/core/thread_pool.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <system_error>

namespace tx {

namespace {
// The pool whose worker the current thread is, or nullptr.
thread_local const ThreadPool* t_worker_of = nullptr;
}  // namespace

bool ThreadPool::IsWorkerThread() const { return t_worker_of == this; }

int DefaultThreadCount() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

// When a thread cannot be started (EAGAIN: thread limit, address space), the started workers are
// joined and std::system_error is rethrown naming the thread; the C API reports ResourceExhausted.
// Members are destroyed without ~ThreadPool, so without the join the condition variable would be
// destroyed under waiting threads (a hang in pthread_cond_destroy) and joinable threads abort.
ThreadPool::ThreadPool(int num_threads) {
  auto stop_and_join = [this] {
    {
      std::lock_guard<std::mutex> l(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : workers_) t.join();
  };
  // Note [Worker signal mask]: workers start with asynchronous signals blocked, so a process
  // directed SIGINT/SIGTERM reaches a thread of the program (Python's main thread) instead of a
  // worker, where the program's handler would run on the wrong thread and a main thread waiting in
  // a system call would not be woken.
  sigset_t block, previous;
  sigemptyset(&block);
  for (int sig : {SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD, SIGPIPE, SIGWINCH})
    sigaddset(&block, sig);
  pthread_sigmask(SIG_BLOCK, &block, &previous);
  struct RestoreMask {
    sigset_t* mask;
    ~RestoreMask() { pthread_sigmask(SIG_SETMASK, mask, nullptr); }
  } restore{&previous};
  try {
    workers_.reserve(static_cast<size_t>(num_threads > 0 ? num_threads : 0));
    for (int i = 0; i < num_threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
  } catch (const std::system_error& e) {
    const size_t started = workers_.size();
    stop_and_join();
    throw std::system_error(
        e.code(), "cannot start worker thread " + std::to_string(started + 1) + " of " + std::to_string(num_threads));
  } catch (...) {
    stop_and_join();
    throw;
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Schedule(std::function<void()> fn) {
  if (workers_.empty()) {
    fn();
    return;
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    queue_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void ThreadPool::WorkerLoop() {
  t_worker_of = this;
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      fn = std::move(queue_.front());
      queue_.pop_front();
    }
    fn();
  }
}

namespace {
// Below this much estimated work (in cost units, ~cycles) a range runs on the caller alone.
constexpr int64_t kMinCostPerShard = 20000;

// Shared state of one ParallelFor: shards are claimed through `next`.
struct ForState {
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  int64_t shards = 0, total = 0, block = 0;
  const std::function<void(int64_t, int64_t)>* fn = nullptr;
  std::mutex mu;
  std::condition_variable cv;

  // Claims and runs shards until none are left.
  void Drain() {
    for (;;) {
      int64_t s = next.fetch_add(1);
      if (s >= shards) return;
      int64_t b = s * block, e = std::min(total, b + block);
      (*fn)(b, e);
      if (done.fetch_add(1) + 1 == shards) {
        std::lock_guard<std::mutex> l(mu);
        cv.notify_all();
      }
    }
  }
};
}  // namespace

void ThreadPool::ParallelFor(int64_t total, int64_t cost_per_unit, const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  int64_t max_shards = num_threads() + 1;
  int64_t by_cost = std::max<int64_t>(1, total * std::max<int64_t>(cost_per_unit, 1) / kMinCostPerShard);
  int64_t shards = std::min({max_shards, by_cost, total});
  if (shards <= 1) {
    fn(0, total);
    return;
  }
  auto st = std::make_shared<ForState>();
  st->shards = shards;
  st->total = total;
  st->block = (total + shards - 1) / shards;
  st->shards = (total + st->block - 1) / st->block;
  st->fn = &fn;
  for (int64_t i = 1; i < st->shards; ++i) Schedule([st] { st->Drain(); });
  st->Drain();
  std::unique_lock<std::mutex> l(st->mu);
  st->cv.wait(l, [&] { return st->done.load() == st->shards; });
}

}  // namespace tx

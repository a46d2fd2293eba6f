// The engine's worker threads: parallel maps run their function calls here.
#ifndef TENSORFLUX_DATA_POOL_H_
#define TENSORFLUX_DATA_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace txd {

// A fixed set of threads running submitted tasks in submission order. Tasks never wait for other
// tasks (a parallel map's calls only run functions), so any number of pipelines can share it.
class Pool {
 public:
  explicit Pool(int threads);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  // Runs `task` on a worker.
  void Submit(std::function<void()> task);
  // The number of workers.
  int size() const { return static_cast<int>(threads_.size()); }

 private:
  void Work();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// The shared pool with `threads` workers (0: one per core), created on first use.
Pool* WorkerPool(int threads);

// Names the calling thread `name` (at most 15 characters) where the OS keeps thread names, so
// debuggers, `top -H` and tests can tell the engine's threads apart; elsewhere does nothing.
void NameThisThread(const char* name);

}  // namespace txd

#endif  // TENSORFLUX_DATA_POOL_H_

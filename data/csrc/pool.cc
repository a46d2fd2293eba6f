// The engine's worker pools.
#include "pool.h"

#include <map>
#include <memory>

#ifdef __linux__
#include <pthread.h>
#endif

namespace txd {

Pool::Pool(int threads) {
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([this] {
      NameThisThread("txd-pool");
      Work();
    });
  }
}

Pool::~Pool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void Pool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void Pool::Work() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

Pool* WorkerPool(int threads) {
  static std::mutex mu;
  // Never destroyed: workers may still be finishing tasks while the process exits.
  static auto* pools = new std::map<int, std::unique_ptr<Pool>>();
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  if (threads <= 0) threads = 1;
  std::lock_guard<std::mutex> lock(mu);
  auto& p = (*pools)[threads];
  if (!p) p = std::make_unique<Pool>(threads);
  return p.get();
}

void NameThisThread(const char* name) {
#ifdef __linux__
  pthread_setname_np(pthread_self(), name);
#else
  (void)name;
#endif
}

}  // namespace txd

// prefetch: the input read ahead on a thread of its own.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "nodes.h"
#include "pool.h"

namespace txd {
namespace {

constexpr int64_t kAutotuneStart = 2;  // an autotuned buffer's first size
constexpr int64_t kAutotuneMax = 16;  // and the most it grows to
// How long a consumer that found the queue empty waits for half the buffer before it takes the next
// element alone (Note [Waking the consumer]).
constexpr auto kGatherWait = std::chrono::milliseconds(1);

// Note [Waking the consumer]: waking a sleeping thread is a system call on the waker's side (about
// 5 µs on a virtual machine), and when the consumer outruns the producer it sleeps on every element.
// So a consumer that finds the queue empty sleeps until half the buffer is there (or the input
// ended), and the producer wakes it once per half buffer instead of once per element; after
// kGatherWait without that many it takes the next one alone, so a slow pipeline's elements are not
// held back longer. Throughput is the producer's either way: the consumer only waits where it would
// have waited, and the producer never stops for it (the other half of the buffer is free).

class PrefetchIterator : public Iterator {
 public:
  PrefetchIterator(std::unique_ptr<Iterator> input, int64_t buffer, Place p)
      : input_(std::move(input)),
        autotune_(buffer <= 0),
        capacity_(buffer <= 0 ? kAutotuneStart : buffer),
        place_(p),
        thread_([this] {
          NameThisThread("txd-prefetch");
          Produce();
        }) {}

  ~PrefetchIterator() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    room_.notify_all();
    thread_.join();
  }

  Status Next(Element* out) override {
    std::unique_lock<std::mutex> lock(mu_);
    if (queue_.empty() && !finished_) {
      int64_t start = NowNanos();
      if (autotune_ && capacity_ < kAutotuneMax) {  // the consumer waited: read further ahead
        ++capacity_;
        room_.notify_one();
      }
      want_ = std::max<int64_t>(1, capacity_ / 2);
      if (!ready_.wait_for(lock, kGatherWait, [this] { return Ready(); })) {
        want_ = 1;
        ready_.wait(lock, [this] { return Ready(); });
      }
      want_ = 0;
      place_.counters->wait_nanos.fetch_add(NowNanos() - start, std::memory_order_relaxed);
    }
    if (queue_.empty()) {  // the producer ended: with the end, or an error
      out->components.clear();
      out->stamp = last_.stamp;
      out->stamp.resize(static_cast<size_t>(place_.stamp_size));  // an error's element has none
      out->end = true;
      out->stamp[static_cast<size_t>(place_.slot)] = 1;
      return error_;
    }
    *out = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    room_.notify_one();
    place_.counters->elements.fetch_add(1, std::memory_order_relaxed);
    return Status{};
  }

 private:
  void Produce() {
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        room_.wait(lock, [this] { return stopping_ || static_cast<int64_t>(queue_.size()) < capacity_; });
        if (stopping_) break;
      }
      Element e;
      Status s;
      {
        Timed timed(place_.counters);
        s = input_->Next(&e);
      }
      bool done = !s.ok() || e.end;
      bool wake;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (done) {
          error_ = s;
          last_ = std::move(e);
          finished_ = true;
        } else {
          e.stamp[static_cast<size_t>(place_.slot)] = 0;
          queue_.push_back(std::move(e));
        }
        wake = want_ > 0 && Ready();
      }
      if (wake) ready_.notify_one();  // after unlocking, so the woken consumer need not wait for the lock
      if (done) break;
    }
  }

  // What a waiting consumer waits for: want_ elements queued, or the end (mu_ held).
  bool Ready() const { return finished_ || static_cast<int64_t>(queue_.size()) >= want_; }

  std::unique_ptr<Iterator> input_;
  bool autotune_;
  int64_t capacity_;
  Place place_;
  std::mutex mu_;
  std::condition_variable ready_;  // an element or the end is queued (the consumer waits on it)
  std::condition_variable room_;  // the queue has room, or the iterator stops (the producer waits)
  std::deque<Element> queue_;
  int64_t want_ = 0;  // the elements a waiting consumer waits for; 0 while none waits
  bool finished_ = false;
  bool stopping_ = false;
  Status error_;
  Element last_;  // the end, with its stamp
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace

std::unique_ptr<Iterator> MakePrefetch(std::unique_ptr<Iterator> input, int64_t buffer, Place p) {
  return std::make_unique<PrefetchIterator>(std::move(input), buffer, p);
}

}  // namespace txd

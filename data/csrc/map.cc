// map (per element, or fused with the batch after it; inline or on the worker pool) and filter.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "nodes.h"
#include "pool.h"

namespace txd {
namespace {

std::vector<const TX_Tensor*> Borrow(const std::vector<Tensor>& components) {
  std::vector<const TX_Tensor*> out;
  out.reserve(components.size());
  for (const Tensor& t : components) out.push_back(t.get());
  return out;
}

// Reads the map's next unit of input: one element, or `batch` of them stacked (a fused batch).
// `*count` is how many input elements it holds (0 at the end).
Status ReadUnit(Iterator* input, int64_t batch, bool drop, Element* out, int64_t* count) {
  if (batch == 0) {
    Status s = input->Next(out);
    *count = s.ok() && !out->end ? 1 : 0;
    return s;
  }
  Status s = ReadBatch(input, batch, "map", out, count);
  if (!s.ok()) return s;
  if (*count > 0 && *count < batch && drop) {  // the final short batch is dropped, its elements read
    out->components.clear();
    *count = -*count;
  }
  return Status{};
}

// Note [Native autotune]: an AUTOTUNE map starts with one call in flight and measures its output rate
// over windows of kWindow outputs; while one more call in flight raised the rate by more than
// kGain, it widens again (up to the workers), else it goes back to the best width and stays.
class WidthTuner {
 public:
  static constexpr int kWindow = 64;
  static constexpr double kGain = 1.05;

  WidthTuner(bool enabled, int fixed, int max)
      : enabled_(enabled), width_(enabled ? 1 : (fixed < 1 ? 1 : fixed)), max_(max) {}
  int width() const { return width_; }

  // Counts one output.
  void Record() {
    if (!enabled_) return;
    const int64_t now = NowNanos();
    if (outputs_++ == 0) start_ = now;
    if (outputs_ <= kWindow) return;
    const double rate = kWindow / static_cast<double>(now - start_ + 1);
    outputs_ = 0;
    if (rate > best_rate_ * kGain) {
      best_rate_ = rate;
      best_width_ = width_;
      if (width_ < max_) {
        ++width_;
        return;
      }
    }
    width_ = best_width_;
    enabled_ = false;
  }

 private:
  bool enabled_;
  int width_;
  int max_;
  int best_width_ = 1;
  double best_rate_ = 0;
  int outputs_ = 0;
  int64_t start_ = 0;
};

// One unit in flight: its input, then its result. Whoever claims it first runs it: a pool worker,
// or the consumer when it reaches a unit no worker has started (it never sleeps on queued work).
struct Slot {
  std::atomic<bool> claimed{false};
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Status status;
  Element element;  // the input, then the output (components replaced)
  Tensor seeds;  // the per-element seeds passed after the input, when the function takes them
};

class MapIterator : public Iterator {
 public:
  MapIterator(std::unique_ptr<Iterator> input, std::shared_ptr<const Function> fn, Seeds seeds, int parallel,
              int threads, int64_t batch, bool drop, int64_t count, Place p)
      : input_(std::move(input)),
        fn_(std::move(fn)),
        seeds_(seeds),
        pool_(parallel > 1 || parallel == kAutotune ? WorkerPool(threads) : nullptr),
        tuner_(parallel == kAutotune, parallel, pool_ ? pool_->size() : 1),
        batch_(batch),
        drop_(drop),
        count_(count),
        place_(p) {}

  ~MapIterator() override {  // units no one started are dropped; running ones are waited for
    for (auto& slot : pending_) {
      if (!slot->claimed.exchange(true)) continue;
      std::unique_lock<std::mutex> lock(slot->mu);
      slot->cv.wait(lock, [&slot] { return slot->done; });
    }
  }

  Status Next(Element* out) override {
    Timed timed(place_.counters);
    Fill();
    if (pending_.empty()) {
      out->components.clear();
      out->stamp = end_.stamp;  // the end may be asked for again
      out->end = true;
      return error_;
    }
    std::shared_ptr<Slot> slot = pending_.front();
    pending_.pop_front();
    Wait(slot.get());
    if (!slot->status.ok()) return slot->status;
    *out = std::move(slot->element);
    place_.counters->elements.fetch_add(1, std::memory_order_relaxed);
    tuner_.Record();
    return Status{};
  }

 private:
  void Wait(Slot* slot) const {
    if (!slot->claimed.load(std::memory_order_relaxed)) Run(*fn_, slot);
    std::unique_lock<std::mutex> lock(slot->mu);
    slot->cv.wait(lock, [slot] { return slot->done; });
  }

  // Runs the unit's call unless someone else claimed it.
  static void Run(const Function& fn, Slot* slot) {
    if (slot->claimed.exchange(true, std::memory_order_acq_rel)) return;
    std::vector<Tensor> outs;
    std::vector<const TX_Tensor*> args = Borrow(slot->element.components);
    if (slot->seeds.get() != nullptr) args.push_back(slot->seeds.get());
    Status s = fn.Call(args, &outs);
    std::lock_guard<std::mutex> lock(slot->mu);
    slot->status = s;
    slot->element.components = std::move(outs);
    slot->done = true;
    slot->cv.notify_all();
  }

  // Reads input units and starts their calls until `width_` are in flight or the input ends.
  void Fill() {
    while (!input_done_ && static_cast<int>(pending_.size()) < tuner_.width()) {
      auto slot = std::make_shared<Slot>();
      int64_t k = 0;
      Status s = ReadUnit(input_.get(), batch_, drop_, &slot->element, &k);
      if (!s.ok()) {
        error_ = s;
        input_done_ = true;
        break;
      }
      int64_t first = count_;
      count_ += k < 0 ? -k : k;
      if (k > 0 && seeds_.seeded) {
        slot->seeds = ElementSeeds(seeds_.seed0, first, k, batch_ > 0);
        if (slot->seeds.get() == nullptr) {
          error_ = Status::Error(TX_RESOURCE_EXHAUSTED, "map: cannot make the element seeds");
          input_done_ = true;
          break;
        }
      }
      if (k <= 0) {
        input_done_ = true;
        end_ = std::move(slot->element);
        end_.components.clear();
        Mark(&end_, 1);
        break;
      }
      Mark(&slot->element, 0);
      pending_.push_back(slot);
      if (pool_ == nullptr) {
        Run(*fn_, slot.get());
      } else {
        pool_->Submit([fn = fn_, slot] { Run(*fn, slot.get()); });
      }
    }
  }

  void Mark(Element* e, int64_t ended) const {
    e->stamp[static_cast<size_t>(place_.slot)] = count_;
    e->stamp[static_cast<size_t>(place_.slot) + 1] = ended;
  }

  std::unique_ptr<Iterator> input_;
  std::shared_ptr<const Function> fn_;
  Seeds seeds_;
  Pool* pool_;
  WidthTuner tuner_;
  int64_t batch_;
  bool drop_;
  int64_t count_;
  Place place_;
  std::deque<std::shared_ptr<Slot>> pending_;
  bool input_done_ = false;
  Element end_;
  Status error_;
};

class FilterIterator : public Iterator {
 public:
  FilterIterator(std::unique_ptr<Iterator> input, std::shared_ptr<const Function> fn, Seeds seeds, int64_t count,
                 Place p)
      : input_(std::move(input)), fn_(std::move(fn)), seeds_(seeds), count_(count), place_(p) {}

  Status Next(Element* out) override {
    Timed timed(place_.counters);
    for (;;) {
      Status s = input_->Next(out);
      if (!s.ok()) return s;
      if (out->end) {
        out->stamp[static_cast<size_t>(place_.slot)] = count_;
        return s;
      }
      std::vector<const TX_Tensor*> args = Borrow(out->components);
      Tensor seeds;
      if (seeds_.seeded) {
        seeds = ElementSeeds(seeds_.seed0, count_, 1, false);
        if (seeds.get() == nullptr) return Status::Error(TX_RESOURCE_EXHAUSTED, "filter: cannot make the element seed");
        args.push_back(seeds.get());
      }
      ++count_;
      std::vector<Tensor> outs;
      s = fn_->Call(args, &outs);
      if (!s.ok()) return s;
      const TX_Tensor* keep = outs.empty() ? nullptr : outs[0].get();
      if (keep == nullptr || api.TX_TensorType(keep) != TX_BOOL || api.TX_NumDims(keep) != 0) {
        return Status::Error(TX_INVALID_ARGUMENT, "filter: the predicate did not return a scalar bool");
      }
      if (*static_cast<const unsigned char*>(api.TX_TensorData(keep)) != 0) {
        out->stamp[static_cast<size_t>(place_.slot)] = count_;
        place_.counters->elements.fetch_add(1, std::memory_order_relaxed);
        return s;
      }
    }
  }

 private:
  std::unique_ptr<Iterator> input_;
  std::shared_ptr<const Function> fn_;
  Seeds seeds_;
  int64_t count_;
  Place place_;
};

}  // namespace

std::unique_ptr<Iterator> MakeMap(std::unique_ptr<Iterator> input, std::shared_ptr<const Function> fn, Seeds seeds,
                                  int parallel, int threads, int64_t batch, bool drop, int64_t count, Place p) {
  return std::make_unique<MapIterator>(std::move(input), std::move(fn), seeds, parallel, threads, batch, drop, count,
                                       p);
}

std::unique_ptr<Iterator> MakeFilter(std::unique_ptr<Iterator> input, std::shared_ptr<const Function> fn, Seeds seeds,
                                     int64_t count, Place p) {
  return std::make_unique<FilterIterator>(std::move(input), std::move(fn), seeds, count, p);
}

}  // namespace txd

// shuffle: tf.data's shuffle buffer, drawing as the Python engine's shuffle does.
#include <atomic>
#include <deque>
#include <mutex>

#include "nodes.h"

namespace txd {

// Note [Native shuffle]
// The node keeps a buffer of `size` input elements; each output takes the element at an index drawn
// uniformly below the buffer's length, the last element moves into its place, and the next input is
// appended before the next draw: the Python engine's _ShuffleIterator step for step, with the same
// keyed counter stream (Note [Shuffle draws] in _seeds.py), so both engines give the same order.
// Its stamp is [outputs, words drawn, input ended], after the input's slots as of the last input
// element read. The Python state of a position holds the buffer as of that position, but the node
// may be ahead of the consumer: a parallel map, a batch or a prefetch above it reads ahead. So the
// node logs each output (the index drawn, the inputs appended before it, the element) until the
// consumer has been handed it (the pipeline reports each element it hands out: Consumed), and the
// buffer as of output o is the current one with the logged outputs after o undone, newest first
// (and the inputs appended since the last draw dropped). The log shares the elements in flight
// above the node with them: what goes up is an alias of the logged tensor's memory (TX_NewTensor
// with a deallocator holding it), which the core never writes, so logging costs no copy; copies
// are made only when a buffer is read out. A state restores here with its buffered elements passed
// in (numeric ones: the Python side keeps other states in the Python engine).

namespace {

using Components = std::vector<Tensor>;
using Shared = std::vector<std::shared_ptr<const Tensor>>;  // an element whose tensors aliases may share

// `element`'s components, shared.
Shared ToShared(Components element) {
  Shared out;
  for (Tensor& t : element) out.push_back(std::make_shared<const Tensor>(std::move(t)));
  return out;
}

// A copy of each of `element`'s components into `out`.
Status Copy(const Shared& element, Components* out) {
  out->clear();
  for (const auto& t : element) {
    out->push_back(CopyOf(t->get()));
    if (out->back().get() == nullptr) return Status::Error(TX_RESOURCE_EXHAUSTED, "shuffle: cannot copy an element");
  }
  return Status{};
}

// Aliases of `element`'s components into `out` (copies where the C API refuses an alias).
Status Share(const Shared& element, Components* out) {
  out->clear();
  for (const auto& t : element) {
    Tensor alias = Alias(t);
    if (alias.get() == nullptr) alias = CopyOf(t->get());
    if (alias.get() == nullptr) return Status::Error(TX_UNIMPLEMENTED, "shuffle: cannot hand out an element");
    out->push_back(std::move(alias));
  }
  return Status{};
}

// One logged output: its number, the index drawn, the inputs appended before the draw, the element
// handed out (shared with the aliases handed out).
struct Drawn {
  int64_t output;
  size_t index;
  int64_t appended;
  Shared element;
};

class ShuffleIterator : public Iterator, public ShuffleLog {
 public:
  ShuffleIterator(std::unique_ptr<Iterator> input, ShuffleStart start, Place p)
      : input_(std::move(input)),
        size_(static_cast<size_t>(start.size)),
        key_(start.key),
        in_stamp_(std::move(start.stamp)),
        place_(p) {
    const size_t at = static_cast<size_t>(p.slot);
    outputs_ = in_stamp_[at];
    words_ = static_cast<uint64_t>(in_stamp_[at + 1]);
    in_done_ = in_stamp_[at + 2] != 0;
    consumed_ = outputs_;
    for (Components& element : start.buffer) buffer_.push_back(ToShared(std::move(element)));
  }

  Status Next(Element* out) override {
    Timed timed(place_.counters);
    while (!in_done_ && buffer_.size() < size_) {  // only this thread changes them
      Element e;
      Status s = input_->Next(&e);
      if (!s.ok()) return s;
      std::lock_guard<std::mutex> lock(mu_);
      in_stamp_ = std::move(e.stamp);
      if (e.end) {
        in_done_ = true;
      } else {
        buffer_.push_back(ToShared(std::move(e.components)));
        ++pending_;
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    out->end = buffer_.empty();
    if (out->end) {
      out->components.clear();
    } else {
      Status s = Take(out);
      if (!s.ok()) return s;
    }
    out->stamp = in_stamp_;
    const size_t at = static_cast<size_t>(place_.slot);
    out->stamp[at] = outputs_;
    out->stamp[at + 1] = static_cast<int64_t>(words_);
    out->stamp[at + 2] = in_done_ ? 1 : 0;
    if (!out->end) place_.counters->elements.fetch_add(1, std::memory_order_relaxed);
    return Status{};
  }

  void Consumed(int64_t outputs) override { consumed_.store(outputs, std::memory_order_relaxed); }

  Status BufferAt(int64_t outputs, std::vector<Components>* out) override {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t first_logged = log_.empty() ? outputs_ + 1 : log_.front().output;
    if (outputs > outputs_ || outputs < first_logged - 1) {
      return Status::Error(TX_INTERNAL, "shuffle: the buffer of that position is not logged");
    }
    out->clear();
    out->resize(buffer_.size() - static_cast<size_t>(pending_));  // those appended since the last draw go
    for (size_t i = 0; i < out->size(); ++i) {
      Status s = Copy(buffer_[i], &(*out)[i]);
      if (!s.ok()) return s;
    }
    for (auto d = log_.rbegin(); d != log_.rend() && d->output > outputs; ++d) {
      Status s = Undo(*d, out);
      if (!s.ok()) return s;
    }
    return Status{};
  }

 private:
  // The next index below `n` (>= 1): the package's _seeds.draw.
  size_t Draw(size_t n, uint64_t* words) const {
    const uint64_t bound = static_cast<uint64_t>(n);
    const uint64_t threshold = (0 - bound) % bound;  // 2**64 mod n: below it, x % n would favour small values
    for (;;) {
      uint64_t x = KeyedWord(key_, (*words)++);
      if (x >= threshold) return static_cast<size_t>(x % bound);
    }
  }

  // Hands out a drawn element (the buffer is not empty), logging it; under mu_.
  Status Take(Element* out) {
    uint64_t words = words_;
    const size_t i = Draw(buffer_.size(), &words);
    Status s = Share(buffer_[i], &out->components);
    if (!s.ok()) return s;
    Drawn d{outputs_ + 1, i, pending_, std::move(buffer_[i])};
    buffer_[i] = std::move(buffer_.back());
    buffer_.pop_back();
    words_ = words;
    pending_ = 0;
    ++outputs_;
    log_.push_back(std::move(d));
    const int64_t consumed = consumed_.load(std::memory_order_relaxed);
    while (!log_.empty() && log_.front().output <= consumed) log_.pop_front();
    return s;
  }

  // Reverses output `d` on `buffer`: the element goes back to its index, the one there back to the
  // end, and the inputs appended before the draw are dropped.
  static Status Undo(const Drawn& d, std::vector<Components>* buffer) {
    Components element;
    Status s = Copy(d.element, &element);
    if (!s.ok()) return s;
    if (d.index == buffer->size()) {
      buffer->push_back(std::move(element));
    } else {
      buffer->push_back(std::move((*buffer)[d.index]));
      (*buffer)[d.index] = std::move(element);
    }
    buffer->resize(buffer->size() - static_cast<size_t>(d.appended));
    return Status{};
  }

  std::unique_ptr<Iterator> input_;
  size_t size_;
  uint64_t key_;
  std::mutex mu_;  // guards the members below against BufferAt
  std::vector<Shared> buffer_;
  std::vector<int64_t> in_stamp_;  // the stamp of the last input element read
  int64_t outputs_ = 0;
  uint64_t words_ = 0;
  bool in_done_ = false;
  int64_t pending_ = 0;  // inputs appended since the last draw
  std::deque<Drawn> log_;
  std::atomic<int64_t> consumed_{0};
  Place place_;
};

}  // namespace

std::unique_ptr<Iterator> MakeShuffle(std::unique_ptr<Iterator> input, ShuffleStart start, Place p, ShuffleLog** log) {
  auto it = std::make_unique<ShuffleIterator>(std::move(input), std::move(start), p);
  *log = it.get();
  return it;
}

}  // namespace txd

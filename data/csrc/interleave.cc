// interleave of TFRecord files, each read through its inner chain of maps, filters and batches:
// `cycle` files at a time, `block` elements from each in turn.
#include <algorithm>

#include "nodes.h"

namespace txd {

// Note [Native interleave]
// The engine runs an interleave whose function returns TFRecordDataset(f) of its argument f (one
// uncompressed file), optionally followed by maps, filters and batches that the engine runs and that
// depend on f only through the file it reads (the inner chain), over slices of file names; the
// Python side detects that case by calling the function on probe names (Note [Native segments] in
// _native.py). Each slot builds the inner chain over its file: the TFRecord reader, then the
// InnerChain's steps as the engine's own map, filter and batch iterators. The order is TensorFlow's
// deterministic one, as _InterleaveIterator in _interleave.py walks it sequentially: `cycle` slots
// visited round-robin, `block` elements from each; an empty slot takes the next file name; a
// chain's end empties its slot without counting toward the block. A parallel deterministic
// interleave gives the same order, so the engine reads it sequentially too (its read-ahead is the
// Python engine's business only: one on the engine's worker pool measured slower than reading on
// the calling thread, on a loaded 2-core machine). Files are opened lazily, so an open slot whose file has not been
// read is the Python reader of a fresh sub-iterator. The stamp (kInterleaveHead + (2 + inner width)
// * cycle slots) is [cycle index, block index, names opened, input ended], then per slot [open,
// name index, and its inner chain's stamp: the TFRecord reader's [next file (0 or 1), file open,
// byte offset], then each inner map's [elements read, input ended] and filter's [elements read]]:
// the Python iterator's state with no read-ahead (no items buffered, no futures), the input's
// index being the names opened, each reader's sub-iterator state written from its chain's stamp as
// a native segment's is. Errors stop the engine like any other (Note [Native pipelines]): the
// Python engine resumes the same position and raises them with either interleave's semantics.

namespace {

// The inner chain of `chain` over file `path`, from inner stamp `at` (its slots; counters of its
// nodes in `counters`).
std::unique_ptr<Iterator> MakeInner(const std::string& path, const InnerChain& chain, const int64_t* at,
                                    NodeCounters* counters) {
  std::unique_ptr<Iterator> it =
      MakeTFRecord({path}, chain.compression, at[0], at[1] != 0, at[2], Place{0, chain.width, counters});
  for (const InnerStep& step : chain.steps) {
    Place place{step.slot, chain.width, counters};
    if (step.kind == InnerStep::kMap) {
      it = MakeMap(std::move(it), step.fn, Seeds{}, step.parallel, chain.threads, step.batch, step.drop, at[step.slot],
                   place);
    } else if (step.kind == InnerStep::kFilter) {
      it = MakeFilter(std::move(it), step.fn, Seeds{}, at[step.slot], place);
    } else {
      it = MakeBatch(std::move(it), step.batch, step.drop, place);
    }
  }
  return it;
}

class InterleaveIterator : public Iterator {
 public:
  InterleaveIterator(std::vector<std::string> paths, InnerChain inner, int64_t cycle, int64_t block,
                     const int64_t* start, Place p)
      : paths_(std::move(paths)),
        inner_(std::move(inner)),
        block_(block),
        place_(p),
        slots_(static_cast<size_t>(cycle)) {
    cycle_index_ = start[0];
    block_index_ = start[1];
    opened_ = start[2];
    input_ended_ = start[3] != 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
      const int64_t* s = start + kInterleaveHead + SlotWidth() * static_cast<int64_t>(i);
      if (s[0] != 0) Open(&slots_[i], s[1], s + 2);
    }
  }

  Status Next(Element* out) override {
    Timed timed(place_.counters);
    while (!input_ended_ || AnyOpen()) {
      Slot& slot = slots_[static_cast<size_t>(cycle_index_)];
      if (slot.it) {
        Element e;
        Status s = slot.it->Next(&e);
        if (!s.ok()) return s;
        slot.stamp = std::move(e.stamp);
        if (e.end) {
          slot.it.reset();
          Advance();
          continue;
        }
        if (++block_index_ == block_) Advance();
        out->components = std::move(e.components);
        out->end = false;
        place_.counters->elements.fetch_add(1, std::memory_order_relaxed);
        Stamp(out);
        return Status{};
      }
      if (input_ended_) {
        Advance();
      } else if (opened_ >= static_cast<int64_t>(paths_.size())) {
        input_ended_ = true;
      } else {
        Open(&slot, opened_++, nullptr);
      }
    }
    out->components.clear();
    out->end = true;
    Stamp(out);
    return Status{};
  }

 private:
  // An open slot: its name's index, its inner chain and the chain's stamp as of its last element.
  struct Slot {
    int64_t index = 0;
    std::unique_ptr<Iterator> it;
    std::vector<int64_t> stamp;
  };

  int64_t SlotWidth() const { return 2 + inner_.width; }

  // Opens `slot` on name `index`, its inner chain at stamp `at` (null: the chain's start).
  void Open(Slot* slot, int64_t index, const int64_t* at) {
    slot->index = index;
    slot->stamp.assign(static_cast<size_t>(inner_.width), 0);
    if (at != nullptr) std::copy(at, at + inner_.width, slot->stamp.begin());
    slot->it = MakeInner(paths_[static_cast<size_t>(index)], inner_, slot->stamp.data(), &inner_counters_);
  }

  bool AnyOpen() const {
    for (const Slot& s : slots_)
      if (s.it) return true;
    return false;
  }

  void Advance() {
    block_index_ = 0;
    cycle_index_ = (cycle_index_ + 1) % static_cast<int64_t>(slots_.size());
  }

  void Stamp(Element* out) const {
    out->stamp.assign(static_cast<size_t>(place_.stamp_size), 0);
    int64_t* s = &out->stamp[static_cast<size_t>(place_.slot)];
    s[0] = cycle_index_;
    s[1] = block_index_;
    s[2] = opened_;
    s[3] = input_ended_ ? 1 : 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
      const Slot& slot = slots_[i];
      int64_t* at = s + kInterleaveHead + SlotWidth() * static_cast<int64_t>(i);
      if (!slot.it) continue;
      at[0] = 1;
      at[1] = slot.index;
      std::copy(slot.stamp.begin(), slot.stamp.end(), at + 2);
    }
  }

  std::vector<std::string> paths_;
  InnerChain inner_;
  int64_t block_;
  Place place_;
  std::vector<Slot> slots_;
  NodeCounters inner_counters_;  // the inner nodes' own counts (the interleave counts its elements)
  int64_t cycle_index_ = 0;
  int64_t block_index_ = 0;
  int64_t opened_ = 0;
  bool input_ended_ = false;
};

}  // namespace

bool InterleaveStartOk(const int64_t* start, int64_t npaths, int64_t cycle, int64_t block, int inner_width) {
  if (start[0] < 0 || start[0] >= cycle || start[1] < 0 || start[1] >= block || start[2] < 0 || start[2] > npaths)
    return false;
  for (int64_t i = 0; i < cycle; ++i) {
    const int64_t* s = start + kInterleaveHead + (2 + inner_width) * i;
    if (s[0] == 0) continue;
    bool file_ok = (s[2] == 0 && s[3] == 0 && s[4] == 0) || (s[2] == 1 && s[4] >= 0);
    for (int k = kTFRecordSlots; k < inner_width; ++k) file_ok = file_ok && s[2 + k] >= 0;
    if (s[1] < 0 || s[1] >= start[2] || !file_ok) return false;
  }
  return true;
}

std::unique_ptr<Iterator> MakeInterleave(std::vector<std::string> paths, InnerChain inner, int64_t cycle, int64_t block,
                                         const int64_t* start, Place p) {
  return std::make_unique<InterleaveIterator>(std::move(paths), std::move(inner), cycle, block, start, p);
}

}  // namespace txd

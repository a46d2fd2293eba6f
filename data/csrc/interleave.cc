// interleave of TFRecord files: the records of `cycle` files at a time, `block` from each in turn.
#include <algorithm>

#include "nodes.h"

namespace txd {

// Note [Native interleave]
// The engine runs an interleave whose function returns TFRecordDataset(f) of its argument f (one
// uncompressed file), over slices of file names; the Python side detects that case (Note [Native
// segments] in _native.py). The order is TensorFlow's deterministic one, as _InterleaveIterator in
// _interleave.py walks it sequentially: `cycle` slots visited round-robin, `block` records from
// each; an empty slot takes the next file name; a file's end empties its slot without counting
// toward the block. A parallel deterministic interleave gives the same order, so the engine reads
// it sequentially too (its read-ahead is the Python engine's business only). Files are opened
// lazily, so an open slot whose file has not been read is the Python reader of a fresh
// sub-iterator. The stamp (kInterleaveHead + kInterleaveSlot * cycle slots) is [cycle index, block
// index, names opened, input ended], then per slot [open, name index, and its TFRecord stamp: next
// file (0 or 1), file open, byte offset]: the Python iterator's state with no read-ahead (no items
// buffered, no futures), the input's index being the names opened. Errors stop the engine like any
// other (Note [Native pipelines]): the Python engine resumes the same position and raises them with
// either interleave's semantics.

namespace {

class InterleaveIterator : public Iterator {
 public:
  InterleaveIterator(std::vector<std::string> paths, int64_t cycle, int64_t block, const int64_t* start, Place p)
      : paths_(std::move(paths)), block_(block), place_(p), slots_(static_cast<size_t>(cycle)) {
    cycle_index_ = start[0];
    block_index_ = start[1];
    opened_ = start[2];
    input_ended_ = start[3] != 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
      const int64_t* s = start + kInterleaveHead + kInterleaveSlot * i;
      if (s[0] != 0) Open(&slots_[i], s[1], s[2], s[3] != 0, s[4]);
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
        slot.file.assign(e.stamp.begin(), e.stamp.end());
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
        Open(&slot, opened_++, 0, false, 0);
      }
    }
    out->components.clear();
    out->end = true;
    Stamp(out);
    return Status{};
  }

 private:
  // An open slot: its name's index, the file's iterator and the file's TFRecord stamp.
  struct Slot {
    int64_t index = 0;
    std::unique_ptr<Iterator> it;
    std::vector<int64_t> file;
  };

  // Opens `slot` on name `index`, its file at TFRecord position (next_file, open, offset).
  void Open(Slot* slot, int64_t index, int64_t next_file, bool open, int64_t offset) {
    slot->index = index;
    slot->file = {next_file, open ? 1 : 0, offset};
    slot->it = MakeTFRecord({paths_[static_cast<size_t>(index)]}, next_file, open, offset,
                            Place{0, kTFRecordSlots, &file_counters_});
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
      int64_t* at = s + kInterleaveHead + kInterleaveSlot * i;
      if (!slot.it) continue;
      at[0] = 1;
      at[1] = slot.index;
      std::copy(slot.file.begin(), slot.file.end(), at + 2);
    }
  }

  std::vector<std::string> paths_;
  int64_t block_;
  Place place_;
  std::vector<Slot> slots_;
  NodeCounters file_counters_;  // the files' own counts (the interleave counts its elements)
  int64_t cycle_index_ = 0;
  int64_t block_index_ = 0;
  int64_t opened_ = 0;
  bool input_ended_ = false;
};

}  // namespace

bool InterleaveStartOk(const int64_t* start, int64_t npaths, int64_t cycle, int64_t block) {
  if (start[0] < 0 || start[0] >= cycle || start[1] < 0 || start[1] >= block || start[2] < 0 || start[2] > npaths)
    return false;
  for (int64_t i = 0; i < cycle; ++i) {
    const int64_t* s = start + kInterleaveHead + kInterleaveSlot * i;
    if (s[0] == 0) continue;
    bool file_ok = (s[2] == 0 && s[3] == 0 && s[4] == 0) || (s[2] == 1 && s[4] >= 0);
    if (s[1] < 0 || s[1] >= start[2] || !file_ok) return false;
  }
  return true;
}

std::unique_ptr<Iterator> MakeInterleave(std::vector<std::string> paths, int64_t cycle, int64_t block,
                                         const int64_t* start, Place p) {
  return std::make_unique<InterleaveIterator>(std::move(paths), cycle, block, start, p);
}

}  // namespace txd

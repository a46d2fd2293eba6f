// The fast path of ParseExampleV2's CPU kernel (Note [Fast Example parsing]).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "tensorflux/core/object_types.h"
#include "tensorflux/core/tstring.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/parse_example.h"

// Note [Fast Example parsing]
// ParseExamplesFast parses a batch with no heap allocation per Example or per feature, and gives
// up (returns false) at the first thing that is not plainly well formed; the kernel then parses
// the whole batch again with the reference decoder (Note [Parsing Examples]), whose outputs and
// error messages are the op's. So errors cost a second parse but need no code here, and the two
// paths cannot disagree on a message. How it goes:
//  - bytes are read by Cursor, which accepts exactly the encodings wire::Reader accepts (the same
//    varint, tag and length rules) and answers false where Reader would fail, without a Status.
//    Cursor::Plain reads the usual layout (a one-byte key that is the expected one, a one-byte
//    length) in a few instructions, and the general Tag / Bytes / Skip read everything else;
//  - each map entry's key is first compared with the key found at the same position of the
//    previous Example (batches are written by one program, in one order), then looked up in
//    KeySlots (a few keys: compared by length and bytes);
//  - a fixed-shape dense feature's output exists before any Example is read (its shape is known),
//    so its values are decoded straight into the Example's row as its entry comes (packed floats
//    copied as they are, strings assigned once into the output's TStrings); a later entry for the
//    same key decodes again over it, and only the last entry's failure to read counts, as only
//    the last entry counts in the reference; a missing feature copies its default;
//  - sparse features and FixedLenSequenceFeatures need the batch's totals before their outputs
//    exist: the first pass keeps each Example's list (a view) and its count, the second decodes
//    the lists into place;
//  - it declines: a list of the wrong type, a wrong number of values, a missing required feature,
//    any malformed byte, and dense shapes holding no values (stride 0, never seen in practice);
//  - Examples are split over the intra-op threads only when the batch has enough bytes to pay for
//    waking them (kParallelBytes): a batch of 128 records of 80 bytes takes about 6 µs on one core.
// csrc/tests/parse_example_test.cc checks that the two paths agree on random and damaged records
// and that the fast one declines only what the reference rejects.

namespace tx {
namespace cpu {
namespace {

enum Kind { kNone = 0, kBytes = 1, kFloat = 2, kInt64 = 3 };

int KindOf(DataType dt) { return dt == DT_STRING ? kBytes : dt == DT_FLOAT ? kFloat : kInt64; }

// Below this many bytes of Examples (about 40 µs of work) a batch is parsed on one thread.
constexpr int64_t kParallelBytes = 65536;

// Protobuf wire bytes read as wire::Reader reads them; false wherever Reader would fail.
class Cursor {
 public:
  Cursor() = default;
  Cursor(const char* data, size_t size)
      : p_(reinterpret_cast<const uint8_t*>(data)), end_(reinterpret_cast<const uint8_t*>(data) + size) {}

  bool done() const { return p_ == end_; }
  size_t size() const { return static_cast<size_t>(end_ - p_); }
  const char* data() const { return reinterpret_cast<const char*>(p_); }
  std::string_view view() const { return std::string_view(data(), size()); }

  bool Varint(uint64_t* v) {
    if (p_ != end_ && *p_ < 0x80) {
      *v = *p_++;
      return true;
    }
    return VarintSlow(v);
  }
  // A field key: field numbers 1..2^29-1, wire types varint, fixed64, length-delimited, fixed32.
  bool Tag(int* field, int* type) {
    uint64_t key;
    if (!Varint(&key)) return false;
    const uint64_t number = key >> 3;
    const int wt = static_cast<int>(key & 7);
    if (number == 0 || number > 0x1fffffff || (wt != 0 && wt != 1 && wt != 2 && wt != 5)) return false;
    *field = static_cast<int>(number);
    *type = wt;
    return true;
  }
  // The next byte, or -1 at the end.
  int Peek() const { return p_ != end_ ? *p_ : -1; }
  // A length-delimited field with one-byte key `tag` and a one-byte length, the usual layout:
  // its payload, as Tag and Bytes would read it; false (nothing read) for any other layout.
  bool Plain(uint8_t tag, Cursor* sub) {
    if (size() < 2 || p_[0] != tag || p_[1] >= 0x80 || p_[1] + size_t{2} > size()) return false;
    *sub = Cursor(data() + 2, p_[1]);
    p_ += 2 + p_[1];
    return true;
  }
  // The payload of the next length-delimited field 1, other fields skipped: true when there is
  // one; false at the end, or (with *bad set) where Reader would fail.
  __attribute__((always_inline)) bool NextField1(Cursor* payload, bool* bad) {
    int field, type;
    while (!done()) {
      if (Plain(0x0a, payload)) return true;
      if (!Tag(&field, &type) || (field == 1 ? type != 2 || !Bytes(payload) : !Skip(type))) {
        *bad = true;
        return false;
      }
      if (field == 1) return true;
    }
    return false;
  }
  // A length-delimited payload.
  bool Bytes(Cursor* sub) {
    uint64_t len;
    if (!Varint(&len) || len > size()) return false;
    *sub = Cursor(data(), static_cast<size_t>(len));
    p_ += len;
    return true;
  }
  bool Advance(size_t n) {
    if (size() < n) return false;
    p_ += n;
    return true;
  }
  bool Skip(int type) {
    uint64_t v;
    Cursor sub;
    switch (type) {
      case 0: return Varint(&v);
      case 1: return Advance(8);
      case 2: return Bytes(&sub);
      default: return Advance(4);  // 5; Tag admits no other type
    }
  }

 private:
  // At most 10 bytes, the tenth at most 1 (64 bits), as Reader::ReadVarint.
  bool VarintSlow(uint64_t* v) {
    uint64_t result = 0;
    for (int i = 0; i < 10 && p_ != end_; ++i) {
      const uint8_t b = *p_++;
      if (i == 9 && b > 1) return false;
      result |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) {
        *v = result;
        return true;
      }
    }
    return false;
  }

  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
};

// The list a Feature message sets last: its kind (kNone for none) and its message.
bool FeatureList(Cursor feature, int* kind, Cursor* list) {
  int field, type;
  *kind = kNone;
  while (!feature.done()) {
    const int tag = feature.Peek();  // 0x0a, 0x12, 0x1a: a bytes, float or int64 list
    if ((tag == 0x0a || tag == 0x12 || tag == 0x1a) && feature.Plain(static_cast<uint8_t>(tag), list)) {
      *kind = tag >> 3;
      continue;
    }
    if (!feature.Tag(&field, &type)) return false;
    if (field >= kBytes && field <= kInt64 && type == 2) {
      *kind = field;
      if (!feature.Bytes(list)) return false;
    } else if (!feature.Skip(type)) {
      return false;
    }
  }
  return true;
}

// memcpy, inline for 16 to 64 bytes (a short packed float list).
void CopyBytes(char* to, const char* from, size_t n) {
  if (n < 16 || n > 64) {
    std::memcpy(to, from, n);
    return;
  }
  for (size_t i = 0; i + 16 < n; i += 16) std::memcpy(to + i, from + i, 16);
  std::memcpy(to + n - 16, from + n - 16, 16);
}

// Reads a float_list, int64_list or bytes_list message (values in field 1, packed or not),
// writing the first `cap` values to `out` (null when cap is 0) and counting all of them in *n.
bool ReadList(Cursor list, float* out, int64_t cap, int64_t* n) {
  int64_t k = 0;
  int field, type;
  while (!list.done()) {
    Cursor packed;  // little-endian IEEE floats: copied as they are
    if (!list.Plain(0x0a, &packed)) {
      if (!list.Tag(&field, &type)) return false;
      if (field != 1) {
        if (!list.Skip(type)) return false;
        continue;
      }
      if (type == 5) {
        const char* value = list.data();
        if (!list.Advance(4)) return false;
        if (k < cap) std::memcpy(out + k, value, 4);
        ++k;
        continue;
      }
      if (type != 2 || !list.Bytes(&packed)) return false;
    }
    const int64_t m = static_cast<int64_t>(packed.size() / 4);  // trailing bytes ignored, as in the reference
    if (k < cap)
      CopyBytes(reinterpret_cast<char*>(out + k), packed.data(), static_cast<size_t>(std::min(m, cap - k)) * 4);
    k += m;
  }
  *n = k;
  return true;
}

bool ReadList(Cursor list, int64_t* out, int64_t cap, int64_t* n) {
  int64_t k = 0;
  int field, type;
  uint64_t v;
  while (!list.done()) {
    Cursor packed;
    if (!list.Plain(0x0a, &packed)) {
      if (!list.Tag(&field, &type)) return false;
      if (field != 1) {
        if (!list.Skip(type)) return false;
        continue;
      }
      if (type == 0) {
        if (!list.Varint(&v)) return false;
        if (k < cap) out[k] = static_cast<int64_t>(v);
        ++k;
        continue;
      }
      if (type != 2 || !list.Bytes(&packed)) return false;
    }
    for (; !packed.done(); ++k) {
      if (!packed.Varint(&v)) return false;
      if (k < cap) out[k] = static_cast<int64_t>(v);
    }
  }
  *n = k;
  return true;
}

bool ReadList(Cursor list, TString* out, int64_t cap, int64_t* n) {
  int64_t k = 0;
  bool bad = false;
  for (Cursor v; list.NextField1(&v, &bad); ++k)
    if (k < cap) out[k].Assign(v.data(), v.size());
  *n = k;
  return !bad;
}

// ReadList of dt's values into elements [at, at + cap) of `out` (counting only when out is null).
inline __attribute__((always_inline)) bool ReadListAs(DataType dt, Cursor list, Tensor* out, int64_t at, int64_t cap,
                                                      int64_t* n) {
  if (out == nullptr) cap = 0;
  switch (dt) {
    case DT_FLOAT: return ReadList(list, cap ? out->data<float>() + at : nullptr, cap, n);
    case DT_INT64: return ReadList(list, cap ? out->data<int64_t>() + at : nullptr, cap, n);
    default: return ReadList(list, cap ? out->data<TString>() + at : nullptr, cap, n);
  }
}

// Fills t's elements [at, at + n) with element 0 of `fill` (zeros / empty strings when empty).
void Pad(const Tensor& fill, int64_t at, int64_t n, Tensor* t) {
  if (n <= 0) return;
  const DataType dt = t->dtype();
  if (dt == DT_STRING) {
    if (fill.num_elements() == 0) return;  // new TStrings are empty
    const TString& pad = fill.data<TString>()[0];
    for (int64_t k = 0; k < n; ++k) t->data<TString>()[at + k] = pad;
  } else if (dt == DT_FLOAT) {
    std::fill_n(t->data<float>() + at, n, fill.num_elements() ? fill.data<float>()[0] : 0.0f);
  } else {
    std::fill_n(t->data<int64_t>() + at, n, fill.num_elements() ? fill.data<int64_t>()[0] : int64_t{0});
  }
}

// One Example's list of a sparse or variable-length feature, between the two passes.
struct List {
  Cursor bytes;  // the list message (empty when the Example has none)
  int64_t n = 0;  // its values
  int64_t at = 0;  // where they go in the sparse output
};

// How the feature of one slot is parsed.
struct Slot {
  std::string_view key;
  DataType dtype;
  int kind;  // the list kind its values come in
  int list = -1;  // its index among the list features (sparse, variable-length), else -1
  int64_t stride = 1;  // values per Example (fixed dense), per row (variable) or 1 (sparse)
  Tensor* out = nullptr;  // fixed dense: the output
  const Tensor* def = nullptr;  // dense: the default
};

// The batch in flight: how each slot is parsed, and the lists between the passes.
struct Batch {
  const ExampleRequest* req;
  OpKernelContext* ctx;
  const TString* records;
  int64_t size;
  std::vector<Slot> slots;
  int num_lists = 0;
  std::vector<List> lists;  // [Example][list feature]
};

// What reading one map entry's Feature did.
enum class Read { kDone, kNoEntry, kFailed };

// Reads the Feature message `feature` of Example b for slot `s`: a fixed dense feature's values
// into its output row, a list feature's list kept (and counted) for the second pass; kNoEntry
// where a Feature that sets no list counts as no entry (Note [Parsing Examples]).
Read ReadFeature(Batch& batch, const Slot& s, int64_t b, Cursor feature) {
  int kind;
  Cursor list;
  if (!FeatureList(feature, &kind, &list)) return Read::kFailed;
  if (kind == kNone && (s.def != nullptr || !batch.req->batched)) return Read::kNoEntry;
  if (kind != kNone && kind != s.kind) return Read::kFailed;
  int64_t n = 0;
  if (s.list >= 0) {
    if (kind != kNone && !ReadListAs(s.dtype, list, nullptr, 0, 0, &n)) return Read::kFailed;
    if (n % s.stride != 0) return Read::kFailed;
    batch.lists[b * batch.num_lists + s.list] = List{list, n, 0};
    return Read::kDone;
  }
  return ReadListAs(s.dtype, list, s.out, b * s.stride, s.stride, &n) && n == s.stride ? Read::kDone : Read::kFailed;
}

// A thread's state in the first pass.
struct Scratch {
  explicit Scratch(int num_keys) : seen(num_keys, -1), failed(num_keys, -1) { std::fill_n(guess, kGuesses, -1); }
  static constexpr int kGuesses = 32;
  std::vector<int64_t> seen, failed;  // per slot: the last Example that had it / failed to read it
  int guess[kGuesses];  // per entry position: its slot in the previous Example
};

// First pass over Example b: each requested feature read as its map entry comes (a later entry
// for a key replaces an earlier one, Features merge), then defaults where the Example has none.

bool ParseOne(Batch& batch, int64_t b, Scratch* scratch) {
  const KeySlots& slots = batch.req->slot_of;
  int64_t* seen = scratch->seen.data();
  int64_t* failed = scratch->failed.data();
  int position = 0;  // of the entry in the Example
  const TString& record = batch.records[b];
  Cursor example(record.data(), record.size());
  int field, type;
  bool bad = false;
  for (Cursor features; example.NextField1(&features, &bad);) {
    for (Cursor entry; features.NextField1(&entry, &bad);) {
      Cursor key, value;
      while (!entry.done()) {
        if (entry.Plain(0x0a, &key) || entry.Plain(0x12, &value)) continue;
        if (!entry.Tag(&field, &type)) return false;
        if (field == 1 && type == 2) {
          if (!entry.Bytes(&key)) return false;
        } else if (field == 2 && type == 2) {
          if (!entry.Bytes(&value)) return false;
        } else if (!entry.Skip(type)) {
          return false;
        }
      }
      // The slot of the entry at the same position in the previous Example, else a lookup.
      int& guess = scratch->guess[std::min(position++, Scratch::kGuesses - 1)];
      const std::string_view known = guess >= 0 ? batch.slots[guess].key : std::string_view();
      if (guess < 0 || known.size() != key.size() || !SameBytes(known.data(), key.data(), key.size()))
        guess = slots.Find(key.view());
      const int slot = guess;
      if (slot < 0) continue;
      const Read read = ReadFeature(batch, batch.slots[slot], b, value);
      if (read == Read::kNoEntry) continue;
      seen[slot] = b;
      failed[slot] = read == Read::kDone ? -1 : b;
    }
    if (bad) return false;
  }
  if (bad) return false;
  for (size_t k = 0; k < batch.slots.size(); ++k) {
    if (seen[k] == b) {
      if (failed[k] == b) return false;
      continue;
    }
    const Slot& s = batch.slots[k];
    if (s.list >= 0) {
      batch.lists[b * batch.num_lists + s.list] = List{};
      continue;
    }
    if (s.def->num_elements() == 0) return false;  // required
    const size_t size = DataTypeSize(s.dtype);
    CopyElements(s.dtype, s.def->raw_data(), static_cast<char*>(s.out->raw_data()) + b * s.stride * size, s.stride);
  }
  return true;
}

// Allocates the outputs of the list features from their totals; false as the reference would fail.
bool AllocateListOutputs(Batch& batch, std::vector<Tensor*>* values, std::vector<int64_t>* per_example) {
  const ExampleRequest& req = *batch.req;
  for (int k = 0; k < req.num_keys(); ++k) {
    const int li = batch.slots[k].list;
    if (li < 0) continue;
    int64_t total = 0, longest = 0;
    for (int64_t b = 0; b < batch.size; ++b) {
      List& l = batch.lists[b * batch.num_lists + li];
      l.at = total;
      total += l.n;
      longest = std::max(longest, l.n);
    }
    const int64_t lead = batch.req->batched ? 1 : 0;
    if (k < req.num_sparse) {
      Tensor *indices, *shape;
      const int64_t rank = 1 + lead;
      if (!batch.ctx->allocate_output(k, TensorShape({total, rank}), &indices).ok() ||
          !batch.ctx->allocate_output(req.num_sparse + k, TensorShape({total}), &(*values)[li]).ok() ||
          !batch.ctx->allocate_output(2 * req.num_sparse + k, TensorShape({rank}), &shape).ok())
        return false;
      int64_t* dims = shape->data<int64_t>();
      if (batch.req->batched) *dims++ = batch.size;
      *dims = longest;
      (*per_example)[li] = 0;
      continue;
    }
    const int j = k - req.num_sparse;
    const PartialShape& s = (*req.dense_shapes)[j];
    const int64_t rows = longest / req.stride[j];
    std::vector<int64_t> dims;
    if (batch.req->batched) dims.push_back(batch.size);
    for (int d = 0; d < s.rank(); ++d) dims.push_back(d == 0 ? rows : s.dim(d));
    if (!batch.ctx->allocate_output(3 * req.num_sparse + j, TensorShape(dims), &(*values)[li]).ok()) return false;
    (*per_example)[li] = rows * req.stride[j];
  }
  return true;
}

// Second pass over Examples [begin, end): the kept lists decoded into their outputs.
void WriteLists(const Batch& batch, const std::vector<Tensor*>& values, const std::vector<int64_t>& per_example,
                int64_t begin, int64_t end) {
  const ExampleRequest& req = *batch.req;
  for (int k = 0; k < req.num_keys(); ++k) {
    const int li = batch.slots[k].list;
    if (li < 0) continue;
    const DataType dt = req.types[k];
    Tensor* out = values[li];
    int64_t n;
    if (k < req.num_sparse) {
      const int rank = batch.req->batched ? 2 : 1;
      int64_t* idx = batch.ctx->mutable_output(k)->data<int64_t>();
      for (int64_t b = begin; b < end; ++b) {
        const List& l = batch.lists[b * batch.num_lists + li];
        if (l.n == 0) continue;
        ReadListAs(dt, l.bytes, out, l.at, l.n, &n);
        int64_t* p = idx + l.at * rank;
        for (int64_t i = 0; i < l.n; ++i) {
          if (batch.req->batched) *p++ = b;
          *p++ = i;
        }
      }
      continue;
    }
    const Tensor& def = batch.ctx->input(5 + k - req.num_sparse);
    const int64_t row = per_example[li];
    for (int64_t b = begin; b < end; ++b) {
      const List& l = batch.lists[b * batch.num_lists + li];
      if (l.n > 0) ReadListAs(dt, l.bytes, out, b * row, l.n, &n);
      Pad(def, b * row + l.n, row - l.n, out);
    }
  }
}

}  // namespace

bool ParseExamplesFast(OpKernelContext* ctx, const ExampleRequest& req) {
  const Tensor& serialized = ctx->input(0);
  Batch batch;
  batch.req = &req;
  batch.ctx = ctx;
  batch.size = serialized.num_elements();
  batch.records = batch.size ? serialized.data<TString>() : nullptr;
  const int num_keys = req.num_keys();
  batch.slots.resize(num_keys);
  for (int k = 0; k < num_keys; ++k) {
    Slot& s = batch.slots[k];
    s.key = req.keys[k];
    s.dtype = req.types[k];
    s.kind = KindOf(s.dtype);
    const int j = k - req.num_sparse;
    if (j < 0) {
      s.list = batch.num_lists++;
      continue;
    }
    s.stride = req.stride[j];
    s.def = &ctx->input(5 + j);
    if (s.stride == 0) return false;
    if (req.variable[j]) {
      s.list = batch.num_lists++;
      continue;
    }
    const PartialShape& shape = (*req.dense_shapes)[j];
    std::vector<int64_t> dims;
    if (batch.req->batched) dims.push_back(batch.size);
    for (int d = 0; d < shape.rank(); ++d) dims.push_back(shape.dim(d));
    if (!ctx->allocate_output(3 * req.num_sparse + j, TensorShape(dims), &s.out).ok()) return false;
  }
  batch.lists.resize(static_cast<size_t>(batch.size) * batch.num_lists);

  // ParallelRange's cost units per Example, from the sizes of a few records, scaled so that a
  // batch of kParallelBytes bytes splits.
  int64_t sampled = 0, bytes = 0;
  for (int64_t b = 0; b < batch.size; b += std::max<int64_t>(1, batch.size / 16), ++sampled)
    bytes += static_cast<int64_t>(batch.records[b].size());
  const int64_t cost = std::max<int64_t>(1, bytes * kParallelMinCost / kParallelBytes / std::max<int64_t>(sampled, 1));
  std::atomic<bool> failed{false};
  ParallelRange(ctx->intra_op_pool(), batch.size, cost, [&](int64_t begin, int64_t end) {
    Scratch scratch(num_keys);
    for (int64_t b = begin; b < end; ++b) {
      if (failed.load(std::memory_order_relaxed) || !ParseOne(batch, b, &scratch)) {
        failed.store(true, std::memory_order_relaxed);
        return;
      }
    }
  });
  if (failed.load()) return false;
  if (batch.num_lists == 0) return true;
  std::vector<Tensor*> values(batch.num_lists, nullptr);
  std::vector<int64_t> per_example(batch.num_lists, 0);
  if (!AllocateListOutputs(batch, &values, &per_example)) return false;
  ParallelRange(ctx->intra_op_pool(), batch.size, cost,
                [&](int64_t begin, int64_t end) { WriteLists(batch, values, per_example, begin, end); });
  return true;
}

}  // namespace cpu
}  // namespace tx

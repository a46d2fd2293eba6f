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
//    varint, tag and length rules) and answers false where Reader would fail, without a Status;
//  - keys are looked up in KeySlots (a few: compared by length and bytes), the Feature message
//    of each requested key kept as a view, the Example index stamped beside it as "found";
//  - a fixed-shape dense feature's output exists before any Example is read (its shape is known),
//    so its values are decoded straight into the Example's row (packed floats by one memcpy,
//    strings assigned once into the output's TStrings); a missing one copies its default;
//  - sparse features and FixedLenSequenceFeatures need the batch's totals before their outputs
//    exist: the first pass keeps each Example's list (a view) and its count, the second decodes
//    the lists into place;
//  - it declines: a list of the wrong type, a wrong number of values, a missing required feature,
//    any malformed byte, and dense shapes holding no values (stride 0, never seen in practice);
//  - Examples are split over the intra-op threads only when the batch has enough bytes to pay for
//    waking them (kBytesPerThread): a batch of 128 small records takes about 10 µs on one core.
// csrc/tests/parse_example_test.cc checks that the two paths agree on random and mutated records.

namespace tx {
namespace cpu {
namespace {

enum Kind { kNone = 0, kBytes = 1, kFloat = 2, kInt64 = 3 };

int KindOf(DataType dt) { return dt == DT_STRING ? kBytes : dt == DT_FLOAT ? kFloat : kInt64; }

// Below this many bytes of Examples (about 20 µs of work) a batch is parsed on one thread.
constexpr int64_t kBytesPerThread = 16384;

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

// Views each requested key's Feature message in `example` into feature[slot], setting
// stamp[slot] = b (a later entry for a key replaces an earlier one, Features merge).
bool FindFeatures(Cursor example, const KeySlots& slots, int64_t b, Cursor* feature, int64_t* stamp) {
  int field, type;
  while (!example.done()) {
    if (!example.Tag(&field, &type)) return false;
    if (field != 1) {
      if (!example.Skip(type)) return false;
      continue;
    }
    Cursor features;
    if (type != 2 || !example.Bytes(&features)) return false;
    while (!features.done()) {
      if (!features.Tag(&field, &type)) return false;
      if (field != 1) {
        if (!features.Skip(type)) return false;
        continue;
      }
      Cursor entry, key, value;
      if (type != 2 || !features.Bytes(&entry)) return false;
      while (!entry.done()) {
        if (!entry.Tag(&field, &type)) return false;
        if (field == 1 && type == 2) {
          if (!entry.Bytes(&key)) return false;
        } else if (field == 2 && type == 2) {
          if (!entry.Bytes(&value)) return false;
        } else if (!entry.Skip(type)) {
          return false;
        }
      }
      const int slot = slots.Find(key.view());
      if (slot < 0) continue;
      feature[slot] = value;
      stamp[slot] = b;
    }
  }
  return true;
}

// The list a Feature message sets last: its kind (kNone for none) and its message.
bool FeatureList(Cursor feature, int* kind, Cursor* list) {
  int field, type;
  *kind = kNone;
  while (!feature.done()) {
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

// Reads a float_list, int64_list or bytes_list message (values in field 1, packed or not),
// writing the first `cap` values to `out` (null when cap is 0) and counting all of them in *n.
bool ReadList(Cursor list, float* out, int64_t cap, int64_t* n) {
  int64_t k = 0;
  int field, type;
  while (!list.done()) {
    if (!list.Tag(&field, &type)) return false;
    if (field != 1) {
      if (!list.Skip(type)) return false;
      continue;
    }
    if (type == 2) {  // packed little-endian IEEE floats: copied as they are
      Cursor packed;
      if (!list.Bytes(&packed) || packed.size() % 4 != 0) return false;
      const int64_t m = static_cast<int64_t>(packed.size() / 4);
      if (k < cap) std::memcpy(out + k, packed.data(), static_cast<size_t>(std::min(m, cap - k)) * 4);
      k += m;
    } else if (type == 5) {
      if (k < cap) std::memcpy(out + k, list.data(), 4);
      if (!list.Advance(4)) return false;
      ++k;
    } else {
      return false;
    }
  }
  *n = k;
  return true;
}

bool ReadList(Cursor list, int64_t* out, int64_t cap, int64_t* n) {
  int64_t k = 0;
  int field, type;
  uint64_t v;
  while (!list.done()) {
    if (!list.Tag(&field, &type)) return false;
    if (field != 1) {
      if (!list.Skip(type)) return false;
      continue;
    }
    if (type == 2) {
      Cursor packed;
      if (!list.Bytes(&packed)) return false;
      for (; !packed.done(); ++k) {
        if (!packed.Varint(&v)) return false;
        if (k < cap) out[k] = static_cast<int64_t>(v);
      }
    } else if (type == 0) {
      if (!list.Varint(&v)) return false;
      if (k < cap) out[k] = static_cast<int64_t>(v);
      ++k;
    } else {
      return false;
    }
  }
  *n = k;
  return true;
}

bool ReadList(Cursor list, TString* out, int64_t cap, int64_t* n) {
  int64_t k = 0;
  int field, type;
  while (!list.done()) {
    if (!list.Tag(&field, &type)) return false;
    if (field != 1) {
      if (!list.Skip(type)) return false;
      continue;
    }
    Cursor v;
    if (type != 2 || !list.Bytes(&v)) return false;
    if (k < cap) out[k].Assign(v.data(), v.size());
    ++k;
  }
  *n = k;
  return true;
}

// ReadList of dt's values into elements [at, at + cap) of `out` (counting only when out is null).
bool ReadListAs(DataType dt, Cursor list, Tensor* out, int64_t at, int64_t cap, int64_t* n) {
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

// The batch in flight: the request, its outputs and the lists between the passes.
struct Batch {
  const ExampleRequest* req;
  OpKernelContext* ctx;
  const TString* records;
  int64_t size;
  bool batched;
  std::vector<Tensor*> dense_out;  // per dense feature: its output, fixed shapes only
  std::vector<int> list_of;  // per slot: its index among the list features, or -1
  int num_lists = 0;
  std::vector<List> lists;  // [Example][list feature]
};

// First pass over Example b: fixed dense features into their outputs, the others' lists kept.
bool ParseOne(Batch& batch, int64_t b, Cursor* feature, int64_t* stamp) {
  const ExampleRequest& req = *batch.req;
  const TString& record = batch.records[b];
  if (!FindFeatures(Cursor(record.data(), record.size()), req.slot_of, b, feature, stamp)) return false;
  for (int k = 0; k < req.num_keys(); ++k) {
    const bool found = stamp[k] == b;
    const DataType dt = req.types[k];
    int kind = kNone;
    Cursor list;
    if (found && !FeatureList(feature[k], &kind, &list)) return false;
    if (kind != kNone && kind != KindOf(dt)) return false;
    const int j = k - req.num_sparse;  // dense index when k >= num_sparse
    if (batch.list_of[k] >= 0) {
      int64_t n = 0;
      if (kind != kNone && !ReadListAs(dt, list, nullptr, 0, 0, &n)) return false;
      if (j >= 0 && n % req.stride[j] != 0) return false;
      batch.lists[b * batch.num_lists + batch.list_of[k]] = List{list, n, 0};
      continue;
    }
    const int64_t stride = req.stride[j];
    Tensor* out = batch.dense_out[j];
    if (!found) {
      const Tensor& def = batch.ctx->input(5 + j);
      if (def.num_elements() == 0) return false;  // required
      CopyElements(dt, def.raw_data(), static_cast<char*>(out->raw_data()) + b * stride * DataTypeSize(dt), stride);
      continue;
    }
    int64_t n = 0;
    if (kind != kNone && !ReadListAs(dt, list, out, b * stride, stride, &n)) return false;
    if (n != stride) return false;
  }
  return true;
}

// Allocates the outputs of the list features from their totals; false as the reference would fail.
bool AllocateListOutputs(Batch& batch, std::vector<Tensor*>* values, std::vector<int64_t>* per_example) {
  const ExampleRequest& req = *batch.req;
  const int num_keys = req.num_keys();
  for (int k = 0; k < num_keys; ++k) {
    const int li = batch.list_of[k];
    if (li < 0) continue;
    int64_t total = 0, longest = 0;
    for (int64_t b = 0; b < batch.size; ++b) {
      List& l = batch.lists[b * batch.num_lists + li];
      l.at = total;
      total += l.n;
      longest = std::max(longest, l.n);
    }
    const int64_t lead = batch.batched ? 1 : 0;
    if (k < req.num_sparse) {
      Tensor *indices, *shape;
      const int64_t rank = 1 + lead;
      if (!batch.ctx->allocate_output(k, TensorShape({total, rank}), &indices).ok() ||
          !batch.ctx->allocate_output(req.num_sparse + k, TensorShape({total}), &(*values)[li]).ok() ||
          !batch.ctx->allocate_output(2 * req.num_sparse + k, TensorShape({rank}), &shape).ok())
        return false;
      int64_t* dims = shape->data<int64_t>();
      if (batch.batched) *dims++ = batch.size;
      *dims = longest;
      (*per_example)[li] = 0;
      continue;
    }
    const int j = k - req.num_sparse;
    const PartialShape& s = (*req.dense_shapes)[j];
    const int64_t rows = longest / req.stride[j];
    std::vector<int64_t> dims;
    if (batch.batched) dims.push_back(batch.size);
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
    const int li = batch.list_of[k];
    if (li < 0) continue;
    const DataType dt = req.types[k];
    Tensor* out = values[li];
    int64_t n;
    if (k < req.num_sparse) {
      const int rank = batch.batched ? 2 : 1;
      int64_t* idx = batch.ctx->mutable_output(k)->data<int64_t>();
      for (int64_t b = begin; b < end; ++b) {
        const List& l = batch.lists[b * batch.num_lists + li];
        if (l.n == 0) continue;
        ReadListAs(dt, l.bytes, out, l.at, l.n, &n);
        int64_t* p = idx + l.at * rank;
        for (int64_t i = 0; i < l.n; ++i) {
          if (batch.batched) *p++ = b;
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
  batch.batched = serialized.rank() == 1;
  batch.records = batch.size ? serialized.data<TString>() : nullptr;
  const int num_keys = req.num_keys();
  const int num_dense = num_keys - req.num_sparse;
  batch.dense_out.assign(num_dense, nullptr);
  batch.list_of.assign(num_keys, -1);
  for (int k = 0; k < req.num_sparse; ++k) batch.list_of[k] = batch.num_lists++;
  for (int j = 0; j < num_dense; ++j) {
    if (req.stride[j] == 0) return false;
    if (req.variable[j]) {
      batch.list_of[req.num_sparse + j] = batch.num_lists++;
      continue;
    }
    const PartialShape& s = (*req.dense_shapes)[j];
    std::vector<int64_t> dims;
    if (batch.batched) dims.push_back(batch.size);
    for (int d = 0; d < s.rank(); ++d) dims.push_back(s.dim(d));
    if (!ctx->allocate_output(3 * req.num_sparse + j, TensorShape(dims), &batch.dense_out[j]).ok()) return false;
  }
  batch.lists.resize(static_cast<size_t>(batch.size) * batch.num_lists);

  int64_t bytes = 0;
  for (int64_t b = 0; b < batch.size; ++b) bytes += static_cast<int64_t>(batch.records[b].size());
  // ParallelRange's cost units per Example, scaled so that batches of kBytesPerThread bytes split.
  const int64_t cost =
      std::max<int64_t>(1, bytes * (kParallelMinCost / kBytesPerThread) / std::max<int64_t>(batch.size, 1));
  std::atomic<bool> failed{false};
  ParallelRange(ctx->intra_op_pool(), batch.size, cost, [&](int64_t begin, int64_t end) {
    std::vector<Cursor> feature(num_keys);
    std::vector<int64_t> stamp(num_keys, -1);
    for (int64_t b = begin; b < end; ++b) {
      if (failed.load(std::memory_order_relaxed) || !ParseOne(batch, b, feature.data(), stamp.data())) {
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

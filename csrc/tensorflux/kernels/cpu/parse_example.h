// ParseExampleV2's CPU kernel in two paths over one request: the reference decoder
// (parse_example.cc, Note [Parsing Examples]) and the fast one (parse_example_fast.cc, Note [Fast
// Example parsing]) that handles well-formed batches and leaves everything else to the reference.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tensorflux/core/dtype.h"
#include "tensorflux/core/shape.h"
#include "tensorflux/core/status.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// True when the n bytes at a and b are equal; keys of up to 16 bytes are compared inline.
inline bool SameBytes(const char* a, const char* b, size_t n) {
  if (n >= 8 && n <= 16) {
    uint64_t a0, a1, b0, b1;  // two overlapping words
    std::memcpy(&a0, a, 8);
    std::memcpy(&a1, a + n - 8, 8);
    std::memcpy(&b0, b, 8);
    std::memcpy(&b1, b + n - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (n >= 4 && n < 8) {
    uint32_t a0, a1, b0, b1;
    std::memcpy(&a0, a, 4);
    std::memcpy(&a1, a + n - 4, 4);
    std::memcpy(&b0, b, 4);
    std::memcpy(&b1, b + n - 4, 4);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (n < 4) return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
  return std::memcmp(a, b, n) == 0;
}

// The requested keys and their slots. A few keys are compared by length and bytes, which beats
// hashing every key of every Example; many are hashed.
class KeySlots {
 public:
  // Maps `key` (whose bytes must outlive this) to `slot`; a key given twice keeps the later slot.
  void Set(std::string_view key, int slot);
  // The slot of `key`, or -1.
  int Find(std::string_view key) const {
    if (!map_.empty()) {
      auto it = map_.find(key);
      return it == map_.end() ? -1 : it->second;
    }
    for (const Entry& e : scan_)
      if (e.key.size() == key.size() && SameBytes(e.key.data(), key.data(), key.size())) return e.slot;
    return -1;
  }

 private:
  static constexpr size_t kScanKeys = 16;
  struct Entry {
    std::string_view key;
    int slot;
  };
  std::vector<Entry> scan_;  // up to kScanKeys distinct keys
  std::unordered_map<std::string_view, int> map_;  // all keys, once there are more
};

// What one ParseExampleV2 call asks for, its inputs checked. Slots 0..num_sparse-1 are the sparse
// features, then the dense ones; dense feature j's default is input 5 + j.
struct ExampleRequest {
  int num_sparse = 0;
  std::vector<DataType> types;  // per slot
  std::vector<std::string> keys;  // per slot
  KeySlots slot_of;  // views of `keys`
  const std::vector<PartialShape>* dense_shapes = nullptr;  // per dense feature
  std::vector<bool> variable;  // per dense feature: a first dimension of -1 (FixedLenSequenceFeature)
  std::vector<int64_t> stride;  // per dense feature: values per row (variable) or per Example
  bool batched = true;  // `serialized` is a vector (TensorFlow's batch path), not a scalar (its single path)
  int num_keys() const { return static_cast<int>(types.size()); }
};

// Checks ParseExampleV2's inputs in `ctx` against the kernel's attrs and fills *req.
Status PrepareExampleRequest(const OpKernelContext& ctx, const std::vector<DataType>& sparse_types,
                             const std::vector<DataType>& dense_types, const std::vector<PartialShape>& dense_shapes,
                             ExampleRequest* req);

// Parses ctx's Examples into its outputs with the reference decoder; every error is here.
Status ParseExamplesReference(OpKernelContext* ctx, const ExampleRequest& req);

// Parses ctx's Examples into its outputs, exactly as ParseExamplesReference would, when each one is
// well formed and fits the request; false otherwise (some outputs may then be set, to be replaced).
bool ParseExamplesFast(OpKernelContext* ctx, const ExampleRequest& req);

}  // namespace cpu
}  // namespace tx

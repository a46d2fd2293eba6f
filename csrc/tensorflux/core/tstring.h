// TString: the element of DT_STRING tensors, a byte string laid out like TensorFlow's TF_TString
// (Note [TString layout]); the C API's TX_TString is the same 24 bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "tensorflux/core/dtype.h"
#include "tensorflux/core/shape.h"
#include "tensorflux/core/status.h"

namespace tx {

class Tensor;

// Note [TString layout]
// 24 bytes (on the 64-bit targets we build for), little-endian, one of three representations
// told apart by the two low bits of the first byte, as in TensorFlow's ctstring:
//  - SMALL (0): byte 0 is size << 2, bytes 1..23 hold up to 22 bytes and a NUL. All-zero bytes
//    are the empty string, so zeroed memory is a valid (empty) TString.
//  - LARGE (1): {size_t size << 2 | 1, size_t capacity, char* heap}; the heap block holds
//    capacity + 1 bytes (a NUL after the data) and belongs to the string.
//  - VIEW (3): {size_t size << 2 | 3, const char* data}: bytes owned by someone else (the C API's
//    TX_StringAssignView); copying a view copies the bytes into an owned string.
// TensorFlow's fourth form, OFFSET (2), locates bytes relative to the array in serialized
// buffers; the engine never produces it and rejects it where it reads a caller's tensor
// (ValidateStringTensor). Strings are bytes: no encoding is assumed and NULs may occur inside.
class TString {
 public:
  enum Type : uint8_t { kSmall = 0, kLarge = 1, kOffset = 2, kView = 3 };
  // The longest string stored inline.
  static constexpr size_t kSmallCapacity = 22;
  // The longest string a TString may hold (sizes are stored shifted left by two bits).
  static constexpr size_t kMaxSize = (SIZE_MAX >> 2) - 1;

  TString() noexcept { Zero(); }
  // Copies `size` bytes from `data`; throws std::bad_alloc when out of memory.
  TString(const char* data, size_t size);
  explicit TString(std::string_view s) : TString(s.data(), s.size()) {}
  TString(const TString& o) : TString(o.data(), o.size()) {}
  TString(TString&& o) noexcept : u_(o.u_) { o.Zero(); }
  TString& operator=(const TString& o);
  TString& operator=(TString&& o) noexcept;
  ~TString() { Release(); }

  Type type() const { return static_cast<Type>(u_.raw[0] & 3); }
  size_t size() const {
    switch (type()) {
      case kSmall: return u_.small.size >> 2;
      case kLarge: return u_.large.size >> 2;
      case kView: return u_.view.size >> 2;
      default: return 0;  // kOffset is rejected where it could enter (ValidateStringTensor)
    }
  }
  bool empty() const { return size() == 0; }
  // Bytes that fit without reallocating (the size for views).
  size_t capacity() const;
  // The bytes (NUL-terminated except for views); valid until the string changes.
  const char* data() const {
    switch (type()) {
      case kSmall: return u_.small.str;
      case kLarge: return u_.large.ptr;
      case kView: return u_.view.ptr;
      default: return "";
    }
  }
  std::string_view view() const { return std::string_view(data(), size()); }
  operator std::string_view() const { return view(); }  // NOLINT: used as a byte string
  std::string str() const { return std::string(data(), size()); }

  // Replaces the contents with a copy of `size` bytes at `data` (which may point into this
  // string); false (contents unchanged) when out of memory or size > kMaxSize. Inline when a
  // SMALL string stays SMALL (the elements a kernel fills are new, hence SMALL).
  bool Assign(const char* data, size_t size) {
    if (size > kSmallCapacity || type() != kSmall) return AssignSlow(data, size);
    CopyShort(u_.small.str, data, size);
    u_.small.str[size] = '\0';
    u_.small.size = static_cast<uint8_t>(size << 2);
    return true;
  }
  bool Assign(std::string_view s) { return Assign(s.data(), s.size()); }
  // Points at `size` bytes the caller keeps alive for as long as this string holds them.
  void AssignView(const char* data, size_t size);
  // Resizes to `size` bytes and returns the writable bytes (an owned copy for views); the first
  // min(old, new) bytes are kept, new ones are unspecified. nullptr (unchanged) when out of memory.
  char* ResizeUninitialized(size_t size);
  // Appends `size` bytes; false (unchanged) when out of memory.
  bool Append(const char* data, size_t size);
  bool Append(std::string_view s) { return Append(s.data(), s.size()); }
  // Frees any heap block and leaves the empty string.
  void Clear() {
    Release();
    Zero();
  }

  friend bool operator==(const TString& a, const TString& b) { return a.view() == b.view(); }
  friend bool operator!=(const TString& a, const TString& b) { return a.view() != b.view(); }
  friend bool operator<(const TString& a, const TString& b) { return a.view() < b.view(); }

 private:
  struct Large {
    size_t size;
    size_t cap;
    char* ptr;
  };
  struct View {
    size_t size;
    const char* ptr;
  };
  struct Small {
    uint8_t size;
    char str[kSmallCapacity + 1];
  };
  union U {
    Large large;
    View view;
    Small small;
    uint8_t raw[24];
  };

  void Zero() {
    for (uint8_t& b : u_.raw) b = 0;
  }
  void Release();
  bool AssignSlow(const char* data, size_t size);
  // Copies n <= kSmallCapacity bytes, every load before any store (the bytes may overlap).
  static void CopyShort(char* to, const char* from, size_t n) {
    if (n >= 8) {
      uint64_t a, b, c;
      std::memcpy(&a, from, 8);
      std::memcpy(&b, from + (n >= 16 ? 8 : n - 8), 8);
      std::memcpy(&c, from + n - 8, 8);
      std::memcpy(to, &a, 8);
      std::memcpy(to + (n >= 16 ? 8 : n - 8), &b, 8);
      std::memcpy(to + n - 8, &c, 8);
    } else if (n >= 4) {
      uint32_t a, c;
      std::memcpy(&a, from, 4);
      std::memcpy(&c, from + n - 4, 4);
      std::memcpy(to, &a, 4);
      std::memcpy(to + n - 4, &c, 4);
    } else if (n > 0) {
      const char a = from[0], b = from[n / 2], c = from[n - 1];
      to[0] = a;
      to[n / 2] = b;
      to[n - 1] = c;
    }
  }

  U u_;
};

static_assert(sizeof(TString) == 24, "TString must be 24 bytes (Note [TString layout])");

template <>
struct DataTypeOf<TString> {
  static constexpr DataType value = DT_STRING;
};

// OK when `t` is not DT_STRING or each element is a well-formed SMALL, LARGE or VIEW TString
// (a caller-built tensor: TX_NewTensor / TX_AllocateTensor memory); InvalidArgument naming the
// first bad element otherwise. Pointers cannot be checked: c_api.h states the caller's duty.
Status ValidateStringTensor(const Tensor& t);

// `in` itself when no element views bytes outside the tensor's own string storage
// (AllocateStringsWithStorage); otherwise a copy whose strings own their bytes, so the engine may
// keep it after the caller frees the viewed bytes (memory wrapped by TX_NewTensor stays alive
// through its deallocator, like any wrapped buffer). InvalidArgument from ValidateStringTensor;
// requires in.dtype() == DT_STRING.
Status OwnedStringTensor(const Tensor& in, Tensor* out);

// Note [String storage]
// A string tensor may carry `storage` bytes of its own after its TString array, in the same
// buffer (TX_AllocateStringTensor in the C API). Elements that view bytes inside that storage live
// exactly as long as the tensor's memory, so they are not copied where the engine adopts a
// caller's tensor (OwnedStringTensor), and a batch of n strings costs one allocation instead of
// n. Only the storage counts: a view into the TString array itself, or into any other memory, is
// copied as before. Object buffers are never forwarded to kernel outputs, so no kernel writes
// into the storage; copying an element (CopyElements, TString's copy) copies its bytes.

// Allocates a DT_STRING tensor of `shape` (empty strings) followed by `storage` bytes of string
// storage (uninitialized; 8-byte aligned), whose address goes to *bytes (nullptr when storage is
// 0). ResourceExhausted when out of memory or the sizes overflow.
Status AllocateStringsWithStorage(const TensorShape& shape, size_t storage, Tensor* out, char** bytes);

}  // namespace tx

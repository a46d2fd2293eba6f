#include "tensorflux/core/tstring.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "tensorflux/core/allocator.h"
#include "tensorflux/core/object_types.h"
#include "tensorflux/core/tensor.h"

namespace tx {

TString::TString(const char* data, size_t size) {
  Zero();
  if (!Assign(data, size)) throw std::bad_alloc();
}

TString& TString::operator=(const TString& o) {
  if (this != &o && !Assign(o.data(), o.size())) throw std::bad_alloc();
  return *this;
}

TString& TString::operator=(TString&& o) noexcept {
  if (this != &o) {
    Release();
    u_ = o.u_;
    o.Zero();
  }
  return *this;
}

void TString::Release() {
  if (type() == kLarge) std::free(u_.large.ptr);
}

size_t TString::capacity() const {
  switch (type()) {
    case kSmall: return kSmallCapacity;
    case kLarge: return u_.large.cap;
    default: return size();
  }
}

char* TString::ResizeUninitialized(size_t size) {
  if (size > kMaxSize) return nullptr;
  const Type t = type();
  const size_t old = this->size();
  if (t == kSmall && size <= kSmallCapacity) {
    u_.small.size = static_cast<uint8_t>(size << 2);
    u_.small.str[size] = '\0';
    return u_.small.str;
  }
  if (t == kLarge && size <= u_.large.cap) {
    u_.large.size = (size << 2) | kLarge;
    u_.large.ptr[size] = '\0';
    return u_.large.ptr;
  }
  if (size <= kSmallCapacity) {  // a view that now fits inline
    const char* src = data();
    char buf[kSmallCapacity + 1];
    std::memcpy(buf, src, std::min(old, size));
    Zero();
    std::memcpy(u_.small.str, buf, std::min(old, size));
    u_.small.size = static_cast<uint8_t>(size << 2);
    return u_.small.str;
  }
  // Grow geometrically when extending a heap string, so repeated appends stay linear.
  size_t cap = size;
  if (t == kLarge && size < kMaxSize / 2) cap = std::max(size, u_.large.cap * 2);
  char* p = static_cast<char*>(std::malloc(cap + 1));
  if (p == nullptr) return nullptr;
  std::memcpy(p, data(), std::min(old, size));
  p[size] = '\0';
  Release();
  u_.large.size = (size << 2) | kLarge;
  u_.large.cap = cap;
  u_.large.ptr = p;
  return p;
}

bool TString::AssignSlow(const char* data, size_t size) {
  if (size > kMaxSize) return false;
  const char* mine = this->data();
  if (size > 0 && data >= mine && data < mine + this->size()) {  // self-assignment of a part
    TString copy;
    if (!copy.Assign(data, size)) return false;
    *this = std::move(copy);
    return true;
  }
  if (type() == kView) Zero();  // drop the view without copying bytes about to be replaced
  char* p = ResizeUninitialized(size);
  if (p == nullptr) return false;
  if (size > 0) std::memcpy(p, data, size);
  return true;
}

void TString::AssignView(const char* data, size_t size) {
  Release();
  u_.view.size = (size << 2) | kView;
  u_.view.ptr = data;
}

bool TString::Append(const char* data, size_t size) {
  const size_t old = this->size();
  if (size > kMaxSize - old) return false;
  const char* mine = this->data();
  if (size > 0 && data >= mine && data < mine + old) {  // appending a part of itself
    TString copy;
    if (!copy.Assign(data, size)) return false;
    return Append(copy.data(), copy.size());
  }
  char* p = ResizeUninitialized(old + size);
  if (p == nullptr) return false;
  if (size > 0) std::memcpy(p + old, data, size);
  return true;
}

namespace {

void ConstructTStrings(void* p, int64_t n) {
  TString* s = static_cast<TString*>(p);
  for (int64_t i = 0; i < n; ++i) new (s + i) TString();
}

void DestroyTStrings(void* p, int64_t n) {
  TString* s = static_cast<TString*>(p);
  for (int64_t i = 0; i < n; ++i) s[i].~TString();
}

// Assigns element by element; an allocation failure leaves that element empty rather than
// throwing through a kernel (the sizes involved are those of strings that already exist).
void CopyTStrings(const void* src, void* dst, int64_t n) {
  const TString* s = static_cast<const TString*>(src);
  TString* d = static_cast<TString*>(dst);
  for (int64_t i = 0; i < n; ++i)
    if (!d[i].Assign(s[i].data(), s[i].size())) d[i].Clear();
}

const ObjectElementOps kTStringOps = {sizeof(TString), ConstructTStrings, DestroyTStrings, CopyTStrings};

}  // namespace

TX_REGISTER_OBJECT_ELEMENT_TYPE(DT_STRING, kTStringOps);

Status ValidateStringTensor(const Tensor& t) {
  if (t.dtype() != DT_STRING || !t.initialized()) return Status::OK();
  const TString* s = t.data<TString>();
  const int64_t n = t.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    const TString::Type type = s[i].type();
    if (type == TString::kOffset)
      return InvalidArgument("string element ", i, " uses the OFFSET representation, which tensors passed to the ",
                             "engine may not hold (use TX_StringCopy or TX_StringAssignView)");
    if (type == TString::kSmall && s[i].size() > TString::kSmallCapacity)
      return InvalidArgument("string element ", i, " is not a valid TX_TString (inline size ", s[i].size(), " > ",
                             TString::kSmallCapacity, "); initialize elements with TX_StringInit");
    if (type != TString::kSmall && s[i].size() > 0 && s[i].data() == nullptr)
      return InvalidArgument("string element ", i, " has ", s[i].size(), " bytes but a null data pointer");
  }
  return Status::OK();
}

namespace {

// Buffer deallocator of AllocateStringsWithStorage: `arg` is the element count.
void DestroyStringsWithStorage(void* data, size_t size, void* arg) {
  DestroyTStrings(data, static_cast<int64_t>(reinterpret_cast<uintptr_t>(arg)));
  BufferAllocator::Global()->Deallocate(data, size);
}

}  // namespace

Status AllocateStringsWithStorage(const TensorShape& shape, size_t storage, Tensor* out, char** bytes) {
  const int64_t n = shape.num_elements();
  if (n < 0 || static_cast<uint64_t>(n) > (SIZE_MAX - storage) / sizeof(TString))
    return ResourceExhausted("a string tensor of ", n, " elements and ", storage, " bytes of storage is too large");
  const size_t elements = static_cast<size_t>(n) * sizeof(TString);
  const size_t size = elements + storage;
  void* p = BufferAllocator::Global()->Allocate(size);
  if (p == nullptr) return ResourceExhausted("out of memory for a string tensor of ", size, " bytes");
  ConstructTStrings(p, n);
  Buffer* buffer = Buffer::Wrap(p, size, DestroyStringsWithStorage, reinterpret_cast<void*>(static_cast<uintptr_t>(n)));
  *out = Tensor(DT_STRING, shape, RefPtr<Buffer>::Adopt(buffer));
  *bytes = storage > 0 ? static_cast<char*>(p) + elements : nullptr;
  return Status::OK();
}

Status OwnedStringTensor(const Tensor& in, Tensor* out) {
  TX_RETURN_IF_ERROR(ValidateStringTensor(in));
  bool owned = true;
  const TString* s = in.data<TString>();
  // The tensor's own string storage (Note [String storage]): empty unless the buffer has any.
  const uintptr_t lo = reinterpret_cast<uintptr_t>(in.raw_data()) + in.byte_size();
  const uintptr_t hi = in.initialized() ? reinterpret_cast<uintptr_t>(in.raw_data()) + in.buffer()->size() : lo;
  for (int64_t i = 0; owned && i < in.num_elements(); ++i) {
    if (s[i].type() != TString::kView) continue;
    const uintptr_t at = reinterpret_cast<uintptr_t>(s[i].data());
    owned = at >= lo && at <= hi && s[i].size() <= hi - at;
  }
  if (owned) {
    *out = in;
    return Status::OK();
  }
  return DeepCopyTensor(in, out);
}

}  // namespace tx

// C API: tensors wrapping caller memory (zero-copy) or engine-allocated aligned memory.
#include <cstdint>
#include <new>

#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/core/tstring.h"

// TX_TString is the C view of tx::TString (Note [TString layout] in core/tstring.h).
static_assert(sizeof(TX_TString) == sizeof(tx::TString), "TX_TString and tx::TString must have one layout");
static_assert(alignof(TX_TString) == alignof(tx::TString), "TX_TString and tx::TString must have one layout");

namespace {

// Validates dtype and dims, and that `len` is exactly the bytes the shape needs.
bool MakeShape(TX_DataType dtype, const int64_t* dims, int num_dims, size_t len, tx::TensorShape* shape) {
  tx::DataType dt = static_cast<tx::DataType>(dtype);
  if (!tx::IsValidDataType(static_cast<int>(dtype)) || !tx::IsSupportedStorageType(dt)) return false;
  if (num_dims < 0 || (num_dims > 0 && dims == nullptr)) return false;
  if (!tx::TensorShape::Make(dims, num_dims, shape).ok()) return false;
  const size_t elem = tx::DataTypeSize(dt);
  const uint64_t n = static_cast<uint64_t>(shape->num_elements());
  if (elem != 0 && n > SIZE_MAX / elem) return false;
  return n * elem == len;
}

tx::TString* Str(TX_TString* t) { return reinterpret_cast<tx::TString*>(t); }
const tx::TString* Str(const TX_TString* t) { return reinterpret_cast<const tx::TString*>(t); }

// Stands in for a NULL deallocator: the memory stays the caller's (a Buffer without a deallocator
// would be engine memory, returned to the engine's allocator).
void KeepCallerMemory(void*, size_t, void*) {}

}  // namespace

extern "C" {

TX_Tensor* TX_NewTensor(TX_DataType dtype, const int64_t* dims, int num_dims, void* data, size_t len,
                        void (*deallocator)(void* data, size_t len, void* arg), void* deallocator_arg) {
  auto give_back = [&]() -> TX_Tensor* {
    if (deallocator != nullptr) deallocator(data, len, deallocator_arg);
    return nullptr;
  };
  try {
    tx::TensorShape shape;
    if (!MakeShape(dtype, dims, num_dims, len, &shape)) return give_back();
    if (data == nullptr && len != 0) return give_back();
    if (dtype == TX_VARIANT) return give_back();  // caller memory cannot hold constructed Variants
    auto* t = new TX_Tensor;
    // From here the buffer owns `data`: Buffer::Wrap only allocates the small Buffer object.
    tx::Buffer* b = nullptr;
    try {
      b = tx::Buffer::Wrap(data, len, deallocator != nullptr ? deallocator : KeepCallerMemory, deallocator_arg);
    } catch (...) {
      delete t;
      return give_back();
    }
    t->tensor = tx::Tensor(static_cast<tx::DataType>(dtype), std::move(shape), tx::RefPtr<tx::Buffer>::Adopt(b));
    return t;
  } catch (...) { return give_back(); }
}

TX_Tensor* TX_AllocateTensor(TX_DataType dtype, const int64_t* dims, int num_dims, size_t len) {
  try {
    tx::TensorShape shape;
    if (!MakeShape(dtype, dims, num_dims, len, &shape)) return nullptr;
    tx::Tensor tensor;
    if (!tx::Tensor::Allocate(static_cast<tx::DataType>(dtype), shape, &tensor).ok()) return nullptr;
    return new TX_Tensor{std::move(tensor)};
  } catch (...) { return nullptr; }
}

TX_Tensor* TX_AllocateStringTensor(const int64_t* dims, int num_dims, size_t storage_len, char** storage) {
  if (storage == nullptr) return nullptr;
  *storage = nullptr;
  try {
    tx::TensorShape shape;
    if (num_dims < 0 || (num_dims > 0 && dims == nullptr) || !tx::TensorShape::Make(dims, num_dims, &shape).ok())
      return nullptr;
    tx::Tensor tensor;
    char* bytes = nullptr;
    if (!tx::AllocateStringsWithStorage(shape, storage_len, &tensor, &bytes).ok()) return nullptr;
    auto* t = new TX_Tensor{std::move(tensor)};
    *storage = bytes;
    return t;
  } catch (...) { return nullptr; }
}

void TX_DeleteTensor(TX_Tensor* t) { delete t; }

TX_DataType TX_TensorType(const TX_Tensor* t) {
  return t == nullptr ? static_cast<TX_DataType>(0) : static_cast<TX_DataType>(t->tensor.dtype());
}

int TX_NumDims(const TX_Tensor* t) { return t == nullptr ? 0 : t->tensor.rank(); }

// Out-of-range indices and NULL read as -1.
int64_t TX_Dim(const TX_Tensor* t, int dim_index) {
  if (t == nullptr || dim_index < 0 || dim_index >= t->tensor.rank()) return -1;
  return t->tensor.dim(dim_index);
}

size_t TX_TensorByteSize(const TX_Tensor* t) { return t == nullptr ? 0 : t->tensor.byte_size(); }

void* TX_TensorData(const TX_Tensor* t) { return t == nullptr ? nullptr : t->tensor.raw_data(); }

int64_t TX_TensorElementCount(const TX_Tensor* t) { return t == nullptr ? 0 : t->tensor.num_elements(); }

unsigned char TX_TensorIsAligned(const TX_Tensor* t) {
  if (t == nullptr) return 0;
  return reinterpret_cast<uintptr_t>(t->tensor.raw_data()) % tx::kBufferAlignment == 0 ? 1 : 0;
}

void TX_StringInit(TX_TString* t) {
  if (t != nullptr) new (t) tx::TString();
}

unsigned char TX_StringCopy(TX_TString* dst, const char* src, size_t size) {
  if (dst == nullptr || (src == nullptr && size != 0)) return 0;
  return Str(dst)->Assign(src, size) ? 1 : 0;
}

void TX_StringAssignView(TX_TString* dst, const char* src, size_t size) {
  if (dst != nullptr) Str(dst)->AssignView(src, size);
}

const char* TX_StringGetDataPointer(const TX_TString* t) { return t == nullptr ? nullptr : Str(t)->data(); }

TX_TString_Type TX_StringGetType(const TX_TString* t) {
  return t == nullptr ? TX_TSTR_SMALL : static_cast<TX_TString_Type>(Str(t)->type());
}

size_t TX_StringGetSize(const TX_TString* t) { return t == nullptr ? 0 : Str(t)->size(); }

size_t TX_StringGetCapacity(const TX_TString* t) { return t == nullptr ? 0 : Str(t)->capacity(); }

void TX_StringDealloc(TX_TString* t) {
  if (t != nullptr) Str(t)->Clear();
}

}  // extern "C"

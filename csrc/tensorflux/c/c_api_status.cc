// C API: version, status objects, byte buffers and data type sizes.
#include <cstdlib>
#include <cstring>

#include "tensorflux/c/c_api_internal.h"

namespace tx {
namespace capi {
namespace {

void FreeBufferData(void* data, size_t) { std::free(data); }

// A malloc'ed copy of `len` bytes (at least one byte, so the pointer is never NULL).
void* CopyBytes(const void* src, size_t len) {
  void* p = std::malloc(len == 0 ? 1 : len);
  if (p != nullptr && len > 0) std::memcpy(p, src, len);
  return p;
}

}  // namespace

Status FillBuffer(TX_Buffer* buf, const std::string& bytes) {
  if (buf == nullptr) return InvalidArgument("output buffer is NULL");
  if (buf->data != nullptr) return InvalidArgument("output buffer must be empty (use TX_NewBuffer)");
  void* p = CopyBytes(bytes.data(), bytes.size());
  if (p == nullptr) return ResourceExhausted("out of memory copying ", bytes.size(), " bytes");
  buf->data = p;
  buf->length = bytes.size();
  buf->data_deallocator = FreeBufferData;
  return Status::OK();
}

Status BufferBytes(const TX_Buffer* buf, const char* what, std::string* out) {
  if (buf == nullptr) return InvalidArgument(what, " buffer is NULL");
  if (buf->data == nullptr && buf->length != 0) return InvalidArgument(what, " buffer has NULL data");
  out->assign(static_cast<const char*>(buf->data), buf->data == nullptr ? 0 : buf->length);
  return Status::OK();
}

}  // namespace capi
}  // namespace tx

using namespace tx::capi;

extern "C" {

const char* TX_Version(void) { return "0.1.0"; }

TX_Status* TX_NewStatus(void) { return new (std::nothrow) TX_Status; }

void TX_DeleteStatus(TX_Status* s) { delete s; }

void TX_SetStatus(TX_Status* s, TX_Code code, const char* msg) {
  if (s == nullptr) return;
  try {
    s->status = tx::Status(static_cast<tx::Code>(code), msg == nullptr ? std::string() : std::string(msg));
  } catch (...) {
    // Out of memory for the message: keep the code at least.
    s->status = tx::Status(static_cast<tx::Code>(code), std::string());
  }
}

// A NULL status reads as TX_OK with an empty message (the neutral value).
TX_Code TX_GetCode(const TX_Status* s) { return s == nullptr ? TX_OK : static_cast<TX_Code>(s->status.code()); }

const char* TX_Message(const TX_Status* s) { return s == nullptr ? "" : s->status.message().c_str(); }

TX_Buffer* TX_NewBufferFromString(const void* proto, size_t len) {
  TX_Buffer* b = TX_NewBuffer();
  if (b == nullptr) return nullptr;
  if (proto == nullptr) len = 0;
  void* p = CopyBytes(proto, len);
  if (p == nullptr) {
    std::free(b);
    return nullptr;
  }
  b->data = p;
  b->length = len;
  b->data_deallocator = FreeBufferData;
  return b;
}

TX_Buffer* TX_NewBuffer(void) { return static_cast<TX_Buffer*>(std::calloc(1, sizeof(TX_Buffer))); }

void TX_DeleteBuffer(TX_Buffer* buffer) {
  if (buffer == nullptr) return;
  if (buffer->data_deallocator != nullptr) buffer->data_deallocator(const_cast<void*>(buffer->data), buffer->length);
  std::free(buffer);
}

TX_Buffer TX_GetBuffer(TX_Buffer* buffer) {
  if (buffer == nullptr) return TX_Buffer{nullptr, 0, nullptr};
  return *buffer;
}

size_t TX_DataTypeSize(TX_DataType dt) {
  if (!tx::IsValidDataType(static_cast<int>(dt))) return 0;
  return tx::DataTypeSize(static_cast<tx::DataType>(dt));
}

}  // extern "C"

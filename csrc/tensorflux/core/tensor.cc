#include "tensorflux/core/tensor.h"

#include <cstring>
#include <sstream>

#include "tensorflux/core/object_types.h"
#include "tensorflux/core/tstring.h"

namespace tx {

Buffer* Buffer::Allocate(size_t size) {
  void* p = BufferAllocator::Global()->Allocate(size);
  if (p == nullptr) return nullptr;
  return new Buffer(p, size, nullptr, nullptr);
}

Buffer* Buffer::Wrap(void* data, size_t size, Deallocator dealloc, void* arg) {
  return new Buffer(data, size, dealloc, arg);
}

Buffer::~Buffer() {
  if (dealloc_ == nullptr) {
    BufferAllocator::Global()->Deallocate(data_, size_);
  } else {
    dealloc_(data_, size_, arg_);
  }
}

Status Tensor::Allocate(DataType dtype, const TensorShape& shape, Tensor* out) {
  if (!IsSupportedStorageType(dtype))
    return InvalidArgument("cannot allocate a tensor of type ", DataTypeString(dtype));
  size_t elem = DataTypeSize(dtype);
  int64_t n = shape.num_elements();
  if (n < 0) return InvalidArgument("cannot allocate a tensor of shape ", shape.ToString());
  if (elem != 0 && static_cast<uint64_t>(n) > SIZE_MAX / elem)
    return ResourceExhausted("tensor of shape ", shape.ToString(), " is too large");
  Buffer* b =
      ObjectOpsFor(dtype) != nullptr ? AllocateObjectBuffer(dtype, n) : Buffer::Allocate(static_cast<size_t>(n) * elem);
  if (b == nullptr)
    return ResourceExhausted("out of memory allocating a ", DataTypeString(dtype), " tensor of shape ",
                             shape.ToString());
  *out = Tensor(dtype, shape, RefPtr<Buffer>::Adopt(b));
  return Status::OK();
}

namespace {
template <typename T>
void AppendValues(std::ostringstream& os, const void* data, int64_t n) {
  const T* p = static_cast<const T*>(data);
  for (int64_t i = 0; i < n; ++i) os << (i ? " " : "") << +p[i];
}
}  // namespace

std::string Tensor::DebugString(int max_entries) const {
  std::ostringstream os;
  os << "Tensor<" << DataTypeString(dtype_) << ", " << shape_.ToString() << ">";
  if (!initialized()) return os.str();
  int64_t n = std::min<int64_t>(num_elements(), max_entries);
  os << " values: ";
  switch (dtype_) {
    case DT_FLOAT: AppendValues<float>(os, raw_data(), n); break;
    case DT_DOUBLE: AppendValues<double>(os, raw_data(), n); break;
    case DT_INT32: AppendValues<int32_t>(os, raw_data(), n); break;
    case DT_INT64: AppendValues<int64_t>(os, raw_data(), n); break;
    case DT_UINT8: AppendValues<uint8_t>(os, raw_data(), n); break;
    case DT_BOOL: AppendValues<bool>(os, raw_data(), n); break;
    case DT_STRING:
      for (int64_t i = 0; i < n; ++i) os << (i ? " " : "") << '"' << data<TString>()[i].view() << '"';
      break;
    default: os << "..."; break;
  }
  if (num_elements() > n) os << "...";
  return os.str();
}

}  // namespace tx

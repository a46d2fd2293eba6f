// Tensor: a dtype, a shape and a refcounted buffer; copying a Tensor shares the buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tensorflux/core/allocator.h"
#include "tensorflux/core/dtype.h"
#include "tensorflux/core/refcount.h"
#include "tensorflux/core/shape.h"
#include "tensorflux/core/status.h"

namespace tx {

// A block of memory that is either engine-allocated (aligned) or borrowed with a deleter.
class Buffer : public RefCounted {
 public:
  using Deallocator = void (*)(void* data, size_t len, void* arg);

  // Allocates `size` bytes aligned to kBufferAlignment from BufferAllocator::Global(); nullptr if
  // out of memory.
  static Buffer* Allocate(size_t size);
  // Wraps caller memory; `dealloc(data, size, arg)` runs when the last reference goes.
  static Buffer* Wrap(void* data, size_t size, Deallocator dealloc, void* arg);

  void* data() const { return data_; }
  size_t size() const { return size_; }
  // True when the memory came from Allocate (and so may be reused by kernels).
  bool owned() const { return dealloc_ == nullptr; }

 private:
  Buffer(void* data, size_t size, Deallocator dealloc, void* arg)
      : data_(data), size_(size), dealloc_(dealloc), arg_(arg) {}
  ~Buffer() override;

  void* data_;
  size_t size_;
  Deallocator dealloc_;
  void* arg_;
};

// An n-dimensional array value. A default-constructed Tensor is "empty" (not initialized).
class Tensor {
 public:
  Tensor() = default;
  // Shares `buffer` (takes a new reference); requires buffer->size() >= bytes needed.
  Tensor(DataType dtype, TensorShape shape, RefPtr<Buffer> buffer)
      : dtype_(dtype), shape_(std::move(shape)), buffer_(std::move(buffer)) {}

  // Allocates a tensor: uninitialized memory for plain-bytes types, default-constructed elements
  // (empty strings) for object element types (Note [Object element types] in object_types.h);
  // ResourceExhausted/InvalidArgument on failure.
  static Status Allocate(DataType dtype, const TensorShape& shape, Tensor* out);

  bool initialized() const { return static_cast<bool>(buffer_); }
  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t dim(int i) const { return shape_.dim(i); }
  int64_t num_elements() const { return shape_.num_elements(); }
  size_t byte_size() const { return static_cast<size_t>(num_elements()) * DataTypeSize(dtype_); }

  void* raw_data() const { return buffer_ ? buffer_->data() : nullptr; }
  template <typename T>
  T* data() const {
    return static_cast<T*>(raw_data());
  }
  const RefPtr<Buffer>& buffer() const { return buffer_; }
  // True when this Tensor's buffer is engine-owned and referenced only once.
  bool CanReuseBuffer() const { return buffer_ && buffer_->owned() && buffer_->RefCountIsOne(); }

  // Drops the reference to the buffer (the tensor is then not initialized), keeping the shape's
  // storage for reuse by a later assignment.
  void ReleaseBuffer() { buffer_.reset(); }

  // Same buffer viewed with a new shape of equal element count.
  Tensor Reshaped(TensorShape shape) const { return Tensor(dtype_, std::move(shape), buffer_); }

  // "Tensor<float, [2,3]>" plus up to `max_entries` values.
  std::string DebugString(int max_entries = 8) const;

 private:
  DataType dtype_ = DT_INVALID;
  TensorShape shape_;
  RefPtr<Buffer> buffer_;
};

}  // namespace tx

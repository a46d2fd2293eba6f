#include "tensorflux/core/object_types.h"

#include <atomic>
#include <cstring>
#include <memory>

namespace tx {
namespace {

// Indexed by DataType; zero-initialized before any dynamic initializer runs, so registration
// order between translation units does not matter.
std::atomic<const ObjectElementOps*> g_ops[kLastDataType + 1];

// One default-constructed element, destroyed with the holder.
class DefaultElement {
 public:
  explicit DefaultElement(const ObjectElementOps* ops)
      : ops_(ops),
        storage_(new std::max_align_t[(ops->element_size + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t)]) {
    ops_->construct(storage_.get(), 1);
  }
  ~DefaultElement() { ops_->destroy(storage_.get(), 1); }
  const void* get() const { return storage_.get(); }

 private:
  const ObjectElementOps* ops_;
  std::unique_ptr<std::max_align_t[]> storage_;
};

// Buffer deallocator of AllocateObjectBuffer: destroys the elements, then frees the memory.
void DestroyObjects(void* data, size_t size, void* arg) {
  const auto* ops = static_cast<const ObjectElementOps*>(arg);
  ops->destroy(data, static_cast<int64_t>(size / ops->element_size));
  BufferAllocator::Global()->Deallocate(data, size);
}

}  // namespace

Buffer* AllocateObjectBuffer(DataType dtype, int64_t n) {
  const ObjectElementOps* ops = ObjectOpsFor(dtype);
  if (ops == nullptr || n < 0 || static_cast<uint64_t>(n) > SIZE_MAX / ops->element_size) return nullptr;
  const size_t size = static_cast<size_t>(n) * ops->element_size;
  void* p = BufferAllocator::Global()->Allocate(size);
  if (p == nullptr) return nullptr;
  ops->construct(p, n);
  return Buffer::Wrap(p, size, DestroyObjects, const_cast<ObjectElementOps*>(ops));
}

Status DeepCopyTensor(const Tensor& src, Tensor* out) {
  Tensor copy;
  TX_RETURN_IF_ERROR(Tensor::Allocate(src.dtype(), src.shape(), &copy));
  if (src.initialized()) CopyElements(src.dtype(), src.raw_data(), copy.raw_data(), src.num_elements());
  *out = std::move(copy);
  return Status::OK();
}

const ObjectElementOps* ObjectOpsFor(DataType dt) {
  const int v = static_cast<int>(dt);
  if (v < 0 || v > kLastDataType) return nullptr;
  return g_ops[v].load(std::memory_order_acquire);
}

bool RegisterObjectElementOps(DataType dt, const ObjectElementOps* ops) {
  g_ops[static_cast<int>(dt)].store(ops, std::memory_order_release);
  return true;
}

void CopyElements(DataType dt, const void* src, void* dst, int64_t n) {
  if (n <= 0) return;
  if (const ObjectElementOps* ops = ObjectOpsFor(dt)) {
    ops->copy(src, dst, n);
  } else {
    std::memcpy(dst, src, static_cast<size_t>(n) * DataTypeSize(dt));
  }
}

void GatherElements(DataType dt, const void* src, const int64_t* index, int64_t n, void* dst, const void* pad) {
  const ObjectElementOps* ops = ObjectOpsFor(dt);
  const size_t es = DataTypeSize(dt);
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  std::unique_ptr<DefaultElement> default_pad;
  for (int64_t i = 0; i < n; ++i) {
    const void* from;
    if (index[i] >= 0) {
      from = s + static_cast<size_t>(index[i]) * es;
    } else {
      if (pad == nullptr) {
        if (ops == nullptr) {
          std::memset(d + static_cast<size_t>(i) * es, 0, es);
          continue;
        }
        default_pad = std::make_unique<DefaultElement>(ops);
        pad = default_pad->get();
      }
      from = pad;
    }
    if (ops != nullptr)
      ops->copy(from, d + static_cast<size_t>(i) * es, 1);
    else
      std::memcpy(d + static_cast<size_t>(i) * es, from, es);
  }
}

}  // namespace tx

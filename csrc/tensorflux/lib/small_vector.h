// SmallVector: a vector of trivially copyable elements whose first N live inside the object, so
// short lists cost no heap allocation (the Example parser decodes each feature into them).
#ifndef TENSORFLUX_LIB_SMALL_VECTOR_H_
#define TENSORFLUX_LIB_SMALL_VECTOR_H_

#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>

namespace tx {

template <typename T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable<T>::value, "SmallVector holds trivially copyable elements");

 public:
  SmallVector() = default;
  SmallVector(const SmallVector&) = delete;
  SmallVector& operator=(const SmallVector&) = delete;

  size_t size() const { return size_; }
  T* data() { return heap_ ? heap_.get() : inline_; }
  const T* data() const { return heap_ ? heap_.get() : inline_; }
  const T& operator[](size_t i) const { return data()[i]; }

  // Appends `v`.
  void push_back(const T& v) {
    Reserve(size_ + 1);
    data()[size_++] = v;
  }
  // Makes the size `n`; new elements are uninitialized.
  void resize(size_t n) {
    Reserve(n);
    size_ = n;
  }

 private:
  void Reserve(size_t n) {
    const size_t capacity = heap_ ? capacity_ : N;
    if (n <= capacity) return;
    const size_t grown = n > 2 * capacity ? n : 2 * capacity;
    std::unique_ptr<T[]> bigger(new T[grown]);
    if (size_ > 0) std::memcpy(bigger.get(), data(), size_ * sizeof(T));
    heap_ = std::move(bigger);
    capacity_ = grown;
  }

  T inline_[N];
  std::unique_ptr<T[]> heap_;
  size_t capacity_ = 0;
  size_t size_ = 0;
};

}  // namespace tx

#endif  // TENSORFLUX_LIB_SMALL_VECTOR_H_

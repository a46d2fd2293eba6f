// Intrusive reference counting for objects shared across threads.
#pragma once

#include <atomic>
#include <utility>

namespace tx {

// Base class for intrusively refcounted objects; starts with one reference.
class RefCounted {
 public:
  void Ref() const { ref_.fetch_add(1, std::memory_order_relaxed); }
  // Drops one reference and deletes the object when it was the last.
  void Unref() const {
    if (ref_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  // True when the caller holds the only reference (safe to mutate in place).
  bool RefCountIsOne() const { return ref_.load(std::memory_order_acquire) == 1; }

 protected:
  RefCounted() = default;
  virtual ~RefCounted() = default;

 private:
  mutable std::atomic<int> ref_{1};
};

// Smart pointer holding one reference to a RefCounted object.
template <typename T>
class RefPtr {
 public:
  RefPtr() = default;
  // Adopts the reference the caller holds on `p`.
  static RefPtr Adopt(T* p) {
    RefPtr r;
    r.p_ = p;
    return r;
  }
  RefPtr(const RefPtr& o) : p_(o.p_) {
    if (p_) p_->Ref();
  }
  RefPtr(RefPtr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  RefPtr& operator=(RefPtr o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~RefPtr() {
    if (p_) p_->Unref();
  }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }
  void reset() {
    if (p_) p_->Unref();
    p_ = nullptr;
  }

 private:
  T* p_ = nullptr;
};

}  // namespace tx

// Variant: the element type of DT_VARIANT tensors, one value of any C++ type that has a
// `static constexpr const char* kTypeName` and a `std::string DebugString() const` (the engine's
// only one today is TensorList, kernels/cpu/tensor_list.h). Registered as an object element type
// (Note [Object element types] in object_types.h): variant tensors construct, copy and destroy
// their elements, and copying a Variant copies the value it holds.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace tx {

class Variant {
 public:
  // An empty variant (what Tensor::Allocate makes).
  Variant() = default;
  // Holds `value` (moved in).
  template <typename T, typename = std::enable_if_t<!std::is_same_v<std::decay_t<T>, Variant>>>
  explicit Variant(T&& value) : value_(std::make_unique<Value<std::decay_t<T>>>(std::forward<T>(value))) {}
  Variant(const Variant& o) : value_(o.value_ ? o.value_->Clone() : nullptr) {}
  Variant(Variant&&) noexcept = default;
  Variant& operator=(const Variant& o) {
    if (this != &o) value_ = o.value_ ? o.value_->Clone() : nullptr;
    return *this;
  }
  Variant& operator=(Variant&&) noexcept = default;

  bool empty() const { return value_ == nullptr; }
  // The held value when it is a T, else nullptr.
  template <typename T>
  T* get() {
    return value_ && value_->type() == &Tag<T>::id ? &static_cast<Value<T>*>(value_.get())->value : nullptr;
  }
  template <typename T>
  const T* get() const {
    return value_ && value_->type() == &Tag<T>::id ? &static_cast<const Value<T>*>(value_.get())->value : nullptr;
  }
  // The held type's kTypeName ("" when empty), and a description of the value for messages.
  const char* TypeName() const { return value_ ? value_->TypeName() : ""; }
  std::string DebugString() const { return value_ ? value_->DebugString() : std::string("(empty variant)"); }

 private:
  template <typename T>
  struct Tag {
    static constexpr char id = 0;
  };
  struct ValueBase {
    virtual ~ValueBase() = default;
    virtual std::unique_ptr<ValueBase> Clone() const = 0;
    virtual const void* type() const = 0;
    virtual const char* TypeName() const = 0;
    virtual std::string DebugString() const = 0;
  };
  template <typename T>
  struct Value final : ValueBase {
    explicit Value(T v) : value(std::move(v)) {}
    std::unique_ptr<ValueBase> Clone() const override { return std::make_unique<Value<T>>(value); }
    const void* type() const override { return &Tag<T>::id; }
    const char* TypeName() const override { return T::kTypeName; }
    std::string DebugString() const override { return value.DebugString(); }
    T value;
  };
  std::unique_ptr<ValueBase> value_;
};

}  // namespace tx

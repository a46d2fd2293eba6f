#include "tensorflux/gradients/gradient_registry.h"

#include <cstdio>
#include <cstdlib>

namespace tx {

GradContext::GradContext(GradScope* scope, std::string op_type, const AttrMap* attrs, std::vector<GValue> inputs,
                         std::vector<GValue> outputs, std::vector<GValue> output_grads, std::vector<bool> needs_grad)
    : scope_(scope),
      op_type_(std::move(op_type)),
      attrs_(attrs),
      inputs_(std::move(inputs)),
      outputs_(std::move(outputs)),
      output_grads_(std::move(output_grads)),
      needs_grad_(std::move(needs_grad)),
      input_grads_(inputs_.size()) {}

const AttrValue& GradContext::attr(const std::string& name) {
  static const AttrValue kEmpty;
  auto it = attrs_->find(name);
  if (it == attrs_->end()) {
    scope_->Fail(Internal("gradient of ", op_type_, " reads attr '", name, "', which the op does not have"));
    return kEmpty;
  }
  return it->second;
}

GValue GradContext::grad(int i) {
  if (output_grads_[i].valid()) return output_grads_[i];
  if (!IsDifferentiableType(scope_->dtype(outputs_[i]))) return GValue();
  output_grads_[i] = scope_->ZerosLike(outputs_[i]);
  return output_grads_[i];
}

GradientRegistry* GradientRegistry::Global() {
  static GradientRegistry* registry = new GradientRegistry;
  return registry;
}

void GradientRegistry::Register(const std::string& op, GradFn fn) {
  std::lock_guard<std::mutex> l(mu_);
  if (!entries_.emplace(op, Entry{fn}).second) {
    std::fprintf(stderr, "tensorflux: op %s has two gradient registrations\n", op.c_str());
    std::abort();
  }
}

Status GradientRegistry::TryRegister(const std::string& op, GradFn fn) {
  std::lock_guard<std::mutex> l(mu_);
  if (!entries_.emplace(op, Entry{std::move(fn)}).second)
    return AlreadyExists("op ", op, " already has a gradient or a not-differentiable declaration");
  return Status::OK();
}

const GradientRegistry::Entry* GradientRegistry::LookUp(const std::string& op) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = entries_.find(op);
  return it == entries_.end() ? nullptr : &it->second;
}

std::map<std::string, bool> GradientRegistry::All() const {
  std::lock_guard<std::mutex> l(mu_);
  std::map<std::string, bool> out;
  for (const auto& [name, e] : entries_) out[name] = e.fn != nullptr;
  return out;
}

bool IsDifferentiableType(DataType dt) {
  // DT_VARIANT: a TensorList, whose gradient is the list of its elements' gradients (list_grad.cc).
  return dt == DT_FLOAT || dt == DT_DOUBLE || dt == DT_HALF || dt == DT_BFLOAT16 || dt == DT_COMPLEX64 ||
      dt == DT_COMPLEX128 || dt == DT_VARIANT;
}

}  // namespace tx

#include "tensorflux/eager/eager_grad_builder.h"

#include "tensorflux/gradients/gradient_registry.h"

namespace tx {

GValue EagerGradBuilder::Wrap(const EagerTensor& t) {
  values_.push_back(t);
  is_constant_.push_back(false);
  return GValue(static_cast<int>(values_.size()) - 1);
}

void EagerGradBuilder::Release(GValue v) {
  if (v.valid() && v.id() < num_values()) values_[v.id()] = EagerTensor();
}

Status EagerGradBuilder::AddOp(const std::string& type, const std::vector<std::vector<GValue>>& inputs,
                               const AttrMap& attrs, std::vector<GValue>* outputs) {
  const OpDef* op_def = nullptr;
  TX_RETURN_IF_ERROR(GradientOpDef(type, inputs.size(), &op_def));
  const OpDef& def = *op_def;
  TX_RETURN_IF_ERROR(op_.Reset(type.c_str(), ctx_->device_name(device_).c_str()));
  // Relabel inputs living on another device (Note [Gradient placement]); scratch_ is sized first
  // so the pointers taken into it stay valid.
  size_t total = 0;
  for (const auto& group : inputs) total += group.size();
  scratch_.resize(total);
  size_t flat = 0;
  for (size_t a = 0; a < inputs.size(); ++a) {
    const bool is_list = !def.input_arg[a].number_attr.empty() || !def.input_arg[a].type_list_attr.empty();
    list_scratch_.clear();
    for (const GValue& v : inputs[a]) {
      EagerTensor& t = scratch_[flat++];
      t = values_[v.id()];
      t.device = device_;
      list_scratch_.push_back(&t);
    }
    if (is_list) {
      op_.AddInputList(list_scratch_.data(), static_cast<int>(list_scratch_.size()));
    } else if (list_scratch_.size() == 1) {
      op_.AddInput(*list_scratch_[0]);
    } else {
      return Internal("a gradient function gave ", type, "'s input '", def.input_arg[a].name, "' ",
                      list_scratch_.size(), " values; it takes one");
    }
  }
  for (const auto& kv : attrs) op_.SetAttr(kv.first, kv.second);
  std::vector<EagerTensor> outs;
  Status s = op_.Execute(&outs);
  scratch_.clear();
  TX_RETURN_IF_ERROR(s);
  outputs->clear();
  for (const EagerTensor& t : outs) outputs->push_back(Wrap(t));
  return Status::OK();
}

Status EagerGradBuilder::Constant(const Tensor& value, GValue* out) {
  if (!value.initialized() && value.num_elements() > 0) return Internal("a gradient constant holds no data");
  EagerTensor t;
  t.tensor = value;
  t.device = device_;
  t.id = NewEagerTensorId();
  *out = Wrap(t);
  is_constant_[out->id()] = true;
  return Status::OK();
}

const Tensor* EagerGradBuilder::constant_value(GValue v) const {
  // Note [Eager constant values] (eager_grad_builder.h).
  const EagerTensor& t = values_[v.id()];
  const DataType dt = t.tensor.dtype();
  if (!t.tensor.initialized() || dt == DT_RESOURCE || dt == DT_VARIANT) return nullptr;
  if (is_constant_[v.id()] || !IsDifferentiableType(dt)) return &t.tensor;
  return nullptr;
}

}  // namespace tx

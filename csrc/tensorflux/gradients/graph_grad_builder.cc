#include "tensorflux/gradients/graph_grad_builder.h"

namespace tx {

GValue GraphGradBuilder::Wrap(Endpoint e) {
  values_.push_back(e);
  return GValue(static_cast<int>(values_.size()) - 1);
}

void GraphGradBuilder::SetScope(const std::string& scope, const std::string& device) {
  scope_ = prefix_ + "/" + scope;
  device_ = device;
}

Status GraphGradBuilder::AddOp(const std::string& type, const std::vector<std::vector<GValue>>& inputs,
                               const AttrMap& attrs, std::vector<GValue>* outputs) {
  const OpDef* op_def = nullptr;
  TX_RETURN_IF_ERROR(GradientOpDef(type, inputs.size(), &op_def));
  const OpDef& def = *op_def;
  NodeSpec spec;
  spec.name = graph_->UniqueName(scope_ + "/" + type);
  spec.op_type = type;
  spec.device = device_;
  spec.attrs = attrs;
  for (size_t a = 0; a < inputs.size(); ++a) {
    NodeSpec::InputArg arg;
    arg.is_list = !def.input_arg[a].number_attr.empty() || !def.input_arg[a].type_list_attr.empty();
    for (const GValue& v : inputs[a]) arg.values.push_back(Unwrap(v));
    spec.inputs.push_back(std::move(arg));
  }
  Node* node = nullptr;
  TX_RETURN_IF_ERROR(graph_->AddNode(std::move(spec), &node));
  outputs->clear();
  for (int i = 0; i < node->num_outputs(); ++i) outputs->push_back(Wrap({node, i}));
  return Status::OK();
}

Status GraphGradBuilder::Constant(const Tensor& value, GValue* out) {
  NodeSpec spec;
  spec.name = graph_->UniqueName(scope_ + "/Const");
  spec.op_type = "Const";
  spec.device = device_;
  spec.attrs["value"] = AttrValue::FromTensor(value);
  spec.attrs["dtype"] = AttrValue::Type(value.dtype());
  Node* node = nullptr;
  TX_RETURN_IF_ERROR(graph_->AddNode(std::move(spec), &node));
  *out = Wrap({node, 0});
  return Status::OK();
}

DataType GraphGradBuilder::dtype(GValue v) const {
  const Endpoint& e = values_[v.id()];
  return e.node->output_type(e.index);
}

PartialShape GraphGradBuilder::shape(GValue v) const { return graph_->OutputShape(values_[v.id()]); }

const Tensor* GraphGradBuilder::constant_value(GValue v) const {
  const Endpoint& e = values_[v.id()];
  if (e.node->op_type() != "Const") return nullptr;
  const AttrValue* a = e.node->attr("value");
  return a != nullptr && a->kind == AttrValue::Kind::kTensor ? &a->tensor : nullptr;
}

}  // namespace tx

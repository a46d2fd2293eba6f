#include "tensorflux/runtime/op_kernel.h"

#include <algorithm>

#include "tensorflux/core/object_types.h"
#include "tensorflux/runtime/node_status.h"

// Note [Buffer forwarding]
// The executor moves a tensor into a kernel's input array when that kernel is its last reader
// and the tensor is neither fed nor fetched. If the buffer is engine-allocated and its refcount
// is one, an elementwise kernel may write its output into it (forward_input_or_allocate_output),
// saving an allocation and keeping the working set in cache. Wrapped caller memory (a fed NumPy
// array) is never reused: the caller still owns it, nor is a buffer of object elements (strings):
// a kernel writing raw bytes there would leak or corrupt them (Note [Object element types]).

namespace tx {

namespace {
const AttrValue* FindAttr(const Node& n, const std::string& name, AttrValue::Kind kind, Status* s) {
  const AttrValue* v = n.attr(name);
  if (v == nullptr || v->kind != kind) {
    *s = InvalidArgument("[", n.name(), "] attr '", name, "' is missing or has the wrong kind");
    return nullptr;
  }
  return v;
}
}  // namespace

#define TX_KERNEL_ATTR(TYPE, KIND, FIELD)                                          \
  Status OpKernelConstruction::GetAttr(const std::string& name, TYPE* out) const { \
    Status s;                                                                      \
    const AttrValue* v = FindAttr(*node_, name, AttrValue::Kind::KIND, &s);        \
    if (v) *out = v->FIELD;                                                        \
    return s;                                                                      \
  }
TX_KERNEL_ATTR(bool, kBool, b)
TX_KERNEL_ATTR(int64_t, kInt, i)
TX_KERNEL_ATTR(float, kFloat, f)
TX_KERNEL_ATTR(DataType, kType, type)
TX_KERNEL_ATTR(std::string, kString, s)
TX_KERNEL_ATTR(Tensor, kTensor, tensor)
TX_KERNEL_ATTR(PartialShape, kShape, shape)
TX_KERNEL_ATTR(std::vector<int64_t>, kList, list.i)
#undef TX_KERNEL_ATTR

Status OpKernelContext::allocate_output(int i, const TensorShape& shape, Tensor** out) {
  TX_RETURN_IF_ERROR(Tensor::Allocate(node_->output_type(i), shape, &outputs_[i]));
  *out = &outputs_[i];
  return Status::OK();
}

Status OpKernelContext::forward_input_or_allocate_output(int in, int out, const TensorShape& shape, Tensor** result) {
  Tensor& src = inputs_[in];
  if (src.CanReuseBuffer() && src.dtype() == node_->output_type(out) && ObjectOpsFor(src.dtype()) == nullptr &&
      src.buffer()->size() == static_cast<size_t>(shape.num_elements()) * DataTypeSize(src.dtype())) {
    outputs_[out] = Tensor(src.dtype(), shape, src.buffer());
    *result = &outputs_[out];
    return Status::OK();
  }
  return allocate_output(out, shape, result);
}

KernelRegistry* KernelRegistry::Global() {
  static KernelRegistry* r = new KernelRegistry();
  return r;
}

void KernelRegistry::Register(KernelRegistration reg) {
  std::lock_guard<std::mutex> l(mu_);
  regs_.push_back(std::move(reg));
}

const KernelRegistration* KernelRegistry::Find(const Node* node, const std::string& device_type) const {
  // The matching registration with the most type constraints: a kernel registered for one dtype
  // (a variant TensorList's ZerosLike) wins over one registered for every dtype.
  std::lock_guard<std::mutex> l(mu_);
  const KernelRegistration* best = nullptr;
  for (const KernelRegistration& r : regs_) {
    if (r.op != node->op_type() || r.device != device_type) continue;
    bool match = std::all_of(r.type_constraints.begin(), r.type_constraints.end(), [&](const auto& c) {
      const AttrValue* v = node->attr(c.first);
      return v != nullptr && v->kind == AttrValue::Kind::kType && v->type == c.second;
    });
    if (match && (best == nullptr || r.type_constraints.size() > best->type_constraints.size())) best = &r;
  }
  return best;
}

bool KernelRegistry::HasKernel(const Node* node, const std::string& device_type) const {
  return Find(node, device_type) != nullptr;
}

// Note [Missing kernel message]
// "[node] Op has no CPU kernel for half": the dtype named is the value of the first type attr (in
// OpDef order) that no registration of the op on that device accepts; when each value alone has
// kernels but their combination has none, every type attr is listed ("SrcT=half, DstT=int8").
std::string KernelRegistry::MissingKernelMessage(const Node* node, const std::string& device_type) const {
  std::vector<std::pair<std::string, DataType>> types;
  for (const AttrDef& a : node->op_def().attr) {
    const AttrValue* v = node->attr(a.name);
    if (v != nullptr && v->kind == AttrValue::Kind::kType) types.emplace_back(a.name, v->type);
  }
  std::string msg = "[" + node->name() + "] " + node->op_type() + " has no " + device_type + " kernel";
  if (types.empty()) return msg;
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& [attr, type] : types) {
    const bool accepted = std::any_of(regs_.begin(), regs_.end(), [&, &attr = attr, type = type](const auto& r) {
      if (r.op != node->op_type() || r.device != device_type) return false;
      for (const auto& c : r.type_constraints)
        if (c.first == attr && c.second != type) return false;
      return true;
    });
    if (!accepted) return msg + " for " + DataTypeString(type);
  }
  std::string all;
  for (const auto& [attr, type] : types) all += (all.empty() ? "" : ", ") + attr + "=" + DataTypeString(type);
  return msg + " for " + all;
}

Status KernelRegistry::CreateKernel(const Node* node, const std::string& device_type,
                                    std::unique_ptr<OpKernel>* out) const {
  const KernelRegistration* r = Find(node, device_type);
  if (r == nullptr) return NotFound(MissingKernelMessage(node, device_type));
  OpKernelConstruction c(node, device_type);
  std::unique_ptr<OpKernel> k(r->factory(&c));
  if (!c.status().ok()) return NamedForNode(node->name(), c.status());
  *out = std::move(k);
  return Status::OK();
}

std::vector<KernelRegistration> KernelRegistry::All() const {
  std::lock_guard<std::mutex> l(mu_);
  return std::vector<KernelRegistration>(regs_.begin(), regs_.end());
}

}  // namespace tx

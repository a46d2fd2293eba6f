#include "tensorflux/eager/eager_op.h"

#include <atomic>
#include <cstring>

#include "tensorflux/core/tstring.h"
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/runtime/device.h"
#include "tensorflux/runtime/profiler.h"

namespace tx {
namespace {

thread_local EagerOpObserver* t_observer = nullptr;

void AppendRaw(std::string* key, const void* p, size_t n) { key->append(static_cast<const char*>(p), n); }

template <typename T>
void AppendPod(std::string* key, T v) {
  AppendRaw(key, &v, sizeof v);
}

void AppendString(std::string* key, std::string_view s) {
  AppendPod<uint64_t>(key, s.size());
  key->append(s.data(), s.size());
}

void AppendShape(std::string* key, const PartialShape& s) {
  AppendPod<int32_t>(key, s.rank());
  if (s.known_rank())
    for (int d = 0; d < s.rank(); ++d) AppendPod<int64_t>(key, s.dim(d));
}

void AppendTensor(std::string* key, const Tensor& t) {
  AppendPod<int32_t>(key, t.dtype());
  AppendShape(key, PartialShape(t.shape()));
  if (!t.initialized()) return;
  if (t.dtype() == DT_STRING) {  // the strings' bytes, not their (pointer-holding) representations
    for (int64_t i = 0; i < t.num_elements(); ++i) AppendString(key, t.data<TString>()[i].view());
    return;
  }
  AppendRaw(key, t.raw_data(), t.byte_size());
}

// An unambiguous serialization of `v` for kernel cache keys.
void AppendAttr(std::string* key, const AttrValue& v) {
  using K = AttrValue::Kind;
  AppendPod<int8_t>(key, static_cast<int8_t>(v.kind));
  switch (v.kind) {
    case K::kString:
    case K::kPlaceholder: AppendString(key, v.s); break;
    case K::kInt: AppendPod(key, v.i); break;
    case K::kFloat: AppendPod(key, v.f); break;
    case K::kBool: AppendPod<int8_t>(key, v.b); break;
    case K::kType: AppendPod<int32_t>(key, v.type); break;
    case K::kShape: AppendShape(key, v.shape); break;
    case K::kTensor: AppendTensor(key, v.tensor); break;
    case K::kFunc:
      AppendString(key, v.func ? v.func->name : "");
      if (v.func)
        for (const auto& kv : v.func->attr) {
          AppendString(key, kv.first);
          AppendAttr(key, kv.second);
        }
      break;
    case K::kList: {
      const auto& l = v.list;
      AppendPod<uint64_t>(key, l.s.size());
      for (const auto& s : l.s) AppendString(key, s);
      AppendPod<uint64_t>(key, l.i.size());
      for (auto i : l.i) AppendPod(key, i);
      AppendPod<uint64_t>(key, l.f.size());
      for (auto f : l.f) AppendPod(key, f);
      AppendPod<uint64_t>(key, l.b.size());
      for (bool b : l.b) AppendPod<int8_t>(key, b);
      AppendPod<uint64_t>(key, l.type.size());
      for (auto t : l.type) AppendPod<int32_t>(key, t);
      AppendPod<uint64_t>(key, l.shape.size());
      for (const auto& s : l.shape) AppendShape(key, s);
      AppendPod<uint64_t>(key, l.tensor.size());
      for (const auto& t : l.tensor) AppendTensor(key, t);
      AppendPod<uint64_t>(key, l.func.size());
      for (const auto& f : l.func) {
        AttrValue a;
        a.kind = K::kFunc;
        a.func = std::make_shared<NameAttrList>(f);
        AppendAttr(key, a);
      }
      break;
    }
    case K::kNone: break;
  }
}

// `s` without a leading "[<op>] " and with TensorFlow's eager suffix " [Op:<op>]".
Status EagerError(const Status& s, const std::string& op) {
  std::string m = s.message();
  const std::string prefix = "[" + op + "] ";
  if (m.rfind(prefix, 0) == 0) m.erase(0, prefix.size());
  return Status(s.code(), m + " [Op:" + op + "]");
}

}  // namespace

int64_t NewEagerTensorId() {
  static std::atomic<int64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

EagerOpObserver* SetThreadEagerOpObserver(EagerOpObserver* obs) {
  EagerOpObserver* old = t_observer;
  t_observer = obs;
  return old;
}

EagerOpObserver* ThreadEagerOpObserver() { return t_observer; }

Status EagerOp::Reset(const char* op_name, const char* device) {
  ReleaseInputs();
  num_inputs_ = 0;
  groups_.clear();
  attrs_.clear();
  attr_key_.clear();
  uncached_ = false;
  if (op_name == nullptr) return InvalidArgument("op name must not be NULL");
  if (reg_ == nullptr || op_name_ != op_name) {
    const OpRegistration* reg = OpRegistry::Global()->LookUp(op_name);
    if (reg == nullptr) {
      reg_ = nullptr;
      op_name_.clear();
      return NotFound("Op type not registered '", op_name, "'");
    }
    reg_ = reg;
    op_name_ = op_name;
    last_.reset();
  }
  return SetDevice(device);
}

void EagerOp::ClearInputs() {
  ReleaseInputs();
  num_inputs_ = 0;
  groups_.clear();
}

Status EagerOp::SetDevice(const char* device) {
  if ((device == nullptr || *device == '\0') && device_request_.empty()) {
    device_ = -1;
    return Status::OK();
  }
  const std::string request = device ? device : "";
  if (request == device_request_ && (device_ >= 0 || request.empty())) return Status::OK();
  int index = -1;
  TX_RETURN_IF_ERROR(ctx_->FindDevice(request, &index, ctx_->soft_placement()));
  device_request_ = request;
  device_ = index;
  return Status::OK();
}

namespace {

// Stores `t` in slot `i` of the parallel input vectors, reusing the slot when it exists.
void PutInput(int i, const EagerTensor& t, std::vector<Tensor>* tensors, std::vector<int>* devices,
              std::vector<int64_t>* ids) {
  if (i < static_cast<int>(tensors->size())) {
    (*tensors)[i] = t.tensor;
    (*devices)[i] = t.device;
    (*ids)[i] = t.id;
  } else {
    tensors->push_back(t.tensor);
    devices->push_back(t.device);
    ids->push_back(t.id);
  }
}

// Runs an eager op's kernel while a profile records (Note [Profiler]): the op becomes one event,
// after the kernels of the function bodies it runs (a tx.function call, If, While).
void ProfiledCompute(const CachedKernel& k, OpKernelContext* kctx, int nout, const Tensor* out) {
  StepStatsCollector stats;
  const int64_t start = NowNanos();
  {
    ScopedStepStats current(&stats);
    k.kernel->Compute(kctx);
  }
  NodeExecStats op;
  op.duration_nanos = NowNanos() - start;
  op.start_nanos = start;
  op.node_name = k.node->op_type();
  op.timeline_label = op.node_name + " = " + op.node_name + "()";
  op.thread_id = CurrentThreadId();
  for (int j = 0; j < nout; ++j)
    if (out[j].initialized())
      op.outputs.push_back({j, out[j].dtype(), out[j].shape(), static_cast<int64_t>(out[j].byte_size())});
  stats.Record(std::move(op));
  profiler::Record(LocalCpuDeviceName(), stats.Take());
}

}  // namespace

void EagerOp::AddInput(const EagerTensor& t) {
  PutInput(num_inputs_++, t, &tensors_, &devices_, &ids_);
  groups_.emplace_back(1, false);
}

void EagerOp::AddInputList(const EagerTensor* const* ts, int n) {
  for (int i = 0; i < n; ++i) PutInput(num_inputs_++, *ts[i], &tensors_, &devices_, &ids_);
  groups_.emplace_back(n, true);
}

void EagerOp::ReleaseInputs() {
  for (int i = 0; i < num_inputs_; ++i) tensors_[i].ReleaseBuffer();
}

void EagerOp::SetAttr(const std::string& name, AttrValue v) {
  AppendString(&attr_key_, name);
  AppendAttr(&attr_key_, v);
  uncached_ |= v.kind == AttrValue::Kind::kTensor || !v.list.tensor.empty() ||
      (name == "shared_name" && v.kind == AttrValue::Kind::kString && !v.s.empty());
  attrs_[name] = std::move(v);
}

Status EagerOp::AttrTypeString(const std::string& name, std::string* out) const {
  if (reg_ == nullptr) return FailedPrecondition("the op has no type yet");
  const AttrDef* a = reg_->def.FindAttr(name);
  if (a == nullptr) return NotFound("Op ", op_name_, " has no attr named '", name, "'");
  *out = a->type;
  return Status::OK();
}

Status EagerOp::PickDevice(int* device) const {
  int d = device_ >= 0 ? device_ : (num_inputs_ == 0 ? 0 : devices_[0]);
  for (int i = 0; i < num_inputs_; ++i) {
    if (devices_[i] == d) continue;
    // Every logical device shares host memory, so a "copy" shares the buffer; the policy only
    // decides whether mixing devices without an explicit copy is allowed.
    const PlacementPolicy p = ctx_->policy();
    const bool silent = p == PlacementPolicy::kSilent || p == PlacementPolicy::kWarn ||
        (p == PlacementPolicy::kSilentForInt32 && tensors_[i].dtype() == DT_INT32);
    if (!silent)
      return InvalidArgument("Tensors on conflicting devices: input ", i, " of ", op_name_, " is on ",
                             ctx_->device_name(devices_[i]), " but the op runs on ", ctx_->device_name(d),
                             "; copy it first (TXE_TensorHandleCopyToDevice / tx.identity under tx.device) or use "
                             "the SILENT device placement policy");
  }
  *device = d;
  return Status::OK();
}

Status EagerOp::BuildKernel(std::shared_ptr<const CachedKernel>* out) const {
  auto k = std::make_shared<CachedKernel>();
  k->graph = std::make_unique<Graph>(ctx_->shared_library());
  NodeSpec spec;
  spec.name = op_name_;
  spec.op_type = op_name_;
  spec.attrs = attrs_;
  int flat = 0;
  for (const auto& grp : groups_) {
    NodeSpec::InputArg arg;
    arg.is_list = grp.second;
    for (int j = 0; j < grp.first; ++j, ++flat) {
      NodeSpec ph;
      ph.name = "input_" + std::to_string(flat);
      ph.op_type = "Placeholder";
      ph.attrs["dtype"] = AttrValue::Type(tensors_[flat].dtype());
      Node* n = nullptr;
      TX_RETURN_IF_ERROR(k->graph->AddNode(std::move(ph), &n));
      arg.values.push_back(Endpoint{n, 0});
    }
    spec.inputs.push_back(std::move(arg));
  }
  Node* node = nullptr;
  TX_RETURN_IF_ERROR(k->graph->AddNode(std::move(spec), &node));
  TX_RETURN_IF_ERROR(KernelRegistry::Global()->CreateKernel(node, kDeviceCPU, &k->kernel));
  k->node = node;
  *out = std::move(k);
  return Status::OK();
}

bool EagerOp::SameSignatureAsLast(int device) const {
  if (!last_ || reg_ != last_reg_ || device != last_device_ || num_inputs_ != static_cast<int>(last_dtypes_.size()) ||
      groups_ != last_groups_ || attr_key_ != last_attr_key_ || last_generation_ != ctx_->cache_generation())
    return false;
  for (int i = 0; i < num_inputs_; ++i)
    if (tensors_[i].dtype() != last_dtypes_[i]) return false;
  return true;
}

void EagerOp::RememberSignature(int device) {
  last_reg_ = reg_;
  last_device_ = device;
  last_generation_ = ctx_->cache_generation();
  last_dtypes_.resize(num_inputs_);
  for (int i = 0; i < num_inputs_; ++i) last_dtypes_[i] = tensors_[i].dtype();
  last_groups_ = groups_;
  last_attr_key_ = attr_key_;
}

Status EagerOp::KernelFor(int device, std::shared_ptr<const CachedKernel>* out) {
  if (SameSignatureAsLast(device)) {
    *out = last_;
    return Status::OK();
  }
  key_.clear();
  key_.append(op_name_);
  key_.push_back('\0');
  AppendPod<int32_t>(&key_, device);
  for (const auto& grp : groups_) AppendPod<int32_t>(&key_, grp.second ? grp.first : -1);
  for (int i = 0; i < num_inputs_; ++i) AppendPod<int8_t>(&key_, static_cast<int8_t>(tensors_[i].dtype()));
  key_.append(attr_key_);
  std::shared_ptr<const CachedKernel> k = uncached_ ? nullptr : ctx_->FindKernel(key_);
  if (!k) {
    TX_RETURN_IF_ERROR(BuildKernel(&k));
    // Ops with one-off attrs would fill the context's cache with one kernel per value.
    if (!uncached_) k = ctx_->AddKernel(key_, std::move(k));
  }
  last_ = k;
  RememberSignature(device);
  *out = std::move(k);
  return Status::OK();
}

Status EagerOp::Execute(std::vector<EagerTensor>* outputs, int max_outputs, const CancellationToken* cancel) {
  outputs->clear();
  if (reg_ == nullptr) return FailedPrecondition("TXE_Execute: the op has no type (a failed TXE_OpReset?)");
  int device = 0;
  Status s = PickDevice(&device);
  if (!s.ok()) return EagerError(s, op_name_);
  std::shared_ptr<const CachedKernel> k;
  s = KernelFor(device, &k);
  if (!s.ok()) return EagerError(s, op_name_);

  const Node* node = k->node;
  const int nin = node->num_inputs(), nout = node->num_outputs();
  if (nin != num_inputs_) return EagerError(Internal("expected ", nin, " inputs, got ", num_inputs_), op_name_);
  if (max_outputs >= 0 && nout > max_outputs)  // checked before running: a retry must not run it twice
    return InvalidArgument("TXE_Execute: ", op_name_, " has ", nout, " outputs but retvals has room for ", max_outputs);
  for (int i = 0; i < nin; ++i)
    if (!tensors_[i].initialized() && node->input_type(i) != DT_RESOURCE)
      return EagerError(InvalidArgument("input ", i, " holds no value"), op_name_);
  constexpr int kInline = 8;
  Tensor out_small[kInline];
  std::vector<Tensor> out_big;
  Tensor* out = out_small;
  if (nout > kInline) {
    out_big.resize(nout);
    out = out_big.data();
  }
  OpKernelContext kctx(node, tensors_.data(), out, ctx_->intra_op_pool());
  kctx.set_resource_manager(ctx_->resources());
  kctx.set_cancellation(cancel);
  if (cancel != nullptr && cancel->cancelled()) return EagerError(cancel->status(), op_name_);
  if (profiler::Active())
    ProfiledCompute(*k, &kctx, nout, out);
  else
    k->kernel->Compute(&kctx);
  s = kctx.status();
  for (int j = 0; s.ok() && j < nout; ++j) {
    if (!out[j].initialized())
      s = Internal("kernel did not produce output ", j);
    else if (out[j].dtype() != node->output_type(j))
      s = Internal("kernel produced a ", DataTypeString(out[j].dtype()), " output ", j, ", expected ",
                   DataTypeString(node->output_type(j)));
  }
  if (!s.ok()) return EagerError(s, op_name_);
  outputs->resize(nout);
  for (int j = 0; j < nout; ++j) {
    EagerTensor& o = (*outputs)[j];
    o.tensor = std::move(out[j]);
    o.device = device;
    o.id = NewEagerTensorId();
  }
  if (t_observer != nullptr) {
    std::vector<EagerTensor> inputs(num_inputs_);
    for (int i = 0; i < num_inputs_; ++i) inputs[i] = input(i);
    t_observer->OnExecuted(ctx_, *node, inputs, *outputs);
  }
  return Status::OK();
}

}  // namespace tx

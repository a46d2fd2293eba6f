// Backprop over a tape's records: the eager counterpart of symbolic_gradients.cc, calling the same
// registered gradient functions through an EagerGradBuilder.
#include <unordered_map>
#include <unordered_set>

#include "tensorflux/eager/eager_grad_builder.h"
#include "tensorflux/eager/tape.h"
#include "tensorflux/gradients/gradient_registry.h"
#include "tensorflux/runtime/resource_mgr.h"

namespace tx {
namespace {

// The gradients waiting for each tensor id, with a count of pending uses per GValue so that
// intermediate values are released as soon as nothing pending refers to them (Note [Tape memory]).
class PendingGrads {
 public:
  explicit PendingGrads(EagerGradBuilder* b) : b_(b) {}

  void Add(int64_t id, GValue g) {
    by_id_[id].push_back(g);
    Ref(g, 1);
  }
  // Removes and returns the gradients waiting for `id` (empty when none).
  std::vector<GValue> Take(int64_t id) {
    auto it = by_id_.find(id);
    if (it == by_id_.end()) return {};
    std::vector<GValue> gs = std::move(it->second);
    by_id_.erase(it);
    for (GValue g : gs) Ref(g, -1);
    return gs;
  }
  // Releases the values made from `from` on, and those in `also`, that nothing pending uses.
  void ReleaseUnused(int from, const std::vector<GValue>& also) {
    for (int id = from; id < b_->num_values(); ++id)
      if (Refs(id) == 0) b_->Release(GValue(id));
    for (GValue g : also)
      if (Refs(g.id()) == 0) b_->Release(g);
  }

 private:
  void Ref(GValue g, int delta) {
    if (g.id() >= static_cast<int>(refs_.size())) refs_.resize(b_->num_values(), 0);
    refs_[g.id()] += delta;
  }
  int Refs(int id) const { return id < static_cast<int>(refs_.size()) ? refs_[id] : 0; }

  EagerGradBuilder* b_;
  std::unordered_map<int64_t, std::vector<GValue>> by_id_;
  std::vector<int> refs_;
};

struct Sweep {
  EagerContext* ctx;
  EagerGradBuilder* b;
  GradScope* scope;
  PendingGrads* pending;
  std::unordered_set<int64_t> from_source, to_target, sources;
};

// Runs the gradient function of `r` (a registered one or a custom one) and returns the input
// gradients it made, "no value" for inputs that get none.
Status InputGrads(Sweep& w, const TapeRecord& r, const std::vector<GValue>& out_grads, const std::vector<bool>& needs,
                  std::vector<GValue>* dxs) {
  EagerGradBuilder& b = *w.b;
  const int nin = static_cast<int>(r.inputs.size());
  if (r.custom) {
    std::vector<const EagerTensor*> dys;
    for (GValue g : out_grads) dys.push_back(g.valid() ? &b.Unwrap(g) : nullptr);
    std::vector<std::optional<EagerTensor>> got(nin);
    TX_RETURN_IF_ERROR(r.custom->Compute(w.ctx, dys, &got).WithPrefix("custom gradient: "));
    if (static_cast<int>(got.size()) != nin)
      return Internal("custom gradient returned ", got.size(), " gradients for ", nin, " inputs");
    dxs->assign(nin, GValue());
    for (int j = 0; j < nin; ++j)
      if (got[j] && needs[j]) (*dxs)[j] = b.Wrap(*got[j]);
    return Status::OK();
  }
  const GradientRegistry::Entry* entry = GradientRegistry::Global()->LookUp(r.op_type);
  if (entry == nullptr)
    return NotFound("No gradient defined for op '", r.op_type,
                    "': it has neither a registered gradient nor a not-differentiable declaration [Op:", r.op_type,
                    "]");
  std::vector<GValue> inputs, outputs;
  for (const EagerTensor& t : r.inputs) inputs.push_back(b.Wrap(t));
  for (const EagerTensor& t : r.outputs) outputs.push_back(b.Wrap(t));
  GradContext g(w.scope, r.op_type, &r.attrs, inputs, outputs, out_grads, needs);
  Status s = entry->fn(g);
  if (s.ok()) s = w.scope->status();
  if (!s.ok()) return Status(s.code(), "gradient of " + r.op_type + ": " + s.message());
  *dxs = g.input_grads();
  return Status::OK();
}

// Checks that `dx`, the gradient made for input j of `r`, fits that input.
Status CheckInputGrad(const EagerGradBuilder& b, const TapeRecord& r, int j, GValue dx) {
  const Tensor& in = r.inputs[j].tensor;
  const DataType dt = b.dtype(dx);
  const std::string what = (r.custom ? "custom gradient" : "gradient of " + r.op_type) + " input " + std::to_string(j);
  if (in.dtype() == DT_RESOURCE) {
    if (!IsDifferentiableType(dt))
      return InvalidArgument(what, " (a variable handle) has type ", DataTypeString(dt), ", expected a floating type");
    return Status::OK();
  }
  if (dt != in.dtype())
    return InvalidArgument(what, " has type ", DataTypeString(dt), ", expected ", DataTypeString(in.dtype()));
  const TensorShape& shape = b.Unwrap(dx).tensor.shape();
  if (shape != in.shape())
    return InvalidArgument(what, " has shape ", shape.ToString(), ", expected ", in.shape().ToString());
  return Status::OK();
}

// Backprops through one record: sums its output gradients, runs its gradient function and adds
// the input gradients to the pending ones.
Status BackpropRecord(Sweep& w, const TapeRecord& r) {
  EagerGradBuilder& b = *w.b;
  b.SetDevice(r.device);
  const int mark = b.num_values();
  std::vector<GValue> consumed, out_grads(r.outputs.size());
  bool any = false;
  for (size_t k = 0; k < r.outputs.size(); ++k) {
    const int64_t id = r.outputs[k].id;
    std::vector<GValue> gs = w.pending->Take(id);
    if (gs.empty()) continue;
    consumed.insert(consumed.end(), gs.begin(), gs.end());
    out_grads[k] = w.scope->AddN(gs);
    TX_RETURN_IF_ERROR(w.scope->status());
    if (w.sources.count(id) != 0) w.pending->Add(id, out_grads[k]);  // a source keeps its gradient
    any = true;
  }
  const int nin = static_cast<int>(r.inputs.size());
  std::vector<bool> needs(nin, false);
  bool needs_any = false;
  for (int j = 0; j < nin; ++j) {
    const EagerTensor& in = r.inputs[j];
    needs[j] = CarriesGradient(in.tensor.dtype()) && w.from_source.count(in.id) != 0 && w.to_target.count(in.id) != 0;
    needs_any = needs_any || needs[j];
  }
  if (any && needs_any) {
    std::vector<GValue> dxs;
    TX_RETURN_IF_ERROR(InputGrads(w, r, out_grads, needs, &dxs));
    for (int j = 0; j < nin; ++j) {
      if (!needs[j] || j >= static_cast<int>(dxs.size()) || !dxs[j].valid()) continue;
      TX_RETURN_IF_ERROR(CheckInputGrad(b, r, j, dxs[j]));
      w.pending->Add(r.inputs[j].id, dxs[j]);
    }
  }
  w.pending->ReleaseUnused(mark, consumed);
  return Status::OK();
}

// Zeros shaped like `x`, or like the value of the variable `x` is a handle of.
GValue ZerosFor(GradScope& o, EagerGradBuilder& b, const EagerTensor& x) {
  GValue xv = b.Wrap(x);
  if (x.tensor.dtype() != DT_RESOURCE) return o.ZerosLike(xv);
  const ResourceHandle* h = HandleFromTensor(x.tensor);
  if (h == nullptr) {
    o.Fail(InvalidArgument("gradient: a source of type resource is not a variable handle"));
    return GValue();
  }
  return o.ZerosLike(o.Op1("ReadVariableOp", {xv}, {{"dtype", AttrValue::Type(h->dtype)}}));
}

}  // namespace

Status CheckGradientArgs(const std::vector<EagerTensor>& targets, const std::vector<EagerTensor>& sources,
                         const std::vector<const EagerTensor*>& output_gradients) {
  if (!output_gradients.empty() && output_gradients.size() != targets.size())
    return InvalidArgument("gradient: got ", output_gradients.size(), " output_gradients for ", targets.size(),
                           " targets");
  for (size_t i = 0; i < targets.size(); ++i) {
    const Tensor& y = targets[i].tensor;
    const EagerTensor* g = output_gradients.empty() ? nullptr : output_gradients[i];
    if (g == nullptr || !IsDifferentiableType(y.dtype())) continue;  // Note [Integer targets]
    if (g->tensor.dtype() != y.dtype())
      return InvalidArgument("gradient: output_gradients[", i, "] has type ", DataTypeString(g->tensor.dtype()),
                             " but targets[", i, "] has type ", DataTypeString(y.dtype()));
    if (g->tensor.shape() != y.shape())
      return InvalidArgument("gradient: output_gradients[", i, "] has shape ", g->tensor.shape().ToString(),
                             " but targets[", i, "] has shape ", y.shape().ToString());
  }
  for (size_t i = 0; i < sources.size(); ++i)
    if (sources[i].id == 0) return InvalidArgument("gradient: sources[", i, "] is not a tensor");
  return Status::OK();
}

Status Backprop(EagerContext* ctx, std::vector<std::shared_ptr<const TapeRecord>>* records,
                const std::vector<EagerTensor>& targets, const std::vector<EagerTensor>& sources,
                const std::vector<const EagerTensor*>& output_gradients, bool unconnected_zero,
                std::vector<std::optional<EagerTensor>>* results) {
  std::vector<std::shared_ptr<const TapeRecord>>& recs = *records;
  const int n = static_cast<int>(recs.size());
  EagerGradBuilder b(ctx);
  GradScope scope(&b);
  PendingGrads pending(&b);
  Sweep w{ctx, &b, &scope, &pending, {}, {}, {}};
  // The records between the sources and the targets: records are in execution order, so one
  // forward sweep finds what depends on a source and one backward sweep what a target needs.
  for (const EagerTensor& x : sources) w.sources.insert(x.id);
  w.from_source = w.sources;
  std::vector<char> on_path(n, 0);
  for (int i = 0; i < n; ++i) {
    for (const EagerTensor& in : recs[i]->inputs)
      if (CarriesGradient(in.tensor.dtype()) && w.from_source.count(in.id) != 0) on_path[i] = 1;
    if (on_path[i])
      for (const EagerTensor& out : recs[i]->outputs) w.from_source.insert(out.id);
  }
  for (const EagerTensor& y : targets)
    if (IsDifferentiableType(y.tensor.dtype())) w.to_target.insert(y.id);  // Note [Integer targets]
  for (int i = n - 1; i >= 0; --i) {
    if (!on_path[i]) continue;
    bool feeds_target = false;
    for (const EagerTensor& out : recs[i]->outputs) feeds_target = feeds_target || w.to_target.count(out.id) != 0;
    on_path[i] = feeds_target;
    if (feeds_target)
      for (const EagerTensor& in : recs[i]->inputs) w.to_target.insert(in.id);
  }

  for (size_t i = 0; i < targets.size(); ++i) {
    if (w.from_source.count(targets[i].id) == 0) continue;  // no source reaches it
    if (!IsDifferentiableType(targets[i].tensor.dtype())) continue;
    b.SetDevice(targets[i].device);
    const EagerTensor* dy = output_gradients.empty() ? nullptr : output_gradients[i];
    GValue g = dy != nullptr ? b.Wrap(*dy) : scope.OnesLike(b.Wrap(targets[i]));
    TX_RETURN_IF_ERROR(scope.status());
    pending.Add(targets[i].id, g);
  }
  for (int i = n - 1; i >= 0; --i) {
    std::shared_ptr<const TapeRecord> r = std::move(recs[i]);  // the sweep's reference ends here
    if (on_path[i]) TX_RETURN_IF_ERROR(BackpropRecord(w, *r));
  }

  results->assign(sources.size(), std::nullopt);
  for (size_t i = 0; i < sources.size(); ++i) {
    const EagerTensor& x = sources[i];
    b.SetDevice(x.device);
    std::vector<GValue> gs = pending.Take(x.id);
    GValue g = scope.AddN(gs);
    if (g.valid())
      pending.Add(x.id, g);  // the same source may be listed twice
    else if (unconnected_zero)
      g = ZerosFor(scope, b, x);
    TX_RETURN_IF_ERROR(scope.status());
    if (!g.valid()) continue;
    EagerTensor dx = b.Unwrap(g);
    dx.device = x.device;
    (*results)[i] = std::move(dx);
  }
  return Status::OK();
}

}  // namespace tx

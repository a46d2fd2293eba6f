// Recording: the per-thread tape stack (Note [Tape stack]) and what each tape keeps
// (Note [What a tape records]). Backprop lives in tape_gradient.cc.
#include "tensorflux/eager/tape.h"

#include <algorithm>

#include "tensorflux/gradients/gradient_registry.h"

namespace tx {

// The active tapes of one thread; installed as the thread's EagerOpObserver while it holds any.
class TapeStack : public EagerOpObserver {
 public:
  void OnExecuted(EagerContext* ctx, const Node& node, const std::vector<EagerTensor>& inputs,
                  const std::vector<EagerTensor>& outputs) override {
    Tape::Offer o;
    o.ctx = ctx;
    o.node = &node;
    o.inputs = &inputs;
    o.outputs = &outputs;
    OfferAll(&o);
    if (prev_ != nullptr) prev_->OnExecuted(ctx, node, inputs, outputs);
  }

  // Lets every tape on the stack record `o`.
  void OfferAll(Tape::Offer* o) {
    std::lock_guard<std::mutex> l(mu_);
    for (Tape* t : tapes_) t->Consider(o);
  }

  void Push(Tape* t) {
    std::lock_guard<std::mutex> l(mu_);
    tapes_.push_back(t);
  }

  // Removes `t`; true when no tape is left.
  bool Remove(Tape* t) {
    std::lock_guard<std::mutex> l(mu_);
    tapes_.erase(std::remove(tapes_.begin(), tapes_.end(), t), tapes_.end());
    return tapes_.empty();
  }

  // Touched by the owner thread only: whether the stack is the thread's observer (or in its chain),
  // and the observer it replaced.
  bool installed_ = false;
  EagerOpObserver* prev_ = nullptr;

 private:
  std::mutex mu_;
  std::vector<Tape*> tapes_;
};

namespace {

thread_local std::shared_ptr<TapeStack> t_stack;

bool IsVariableRead(const std::string& op_type) { return op_type == "ReadVariableOp" || op_type == "ResourceGather"; }

}  // namespace

bool CarriesGradient(DataType dt) { return IsDifferentiableType(dt) || dt == DT_RESOURCE; }

Tape::Tape(EagerContext* ctx, TapeOptions opts) : ctx_(ctx), opts_(opts) {
  if (!t_stack) t_stack = std::make_shared<TapeStack>();
  stack_ = t_stack;
  stack_->Push(this);
  if (!stack_->installed_) {
    stack_->prev_ = SetThreadEagerOpObserver(stack_.get());
    stack_->installed_ = true;
  }
}

Tape::~Tape() {
  const bool empty = stack_->Remove(this);
  // Only the owner thread can uninstall its observer, and only while nothing was installed over
  // it; a stack emptied from another thread stays installed (recording nothing) until reused.
  if (empty && t_stack == stack_ && ThreadEagerOpObserver() == stack_.get()) {
    SetThreadEagerOpObserver(stack_->prev_);
    stack_->prev_ = nullptr;
    stack_->installed_ = false;
  }
}

void Tape::WatchLocked(const EagerTensor& t) {
  if (used_) return;
  tracked_.insert(t.id);
  if (t.tensor.dtype() == DT_RESOURCE && watched_var_ids_.insert(t.id).second) watched_vars_.push_back(t);
}

void Tape::Watch(const EagerTensor& t) {
  std::lock_guard<std::mutex> l(mu_);
  WatchLocked(t);
}

void Tape::SetRecording(bool on) {
  std::lock_guard<std::mutex> l(mu_);
  recording_ = on && !used_;
}

bool Tape::recording() const {
  std::lock_guard<std::mutex> l(mu_);
  return recording_;
}

std::vector<EagerTensor> Tape::WatchedVariables() const {
  std::lock_guard<std::mutex> l(mu_);
  return watched_vars_;
}

void Tape::Consider(Offer* o) {
  if (o->ctx != ctx_) return;
  const std::string& type = o->node != nullptr ? o->node->op_type() : *o->op_type;
  const std::vector<EagerTensor>& inputs = *o->inputs;
  std::lock_guard<std::mutex> l(mu_);
  if (!recording_ || used_) return;
  if (o->node != nullptr && opts_.watch_accessed_variables && IsVariableRead(type) && !inputs.empty() &&
      inputs[0].tensor.dtype() == DT_RESOURCE)
    WatchLocked(inputs[0]);
  bool reads_tracked = false;
  for (const EagerTensor& t : inputs)
    if (CarriesGradient(t.tensor.dtype()) && tracked_.count(t.id) != 0) {
      reads_tracked = true;
      break;
    }
  if (!reads_tracked) return;
  if (!o->made) {
    if (!o->custom) {
      const GradientRegistry::Entry* e = GradientRegistry::Global()->LookUp(type);
      if (e != nullptr && e->fn == nullptr) return;  // not differentiable: its outputs stay unconnected
    }
    auto r = std::make_shared<TapeRecord>();
    r->op_type = type;
    r->attrs = o->node != nullptr ? o->node->attrs() : *o->attrs;
    r->inputs = inputs;
    r->outputs = *o->outputs;
    r->device = !r->outputs.empty() ? r->outputs[0].device : (!inputs.empty() ? inputs[0].device : 0);
    r->custom = o->custom;
    o->made = std::move(r);
  }
  records_.push_back(o->made);
  for (const EagerTensor& t : *o->outputs)
    if (CarriesGradient(t.tensor.dtype())) tracked_.insert(t.id);
}

Status Tape::Gradient(const std::vector<EagerTensor>& targets, const std::vector<EagerTensor>& sources,
                      const std::vector<const EagerTensor*>& output_gradients, bool unconnected_zero,
                      std::vector<std::optional<EagerTensor>>* results) {
  results->clear();
  TX_RETURN_IF_ERROR(CheckGradientArgs(targets, sources, output_gradients));
  std::vector<std::shared_ptr<const TapeRecord>> records;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (used_)
      return FailedPrecondition(
          "GradientTape.gradient: a non-persistent GradientTape can only be used to compute one set of gradients, "
          "and this tape was already used (make it persistent to call gradient more than once)");
    if (opts_.persistent) {
      records = records_;
    } else {
      // Note [Tape memory]: backprop drops what it has passed; the tape keeps nothing.
      records.swap(records_);
      tracked_.clear();
      used_ = true;
      recording_ = false;
    }
  }
  return Backprop(ctx_, &records, targets, sources, output_gradients, unconnected_zero, results);
}

namespace {

// Offers a record that is not an executed op to the tapes of this thread.
void OfferToThreadTapes(EagerContext* ctx, const std::string& type, const AttrMap& attrs,
                        const std::vector<EagerTensor>& inputs, const std::vector<EagerTensor>& outputs,
                        std::shared_ptr<CustomGradientFn> custom) {
  if (!t_stack) return;
  Tape::Offer o;
  o.ctx = ctx;
  o.op_type = &type;
  o.attrs = &attrs;
  o.inputs = &inputs;
  o.outputs = &outputs;
  o.custom = std::move(custom);
  t_stack->OfferAll(&o);
}

}  // namespace

void RecordCustomGradient(EagerContext* ctx, const std::vector<EagerTensor>& inputs,
                          const std::vector<EagerTensor>& outputs, std::shared_ptr<CustomGradientFn> fn) {
  static const std::string kType = "CustomGradient";
  OfferToThreadTapes(ctx, kType, AttrMap(), inputs, outputs, std::move(fn));
}

void RecordTensorCopy(EagerContext* ctx, const EagerTensor& src, const EagerTensor& dst) {
  if (!t_stack) return;
  static const std::string kType = "Identity";
  OfferToThreadTapes(ctx, kType, {{"T", AttrValue::Type(src.tensor.dtype())}}, {src}, {dst}, nullptr);
}

}  // namespace tx

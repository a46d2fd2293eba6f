// Gradient tapes: record the ops executed eagerly on a thread and differentiate through them with
// the registered gradient functions (Note [One gradient, every mode] in grad_builder.h), run op by
// op by an EagerGradBuilder. TensorFlow's tf.GradientTape semantics (Note [Tape stack]).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "tensorflux/eager/eager_op.h"

namespace tx {

// A user-supplied gradient for a recorded computation (TXE_TapeRecordCustomGradient).
class CustomGradientFn {
 public:
  virtual ~CustomGradientFn() = default;
  // Computes the gradients of the recorded inputs from the gradients of the recorded outputs
  // (`output_grads[i]` is nullptr when no gradient flowed into output i). `input_grads` arrives
  // with one empty entry per input; leaving one empty means no gradient flows to that input. Runs
  // on the thread computing the gradient; ops it executes are recorded by tapes active there.
  virtual Status Compute(EagerContext* ctx, const std::vector<const EagerTensor*>& output_grads,
                         std::vector<std::optional<EagerTensor>>* input_grads) = 0;
};

// One recorded op. Immutable once made; shared by every tape that recorded it. The inputs and
// outputs are kept alive for the gradient functions (Note [Tape memory]).
struct TapeRecord {
  std::string op_type;  // "CustomGradient" for custom gradients
  AttrMap attrs;  // the executed node's attrs, inferred and defaulted ones included
  std::vector<EagerTensor> inputs, outputs;
  int device = 0;  // where the op ran; its gradient ops run there too
  std::shared_ptr<CustomGradientFn> custom;  // set for custom gradients
};

class TapeStack;  // tape.cc

// Whether gradients flow through values of type `dt`: floating and complex values, and variable
// handles (which receive the gradient of what is read through them).
bool CarriesGradient(DataType dt);

struct TapeOptions {
  bool persistent = false;  // Gradient may be called more than once
  bool watch_accessed_variables = true;  // reads of a variable watch its handle
};

// A tape is pushed on the creating thread's tape stack by its constructor and removed by its
// destructor. Thread-safe, but it records only ops executed on the creating thread.
class Tape {
 public:
  Tape(EagerContext* ctx, TapeOptions opts);
  ~Tape();
  Tape(const Tape&) = delete;
  Tape& operator=(const Tape&) = delete;

  EagerContext* context() const { return ctx_; }
  bool persistent() const { return opts_.persistent; }

  // Makes gradients with respect to `t` (a tensor, or a DT_RESOURCE variable handle) trackable.
  void Watch(const EagerTensor& t);
  // Pauses (false) or resumes (true) recording; watching still works while paused.
  void SetRecording(bool on);
  bool recording() const;
  // The variable handles watched so far (explicitly or by reads), in the order first watched.
  std::vector<EagerTensor> WatchedVariables() const;

  // The gradients of sum(targets[i] * output_gradients[i]) (ones where output_gradients is empty
  // or holds nullptr) with respect to each source: `results` gets one entry per source, empty for
  // a source no target depends on unless `unconnected_zero`. Argument errors (InvalidArgument)
  // leave the tape as it was; once backprop starts a non-persistent tape is used up, whether or
  // not it succeeds, and a second call is FailedPrecondition.
  Status Gradient(const std::vector<EagerTensor>& targets, const std::vector<EagerTensor>& sources,
                  const std::vector<const EagerTensor*>& output_gradients, bool unconnected_zero,
                  std::vector<std::optional<EagerTensor>>* results);

  // What the thread's tape stack offers each tape: an executed op (`node` set) or a custom
  // gradient / device copy (`op_type` and `attrs` set). `made` shares one record among tapes.
  struct Offer {
    EagerContext* ctx = nullptr;
    const Node* node = nullptr;
    const std::string* op_type = nullptr;
    const AttrMap* attrs = nullptr;
    const std::vector<EagerTensor>* inputs = nullptr;
    const std::vector<EagerTensor>* outputs = nullptr;
    std::shared_ptr<CustomGradientFn> custom;
    std::shared_ptr<const TapeRecord> made;
  };
  // Records the offered op when it reads a watched or recorded value (and auto-watches variable
  // reads); see Note [What a tape records].
  void Consider(Offer* offer);

 private:
  void WatchLocked(const EagerTensor& t);

  EagerContext* const ctx_;
  const TapeOptions opts_;
  std::shared_ptr<TapeStack> stack_;
  mutable std::mutex mu_;
  bool recording_ = true;
  bool used_ = false;  // a non-persistent tape after Gradient
  std::vector<std::shared_ptr<const TapeRecord>> records_;
  std::unordered_set<int64_t> tracked_;  // ids watched or produced by recorded ops
  std::vector<EagerTensor> watched_vars_;
  std::unordered_set<int64_t> watched_var_ids_;
};

// Records a custom gradient relating `inputs` to `outputs` on every tape recording on this thread
// for `ctx` (each records it when some input is watched or recorded, like an op).
void RecordCustomGradient(EagerContext* ctx, const std::vector<EagerTensor>& inputs,
                          const std::vector<EagerTensor>& outputs, std::shared_ptr<CustomGradientFn> fn);
// Records that `dst` is a copy of `src` on another device, so gradients flow back through it
// (an Identity on every tape recording on this thread for `ctx`).
void RecordTensorCopy(EagerContext* ctx, const EagerTensor& src, const EagerTensor& dst);

// Runs backprop over `records` (in execution order); what Tape::Gradient does once the arguments
// are checked. Entries of `records` are reset as soon as they are no longer needed.
Status Backprop(EagerContext* ctx, std::vector<std::shared_ptr<const TapeRecord>>* records,
                const std::vector<EagerTensor>& targets, const std::vector<EagerTensor>& sources,
                const std::vector<const EagerTensor*>& output_gradients, bool unconnected_zero,
                std::vector<std::optional<EagerTensor>>* results);

// Checks Gradient's arguments: targets of differentiable types, output gradients matching them.
Status CheckGradientArgs(const std::vector<EagerTensor>& targets, const std::vector<EagerTensor>& sources,
                         const std::vector<const EagerTensor*>& output_gradients);

}  // namespace tx

// Note [Tape stack]
// Each thread has a stack of active tapes; the stack is that thread's EagerOpObserver while it
// holds a tape. Every tape on the stack considers every op the thread executes on the tape's
// context, so nested tapes all record. Gradient runs the gradient functions through EagerOp on
// the same thread, so an outer tape records the ops of an inner tape's gradient computation:
// differentiating that result again with the outer tape gives second derivatives, and so on.
// A non-persistent tape stops recording when its Gradient starts (it is used up); a persistent
// tape that is still recording records its own gradient computation, as TensorFlow's does.
// Tapes are thread-local: "one thread builds". A tape records only ops executed on the thread
// that created it; Watch, Gradient and deletion may come from any thread (they lock), but the
// tape must not be deleted while its Gradient runs.
//
// Note [What a tape records]
// An op is recorded when one of its inputs of a differentiable type (or DT_RESOURCE) is watched
// or is an output of an op this tape recorded. Ops the gradient registry declares not
// differentiable are not recorded at all, so their outputs stay unconnected (as in graph mode).
// Ops with no registry entry are recorded: asking for a gradient through them is NotFound naming
// the op. With watch_accessed_variables, a ReadVariableOp or ResourceGather executed while the
// tape records watches its handle first; the handle then receives the gradient of the value read
// (Note [Resource gradients] in symbolic_gradients.cc).
//
// Note [Tape memory]
// A record keeps its op's inputs and outputs alive, as TensorFlow's tape keeps what gradient
// functions may read (the outputs matter for Exp, Tanh, Softmax, ...). A non-persistent tape
// hands its records to backprop, which drops each record, and each intermediate gradient, as soon
// as the reverse sweep has passed it; nothing is left when Gradient returns. A persistent tape
// keeps its records until it is deleted.

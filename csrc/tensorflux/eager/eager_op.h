// EagerOp: one op built from a name, inputs and attrs, executed at once on an EagerContext with the
// same kernels graph mode uses (Note [Eager kernel cache] in context.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/eager/context.h"
#include "tensorflux/framework/attr_value.h"

namespace tx {

// A value produced or consumed eagerly: the tensor, the device holding it and an identity that
// copies of the same handle share (what gradient tapes key on).
struct EagerTensor {
  Tensor tensor;
  int device = 0;
  int64_t id = 0;
};

// A fresh tensor identity (never 0).
int64_t NewEagerTensorId();

// Observes every op an EagerOp executes successfully (gradient tapes implement it).
class EagerOpObserver {
 public:
  virtual ~EagerOpObserver() = default;
  // Called on the executing thread after `node`'s kernel ran with `inputs` producing `outputs`.
  virtual void OnExecuted(EagerContext* ctx, const Node& node, const std::vector<EagerTensor>& inputs,
                          const std::vector<EagerTensor>& outputs) = 0;
};

// Installs `obs` as this thread's observer (nullptr: none) and returns the previous one.
EagerOpObserver* SetThreadEagerOpObserver(EagerOpObserver* obs);
// This thread's observer, or nullptr.
EagerOpObserver* ThreadEagerOpObserver();

// Not thread-safe: one thread builds and executes an op; different ops may run concurrently.
class EagerOp {
 public:
  explicit EagerOp(EagerContext* ctx) : ctx_(ctx) {}

  // Starts a new op `op_name` (inputs and attrs cleared) on `device` ("" or NULL: placed by the
  // inputs). NotFound when no such op is registered.
  Status Reset(const char* op_name, const char* device);
  // Removes the inputs, keeping the op type, device and attrs (and the kernel found for them).
  void ClearInputs();
  Status SetDevice(const char* device);
  const std::string& op_name() const { return op_name_; }
  const std::string& device() const { return device_request_; }
  EagerContext* context() const { return ctx_; }

  // Adds the next input argument (one tensor).
  void AddInput(const EagerTensor& t);
  // Adds the next input argument as a list of `n` tensors.
  void AddInputList(const EagerTensor* const* ts, int n);
  int num_inputs() const { return num_inputs_; }
  // Input i as added.
  EagerTensor input(int i) const { return EagerTensor{tensors_[i], devices_[i], ids_[i]}; }

  // Sets attr `name` (checked against the OpDef when the op executes).
  void SetAttr(const std::string& name, AttrValue v);
  // The kind of attr `name` in the op's OpDef ("type", "list(int)", ...); NotFound when absent.
  Status AttrTypeString(const std::string& name, std::string* out) const;

  // The node of the kernel the last successful Execute ran (its attrs and output ranges), or nullptr.
  const Node* last_node() const { return last_ ? last_->node : nullptr; }

  // Runs the op and sets its outputs. Errors end with " [Op:<name>]"; the op stays usable. With
  // `max_outputs` >= 0, an op with more outputs fails before its kernel runs. A function call or
  // loop stops at its next kernel or iteration once `cancel` (may be null) is cancelled.
  Status Execute(std::vector<EagerTensor>* outputs, int max_outputs = -1, const CancellationToken* cancel = nullptr);

 private:
  Status KernelFor(int device, std::shared_ptr<const CachedKernel>* out);
  Status BuildKernel(std::shared_ptr<const CachedKernel>* out) const;
  Status PickDevice(int* device) const;
  // True when the op's signature equals the one last_ was found for.
  bool SameSignatureAsLast(int device) const;
  void RememberSignature(int device);
  void ReleaseInputs();

  EagerContext* ctx_;
  std::string op_name_;
  const OpRegistration* reg_ = nullptr;
  std::string device_request_;
  int device_ = -1;
  // Inputs in slots reused across executions (Note [Eager input slots]): tensors_[i] for i <
  // num_inputs_, with their devices and identities.
  int num_inputs_ = 0;
  std::vector<Tensor> tensors_;
  std::vector<int> devices_;
  std::vector<int64_t> ids_;
  std::vector<std::pair<int, bool>> groups_;  // per input argument: tensor count, added as a list
  AttrMap attrs_;
  std::string attr_key_;  // the attrs set so far, serialized in the order set
  // An attr that makes the signature one-off was set: a tensor value (Const: one kernel per value)
  // or a shared_name (VarHandleOp of a new variable); the kernel is not cached.
  bool uncached_ = false;
  std::string key_;  // scratch for the cache key
  std::shared_ptr<const CachedKernel> last_;
  // The signature last_ was found for: compared field by field before any key is built.
  const OpRegistration* last_reg_ = nullptr;
  int last_device_ = -1;
  uint64_t last_generation_ = 0;  // the context's cache generation when last_ was found
  std::vector<DataType> last_dtypes_;
  std::vector<std::pair<int, bool>> last_groups_;
  std::string last_attr_key_;
};

}  // namespace tx

// Note [Eager input slots]
// An EagerOp reused for the same op (TXE_OpReset) keeps its input Tensors between executions and
// assigns new inputs into them, so a shape's storage is reused instead of allocated per call, and
// the kernel reads the slots in place. As TensorFlow's TFE_Op, an op keeps its inputs (it may be
// executed again) until it is reset, which drops their buffers but keeps the slots. The kernel is looked up by comparing the signature (op, device,
// input dtypes and list lengths, attrs set) with the previous one before building a cache key.

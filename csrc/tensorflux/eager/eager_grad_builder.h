// EagerGradBuilder: the eager-mode GradBuilder. Every op a gradient function asks for runs at once
// through EagerOp on the context, so a tape recording on this thread records it too (that is how
// higher-order gradients work, Note [Tape stack] in tape.h).
#pragma once

#include <deque>
#include <vector>

#include "tensorflux/eager/eager_op.h"
#include "tensorflux/gradients/grad_builder.h"

namespace tx {

// Not thread-safe: one gradient computation on one thread uses one builder.
class EagerGradBuilder : public GradBuilder {
 public:
  explicit EagerGradBuilder(EagerContext* ctx) : ctx_(ctx), op_(ctx) {}

  // The GValue standing for `t` (a new id each call; `t`'s tensor is kept alive until released).
  GValue Wrap(const EagerTensor& t);
  // The value a GValue made by this builder stands for.
  const EagerTensor& Unwrap(GValue v) const { return values_[v.id()]; }
  // The number of GValues made so far (ids below it are valid).
  int num_values() const { return static_cast<int>(values_.size()); }
  // Drops the tensor held for `v` (no later call may use `v`).
  void Release(GValue v);

  // Runs the ops added next on device `device` (an index into the context's devices); inputs on
  // another device are relabelled to it, keeping their identity (Note [Gradient placement]).
  void SetDevice(int device) { device_ = device; }
  int device() const { return device_; }

  Status AddOp(const std::string& type, const std::vector<std::vector<GValue>>& inputs, const AttrMap& attrs,
               std::vector<GValue>* outputs) override;
  Status Constant(const Tensor& value, GValue* out) override;
  DataType dtype(GValue v) const override { return values_[v.id()].tensor.dtype(); }
  PartialShape shape(GValue v) const override { return PartialShape(values_[v.id()].tensor.shape()); }
  const Tensor* constant_value(GValue v) const override;
  // The context's library: gradients of function calls add their gradient functions there.
  FunctionLibrary* function_library() const override { return &ctx_->library(); }

 private:
  EagerContext* ctx_;
  EagerOp op_;
  int device_ = 0;
  std::deque<EagerTensor> values_;  // a deque: constant_value's pointers survive later Wraps
  std::deque<bool> is_constant_;
  std::vector<EagerTensor> scratch_;
  std::vector<const EagerTensor*> list_scratch_;
};

}  // namespace tx

// Note [Eager constant values]
// GradBuilder::constant_value lets a gradient function fold a value known without running
// anything into constants (reduction axes, permutations, shapes, paddings). Every eager value is
// known, but folding is only safe for values no gradient can flow through: a gradient function
// that turned a floating value into a new Constant would cut that value's path to an outer tape
// and silently break higher-order gradients. So the eager builder answers for values of
// non-differentiable types (integers, booleans: never connected to a source) and for values it
// made itself with Constant(); it returns nullptr for other floating and complex values, which
// is what graph mode answers for any non-Const node.
//
// Note [Gradient placement]
// The tape sets the builder's device to the device the forward op ran on (or, when aggregating a
// source's gradient, the source's device). Logical devices share host memory, so an input living
// on another device is relabelled rather than copied, and keeps its id: an outer tape still sees
// the gradient ops as consuming the very tensors it recorded, whatever the placement policy.

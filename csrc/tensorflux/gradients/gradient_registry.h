// The gradient registry: per op name, either a gradient function or a declaration that the op
// is not differentiable. One registration per op serves graph mode, eager mode and every binding.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/framework/attr_value.h"
#include "tensorflux/gradients/grad_scope.h"

namespace tx {

// What a gradient function sees of one forward op, and where it puts the input gradients.
class GradContext {
 public:
  // `output_grads[i]` is the summed gradient of output i, or "no value" when none flowed there;
  // `needs_grad[i]` says whether anyone wants the gradient of input i.
  GradContext(GradScope* scope, std::string op_type, const AttrMap* attrs, std::vector<GValue> inputs,
              std::vector<GValue> outputs, std::vector<GValue> output_grads, std::vector<bool> needs_grad);

  GradScope& ops() { return *scope_; }
  const std::string& op_type() const { return op_type_; }
  const AttrMap& attrs() const { return *attrs_; }
  // The attr `name`; records an Internal error in the scope and returns an empty value if absent.
  const AttrValue& attr(const std::string& name);
  bool attr_bool(const std::string& name) { return attr(name).b; }
  int64_t attr_int(const std::string& name) { return attr(name).i; }
  DataType attr_type(const std::string& name) { return attr(name).type; }
  const std::string& attr_string(const std::string& name) { return attr(name).s; }

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  GValue input(int i) const { return inputs_[i]; }
  GValue output(int i) const { return outputs_[i]; }
  // The gradient flowing into output i; zeros of the output's shape when none flowed there
  // (created on first use), "no value" for outputs of non-floating type.
  GValue grad(int i);
  // True when a gradient flowed into output i.
  bool has_grad(int i) const { return output_grads_[i].valid(); }
  // Whether the gradient of input i is wanted (functions may skip work for unwanted inputs).
  bool needs_grad(int i) const { return needs_grad_[i]; }

  // Sets the gradient of input i ("no value" means no gradient flows to that input).
  void set_grad(int i, GValue dx) { input_grads_[i] = dx; }
  const std::vector<GValue>& input_grads() const { return input_grads_; }

  // The forward node's name in graph mode ("" in eager mode), for gradients that refer to it.
  const std::string& node_name() const { return node_name_; }
  void set_node_name(std::string name) { node_name_ = std::move(name); }

 private:
  GradScope* scope_;
  std::string op_type_;
  const AttrMap* attrs_;
  std::vector<GValue> inputs_, outputs_, output_grads_;
  std::vector<bool> needs_grad_;
  std::vector<GValue> input_grads_;
  std::string node_name_;
};

// A gradient function: reads the forward op and output gradients from `g`, builds the input
// gradients with g.ops() and stores them with g.set_grad. Errors go to g.ops() (or are returned).
// A closure, so plugins' C gradient functions fit (c/plugin_api_grads.cc).
using GradFn = std::function<Status(GradContext& g)>;

class GradientRegistry {
 public:
  static GradientRegistry* Global();

  struct Entry {
    GradFn fn = nullptr;  // nullptr: declared not differentiable
  };
  // Registers `fn` (nullptr: not differentiable) for `op`; a second registration is a
  // programming error and aborts.
  void Register(const std::string& op, GradFn fn);
  // Registers like Register, but reports a second registration as AlreadyExists (plugins).
  Status TryRegister(const std::string& op, GradFn fn);
  // The entry for `op`, or nullptr when the op has neither a gradient nor a declaration.
  const Entry* LookUp(const std::string& op) const;
  // All op names with an entry, and whether each has a gradient function.
  std::map<std::string, bool> All() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

// True for the element types gradients flow through (floating and complex, and variant TensorLists).
bool IsDifferentiableType(DataType dt);

// Note [Integer targets]
// A y (a target) of a type gradients do not flow through contributes nothing, as in TensorFlow
// (tf.gradients backpropagates nothing from it; GradientTape.gradient warns and returns None): both
// AddSymbolicGradients and the tape's Backprop skip it, with its grad_ys / output_gradients entry
// unchecked, so an x that only such ys depend on is unconnected (None, or zeros on request).

struct GradientRegistrar {
  GradientRegistrar(const char* op, GradFn fn) { GradientRegistry::Global()->Register(op, fn); }
};

}  // namespace tx

#define TX_GRAD_CONCAT_INNER(a, b) a##b
#define TX_GRAD_CONCAT(a, b) TX_GRAD_CONCAT_INNER(a, b)
// Registers the gradient function of an op: TX_REGISTER_GRADIENT("MatMul", MatMulGrad);
#define TX_REGISTER_GRADIENT(op, fn) \
  static ::tx::GradientRegistrar TX_GRAD_CONCAT(tx_grad_registrar_, __COUNTER__)(op, fn)
// Declares that an op has no gradient (comparisons, index outputs, random ops, shape queries):
// gradients stop there instead of failing with "no gradient defined".
#define TX_REGISTER_NO_GRADIENT(op) \
  static ::tx::GradientRegistrar TX_GRAD_CONCAT(tx_grad_registrar_, __COUNTER__)(op, nullptr)

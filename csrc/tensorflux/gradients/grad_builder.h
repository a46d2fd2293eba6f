// GradBuilder: the small interface gradient functions build with. Graph mode implements it by
// adding nodes (graph_grad_builder.h); eager mode implements it by running each op at once. A
// gradient function never sees a Graph, so one definition per op serves every mode
// (Note [One gradient, every mode]).
#pragma once

#include <string>
#include <vector>

#include "tensorflux/core/dtype.h"
#include "tensorflux/core/shape.h"
#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/framework/attr_value.h"
#include "tensorflux/framework/op_def.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {

class FunctionLibrary;

// A tensor in the builder's world (a graph endpoint or an eager value), named by an opaque id.
// A default-constructed GValue is "no value": the gradient that TensorFlow calls None.
class GValue {
 public:
  GValue() = default;
  explicit GValue(int id) : id_(id) {}
  bool valid() const { return id_ >= 0; }
  int id() const { return id_; }
  bool operator==(const GValue& o) const { return id_ == o.id_; }

 private:
  int id_ = -1;
};

// Adds (graph mode) or runs (eager mode) the ops a gradient function asks for.
class GradBuilder {
 public:
  virtual ~GradBuilder() = default;

  // Adds op `type` with `inputs` grouped per OpDef input argument (a list argument is one group)
  // and `attrs` (type and length attrs are inferred from the inputs); sets the flat outputs.
  virtual Status AddOp(const std::string& type, const std::vector<std::vector<GValue>>& inputs, const AttrMap& attrs,
                       std::vector<GValue>* outputs) = 0;
  // A constant holding `value`.
  virtual Status Constant(const Tensor& value, GValue* out) = 0;

  // The element type of `v`.
  virtual DataType dtype(GValue v) const = 0;
  // What is known of `v`'s shape without running anything (always fully defined in eager mode).
  virtual PartialShape shape(GValue v) const = 0;
  // The value of `v` when it is known without running anything (a constant), else nullptr.
  virtual const Tensor* constant_value(GValue v) const = 0;
  // What is known of the variable behind resource tensor `v` (dtype and shape; empty when
  // nothing is known), for instantiating functions that read it.
  virtual InferenceContext::HandleData handle_data(GValue) const { return {}; }
  // The function library call ops resolve in (gradients of calls add generated gradient
  // functions to it), or nullptr when the builder has none.
  virtual FunctionLibrary* function_library() const { return nullptr; }
};

// The OpDef of op `type` for a GradBuilder::AddOp call with `num_groups` input groups; Internal
// (a bug in a gradient function) when the op is not registered or takes another number of inputs.
Status GradientOpDef(const std::string& type, size_t num_groups, const OpDef** def);

}  // namespace tx

// Note [One gradient, every mode]
// TensorFlow kept gradient functions in Python and a second, partial set in C++; each binding saw
// a different subset. Here a gradient function is C++ code written against GradScope (a thin,
// error-accumulating layer over GradBuilder), registered once under the forward op's name. The
// symbolic driver (symbolic_gradients.cc) calls it with a builder that adds graph nodes; the
// eager tape calls the same function with a builder that executes ops immediately. Functions may
// branch on static shapes and constant values (GradBuilder::shape / constant_value): in graph
// mode that folds shape arithmetic into constants when shapes are known, and in eager mode every
// shape is known, so no Shape/BroadcastGradientArgs ops run at all.

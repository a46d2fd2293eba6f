// InferenceContext: what a shape function sees (input shapes, constant inputs, attrs)
// and where it writes output shapes.
#pragma once

#include <string>
#include <vector>

#include "tensorflux/core/shape.h"
#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/framework/attr_value.h"
#include "tensorflux/framework/op_def.h"

namespace tx {

class FunctionLibrary;

class InferenceContext {
 public:
  // What is known of the value a DT_RESOURCE or DT_VARIANT tensor refers to: the declared dtype
  // and shape of a resource variable, or the element dtype and shape of a TensorList.
  struct HandleData {
    DataType dtype = DT_INVALID;
    PartialShape shape;
  };

  // `input_tensors[i]` is the value of input i when it is a known constant, else nullptr.
  InferenceContext(const OpDef& def, const AttrMap& attrs, std::vector<PartialShape> input_shapes,
                   std::vector<const Tensor*> input_tensors, int num_outputs);

  const OpDef& op_def() const { return def_; }
  const AttrMap& attrs() const { return attrs_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const PartialShape& input(int i) const { return inputs_[i]; }
  // Constant value of input i, or nullptr when it is not known statically.
  const Tensor* input_tensor(int i) const { return input_tensors_[i]; }
  // What is known of the value behind resource or variant input i (the variable of a
  // VarHandleOp, the elements of a TensorList: the producer's output handle data), or nullptr.
  const HandleData* input_handle_data(int i) const {
    return i < static_cast<int>(handle_data_.size()) && handle_data_[i].dtype != DT_INVALID ? &handle_data_[i]
                                                                                            : nullptr;
  }
  // One entry per input; entries with dtype DT_INVALID mean "unknown".
  void set_input_handle_data(std::vector<HandleData> d) { handle_data_ = std::move(d); }
  // The function library of the graph the node is added to (call ops instantiate their function
  // to infer output shapes), or nullptr outside a graph.
  FunctionLibrary* function_library() const { return library_; }
  void set_function_library(FunctionLibrary* library) { library_ = library; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  void set_output(int i, PartialShape s) { outputs_[i] = std::move(s); }
  const PartialShape& output(int i) const { return outputs_[i]; }
  std::vector<PartialShape>& outputs() { return outputs_; }
  // Sets what is known of the value output i refers to (consumers see it as input handle data).
  void set_output_handle_data(int i, HandleData d) {
    output_handles_.resize(outputs_.size());
    output_handles_[i] = std::move(d);
  }
  // One entry per output (empty when the shape function set none).
  std::vector<HandleData>& output_handle_data() { return output_handles_; }

  // Typed attr getters; InvalidArgument if missing or of another kind.
  Status GetAttr(const std::string& name, bool* out) const;
  Status GetAttr(const std::string& name, int64_t* out) const;
  Status GetAttr(const std::string& name, DataType* out) const;
  Status GetAttr(const std::string& name, std::string* out) const;
  Status GetAttr(const std::string& name, PartialShape* out) const;
  Status GetAttr(const std::string& name, Tensor* out) const;
  Status GetAttr(const std::string& name, std::vector<int64_t>* out) const;

  // Returns `s` refined to rank `rank`, or an error naming input `which` (for messages).
  Status WithRank(const PartialShape& s, int rank, const char* which, PartialShape* out) const;
  Status WithRankAtLeast(const PartialShape& s, int rank, const char* which, PartialShape* out) const;

  // Reads a 1-D int32/int64 constant input as a shape (-1 entries unknown); when the input is
  // not constant, returns a shape whose rank comes from the input's static length if known.
  Status ShapeFromShapeTensor(int input_index, PartialShape* out) const;

 private:
  const AttrValue* Find(const std::string& name) const;

  const OpDef& def_;
  const AttrMap& attrs_;
  std::vector<PartialShape> inputs_;
  std::vector<const Tensor*> input_tensors_;
  std::vector<HandleData> handle_data_;
  std::vector<PartialShape> outputs_;
  std::vector<HandleData> output_handles_;
  FunctionLibrary* library_ = nullptr;
};

// Shape functions shared by many ops.
namespace shape_fns {
// Output 0 has input 0's shape (and its handle data).
Status UnchangedShape(InferenceContext* c);
// NumPy broadcasting of inputs 0 and 1 into output 0.
Status BroadcastBinaryOp(InferenceContext* c);
// Every output is a scalar.
Status ScalarShape(InferenceContext* c);
// Ops without outputs.
Status NoOutputs(InferenceContext* c);
// Every output has an unknown shape.
Status UnknownShape(InferenceContext* c);
// Reductions (input, reduction_indices; keep_dims attr): Note [Reduction inference].
Status ReductionShape(InferenceContext* c);
}  // namespace shape_fns

// Broadcasts two static shapes with NumPy rules; InvalidArgument naming both if incompatible.
Status BroadcastShapes(const PartialShape& a, const PartialShape& b, PartialShape* out);

}  // namespace tx

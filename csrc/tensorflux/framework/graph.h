// Graph: nodes joined by data and control edges. Nodes are only ever added, never removed (a
// failed import's rollback aside), so a Node* stays valid for the graph's lifetime
// (Note [Append-only graph]).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensorflux/core/shape.h"
#include "tensorflux/core/status.h"
#include "tensorflux/framework/attr_value.h"
#include "tensorflux/framework/function.h"
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {

class Graph;
class Node;

// Output `index` of `node`.
struct Endpoint {
  Node* node = nullptr;
  int index = 0;
  bool operator==(const Endpoint& o) const { return node == o.node && index == o.index; }
};

// Everything needed to add a node: inputs are grouped per OpDef input arg.
struct NodeSpec {
  struct InputArg {
    std::vector<Endpoint> values;
    bool is_list = false;  // added as a list (AddInputList), even with one element
  };
  std::string name;
  std::string op_type;
  std::string device;
  std::vector<InputArg> inputs;
  std::vector<Node*> control_inputs;
  AttrMap attrs;
};

// A node of a Graph. Immutable after creation except for its consumer lists and static
// output shapes, which the owning Graph guards with its mutex.
class Node {
 public:
  int id() const { return id_; }
  // The graph that owns this node.
  const Graph* graph() const { return graph_; }
  const std::string& name() const { return name_; }
  const std::string& op_type() const { return reg_->def.name; }
  const OpDef& op_def() const { return reg_->def; }
  const OpRegistration& registration() const { return *reg_; }
  const std::string& requested_device() const { return device_; }
  const AttrMap& attrs() const { return attrs_; }
  // The attr named `name`, or nullptr.
  const AttrValue* attr(const std::string& name) const;

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const Endpoint& input(int i) const { return inputs_[i]; }
  const std::vector<Endpoint>& inputs() const { return inputs_; }
  DataType input_type(int i) const { return input_types_[i]; }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType output_type(int i) const { return output_types_[i]; }
  const std::vector<DataType>& output_types() const { return output_types_; }
  const std::vector<Node*>& control_inputs() const { return control_inputs_; }

  // Flat [start, stop) range of the input/output arg named `arg`; false if no such arg.
  bool InputRange(const std::string& arg, int* start, int* stop) const;
  bool OutputRange(const std::string& arg, int* start, int* stop) const;

 private:
  friend class Graph;
  int id_ = 0;
  const Graph* graph_ = nullptr;
  std::string name_;
  std::string device_;
  const OpRegistration* reg_ = nullptr;
  AttrMap attrs_;
  std::vector<Endpoint> inputs_;
  std::vector<DataType> input_types_;
  std::vector<DataType> output_types_;
  std::vector<int> input_arg_starts_, output_arg_starts_;  // per arg, plus a final end
  std::vector<Node*> control_inputs_;
  // Guarded by the graph mutex:
  std::vector<PartialShape> output_shapes_;
  std::vector<InferenceContext::HandleData> output_handles_;  // set once by AddNode; not guarded
  std::vector<std::vector<std::pair<Node*, int>>> consumers_;  // per output: (consumer, input index)
  std::vector<Node*> control_outputs_;
  bool reserved_name_ = false;  // AddNode inserted this name into names_in_use_ (see RollbackTo)
};

// A dataflow graph. All methods are thread-safe.
class Graph {
 public:
  // A graph with a new, empty function library.
  Graph();
  // A graph calling the functions of `library` (shared; a function body borrows its caller's
  // library through a non-owning pointer, Note [Library caches]).
  explicit Graph(std::shared_ptr<FunctionLibrary> library);
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Validates `spec` against its OpDef (fills defaulted attrs, infers type attrs from inputs,
  // checks kinds, allowed values and minimums), runs shape inference and adds the node.
  // Errors name the node in brackets: "[layer1/MatMul] ...".
  Status AddNode(NodeSpec spec, Node** out);

  // The node called `name`, or nullptr.
  Node* FindNode(const std::string& name) const;
  int num_nodes() const;
  // The node with id `id` (ids are 0..num_nodes()-1 in creation order, a topological order).
  Node* node(int id) const;
  // A snapshot of all nodes in creation order.
  std::vector<Node*> Nodes() const;

  // Returns `base` if unused, else the first unused "base_1", "base_2", ...; the result is
  // reserved so later calls and AddNode treat it as used. Names compare case-insensitively.
  std::string UniqueName(const std::string& base);
  // True when `name` is used by a node or reserved.
  bool IsNameUsed(const std::string& name) const;

  // Static shape of an output (copy, taken under the lock).
  PartialShape OutputShape(Endpoint e) const;
  // What is known of the value output `e` refers to (a variable, a TensorList's elements): what
  // its shape function set, else ResourceHandleData of the node for output 0; dtype DT_INVALID
  // when nothing is known.
  InferenceContext::HandleData OutputHandleData(Endpoint e) const;
  // Merges `shape` into the static shape of `e`; InvalidArgument if incompatible.
  Status MergeOutputShape(Endpoint e, const PartialShape& shape);
  // Consumers of output `index` of `n`, as (node, input index).
  std::vector<std::pair<Node*, int>> Consumers(const Node* n, int index) const;
  std::vector<Node*> ControlOutputs(const Node* n) const;

  // GraphDef versions carried by this graph.
  int producer_version() const { return producer_; }
  int min_consumer_version() const { return min_consumer_; }
  void set_versions(int producer, int min_consumer) {
    producer_ = producer;
    min_consumer_ = min_consumer;
  }

  // The functions this graph's call ops may call (thread-safe; never null). Adding a function
  // does not change the graph's nodes, so it is allowed on a const graph.
  FunctionLibrary& library() const { return *library_; }

  // Removes every node with id >= num_nodes, with its names and its entries in the consumer and
  // control-output lists of the nodes that remain. Only a failed ImportGraphDef uses this, before
  // the new nodes are handed to anyone (Note [Append-only graph]); callers must not add nodes
  // concurrently with an import.
  void RollbackTo(int num_nodes);

 private:
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::unordered_map<std::string, Node*> by_name_;
  std::unordered_map<std::string, int> names_in_use_;  // lowercase name -> next suffix
  int producer_;
  int min_consumer_ = 0;
  std::shared_ptr<FunctionLibrary> library_;
};

// The GraphDef producer version this engine writes (TensorFlow 2.21.0 writes 2474).
constexpr int kGraphDefVersion = 2474;
// Graphs whose min_consumer exceeds this are rejected on import.
constexpr int kGraphDefMinConsumer = 0;

// Most tensors one list argument may hold (guards allocations driven by an "N" attr).
constexpr int64_t kMaxArgLength = int64_t{1} << 20;

// True when `name` is a valid node name: [A-Za-z0-9.][A-Za-z0-9_>./-]*
bool IsValidNodeName(const std::string& name);

// What is known statically of the variable a DT_RESOURCE output of `n` refers to: the declared
// dtype and shape of a VarHandleOp, or of the variable behind a function's resource argument (an
// _Arg's "_handle_dtype"/"_handle_shape" attrs); dtype DT_INVALID otherwise.
InferenceContext::HandleData ResourceHandleData(const Node& n);

// Checks an attr value against its definition (kind, allowed values, minimum).
Status ValidateAttrValue(const AttrDef& def, const AttrValue& value);

}  // namespace tx

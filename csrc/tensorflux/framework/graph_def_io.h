// GraphDef import and export: TensorFlow-wire-compatible bytes <-> Graph.
// Uses the engine's own protobuf codec (DESIGN.md §4); no protobuf runtime involved.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/framework/graph.h"
#include "tensorflux/framework/op_registry.h"

namespace tx {

// Options for ImportGraphDef, mirroring TF_ImportGraphDefOptions.
struct ImportOptions {
  std::string prefix;  // prepended to every imported name as "prefix/"
  std::string default_device;  // for nodes whose device is empty
  bool uniquify_names = false;  // rename imported nodes that clash instead of failing
  bool uniquify_prefix = false;  // make `prefix` itself unique
  // Imported input "src_name:src_index" is replaced by an existing endpoint.
  std::map<std::pair<std::string, int>, Endpoint> input_map;
  // Imported control input "^src_name" is replaced by an existing node.
  std::map<std::string, Node*> control_map;
  // Existing nodes every imported node (without data/control inputs from the import) depends on.
  std::vector<Node*> control_dependencies;
  // Requested results, by name in the imported GraphDef (before the prefix).
  std::vector<std::pair<std::string, int>> return_outputs;
  std::vector<std::string> return_operations;
};

struct ImportResults {
  std::vector<Endpoint> return_outputs;
  std::vector<Node*> return_operations;
  // input_map keys that no imported node used.
  std::vector<std::pair<std::string, int>> missing_unused_input_mappings;
};

// Parses serialized GraphDef `bytes` and adds its nodes to `graph`. Nodes may appear in any
// order; defaults are filled from each OpDef; "name:k" and "^name" inputs are understood.
// All-or-nothing: on error (malformed bytes, unknown op, cycle, bad attr, missing input,
// min_consumer too new, ...) the graph is left unchanged and the message names the node.
Status ImportGraphDef(const std::string& bytes, const ImportOptions& opts, Graph* graph, ImportResults* results);

// Parses one NodeDef input in GraphDef naming: "name" (output 0), "name:k", or "^name" (a control
// input: `control` true, `index` -1). InvalidArgument ("has a malformed input ...") otherwise.
Status ParseGraphTensorName(const std::string& s, std::string* node, int* index, bool* control);

// Serializes `graph` as a GraphDef (nodes in creation order, every attr, versions, library).
Status ExportGraphDef(const Graph& graph, std::string* bytes);
// Serializes one node as a NodeDef.
Status ExportNodeDef(const Node& node, std::string* bytes);

// Serialized OpList of every registered op (for TX_GetAllOpList and wrapper generators).
std::string SerializeOpList(const std::vector<const OpRegistration*>& ops);
// Serialized OpDef.
std::string SerializeOpDef(const OpDef& def);

// Encode/decode single values (used by the C API's attr setters and getters).
Status ParseAttrValue(const std::string& bytes, AttrValue* out);
std::string SerializeAttrValue(const AttrValue& v);
Status ParseTensorProto(const std::string& bytes, Tensor* out);
std::string SerializeTensorProto(const Tensor& t);
Status ParseTensorShapeProto(const std::string& bytes, PartialShape* out);
std::string SerializeTensorShapeProto(const PartialShape& s);

}  // namespace tx

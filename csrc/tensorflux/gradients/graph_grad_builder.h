// GraphGradBuilder: the graph-mode GradBuilder. Every op a gradient function asks for becomes a
// node named "<prefix>/<forward node>_grad/<Type>" on the forward node's device.
#pragma once

#include <string>
#include <vector>

#include "tensorflux/framework/graph.h"
#include "tensorflux/gradients/grad_builder.h"

namespace tx {

class GraphGradBuilder : public GradBuilder {
 public:
  // Nodes are added to `graph` under the name scope `prefix`.
  GraphGradBuilder(Graph* graph, std::string prefix) : graph_(graph), prefix_(std::move(prefix)) {}

  // The GValue standing for endpoint `e` (the same id each time for the same endpoint).
  GValue Wrap(Endpoint e);
  // The endpoint of a GValue made by this builder.
  Endpoint Unwrap(GValue v) const { return values_[v.id()]; }

  // Names and places the nodes added next: "<prefix>/<scope>/...", on `device`.
  void SetScope(const std::string& scope, const std::string& device);

  Status AddOp(const std::string& type, const std::vector<std::vector<GValue>>& inputs, const AttrMap& attrs,
               std::vector<GValue>* outputs) override;
  Status Constant(const Tensor& value, GValue* out) override;
  DataType dtype(GValue v) const override;
  PartialShape shape(GValue v) const override;
  const Tensor* constant_value(GValue v) const override;
  InferenceContext::HandleData handle_data(GValue v) const override { return graph_->OutputHandleData(Unwrap(v)); }
  FunctionLibrary* function_library() const override { return &graph_->library(); }

 private:
  Graph* graph_;
  std::string prefix_, scope_, device_;
  std::vector<Endpoint> values_;
};

}  // namespace tx

// Constant folding over the nodes an ExecutionPlan runs (Note [Plan constant folding]).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "tensorflux/core/tensor.h"
#include "tensorflux/framework/graph.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {

// For each node id of `graph`: the output values of a needed canonical node (needed[id] set,
// canon[id] == id) that depends only on constants, computed once now on the CPU; empty for every
// other node. Nodes with a fed output (`is_fed`) and nodes that fail are not folded.
std::vector<std::vector<Tensor>> FoldConstants(const Graph& graph, const std::vector<char>& needed,
                                               const std::vector<int>& canon,
                                               const std::function<bool(const Endpoint&)>& is_fed);

// A kernel for `node` that outputs `values` (its folded outputs) on every run.
std::unique_ptr<OpKernel> MakeFoldedKernel(const Node* node, const std::string& device_type,
                                           std::vector<Tensor> values);

}  // namespace tx

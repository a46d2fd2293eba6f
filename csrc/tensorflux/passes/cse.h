// Common subexpression elimination over the nodes an ExecutionPlan runs (Note [Plan CSE]).
#pragma once

#include <functional>
#include <vector>

#include "tensorflux/framework/graph.h"

namespace tx {

// For each node id of `graph`, the id of the node whose outputs it may share: itself, or an
// earlier needed node with the same op, device, attrs, inputs and control inputs. Only nodes
// with needed[id] set take part; stateful nodes, Placeholders and nodes with a fed output
// (`is_fed(node, output)`) always map to themselves.
std::vector<int> FindCommonSubexpressions(const Graph& graph, const std::vector<char>& needed,
                                          const std::function<bool(const Endpoint&)>& is_fed);

}  // namespace tx

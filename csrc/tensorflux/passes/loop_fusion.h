// Loop fusion: which nodes of an ExecutionPlan run together as one elementwise loop kernel
// (Note [Loop fusion]).
#pragma once

#include <vector>

#include "tensorflux/core/dtype.h"
#include "tensorflux/core/shape.h"

namespace tx {

// One node of a plan as the fusion pass sees it. Producers are indices into the node list (which
// is in topological order); -1 stands for a value from outside the plan (a feed).
struct FusionNode {
  bool fusible = false;  // an elementwise op the loop kernel implements
  DataType dtype = DT_INVALID;  // its output dtype (fusible nodes)
  PartialShape shape;  // the static shape of its output (fusible nodes)
  std::vector<int> data_inputs;  // producer per data input
  std::vector<int> control_inputs;
};

// Groups of at least two fusible nodes, joined by data edges, of one output dtype and one static
// output shape (equal PartialShapes, unknown rank included), such that running each group as one unit keeps the plan acyclic. Members are in
// ascending order; a node is in at most one group.
std::vector<std::vector<int>> FindFusionGroups(const std::vector<FusionNode>& nodes);

}  // namespace tx

// Which Conv2D nodes of an ExecutionPlan run the elementwise nodes after them as an epilogue
// (Note [Conv2D epilogues] in conv_fusion.cc).
#pragma once

#include <functional>
#include <vector>

#include "tensorflux/framework/graph.h"

namespace tx {

// A float32 NHWC Conv2D and the chain of nodes after it that its kernel may apply to each output
// tile: BiasAdd (NHWC), Add, AddV2, Sub, Mul, Relu or Relu6, each reading the previous node's only
// output as its only reader.
struct ConvFusion {
  const Node* conv = nullptr;
  std::vector<const Node*> members;  // in chain order; the last one's output is the fused value
  std::vector<int> chain_inputs;  // per member: its input that reads the previous node
};

// The fusions among the nodes a plan runs: needed[id] set and canon[id] == id (the canonical
// nodes of Note [Plan CSE]; readers of other nodes read canon[id]). A node with a fed output
// (`is_fed`), one of `fetches`, or a control input of another node ends a chain.
std::vector<ConvFusion> FindConvFusions(const Graph& graph, const std::vector<char>& needed,
                                        const std::vector<int>& canon,
                                        const std::function<bool(const Endpoint&)>& is_fed,
                                        const std::vector<Endpoint>& fetches);

}  // namespace tx

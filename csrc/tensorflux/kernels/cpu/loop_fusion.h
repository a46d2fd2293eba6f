// The CPU side of loop fusion (Note [Loop fusion] in passes/loop_fusion.cc): which elementwise
// nodes the fused kernel computes, and the kernel that runs a group of them in one pass.
#pragma once

#include <memory>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/framework/graph.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// True when `node` is an elementwise op of dtype float or double that the fused kernel computes
// exactly as its own kernel does.
bool LoopFusible(const Node& node);

// A group of fusible nodes as the plan hands it to the fused kernel.
struct LoopFusionSpec {
  std::vector<const Node*> members;  // in topological order, all of one output dtype
  // Per member, per data input: the member producing it (>= 0), or -1 - k for external input k.
  std::vector<std::vector<int>> operands;
  std::vector<PartialShape> external_shapes;  // static shapes of the external inputs
  std::vector<int> exported;  // members whose values leave the group: the kernel's outputs, in order
};

// The kernel of `fused`, a _FusedElementwise node with one input per external input of `spec` and
// one output per exported member. Errors name the member whose kernel could not be made.
Status CreateLoopFusionKernel(const Node* fused, LoopFusionSpec spec, std::unique_ptr<OpKernel>* out);

}  // namespace cpu
}  // namespace tx

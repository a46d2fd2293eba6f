// WidenedKernel: runs an op on half or bfloat16 tensors through the op's float32 kernel
// (Note [Widened kernels]).
#pragma once

#include <memory>
#include <vector>

#include "tensorflux/framework/graph.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// Note [Widened kernels]
// Ops whose 16-bit kernels would repeat a float32 kernel's logic (Softmax, Conv2D, BiasAdd,
// FusedBatchNormV3, ...) run that float32 kernel. At construction a WidenedKernel builds a
// one-node graph holding the op with every half/bfloat16 type attr set to float (its inputs are
// placeholders) and instantiates the float32 kernel of that node; each call widens the 16-bit
// inputs into float tensors (exactly), runs the float32 kernel, and rounds each output the node
// declares half/bfloat16 once (Note [16-bit floats]). Other inputs and outputs (indices, labels,
// float32 statistics of FusedBatchNormV3) pass through unchanged. The cost is a pass over each
// 16-bit input and output plus their float copies.
class WidenedKernel : public OpKernel {
 public:
  explicit WidenedKernel(OpKernelConstruction* c);
  void Compute(OpKernelContext* ctx) override;

 private:
  std::unique_ptr<Graph> graph_;  // owns node_
  const Node* node_ = nullptr;
  std::unique_ptr<OpKernel> inner_;
};

}  // namespace cpu
}  // namespace tx

// Registers WidenedKernel for OP with its type attr ATTR set to half and to bfloat16.
#define TX_REGISTER_WIDENED(OP, ATTR)                                                                        \
  TX_REGISTER_KERNEL(::tx::KernelDefBuilder(OP).TypeConstraint<::tx::Half>(ATTR), ::tx::cpu::WidenedKernel); \
  TX_REGISTER_KERNEL(::tx::KernelDefBuilder(OP).TypeConstraint<::tx::BFloat16>(ATTR), ::tx::cpu::WidenedKernel)

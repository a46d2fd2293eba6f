// The epilogue a fused Conv2D applies to its output (Note [Conv2D epilogues] in
// passes/conv_fusion.cc), and the fused kernel that runs a ConvFusion.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// One member of a fused chain: y = op(y, operand) (kSubFrom: operand - y), or op(y).
struct EpilogueStep {
  enum class Op { kAdd, kMul, kSub, kSubFrom, kRelu, kRelu6 };
  Op op = Op::kAdd;
  int operand = -1;  // index into the operand tensors; -1 for Relu and Relu6
};

// An epilogue bound to one call's operand tensors.
class ConvEpilogue {
 public:
  // Binds `steps` to `operands`; false (nothing bound) unless each operand is float32 and either
  // per-channel ([M], or [1,..,1,M] of rank <= out_shape's) or of shape `out_shape` [.., M].
  bool Bind(const std::vector<EpilogueStep>& steps, const Tensor* operands, const TensorShape& out_shape);

  // Applies the steps to y[q * m + j0, q * m + j0 + width) for each pixel q in [q0, q1).
  void Apply(float* y, int64_t m, int64_t q0, int64_t q1, int64_t j0, int64_t width) const;

 private:
  struct Bound {
    EpilogueStep::Op op;
    const float* data;  // nullptr for Relu and Relu6
    bool per_channel;
  };
  std::vector<Bound> bound_;
};

// A Conv2D kernel that can run with an epilogue.
class EpilogueConv {
 public:
  virtual ~EpilogueConv() = default;
  // Runs the conv on ctx's inputs 0 and 1 and applies `steps` (bound to `operands`) to its output;
  // returns false, having done nothing, when the operands cannot be bound (ConvEpilogue::Bind).
  virtual bool ComputeWithEpilogue(OpKernelContext* ctx, const std::vector<EpilogueStep>& steps,
                                   const Tensor* operands) = 0;
};

// Creates the kernel of the plan node that runs `conv` and then `members` (a ConvFusion; member i
// reads the chain's value as its input chain_inputs[i]) on `device_type`. Its inputs are conv's
// two inputs, then each binary member's other input in chain order; its one output is the last
// member's.
Status CreateFusedConv2DKernel(const Node* conv, const std::vector<const Node*>& members,
                               const std::vector<int>& chain_inputs, const std::string& device_type,
                               std::unique_ptr<OpKernel>* out);

}  // namespace cpu
}  // namespace tx

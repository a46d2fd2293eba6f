#include "tensorflux/kernels/cpu/conv_epilogue.h"

#include <algorithm>
#include <string>
#include <utility>

#include "tensorflux/runtime/node_status.h"

namespace tx {
namespace cpu {
namespace {

// y[i] = op(y[i], c[i]) for i < n (c is unused by Relu and Relu6).
template <EpilogueStep::Op kOp>
void Row(float* y, const float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (kOp == EpilogueStep::Op::kAdd)
      y[i] = y[i] + c[i];
    else if constexpr (kOp == EpilogueStep::Op::kMul)
      y[i] = y[i] * c[i];
    else if constexpr (kOp == EpilogueStep::Op::kSub)
      y[i] = y[i] - c[i];
    else if constexpr (kOp == EpilogueStep::Op::kSubFrom)
      y[i] = c[i] - y[i];
    // Relu and Relu6 exactly as their kernels compute them (NaN stays NaN, -0 stays -0).
    else if constexpr (kOp == EpilogueStep::Op::kRelu)
      y[i] = y[i] < 0.0f ? 0.0f : y[i];
    else
      y[i] = std::min(std::max(y[i], 0.0f), 6.0f);
  }
}

// Whether `operand` is per-channel for M = out_shape's last dimension: [M] or [1,..,1,M].
bool PerChannel(const Tensor& operand, const TensorShape& out_shape) {
  const int rank = operand.rank();
  if (rank < 1 || rank > out_shape.rank() || operand.dim(rank - 1) != out_shape.dim(out_shape.rank() - 1)) return false;
  for (int d = 0; d + 1 < rank; ++d)
    if (operand.dim(d) != 1) return false;
  return true;
}

// Runs conv's kernel, then each member's kernel on the result (the unfused plan, for operands the
// epilogue cannot take), or the conv with its epilogue.
class FusedConv2DKernel : public OpKernel {
 public:
  struct Member {
    const Node* node;
    std::unique_ptr<OpKernel> kernel;
    int chain_input;  // which input of node reads the chain's value
    int operand;  // index of its other input among the fused node's operands, or -1
  };

  FusedConv2DKernel(OpKernelConstruction* c, const Node* conv, std::unique_ptr<OpKernel> conv_kernel,
                    std::vector<Member> members, std::vector<EpilogueStep> steps)
      : OpKernel(c),
        conv_(conv),
        conv_kernel_(std::move(conv_kernel)),
        epilogue_conv_(dynamic_cast<EpilogueConv*>(conv_kernel_.get())),
        members_(std::move(members)),
        steps_(std::move(steps)) {}

  void Compute(OpKernelContext* ctx) override {
    Tensor conv_in[2] = {ctx->input(0), ctx->input(1)};
    Tensor y;
    OpKernelContext sub(conv_, conv_in, &y, ctx->intra_op_pool());
    const Tensor* operands = &ctx->input(0) + 2;  // the context's inputs are one array
    if (epilogue_conv_ == nullptr || !epilogue_conv_->ComputeWithEpilogue(&sub, steps_, operands)) {
      conv_kernel_->Compute(&sub);
      for (size_t i = 0; sub.status().ok() && i < members_.size(); ++i) {
        const Member& m = members_[i];
        Tensor in[2], out;
        in[m.chain_input] = std::move(y);
        if (m.operand >= 0) in[1 - m.chain_input] = operands[m.operand];
        OpKernelContext step(m.node, in, &out, ctx->intra_op_pool());
        m.kernel->Compute(&step);
        if (!step.status().ok()) return ctx->SetStatus(NamedForNode(m.node->name(), step.status()));
        y = std::move(out);
      }
    }
    if (!sub.status().ok()) return ctx->SetStatus(NamedForNode(conv_->name(), sub.status()));
    ctx->set_output(0, std::move(y));
  }

 private:
  const Node* conv_;
  std::unique_ptr<OpKernel> conv_kernel_;
  EpilogueConv* epilogue_conv_;  // conv_kernel_ when it takes epilogues, else null
  std::vector<Member> members_;
  std::vector<EpilogueStep> steps_;
};

}  // namespace

bool ConvEpilogue::Bind(const std::vector<EpilogueStep>& steps, const Tensor* operands, const TensorShape& out_shape) {
  bound_.clear();
  for (const EpilogueStep& s : steps) {
    if (s.operand < 0) {
      bound_.push_back({s.op, nullptr, false});
      continue;
    }
    const Tensor& t = operands[s.operand];
    if (t.dtype() != DT_FLOAT) return bound_.clear(), false;
    const bool per_channel = PerChannel(t, out_shape);
    if (!per_channel && t.shape() != out_shape) return bound_.clear(), false;
    bound_.push_back({s.op, t.data<float>(), per_channel});
  }
  return true;
}

void ConvEpilogue::Apply(float* y, int64_t m, int64_t q0, int64_t q1, int64_t j0, int64_t width) const {
  for (int64_t q = q0; q < q1; ++q) {
    float* row = y + q * m + j0;
    for (const Bound& b : bound_) {
      const float* c = b.data == nullptr ? nullptr : b.per_channel ? b.data + j0 : b.data + q * m + j0;
      switch (b.op) {
        case EpilogueStep::Op::kAdd: Row<EpilogueStep::Op::kAdd>(row, c, width); break;
        case EpilogueStep::Op::kMul: Row<EpilogueStep::Op::kMul>(row, c, width); break;
        case EpilogueStep::Op::kSub: Row<EpilogueStep::Op::kSub>(row, c, width); break;
        case EpilogueStep::Op::kSubFrom: Row<EpilogueStep::Op::kSubFrom>(row, c, width); break;
        case EpilogueStep::Op::kRelu: Row<EpilogueStep::Op::kRelu>(row, c, width); break;
        case EpilogueStep::Op::kRelu6: Row<EpilogueStep::Op::kRelu6>(row, c, width); break;
      }
    }
  }
}

Status CreateFusedConv2DKernel(const Node* conv, const std::vector<const Node*>& members,
                               const std::vector<int>& chain_inputs, const std::string& device_type,
                               std::unique_ptr<OpKernel>* out) {
  std::unique_ptr<OpKernel> conv_kernel;
  TX_RETURN_IF_ERROR(KernelRegistry::Global()->CreateKernel(conv, device_type, &conv_kernel));
  std::vector<FusedConv2DKernel::Member> kernels;
  std::vector<EpilogueStep> steps;
  int operands = 0;
  for (size_t i = 0; i < members.size(); ++i) {
    const Node* n = members[i];
    FusedConv2DKernel::Member m{n, nullptr, chain_inputs[i], -1};
    TX_RETURN_IF_ERROR(KernelRegistry::Global()->CreateKernel(n, device_type, &m.kernel));
    EpilogueStep step;
    const std::string& op = n->op_type();
    if (op == "Relu" || op == "Relu6") {
      step.op = op == "Relu" ? EpilogueStep::Op::kRelu : EpilogueStep::Op::kRelu6;
    } else {
      m.operand = step.operand = operands++;
      if (op == "Mul")
        step.op = EpilogueStep::Op::kMul;
      else if (op == "Sub")
        step.op = m.chain_input == 0 ? EpilogueStep::Op::kSub : EpilogueStep::Op::kSubFrom;
      else
        step.op = EpilogueStep::Op::kAdd;  // BiasAdd, Add, AddV2
    }
    steps.push_back(step);
    kernels.push_back(std::move(m));
  }
  OpKernelConstruction c(members.back(), device_type);
  out->reset(new FusedConv2DKernel(&c, conv, std::move(conv_kernel), std::move(kernels), std::move(steps)));
  return Status::OK();
}

}  // namespace cpu
}  // namespace tx

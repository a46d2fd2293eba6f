#include "tensorflux/passes/constant_folding.h"

#include <string>
#include <unordered_set>
#include <utility>

#include "tensorflux/core/thread_pool.h"

// Note [Plan constant folding]
// Frozen graphs recompute values from constants on every run: Keras' batch norm becomes
// Rsqrt(variance + epsilon) * gamma and beta - mean * that, plus Reshapes of each, about ten nodes
// per layer (530 of ResNet50's 1830), each paying the executor's per-node cost. TensorFlow's
// Grappler folds them before the first run. ExecutionPlan::Build does the same: visiting the
// plan's canonical nodes in id order (a topological order), a node whose data inputs are all
// folded (Const nodes have none) is run once, now, and its outputs kept. The plan then treats
// folded nodes as leaves: one that a running node reads (or a fetch, or a target) becomes a plan
// node whose kernel hands out the kept tensors, and the ones only folded nodes read are dropped.
// The kept tensors are held by that kernel, so no reader can reuse their buffers in place.
// Not folded: stateful ops (random numbers, I/O), ops that take functions or run v1 control flow,
// resource and variant values, nodes with control inputs (they order effects), placeholders,
// nodes with a fed output, outputs over kMaxFoldedBytes (kept memory), and any node whose kernel
// fails: it then fails at run time with the error a run reports.

namespace tx {
namespace {

// Largest output, in bytes, a folded node may keep.
constexpr size_t kMaxFoldedBytes = size_t{16} << 20;

bool TakesFunction(const Node& n) {
  for (const auto& [name, value] : n.attrs())
    if (value.kind == AttrValue::Kind::kFunc || !value.list.func.empty()) return true;
  return false;
}

bool Foldable(const Node& n, const std::function<bool(const Endpoint&)>& is_fed) {
  static const std::unordered_set<std::string> kNever = {
      "Placeholder", "PlaceholderWithDefault", "Switch",   "RefSwitch", "_SwitchN",     "Merge", "Enter",
      "Exit",        "NextIteration",          "LoopCond", "ReadFile",  "MatchingFiles"};
  if (n.op_def().is_stateful || n.num_outputs() == 0 || !n.control_inputs().empty() || kNever.count(n.op_type()) ||
      TakesFunction(n))
    return false;
  for (int k = 0; k < n.num_inputs(); ++k)
    if (n.input_type(k) == DT_RESOURCE || n.input_type(k) == DT_VARIANT) return false;
  for (int j = 0; j < n.num_outputs(); ++j)
    if (n.output_type(j) == DT_RESOURCE || n.output_type(j) == DT_VARIANT || is_fed(Endpoint{const_cast<Node*>(&n), j}))
      return false;
  return true;
}

class FoldedKernel : public OpKernel {
 public:
  FoldedKernel(OpKernelConstruction* c, std::vector<Tensor> values) : OpKernel(c), values_(std::move(values)) {}
  void Compute(OpKernelContext* ctx) override {
    for (size_t j = 0; j < values_.size(); ++j) ctx->set_output(static_cast<int>(j), values_[j]);
  }
  bool IsExpensive() const override { return false; }

 private:
  const std::vector<Tensor> values_;
};

}  // namespace

std::vector<std::vector<Tensor>> FoldConstants(const Graph& graph, const std::vector<char>& needed,
                                               const std::vector<int>& canon,
                                               const std::function<bool(const Endpoint&)>& is_fed) {
  std::vector<std::vector<Tensor>> folded(needed.size());
  ThreadPool inline_pool(0);
  for (size_t id = 0; id < needed.size(); ++id) {
    if (!needed[id] || canon[id] != static_cast<int>(id)) continue;
    const Node* n = graph.node(static_cast<int>(id));
    if (!Foldable(*n, is_fed)) continue;
    std::vector<Tensor> in(n->num_inputs());
    bool constant = true;
    for (int k = 0; constant && k < n->num_inputs(); ++k) {
      const Endpoint& e = n->input(k);
      const std::vector<Tensor>& producer = folded[canon[e.node->id()]];
      constant = !is_fed(e) && !producer.empty();
      if (constant) in[k] = producer[e.index];
    }
    if (!constant) continue;
    std::unique_ptr<OpKernel> kernel;
    if (!KernelRegistry::Global()->CreateKernel(n, "CPU", &kernel).ok()) continue;
    std::vector<Tensor> out(n->num_outputs());
    OpKernelContext ctx(n, in.data(), out.data(), &inline_pool);
    kernel->Compute(&ctx);
    if (!ctx.status().ok()) continue;
    bool kept = true;
    for (int j = 0; j < n->num_outputs(); ++j)
      kept =
          kept && out[j].initialized() && out[j].dtype() == n->output_type(j) && out[j].byte_size() <= kMaxFoldedBytes;
    if (kept) folded[id] = std::move(out);
  }
  return folded;
}

std::unique_ptr<OpKernel> MakeFoldedKernel(const Node* node, const std::string& device_type,
                                           std::vector<Tensor> values) {
  OpKernelConstruction c(node, device_type);
  return std::unique_ptr<OpKernel>(new FoldedKernel(&c, std::move(values)));
}

}  // namespace tx

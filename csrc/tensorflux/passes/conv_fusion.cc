#include "tensorflux/passes/conv_fusion.h"

#include <string>

// Note [Conv2D epilogues]
// Frozen Keras CNNs follow every convolution with BiasAdd, the batch norm as a per-channel Mul and
// Add (or Sub), often a residual Add, and Relu: four or five more passes over the conv's output,
// each with its own tensor and executor step. TensorFlow's Grappler remapper fuses such chains into
// _FusedConv2D. ExecutionPlan::Build does it as a plan rewrite (exported graphs stay plain): a
// chain found here runs as one plan node whose kernel (kernels/cpu/conv_epilogue.cc) applies the
// members to each block of the conv's output right after the block is computed, while it is still
// in cache. A member's other operand must turn out, when the node runs, to be per-channel ([M],
// or [1,..,1,M] of rank <= 4) or of the conv output's shape; the values are then the unfused ones
// bit for bit, since each member is the same float32 operation in the same order (the epilogue
// file is compiled without FMA contraction). Otherwise (a broadcast that changes the shape, a
// dtype or shape error) the fused kernel runs the members' own kernels one after the other, which
// reproduces the unfused values and errors, each naming its node.

namespace tx {
namespace {

bool IsNhwc(const Node& n) {
  const AttrValue* f = n.attr("data_format");
  return f == nullptr || (f->kind == AttrValue::Kind::kString && f->s == "NHWC");
}

// True when `n`, reading the chain's value as input `chain_input`, can be a member.
bool Fusible(const Node& n, int chain_input) {
  if (n.num_outputs() != 1 || n.output_type(0) != DT_FLOAT) return false;
  const std::string& op = n.op_type();
  if (op == "Relu" || op == "Relu6") return true;
  if (n.num_inputs() != 2 || n.input(0) == n.input(1)) return false;
  if (op == "BiasAdd") return chain_input == 0 && IsNhwc(n);
  return op == "Add" || op == "AddV2" || op == "Sub" || op == "Mul";
}

}  // namespace

std::vector<ConvFusion> FindConvFusions(const Graph& graph, const std::vector<char>& needed,
                                        const std::vector<int>& canon,
                                        const std::function<bool(const Endpoint&)>& is_fed,
                                        const std::vector<Endpoint>& fetches) {
  const int num = graph.num_nodes();
  // Per canonical node: reads of its outputs by plan nodes (-1 once anything disqualifies it) and
  // its last reader.
  std::vector<int> reads(num, 0);
  std::vector<const Node*> reader(num, nullptr);
  std::vector<int> reader_input(num, -1);
  auto disqualify = [&](const Node* n) { reads[canon[n->id()]] = -1; };
  for (int id = 0; id < num; ++id) {
    if (!needed[id] || canon[id] != id) continue;
    const Node* n = graph.node(id);
    for (int k = 0; k < n->num_inputs(); ++k) {
      const Endpoint& in = n->input(k);
      if (is_fed(in)) continue;
      const int p = canon[in.node->id()];
      if (reads[p] < 0) continue;
      if (in.index != 0) {
        reads[p] = -1;
        continue;
      }
      ++reads[p];
      reader[p] = n;
      reader_input[p] = k;
    }
    for (const Node* c : n->control_inputs()) disqualify(c);
    for (int j = 0; j < n->num_outputs(); ++j)
      if (is_fed(Endpoint{const_cast<Node*>(n), j})) reads[id] = -1;
  }
  for (const Endpoint& e : fetches) disqualify(e.node);

  std::vector<ConvFusion> fusions;
  std::vector<char> taken(num, 0);  // a member of an earlier chain (two chains can meet at an Add)
  for (int id = 0; id < num; ++id) {
    if (!needed[id] || canon[id] != id) continue;
    const Node* conv = graph.node(id);
    if (conv->op_type() != "Conv2D" || conv->output_type(0) != DT_FLOAT || !IsNhwc(*conv)) continue;
    ConvFusion f;
    f.conv = conv;
    for (const Node* cur = conv; reads[cur->id()] == 1;) {
      const Node* next = reader[cur->id()];
      if (taken[next->id()] || next->requested_device() != conv->requested_device() ||
          !Fusible(*next, reader_input[cur->id()]))
        break;
      taken[next->id()] = 1;
      f.members.push_back(next);
      f.chain_inputs.push_back(reader_input[cur->id()]);
      cur = next;
    }
    if (!f.members.empty()) fusions.push_back(std::move(f));
  }
  return fusions;
}

}  // namespace tx

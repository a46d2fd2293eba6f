#include "tensorflux/passes/cse.h"

#include <algorithm>
#include <string>
#include <unordered_map>

// Note [Plan CSE]
// Graphs built from Python repeat work: `y - x * 0.5` in a loop adds a new Const 0.5 and a new
// Mul(x, 0.5) each time. TensorFlow's graph optimizer merges such nodes before running (its L1
// "common subexpression elimination"), and a benchmark that repeats a subexpression measures
// that. The plan does the same: visiting needed nodes in id order (a topological order), a node
// is merged into an earlier one when both have the same op type, requested device, attr values
// (tensors compared by value), inputs (after merging) and control inputs. The merged node gets
// no plan entry; its readers read the canonical node's outputs. Stateful ops (random numbers)
// must run once per node and are never merged, nor are Placeholders (they only report an error
// when not fed) or nodes with a fed output (the feed replaces just that endpoint).

namespace tx {
namespace {

bool SameAttrs(const Node& a, const Node& b) {
  const AttrMap& x = a.attrs();
  const AttrMap& y = b.attrs();
  if (x.size() != y.size()) return false;
  for (auto ix = x.begin(), iy = y.begin(); ix != x.end(); ++ix, ++iy)
    if (ix->first != iy->first || !ix->second.Equals(iy->second)) return false;
  return true;
}

bool Mergeable(Node* n, const std::function<bool(const Endpoint&)>& is_fed) {
  if (n->op_def().is_stateful || n->op_type() == "Placeholder" || n->op_type() == "PlaceholderWithDefault")
    return false;
  for (int j = 0; j < n->num_outputs(); ++j)
    if (is_fed(Endpoint{n, j})) return false;
  return true;
}

}  // namespace

std::vector<int> FindCommonSubexpressions(const Graph& graph, const std::vector<char>& needed,
                                          const std::function<bool(const Endpoint&)>& is_fed) {
  const int num = graph.num_nodes();
  std::vector<int> canon(num);
  for (int id = 0; id < num; ++id) canon[id] = id;
  // Candidates by a key of op type, device, inputs and control inputs; attrs are compared exactly.
  std::unordered_map<std::string, std::vector<int>> buckets;
  for (int id = 0; id < num; ++id) {
    if (!needed[id]) continue;
    Node* n = graph.node(id);
    if (!Mergeable(n, is_fed)) continue;
    std::string key = n->op_type() + '\0' + n->requested_device() + '\0';
    for (const Endpoint& in : n->inputs()) {
      // A fed input is keyed by its own endpoint; others by the canonical producer.
      const int src = is_fed(in) ? in.node->id() : canon[in.node->id()];
      key += std::to_string(is_fed(in)) + ':' + std::to_string(src) + ':' + std::to_string(in.index) + ',';
    }
    key += '\0';
    std::vector<int> controls;
    for (const Node* c : n->control_inputs()) controls.push_back(canon[c->id()]);
    std::sort(controls.begin(), controls.end());
    controls.erase(std::unique(controls.begin(), controls.end()), controls.end());
    for (int c : controls) key += std::to_string(c) + ',';
    std::vector<int>& same = buckets[key];
    for (int other : same) {
      if (SameAttrs(*n, *graph.node(other))) {
        canon[id] = other;
        break;
      }
    }
    if (canon[id] == id) same.push_back(id);
  }
  return canon;
}

}  // namespace tx

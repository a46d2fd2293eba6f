#include "tensorflux/passes/loop_fusion.h"

#include <algorithm>

// Note [Loop fusion]
// A chain of elementwise ops run one kernel at a time reads and writes every intermediate tensor
// in memory and pays the executor's per-node cost for each op. ExecutionPlan::Build therefore
// groups connected elementwise nodes of one dtype and one static output shape (equal as partial
// shapes, unknown dims and unknown rank included: a function body called eagerly is planned
// before any shape is known) into one _FusedElementwise node whose kernel
// (kernels/cpu/loop_fusion_kernel.cc) runs the whole group as a small register program over
// blocks of elements: inputs are read once, intermediates live in block-sized scratch registers
// (in L1), and only the values used outside the group are written. Inputs from outside the group may broadcast (a scalar, a bias row).
// The rewrite is confined to the plan: graphs, GraphDefs and functions stay plain.
//
// Acyclicity. Running a group as one unit makes it wait for all of its inputs, which could make
// two groups wait for each other although their members do not. Each node gets a key such that
// every edge goes from a smaller key to a larger one: 0 for a node outside every group that has no
// producers in the plan (constants, variable handles: they can always run first), otherwise its
// as-late-as-possible level (at least 2 for a node with a producer, so above those zeros; a
// fusible node reading only feeds takes its level too, so that a constant can join its group). A group is admitted only when every value it takes from outside has
// a smaller key than its smallest member's key. Ordering units by key (a group by its smallest
// member's) then orders every edge between units, so the plan stays a DAG. The keys let a chain
// `y = y + c` with a constant per step fuse whole, and let Adam-like updates `m * b1 + g * (1 - b1)`
// fuse although the gradient g is computed long after the slot read m.
//
// Same values, same errors. Each fused op is computed by the functor its own kernel uses, one op
// at a time over a block, so results equal the unfused plan's. Shape checks happen per run: when
// the inputs' shapes do not give every member the loop shape (or would make an op fail), the
// fused kernel runs the members' own kernels one after the other instead, which reproduces the
// unfused plan's values and errors, naming the failing node.

namespace tx {
namespace {

struct Group {
  std::vector<int> members;
  int min_key = 0;
  int max_external_key = -1;  // -1: nothing but feeds from outside
};

}  // namespace

std::vector<std::vector<int>> FindFusionGroups(const std::vector<FusionNode>& nodes) {
  const int n = static_cast<int>(nodes.size());
  std::vector<std::vector<int>> consumers(n);
  std::vector<char> has_producer(n, 0);
  for (int i = 0; i < n; ++i) {
    for (const std::vector<int>* ins : {&nodes[i].data_inputs, &nodes[i].control_inputs})
      for (int p : *ins)
        if (p >= 0) {
          consumers[p].push_back(i);
          has_producer[i] = 1;
        }
  }
  // Keys (Note [Loop fusion]): as-late-as-possible levels, 0 for non-fusible nodes without producers.
  std::vector<int> alap(n), key(n);
  for (int i = n - 1; i >= 0; --i) {
    int level = n + 1;
    for (int c : consumers[i]) level = std::min(level, alap[c] - 1);
    alap[i] = level;
    key[i] = has_producer[i] || nodes[i].fusible ? level : 0;
  }

  std::vector<Group> groups;
  std::vector<int> group_of(n, -1);
  // The largest key of a value that `members` of the groups `merged` (and node i) take from
  // outside them.
  auto external_key = [&](int i, const std::vector<int>& merged) {
    auto inside = [&](int p) {
      return p >= 0 && group_of[p] >= 0 && std::find(merged.begin(), merged.end(), group_of[p]) != merged.end();
    };
    int k = -1;
    auto scan = [&](int m) {
      for (const std::vector<int>* ins : {&nodes[m].data_inputs, &nodes[m].control_inputs})
        for (int p : *ins)
          if (p >= 0 && !inside(p)) k = std::max(k, key[p]);
    };
    scan(i);
    if (merged.size() == 1) return std::max(k, groups[merged[0]].max_external_key);
    for (int g : merged)
      for (int m : groups[g].members) scan(m);
    return k;
  };
  auto try_merge = [&](int i, const std::vector<int>& merged) {
    int min_key = key[i];
    for (int g : merged) min_key = std::min(min_key, groups[g].min_key);
    const int ext = external_key(i, merged);
    if (ext >= min_key) return false;
    Group& into = groups[merged[0]];
    for (size_t k = 1; k < merged.size(); ++k) {
      for (int m : groups[merged[k]].members) {
        into.members.push_back(m);
        group_of[m] = merged[0];
      }
      groups[merged[k]].members.clear();
    }
    into.members.push_back(i);
    group_of[i] = merged[0];
    into.min_key = min_key;
    into.max_external_key = ext;
    return true;
  };

  for (int i = 0; i < n; ++i) {
    const FusionNode& node = nodes[i];
    if (!node.fusible) continue;
    std::vector<int> candidates;
    for (int p : node.data_inputs) {
      if (p < 0 || group_of[p] < 0) continue;
      const FusionNode& producer = nodes[p];
      if (producer.dtype != node.dtype || producer.shape != node.shape) continue;
      if (std::find(candidates.begin(), candidates.end(), group_of[p]) == candidates.end())
        candidates.push_back(group_of[p]);
    }
    bool joined = !candidates.empty() && try_merge(i, candidates);
    for (size_t k = 0; !joined && candidates.size() > 1 && k < candidates.size(); ++k)
      joined = try_merge(i, {candidates[k]});
    if (joined) continue;
    Group g;
    g.members.push_back(i);
    g.min_key = key[i];
    groups.push_back(std::move(g));
    group_of[i] = static_cast<int>(groups.size()) - 1;
    groups.back().max_external_key = external_key(i, {group_of[i]});
  }

  std::vector<std::vector<int>> out;
  for (Group& g : groups) {
    if (g.members.size() < 2) continue;
    std::sort(g.members.begin(), g.members.end());
    out.push_back(std::move(g.members));
  }
  return out;
}

}  // namespace tx

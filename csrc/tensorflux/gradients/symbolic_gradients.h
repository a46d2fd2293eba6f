// Symbolic differentiation of a graph: adds the nodes computing d(sum of ys)/d(xs).
#pragma once

#include <string>
#include <vector>

#include "tensorflux/framework/graph.h"

namespace tx {

struct GradientOptions {
  // Initial gradients for `ys` (same length as ys), or empty for ones.
  std::vector<Endpoint> grad_ys;
  // Tensors treated as constants: no gradient flows through the ops that produce them.
  std::vector<Endpoint> stop_gradients;
  // For an x that no y depends on: false gives "no gradient" (Endpoint{nullptr}), true zeros.
  bool unconnected_zero = false;
};

// Adds to `graph`, under the name scope `prefix`, the gradients of sum(ys) with respect to each
// of `xs` (TensorFlow's tf.gradients semantics); `dxs` receives one endpoint per x, with a null
// node for an unconnected x when opts.unconnected_zero is false. On error the graph keeps the
// nodes added so far (they are unused) and nothing is returned.
Status AddSymbolicGradients(Graph* graph, const std::string& prefix, const std::vector<Endpoint>& ys,
                            const std::vector<Endpoint>& xs, const GradientOptions& opts, std::vector<Endpoint>* dxs);

}  // namespace tx

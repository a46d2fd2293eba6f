// C API: symbolic gradients (TX_AddGradients) over the engine's C++ gradient registry.
#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/gradients/gradient_registry.h"
#include "tensorflux/gradients/symbolic_gradients.h"

using namespace tx::capi;

namespace {

tx::Status ToEndpoints(const tx::Graph* graph, const TX_Output* outs, int n, const char* what,
                       std::vector<tx::Endpoint>* result) {
  if (n < 0) return tx::InvalidArgument("gradients: the number of ", what, " must be >= 0, got ", n);
  if (n > 0 && outs == nullptr) return tx::InvalidArgument("gradients: ", what, " is NULL but its count is ", n);
  for (int i = 0; i < n; ++i) {
    const std::string name = std::string(what) + "[" + std::to_string(i) + "]";
    TX_RETURN_IF_ERROR(CheckOutput(graph, outs[i], name.c_str()));
    result->push_back({ToNode(outs[i].oper), outs[i].index});
  }
  return tx::Status::OK();
}

}  // namespace

void TX_AddGradientsWithOptions(TX_Graph* g, const char* prefix, const TX_Output* y, int ny, const TX_Output* x, int nx,
                                const TX_Output* dy, const TX_Output* stop_gradients, int nstop, int unconnected,
                                TX_Output* dx, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (g == nullptr) return tx::InvalidArgument("graph is NULL");
    if (nx > 0 && dx == nullptr) return tx::InvalidArgument("gradients: dx is NULL but nx is ", nx);
    if (unconnected != TX_UNCONNECTED_NONE && unconnected != TX_UNCONNECTED_ZERO)
      return tx::InvalidArgument("gradients: unconnected must be TX_UNCONNECTED_NONE or TX_UNCONNECTED_ZERO, got ",
                                 unconnected);
    tx::Graph* graph = g->graph.get();
    std::vector<tx::Endpoint> ys, xs;
    tx::GradientOptions opts;
    TX_RETURN_IF_ERROR(ToEndpoints(graph, y, ny, "ys", &ys));
    TX_RETURN_IF_ERROR(ToEndpoints(graph, x, nx, "xs", &xs));
    if (dy != nullptr) TX_RETURN_IF_ERROR(ToEndpoints(graph, dy, ny, "grad_ys", &opts.grad_ys));
    TX_RETURN_IF_ERROR(ToEndpoints(graph, stop_gradients, nstop, "stop_gradients", &opts.stop_gradients));
    opts.unconnected_zero = unconnected == TX_UNCONNECTED_ZERO;
    std::string scope;
    if (prefix == nullptr) {
      scope = graph->UniqueName("gradients");
    } else {
      scope = prefix;
      if (scope.empty() || !tx::IsValidNodeName(scope))
        return tx::InvalidArgument("gradients: prefix '", scope, "' is not a valid name scope");
      const std::string scope_slash = scope + "/";
      for (tx::Node* n : graph->Nodes())
        if (n->name().compare(0, scope_slash.size(), scope_slash) == 0)
          return tx::InvalidArgument("gradients: prefix '", scope, "' is already used in the graph (by '", n->name(),
                                     "')");
    }
    std::vector<tx::Endpoint> out;
    TX_RETURN_IF_ERROR(tx::AddSymbolicGradients(graph, scope, ys, xs, opts, &out));
    for (int i = 0; i < nx; ++i) dx[i] = TX_Output{out[i].node ? ToOper(out[i].node) : nullptr, out[i].index};
    return tx::Status::OK();
  });
}

void TX_AddGradients(TX_Graph* g, const char* prefix, const TX_Output* y, int ny, const TX_Output* x, int nx,
                     const TX_Output* dy, TX_Output* dx, TX_Status* status) {
  TX_AddGradientsWithOptions(g, prefix, y, ny, x, nx, dy, nullptr, 0, TX_UNCONNECTED_NONE, dx, status);
}

int TX_OpGradientStatus(const char* op_name) {
  if (op_name == nullptr) return -1;
  return GuardValue<int>(-1, [&] {
    const tx::GradientRegistry::Entry* e = tx::GradientRegistry::Global()->LookUp(op_name);
    if (e == nullptr) return -1;
    return e->fn != nullptr ? 1 : 0;
  });
}

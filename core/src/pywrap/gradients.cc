// Bindings for symbolic gradients: TX_AddGradientsWithOptions and TX_OpGradientStatus.
#include "common.h"

namespace txpy {
namespace {

std::vector<TX_Output> ToOutputs(const py::sequence& pairs) {
  std::vector<TX_Output> out;
  out.reserve(pairs.size());
  for (py::handle p : pairs) out.push_back(ToOutput(p));
  return out;
}

// Returns one (op handle, index) pair per x, or None for an unconnected x.
py::list AddGradients(GraphHandle& g, const std::string& prefix, const py::sequence& ys, const py::sequence& xs,
                      const py::object& grad_ys, const py::sequence& stop_gradients, bool unconnected_zero) {
  std::vector<TX_Output> y = ToOutputs(ys), x = ToOutputs(xs), stop = ToOutputs(stop_gradients), dy;
  if (!grad_ys.is_none()) dy = ToOutputs(grad_ys);
  std::vector<TX_Output> dx(x.size());
  Status status;
  {
    py::gil_scoped_release release;
    TX_AddGradientsWithOptions(g.graph, prefix.empty() ? nullptr : prefix.c_str(), y.data(), static_cast<int>(y.size()),
                               x.data(), static_cast<int>(x.size()), grad_ys.is_none() ? nullptr : dy.data(),
                               stop.data(), static_cast<int>(stop.size()),
                               unconnected_zero ? TX_UNCONNECTED_ZERO : TX_UNCONNECTED_NONE, dx.data(), status.get());
  }
  status.Check();
  py::list result;
  for (const TX_Output& o : dx) {
    if (o.oper == nullptr)
      result.append(py::none());
    else
      result.append(py::make_tuple(FromOp(o.oper), o.index));
  }
  return result;
}

}  // namespace

void InitGradients(py::module_& m) {
  m.def("add_gradients", &AddGradients, py::arg("graph"), py::arg("prefix"), py::arg("ys"), py::arg("xs"),
        py::arg("grad_ys"), py::arg("stop_gradients"), py::arg("unconnected_zero"),
        "Adds d(sum ys)/d(xs); returns (op, index) pairs, None for unconnected xs.");
  m.def(
      "op_gradient_status", [](const std::string& op) { return TX_OpGradientStatus(op.c_str()); },
      "1: gradient registered; 0: declared not differentiable; -1: neither.");
}

}  // namespace txpy

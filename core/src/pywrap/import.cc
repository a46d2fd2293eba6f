// GraphDef import with options and results in one call.
#include <memory>
#include <string>
#include <vector>

#include "common.h"

namespace txpy {
namespace {

// Imports serialized GraphDef `graph_def` into `g`. input_map: (src_name, src_index, (op, index));
// control_map: (src_name, op); control_deps: ops; return_outputs: (name, index); return_ops:
// names. Returns ([(op, index)], [op], [(src_name, src_index)] of unused input mappings).
py::tuple ImportGraphDef(GraphHandle& g, py::bytes graph_def, const std::string& prefix,
                         const std::string& default_device, bool uniquify_names, bool uniquify_prefix,
                         py::handle input_map, py::handle control_map, py::handle control_deps,
                         py::handle return_outputs, py::handle return_ops) {
  std::unique_ptr<TX_ImportGraphDefOptions, void (*)(TX_ImportGraphDefOptions*)> opts(TX_NewImportGraphDefOptions(),
                                                                                      TX_DeleteImportGraphDefOptions);
  TX_ImportGraphDefOptionsSetPrefix(opts.get(), prefix.c_str());
  if (!default_device.empty()) TX_ImportGraphDefOptionsSetDefaultDevice(opts.get(), default_device.c_str());
  TX_ImportGraphDefOptionsSetUniquifyNames(opts.get(), uniquify_names);
  TX_ImportGraphDefOptionsSetUniquifyPrefix(opts.get(), uniquify_prefix);
  for (auto item : py::reinterpret_borrow<py::sequence>(input_map)) {
    py::tuple t = py::reinterpret_borrow<py::tuple>(item);
    TX_ImportGraphDefOptionsAddInputMapping(opts.get(), t[0].cast<std::string>().c_str(), t[1].cast<int>(),
                                            ToOutput(t[2]));
  }
  for (auto item : py::reinterpret_borrow<py::sequence>(control_map)) {
    py::tuple t = py::reinterpret_borrow<py::tuple>(item);
    TX_ImportGraphDefOptionsRemapControlDependency(opts.get(), t[0].cast<std::string>().c_str(),
                                                   ToOp(t[1].cast<std::uintptr_t>()));
  }
  for (auto op : py::reinterpret_borrow<py::sequence>(control_deps)) {
    TX_ImportGraphDefOptionsAddControlDependency(opts.get(), ToOp(op.cast<std::uintptr_t>()));
  }
  for (auto item : py::reinterpret_borrow<py::sequence>(return_outputs)) {
    py::tuple t = py::reinterpret_borrow<py::tuple>(item);
    TX_ImportGraphDefOptionsAddReturnOutput(opts.get(), t[0].cast<std::string>().c_str(), t[1].cast<int>());
  }
  for (auto name : py::reinterpret_borrow<py::sequence>(return_ops)) {
    TX_ImportGraphDefOptionsAddReturnOperation(opts.get(), name.cast<std::string>().c_str());
  }

  char* data = nullptr;
  Py_ssize_t length = 0;
  if (PyBytes_AsStringAndSize(graph_def.ptr(), &data, &length) != 0) throw py::error_already_set();
  TX_Buffer buffer{data, static_cast<size_t>(length), nullptr};
  Status status;
  TX_ImportGraphDefResults* raw = nullptr;
  {
    py::gil_scoped_release release;  // the bytes object stays alive: `graph_def` holds it
    raw = TX_GraphImportGraphDefWithResults(g.graph, &buffer, opts.get(), status.get());
  }
  status.Check();
  std::unique_ptr<TX_ImportGraphDefResults, void (*)(TX_ImportGraphDefResults*)> results(
      raw, TX_DeleteImportGraphDefResults);

  int n = 0;
  TX_Output* outs = nullptr;
  TX_ImportGraphDefResultsReturnOutputs(results.get(), &n, &outs);
  py::list out_list(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out_list[i] = py::make_tuple(FromOp(outs[i].oper), outs[i].index);

  TX_Operation** ops = nullptr;
  TX_ImportGraphDefResultsReturnOperations(results.get(), &n, &ops);
  py::list op_list(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) op_list[i] = py::int_(FromOp(ops[i]));

  const char** names = nullptr;
  int* indexes = nullptr;
  TX_ImportGraphDefResultsMissingUnusedInputMappings(results.get(), &n, &names, &indexes);
  py::list missing(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) missing[i] = py::make_tuple(py::str(names[i]), indexes[i]);
  return py::make_tuple(out_list, op_list, missing);
}

}  // namespace

void InitImport(py::module_& m) {
  m.def("import_graph_def", &ImportGraphDef, py::arg("graph"), py::arg("graph_def"), py::arg("prefix"),
        py::arg("default_device"), py::arg("uniquify_names"), py::arg("uniquify_prefix"), py::arg("input_map"),
        py::arg("control_map"), py::arg("control_deps"), py::arg("return_outputs"), py::arg("return_ops"));
}

}  // namespace txpy

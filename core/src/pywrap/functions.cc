// Bindings for functions: TX_GraphToFunction(WithControlOutputs), FunctionDef import/export,
// graph libraries and func attr names.
#include <memory>
#include <string>
#include <vector>

#include "common.h"
#include "eager_tensor.h"

namespace txpy {
namespace {

// Owns a TX_Function.
struct FunctionHandle {
  explicit FunctionHandle(TX_Function* f) : func(f) {}
  ~FunctionHandle() { TX_DeleteFunction(func); }
  FunctionHandle(const FunctionHandle&) = delete;
  FunctionHandle& operator=(const FunctionHandle&) = delete;
  TX_Function* func;
};

std::vector<TX_Output> ToOutputs(const py::sequence& pairs) {
  std::vector<TX_Output> out;
  for (py::handle p : pairs) out.push_back(ToOutput(p));
  return out;
}

std::vector<const TX_Operation*> ToOps(const py::sequence& handles) {
  std::vector<const TX_Operation*> out;
  for (py::handle h : handles) out.push_back(ToOp(h.cast<std::uintptr_t>()));
  return out;
}

// `names` as NUL-terminated strings (kept in `storage`), or an empty vector for None.
std::vector<const char*> ToNames(const py::object& names, std::vector<std::string>* storage) {
  std::vector<const char*> out;
  if (names.is_none()) return out;
  for (py::handle n : py::reinterpret_borrow<py::sequence>(names)) storage->push_back(n.cast<std::string>());
  for (const std::string& s : *storage) out.push_back(s.c_str());
  return out;
}

// opers: None (every operation between inputs and outputs) or a list of operation handles.
std::unique_ptr<FunctionHandle> GraphToFunction(GraphHandle& g, const std::string& name, bool append_hash,
                                                const py::object& opers, const py::sequence& inputs,
                                                const py::sequence& outputs, const py::object& output_names,
                                                const py::sequence& control_outputs,
                                                const py::object& control_output_names,
                                                const std::string& description) {
  std::vector<const TX_Operation*> body;
  if (!opers.is_none()) body = ToOps(py::reinterpret_borrow<py::sequence>(opers));
  std::vector<TX_Output> ins = ToOutputs(inputs), outs = ToOutputs(outputs);
  std::vector<const TX_Operation*> controls = ToOps(control_outputs);
  std::vector<std::string> out_storage, control_storage;
  std::vector<const char*> out_names = ToNames(output_names, &out_storage);
  std::vector<const char*> control_names = ToNames(control_output_names, &control_storage);
  if (!out_names.empty() && out_names.size() != outs.size()) ThrowValueError("need one output name per output");
  if (!control_names.empty() && control_names.size() != controls.size())
    ThrowValueError("need one control output name per control output");
  Status status;
  TX_Function* f = nullptr;
  {
    py::gil_scoped_release release;
    f = TX_GraphToFunctionWithControlOutputs(
        g.graph, name.c_str(), append_hash, opers.is_none() ? -1 : static_cast<int>(body.size()), body.data(),
        static_cast<int>(ins.size()), ins.data(), static_cast<int>(outs.size()), outs.data(),
        out_names.empty() ? nullptr : out_names.data(), static_cast<int>(controls.size()), controls.data(),
        control_names.empty() ? nullptr : control_names.data(), nullptr, description.c_str(), status.get());
  }
  status.Check();
  return std::make_unique<FunctionHandle>(f);
}

std::unique_ptr<FunctionHandle> ImportFunctionDef(const py::bytes& proto) {
  std::string bytes = proto;
  Status status;
  TX_Function* f = TX_FunctionImportFunctionDef(bytes.data(), bytes.size(), status.get());
  status.Check();
  return std::make_unique<FunctionHandle>(f);
}

void CopyFunction(GraphHandle& g, FunctionHandle& f, FunctionHandle* grad) {
  Status status;
  TX_GraphCopyFunction(g.graph, f.func, grad ? grad->func : nullptr, status.get());
  status.Check();
}

py::list GetFunctions(GraphHandle& g) {
  const int n = TX_GraphNumFunctions(g.graph);
  std::vector<TX_Function*> funcs(static_cast<size_t>(n), nullptr);
  Status status;
  const int got = TX_GraphGetFunctions(g.graph, funcs.data(), n, status.get());
  py::list out;
  for (int i = 0; i < got; ++i) out.append(std::make_unique<FunctionHandle>(funcs[i]));
  status.Check();
  return out;
}

std::string AttrFuncName(std::uintptr_t op, const std::string& attr) {
  Status status;
  TX_AttrMetadata meta = TX_OperationGetAttrMetadata(ToOp(op), attr.c_str(), status.get());
  status.Check();
  std::string name(meta.total_size > 0 ? static_cast<size_t>(meta.total_size) : 0, '\0');
  TX_OperationGetAttrFuncName(ToOp(op), attr.c_str(), name.empty() ? nullptr : &name[0], name.size(), status.get());
  status.Check();
  return name;
}

}  // namespace

void InitFunctions(py::module_& m) {
  py::class_<FunctionHandle>(m, "Function", "Owns a TX_Function.")
      .def_property_readonly("name", [](FunctionHandle& f) { return std::string(TX_FunctionName(f.func)); })
      .def(
          "to_function_def",
          [](FunctionHandle& f) {
            return FillBuffer([&](TX_Buffer* b, TX_Status* s) { TX_FunctionToFunctionDef(f.func, b, s); });
          },
          "The serialized FunctionDef.");
  m.def("graph_to_function", &GraphToFunction, py::arg("graph"), py::arg("name"), py::arg("append_hash"),
        py::arg("opers"), py::arg("inputs"), py::arg("outputs"), py::arg("output_names"), py::arg("control_outputs"),
        py::arg("control_output_names"), py::arg("description"),
        "A function from graph operations; inputs/outputs are (op, index) pairs.");
  m.def("function_from_function_def", &ImportFunctionDef, py::arg("function_def"));
  m.def(
      "eager_add_function",
      [](FunctionHandle& f, FunctionHandle* grad) {
        Status status;
        TXE_ContextAddFunctionWithGradient(EagerContext(), f.func, grad ? grad->func : nullptr, status.get());
        status.Check();
      },
      py::arg("func"), py::arg("grad") = nullptr,
      "Adds the function (and its gradient function) to the eager context.");
  m.def("graph_copy_function", &CopyFunction, py::arg("graph"), py::arg("func"), py::arg("grad") = nullptr);
  m.def("graph_num_functions", [](GraphHandle& g) { return TX_GraphNumFunctions(g.graph); });
  m.def("graph_get_functions", &GetFunctions, "The graph's functions, sorted by name.");
  m.def("op_get_attr_func_name", &AttrFuncName, py::arg("op"), py::arg("attr"));
}

}  // namespace txpy

// Graph handles, operation construction in one call (finish_operation), static shapes and
// serialization.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "attr_kinds.h"
#include "common.h"

namespace txpy {
namespace {

std::string AsBytes(py::handle v) {
  if (PyUnicode_Check(v.ptr())) return v.cast<std::string>();
  if (PyBytes_Check(v.ptr())) return std::string(PyBytes_AS_STRING(v.ptr()), PyBytes_GET_SIZE(v.ptr()));
  ThrowTypeError("expected str or bytes");
}

// Reads a shape given as None (unknown rank) or a sequence of ints (-1 = unknown dim).
int ReadShape(py::handle v, std::vector<int64_t>* dims) {
  dims->clear();
  if (v.is_none()) return -1;
  for (auto d : py::reinterpret_borrow<py::sequence>(v)) dims->push_back(d.is_none() ? -1 : d.cast<int64_t>());
  return static_cast<int>(dims->size());
}

// Reads a tensor attr value given as (dtype_enum, ndarray) into a new tensor the caller owns.
TX_Tensor* ReadTensor(py::handle v) {
  py::tuple pair = py::reinterpret_borrow<py::tuple>(v);
  if (pair.size() != 2) ThrowTypeError("tensor attrs are passed as (dtype, array)");
  return CopyToTensor(static_cast<TX_DataType>(pair[0].cast<int>()), py::array::ensure(pair[1]));
}

// Sets a list(string) or list(func) attr from a sequence of str/bytes with `setter`.
template <typename Setter>
void SetBytesList(TX_OperationDescription* desc, const char* name, py::sequence seq, Setter setter) {
  std::vector<std::string> owned;
  for (auto x : seq) owned.push_back(AsBytes(x));
  std::vector<const void*> ptrs;
  std::vector<size_t> lens;
  for (auto& s : owned) {
    ptrs.push_back(s.data());
    lens.push_back(s.size());
  }
  setter(desc, name, ptrs.data(), lens.data(), static_cast<int>(owned.size()));
}

// Sets one attr on `desc`; errors from setters that report a status land in `status`.
void SetAttr(TX_OperationDescription* desc, const std::string& name, int kind, py::handle v, Status& status) {
  const char* n = name.c_str();
  switch (kind) {
    case kString: {
      std::string s = AsBytes(v);
      TX_SetAttrString(desc, n, s.data(), s.size());
      return;
    }
    case kInt: TX_SetAttrInt(desc, n, v.cast<int64_t>()); return;
    case kFloat: TX_SetAttrFloat(desc, n, v.cast<float>()); return;
    case kBool: TX_SetAttrBool(desc, n, static_cast<unsigned char>(v.cast<bool>())); return;
    case kType: TX_SetAttrType(desc, n, static_cast<TX_DataType>(v.cast<int>())); return;
    case kShape: {
      std::vector<int64_t> dims;
      int nd = ReadShape(v, &dims);
      TX_SetAttrShape(desc, n, dims.data(), nd);
      return;
    }
    case kTensor: {
      TX_Tensor* t = ReadTensor(v);
      TX_SetAttrTensor(desc, n, t, status.get());
      TX_DeleteTensor(t);
      return;
    }
    case kFunc: {
      std::string s = AsBytes(v);
      TX_SetAttrFuncName(desc, n, s.data(), s.size());
      return;
    }
    case kProto: {
      std::string s = AsBytes(v);
      TX_SetAttrValueProto(desc, n, s.data(), s.size(), status.get());
      return;
    }
    default: break;
  }
  if (!(kind & kList)) ThrowValueError("unknown attr kind " + std::to_string(kind));
  py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
  const int count = static_cast<int>(seq.size());
  switch (kind & ~kList) {
    case kString: SetBytesList(desc, n, seq, TX_SetAttrStringList); return;
    case kFunc: SetBytesList(desc, n, seq, TX_SetAttrFuncNameList); return;
    case kInt: {
      std::vector<int64_t> xs;
      for (auto x : seq) xs.push_back(x.cast<int64_t>());
      TX_SetAttrIntList(desc, n, xs.data(), count);
      return;
    }
    case kFloat: {
      std::vector<float> xs;
      for (auto x : seq) xs.push_back(x.cast<float>());
      TX_SetAttrFloatList(desc, n, xs.data(), count);
      return;
    }
    case kBool: {
      std::vector<unsigned char> xs;
      for (auto x : seq) xs.push_back(static_cast<unsigned char>(x.cast<bool>()));
      TX_SetAttrBoolList(desc, n, xs.data(), count);
      return;
    }
    case kType: {
      std::vector<TX_DataType> xs;
      for (auto x : seq) xs.push_back(static_cast<TX_DataType>(x.cast<int>()));
      TX_SetAttrTypeList(desc, n, xs.data(), count);
      return;
    }
    case kShape: {
      std::vector<std::vector<int64_t>> shapes(static_cast<size_t>(count));
      std::vector<const int64_t*> ptrs;
      std::vector<int> ranks;
      for (int i = 0; i < count; ++i) {
        ranks.push_back(ReadShape(seq[i], &shapes[i]));
        ptrs.push_back(shapes[i].data());
      }
      TX_SetAttrShapeList(desc, n, ptrs.data(), ranks.data(), count);
      return;
    }
    case kTensor: {
      std::vector<TX_Tensor*> ts;
      try {
        for (auto x : seq) ts.push_back(ReadTensor(x));
      } catch (...) {
        for (TX_Tensor* t : ts) TX_DeleteTensor(t);
        throw;
      }
      TX_SetAttrTensorList(desc, n, ts.data(), count, status.get());
      for (TX_Tensor* t : ts) TX_DeleteTensor(t);
      return;
    }
    default: break;
  }
  ThrowValueError("unknown attr kind " + std::to_string(kind));
}

py::list OutputTypes(TX_Operation* op) {
  int n = TX_OperationNumOutputs(op);
  py::list types(n);
  for (int i = 0; i < n; ++i) types[i] = py::int_(static_cast<int>(TX_OperationOutputType(TX_Output{op, i})));
  return types;
}

// Builds an operation in one call: TX_NewOperation, inputs (a (op, index) pair for a single
// input, a list of pairs for a list input), control inputs, attrs as (name, kind, value) and
// TX_FinishOperation. Returns (op_handle, [output dtype enums]).
py::tuple FinishOperation(GraphHandle& g, const std::string& op_type, const std::string& name,
                          const std::string& device, py::handle inputs, py::handle control_inputs, py::handle attrs) {
  TX_OperationDescription* desc = TX_NewOperation(g.graph, op_type.c_str(), name.c_str());
  std::unique_ptr<TX_OperationDescription, void (*)(TX_OperationDescription*)> guard(desc,
                                                                                     TX_DeleteOperationDescription);
  Status status;
  if (!device.empty()) TX_SetDevice(desc, device.c_str());
  std::vector<TX_Output> list;
  for (auto in : py::reinterpret_borrow<py::sequence>(inputs)) {
    if (PyList_Check(in.ptr())) {
      list.clear();
      for (auto x : py::reinterpret_borrow<py::list>(in)) list.push_back(ToOutput(x));
      TX_AddInputList(desc, list.data(), static_cast<int>(list.size()));
    } else {
      TX_AddInput(desc, ToOutput(in));
    }
  }
  for (auto c : py::reinterpret_borrow<py::sequence>(control_inputs))
    TX_AddControlInput(desc, ToOp(c.cast<std::uintptr_t>()));
  for (auto a : py::reinterpret_borrow<py::sequence>(attrs)) {
    py::tuple t = py::reinterpret_borrow<py::tuple>(a);
    SetAttr(desc, t[0].cast<std::string>(), t[1].cast<int>(), t[2], status);
    status.Check();
  }
  TX_Operation* op = TX_FinishOperation(guard.release(), status.get());
  status.Check();
  return py::make_tuple(FromOp(op), OutputTypes(op));
}

py::object GetShape(GraphHandle& g, std::uintptr_t op, int index) {
  Status status;
  TX_Output out{ToOp(op), index};
  int nd = TX_GraphGetTensorNumDims(g.graph, out, status.get());
  status.Check();
  if (nd < 0) return py::none();
  std::vector<int64_t> dims(static_cast<size_t>(nd));
  TX_GraphGetTensorShape(g.graph, out, dims.data(), nd, status.get());
  status.Check();
  py::tuple result(nd);
  for (int i = 0; i < nd; ++i) result[i] = dims[i] < 0 ? py::object(py::none()) : py::object(py::int_(dims[i]));
  return std::move(result);
}

void SetShape(GraphHandle& g, std::uintptr_t op, int index, py::handle shape) {
  std::vector<int64_t> dims;
  int nd = ReadShape(shape, &dims);
  Status status;
  TX_GraphSetTensorShape(g.graph, TX_Output{ToOp(op), index}, dims.data(), nd, status.get());
  status.Check();
}

}  // namespace

GraphHandle::GraphHandle() : graph(TX_NewGraph()) {}
GraphHandle::~GraphHandle() { TX_DeleteGraph(graph); }

void InitGraph(py::module_& m) {
  py::class_<GraphHandle>(m, "Graph", "Owns a TX_Graph.").def(py::init<>());
  m.def("finish_operation", &FinishOperation, py::arg("graph"), py::arg("op_type"), py::arg("name"), py::arg("device"),
        py::arg("inputs"), py::arg("control_inputs"), py::arg("attrs"));
  m.def("graph_get_shape", &GetShape, "Static shape: None (unknown rank) or a tuple with None for unknown dims.");
  m.def("graph_set_shape", &SetShape);
  m.def("graph_operation_by_name",
        [](GraphHandle& g, const std::string& name) { return FromOp(TX_GraphOperationByName(g.graph, name.c_str())); });
  m.def("graph_operations", [](GraphHandle& g, size_t start) {
    // Operations in creation order, from position `start`; returns (handles, next position).
    py::list ops;
    size_t pos = start;
    while (TX_Operation* op = TX_GraphNextOperation(g.graph, &pos)) ops.append(FromOp(op));
    return py::make_tuple(ops, pos);
  });
  m.def("graph_num_operations", [](GraphHandle& g) { return TX_GraphNumOperations(g.graph); });
  m.def("graph_unique_name",
        [](GraphHandle& g, const std::string& base) { return std::string(TX_GraphUniqueName(g.graph, base.c_str())); });
  m.def("graph_to_graph_def", [](GraphHandle& g) {
    return FillBuffer([&](TX_Buffer* b, TX_Status* s) { TX_GraphToGraphDef(g.graph, b, s); });
  });
  m.def("graph_get_op_def", [](GraphHandle& g, const std::string& op_type) {
    return FillBuffer([&](TX_Buffer* b, TX_Status* s) { TX_GraphGetOpDef(g.graph, op_type.c_str(), b, s); });
  });
  m.def("graph_versions", [](GraphHandle& g) {
    return FillBuffer([&](TX_Buffer* b, TX_Status* s) { TX_GraphVersions(g.graph, b, s); });
  });
  m.def("op_node_def", [](std::uintptr_t op) {
    return FillBuffer([&](TX_Buffer* b, TX_Status* s) { TX_OperationToNodeDef(ToOp(op), b, s); });
  });
  m.def("op_output_types", [](std::uintptr_t op) { return OutputTypes(ToOp(op)); });
}

}  // namespace txpy

// Operation introspection: name, type, device, edges and attr values.
#include <string>
#include <vector>

#include "attr_kinds.h"
#include "common.h"

namespace txpy {
namespace {

py::list OutputPairs(const std::vector<TX_Output>& outs) {
  py::list result(outs.size());
  for (size_t i = 0; i < outs.size(); ++i) result[i] = py::make_tuple(FromOp(outs[i].oper), outs[i].index);
  return result;
}

py::list OpList(const std::vector<TX_Operation*>& ops) {
  py::list result(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) result[i] = py::int_(FromOp(ops[i]));
  return result;
}

// (name, type, device, [output dtype enums]) in one call.
py::tuple OpInfo(std::uintptr_t h) {
  TX_Operation* op = ToOp(h);
  int n = TX_OperationNumOutputs(op);
  py::list types(n);
  for (int i = 0; i < n; ++i) types[i] = py::int_(static_cast<int>(TX_OperationOutputType(TX_Output{op, i})));
  return py::make_tuple(py::str(TX_OperationName(op)), py::str(TX_OperationOpType(op)), py::str(TX_OperationDevice(op)),
                        types);
}

py::list OpInputs(std::uintptr_t h) {
  TX_Operation* op = ToOp(h);
  std::vector<TX_Output> ins(static_cast<size_t>(TX_OperationNumInputs(op)));
  if (!ins.empty()) TX_OperationAllInputs(op, ins.data(), static_cast<int>(ins.size()));
  return OutputPairs(ins);
}

py::list OpControlInputs(std::uintptr_t h) {
  TX_Operation* op = ToOp(h);
  std::vector<TX_Operation*> ops(static_cast<size_t>(TX_OperationNumControlInputs(op)));
  if (!ops.empty()) ops.resize(TX_OperationGetControlInputs(op, ops.data(), static_cast<int>(ops.size())));
  return OpList(ops);
}

py::list OpControlOutputs(std::uintptr_t h) {
  TX_Operation* op = ToOp(h);
  std::vector<TX_Operation*> ops(static_cast<size_t>(TX_OperationNumControlOutputs(op)));
  if (!ops.empty()) ops.resize(TX_OperationGetControlOutputs(op, ops.data(), static_cast<int>(ops.size())));
  return OpList(ops);
}

py::list OutputConsumers(std::uintptr_t h, int index) {
  TX_Output out{ToOp(h), index};
  std::vector<TX_Input> cons(static_cast<size_t>(TX_OperationOutputNumConsumers(out)));
  if (!cons.empty()) cons.resize(TX_OperationOutputConsumers(out, cons.data(), static_cast<int>(cons.size())));
  py::list result(cons.size());
  for (size_t i = 0; i < cons.size(); ++i) result[i] = py::make_tuple(FromOp(cons[i].oper), cons[i].index);
  return result;
}

py::list AttrNames(std::uintptr_t h) {
  TX_Operation* op = ToOp(h);
  int n = TX_OperationGetNumAttrs(op);
  py::list names;
  Status status;
  for (int i = 0; i < n; ++i) {
    const char* name = TX_OperationGetAttrName(op, i, status.get());
    status.Check();
    names.append(py::str(name));
  }
  return names;
}

py::bytes AttrProto(TX_Operation* op, const char* name) {
  TX_Buffer* buf = TX_NewBuffer();
  Status status;
  TX_OperationGetAttrValueProto(op, name, buf, status.get());
  if (!status.ok()) {
    TX_DeleteBuffer(buf);
    status.Check();
  }
  py::bytes out(static_cast<const char*>(buf->data), buf->length);
  TX_DeleteBuffer(buf);
  return out;
}

template <typename T, typename Get>
py::list ScalarList(int64_t n, Get get) {
  std::vector<T> values(static_cast<size_t>(n));
  Status status;
  get(values.data(), static_cast<int>(n), status.get());
  status.Check();
  py::list out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = py::cast(values[i]);
  return out;
}

// Returns (kind, value): Python values for scalars and scalar lists, a (copied) NumPy array
// for a tensor, dims (or None) for a shape, and (kProto, AttrValue bytes) for the rest.
py::tuple GetAttr(std::uintptr_t h, const std::string& attr_name) {
  TX_Operation* op = ToOp(h);
  const char* name = attr_name.c_str();
  Status status;
  TX_AttrMetadata md = TX_OperationGetAttrMetadata(op, name, status.get());
  status.Check();
  const int kind = static_cast<int>(md.type);
  if (md.is_list) {
    const int64_t n = md.list_size;
    py::object v;
    switch (md.type) {
      case TX_ATTR_STRING: {
        std::vector<void*> ptrs(static_cast<size_t>(n));
        std::vector<size_t> lens(static_cast<size_t>(n));
        std::string storage(static_cast<size_t>(md.total_size > 0 ? md.total_size : 0), '\0');
        TX_OperationGetAttrStringList(op, name, ptrs.data(), lens.data(), static_cast<int>(n), &storage[0],
                                      storage.size(), status.get());
        status.Check();
        py::list out(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) out[i] = py::bytes(static_cast<const char*>(ptrs[i]), lens[i]);
        v = out;
        break;
      }
      case TX_ATTR_INT:
        v = ScalarList<int64_t>(
            n, [&](int64_t* d, int k, TX_Status* s) { TX_OperationGetAttrIntList(op, name, d, k, s); });
        break;
      case TX_ATTR_FLOAT:
        v = ScalarList<float>(n,
                              [&](float* d, int k, TX_Status* s) { TX_OperationGetAttrFloatList(op, name, d, k, s); });
        break;
      case TX_ATTR_BOOL: {
        py::list raw = ScalarList<unsigned char>(
            n, [&](unsigned char* d, int k, TX_Status* s) { TX_OperationGetAttrBoolList(op, name, d, k, s); });
        py::list out(raw.size());
        for (size_t i = 0; i < raw.size(); ++i) out[i] = py::bool_(raw[i].cast<int>() != 0);
        v = out;
        break;
      }
      case TX_ATTR_TYPE:
        v = ScalarList<int>(n, [&](int* d, int k, TX_Status* s) {
          TX_OperationGetAttrTypeList(op, name, reinterpret_cast<TX_DataType*>(d), k, s);
        });
        break;
      default: return py::make_tuple(int(kProto), AttrProto(op, name));
    }
    return py::make_tuple(kind | 16, v);
  }
  switch (md.type) {
    case TX_ATTR_STRING: {
      std::string s(static_cast<size_t>(md.total_size > 0 ? md.total_size : 0), '\0');
      TX_OperationGetAttrString(op, name, &s[0], s.size(), status.get());
      status.Check();
      return py::make_tuple(kind, py::bytes(s));
    }
    case TX_ATTR_INT: {
      int64_t x = 0;
      TX_OperationGetAttrInt(op, name, &x, status.get());
      status.Check();
      return py::make_tuple(kind, x);
    }
    case TX_ATTR_FLOAT: {
      float x = 0;
      TX_OperationGetAttrFloat(op, name, &x, status.get());
      status.Check();
      return py::make_tuple(kind, x);
    }
    case TX_ATTR_BOOL: {
      unsigned char x = 0;
      TX_OperationGetAttrBool(op, name, &x, status.get());
      status.Check();
      return py::make_tuple(kind, x != 0);
    }
    case TX_ATTR_TYPE: {
      TX_DataType x = TX_FLOAT;
      TX_OperationGetAttrType(op, name, &x, status.get());
      status.Check();
      return py::make_tuple(kind, static_cast<int>(x));
    }
    case TX_ATTR_SHAPE: {
      if (md.total_size < 0) return py::make_tuple(kind, py::none());
      std::vector<int64_t> dims(static_cast<size_t>(md.total_size));
      TX_OperationGetAttrShape(op, name, dims.data(), static_cast<int>(dims.size()), status.get());
      status.Check();
      py::list out(dims.size());
      for (size_t i = 0; i < dims.size(); ++i)
        out[i] = dims[i] < 0 ? py::object(py::none()) : py::object(py::int_(dims[i]));
      return py::make_tuple(kind, out);
    }
    case TX_ATTR_TENSOR: {
      TX_Tensor* t = nullptr;
      TX_OperationGetAttrTensor(op, name, &t, status.get());
      status.Check();
      // Copied: a graph constant must never be writable through a NumPy view.
      return py::make_tuple(kind, TensorToNumpy(t, /*copy=*/true));
    }
    default: return py::make_tuple(int(kProto), AttrProto(op, name));
  }
}

}  // namespace

void InitOperation(py::module_& m) {
  m.def("op_info", &OpInfo, "(name, type, device, [output dtype enums]).");
  m.def("op_inputs", &OpInputs, "Producers of the data inputs, as (op, index) pairs.");
  m.def("op_control_inputs", &OpControlInputs);
  m.def("op_control_outputs", &OpControlOutputs);
  m.def("output_consumers", &OutputConsumers, "Consumers of an output, as (op, input index) pairs.");
  m.def("op_attr_names", &AttrNames);
  m.def("op_output_list_length", [](std::uintptr_t op, const std::string& arg) {
    Status status;
    int n = TX_OperationOutputListLength(ToOp(op), arg.c_str(), status.get());
    status.Check();
    return n;
  });
  m.def("op_get_attr", &GetAttr, "(kind, value) of an attr.");
}

}  // namespace txpy

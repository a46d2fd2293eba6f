// The eager hot path: one call per op from the generated wrappers (op_def_library.apply_op) —
// argument conversion, attrs, TXE_Execute and output wrapping in C++ (Note [Eager fast path]).
//
// Note [Eager fast path]
// A wrapper's OpSig is compiled once into an OpSpec (a capsule cached on the OpSig) holding the
// op type, per-input type attr and kind, attr names and kinds, output structure and a TXE_Op that
// is reset and reused for every call (TXE_OpReset keeps the op's kernel when the signature
// repeats, so the engine skips the cache lookup too). Per call the work is: infer type attrs
// from EagerTensor inputs, convert Python scalars of a known dtype in C++ (anything else goes to
// the Python converter, tensorflux._src.eager_tensor._convert), set attrs (ints, floats, bools and
// DTypes in C++, other kinds through op_def_library.convert_attr), execute, and wrap the outputs.
// The GIL is released only around ops with large inputs: for small ones releasing and retaking it
// costs more than the kernel.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "attr_kinds.h"
#include "eager_tensor.h"
#include "interrupt.h"

namespace txpy {
namespace {

// Inputs with more elements than this run with the GIL released.
constexpr int64_t kReleaseGilElements = 1 << 14;

PyObject* g_convert = nullptr;  // (value, dtype enum or 0, arg name, op type, dtype only preferred) -> EagerTensor
PyObject* g_convert_attr = nullptr;  // op_def_library.convert_attr
PyObject* g_dtype_type = nullptr;  // tensorflux DType class

struct InputSpec {
  std::string name;
  int type_attr;  // index into OpSpec::type_attrs, -1 when none
  TX_DataType fixed;
  int kind;
};

struct OpSpec {
  std::string op_type;
  std::vector<InputSpec> inputs;
  std::vector<TX_DataType> type_defaults;  // per type attr; 0 when none
  std::vector<std::pair<std::string, int>> attrs;
  std::vector<std::pair<std::string, bool>> outputs;
  py::object output_class;
  bool may_call_back = false;  // runs with the GIL released (Note [GIL and host callbacks])
  TXE_Op* op = nullptr;
  bool busy = false;
  bool runs_functions = false;  // a call or control-flow op: may run long (Note [Interrupting runs])
  ~OpSpec() { TXE_DeleteOp(op); }
};

OpSpec* SpecOf(PyObject* capsule) {
  auto* spec = static_cast<OpSpec*>(PyCapsule_GetPointer(capsule, "tensorflux.OpSpec"));
  if (spec == nullptr) throw py::error_already_set();
  return spec;
}

// Note [GIL and host callbacks]
// Host-callback ops (PyFunc, EagerPyFunc) take the GIL inside their kernel, possibly on another
// engine thread, and ops that run functions may contain them: those ops always run with the GIL
// released, or the callback would wait forever for the GIL this thread holds.
bool MayCallBack(const std::string& op_type) {
  static const char* const kTypes[] = {
      "PyFunc", "PyFuncStateless", "EagerPyFunc", "PartitionedCall", "StatefulPartitionedCall", "If", "StatelessIf",
      "While",  "StatelessWhile",  "Case",        "StatelessCase",   "SymbolicGradient"};
  for (const char* t : kTypes)
    if (op_type == t) return true;
  return false;
}

py::capsule MakeSpec(py::handle sig) {
  auto spec = std::make_unique<OpSpec>();
  spec->op_type = sig.attr("op_type").cast<std::string>();
  spec->may_call_back = MayCallBack(spec->op_type);
  static const char* const kFunctionOps[] = {
      "PartitionedCall", "StatefulPartitionedCall", "While", "StatelessWhile", "If", "StatelessIf", "Case",
      "StatelessCase"};
  for (const char* f : kFunctionOps) spec->runs_functions |= spec->op_type == f;
  std::vector<std::string> type_attrs;
  py::dict defaults = sig.attr("type_defaults");
  for (auto item : sig.attr("inputs")) {
    py::tuple t = py::reinterpret_borrow<py::tuple>(item);
    InputSpec in;
    in.name = t[0].cast<std::string>();
    std::string ta = t[1].cast<std::string>();
    in.fixed = static_cast<TX_DataType>(t[2].cast<int>());
    in.kind = t[3].cast<int>();
    in.type_attr = -1;
    if (!ta.empty()) {
      for (size_t k = 0; k < type_attrs.size(); ++k)
        if (type_attrs[k] == ta) in.type_attr = static_cast<int>(k);
      if (in.type_attr < 0) {
        in.type_attr = static_cast<int>(type_attrs.size());
        type_attrs.push_back(ta);
        spec->type_defaults.push_back(defaults.contains(ta)
                                          ? static_cast<TX_DataType>(defaults[py::str(ta)].cast<int>())
                                          : static_cast<TX_DataType>(0));
      }
    }
    spec->inputs.push_back(std::move(in));
  }
  for (auto item : sig.attr("attrs")) {
    py::tuple t = py::reinterpret_borrow<py::tuple>(item);
    spec->attrs.emplace_back(t[0].cast<std::string>(), t[1].cast<int>());
  }
  for (auto item : sig.attr("outputs")) {
    py::tuple t = py::reinterpret_borrow<py::tuple>(item);
    spec->outputs.emplace_back(t[0].cast<std::string>(), t[1].cast<bool>());
  }
  spec->output_class = sig.attr("output_class");
  return py::capsule(spec.release(), "tensorflux.OpSpec",
                     [](PyObject* c) { delete static_cast<OpSpec*>(PyCapsule_GetPointer(c, "tensorflux.OpSpec")); });
}

// A scalar EagerTensor of `dt` from a Python int or float, or nullptr when `v` is not one (or
// does not fit: the Python converter then raises the right error).
TXE_TensorHandle* FastScalar(PyObject* v, TX_DataType dt) {
  const bool is_float = PyFloat_CheckExact(v), is_int = PyLong_CheckExact(v);
  if (!is_float && !is_int) return nullptr;
  union {
    float f;
    double d;
    int32_t i;
    int64_t l;
  } val;
  size_t size = 0;
  if (dt == TX_FLOAT) {
    val.f = static_cast<float>(is_float ? PyFloat_AS_DOUBLE(v) : PyLong_AsDouble(v));
    size = 4;
  } else if (dt == TX_DOUBLE) {
    val.d = is_float ? PyFloat_AS_DOUBLE(v) : PyLong_AsDouble(v);
    size = 8;
  } else if (is_int && (dt == TX_INT32 || dt == TX_INT64)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || (dt == TX_INT32 && (x < INT32_MIN || x > INT32_MAX))) return nullptr;
    if (dt == TX_INT32) {
      val.i = static_cast<int32_t>(x);
      size = 4;
    } else {
      val.l = x;
      size = 8;
    }
  } else {
    return nullptr;
  }
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return nullptr;
  }
  TX_Tensor* t = TX_AllocateTensor(dt, nullptr, 0, size);
  if (t == nullptr) return nullptr;
  std::memcpy(TX_TensorData(t), &val, size);
  TXE_TensorHandle* h = TXE_NewTensorHandle(t, nullptr);
  TX_DeleteTensor(t);
  return h;
}

// `v` as an EagerTensor object of dtype `dt` (0: inferred from the value), on `device` (NULL:
// device 0) so that values converted for an op live where the op runs.
py::object Convert(PyObject* v, TX_DataType dt, bool preferred, const InputSpec& in, const OpSpec& spec,
                   const char* device) {
  if (dt != 0 && device == nullptr) {
    if (TXE_TensorHandle* h = FastScalar(v, dt)) return WrapHandle(h);
  }
  py::int_ dtype(static_cast<int>(dt));
  py::str arg(in.name), op(spec.op_type);
  PyObject* r = PyObject_CallFunctionObjArgs(g_convert, v, dtype.ptr(), arg.ptr(), op.ptr(),
                                             preferred ? Py_True : Py_False, nullptr);
  if (r == nullptr) throw py::error_already_set();
  if (!IsEagerTensor(r)) {
    Py_DECREF(r);
    ThrowTypeError("the eager converter did not return an EagerTensor");
  }
  py::object out = py::reinterpret_steal<py::object>(r);
  if (device == nullptr) return out;
  Status s;
  TXE_TensorHandle* h = TXE_TensorHandleCopyToDevice(HandleOf(out.ptr()), EagerContext(), device, s.get());
  s.Check();
  return WrapHandle(h);
}

void Infer(TX_DataType* inferred, const InputSpec& in, PyObject* t) {
  if (in.type_attr >= 0 && inferred[in.type_attr] == 0) inferred[in.type_attr] = TXE_TensorHandleDataType(HandleOf(t));
}

int64_t ToInt(PyObject* v) {
  long long x = PyLong_AsLongLong(v);
  if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
  return x;
}

// Sets attr `name` of kind `kind` from the value convert_attr returned.
void SetConverted(TXE_Op* op, const std::string& name, int kind, py::handle v) {
  const char* n = name.c_str();
  const int base = kind & ~kList;
  Status s;
  if (!(kind & kList)) {
    switch (base) {
      case kString:
      case kFunc: {
        std::string str =
            py::isinstance<py::bytes>(v) ? std::string(py::reinterpret_borrow<py::bytes>(v)) : v.cast<std::string>();
        if (base == kFunc)
          TXE_OpSetAttrFunctionName(op, n, str.data(), str.size());
        else
          TXE_OpSetAttrString(op, n, str.data(), str.size());
        return;
      }
      case kInt: TXE_OpSetAttrInt(op, n, v.cast<int64_t>()); return;
      case kFloat: TXE_OpSetAttrFloat(op, n, v.cast<float>()); return;
      case kBool: TXE_OpSetAttrBool(op, n, v.cast<bool>()); return;
      case kType: TXE_OpSetAttrType(op, n, static_cast<TX_DataType>(v.cast<int>())); return;
      case kShape: {
        if (v.is_none()) {
          TXE_OpSetAttrShape(op, n, nullptr, -1, s.get());
          break;
        }
        std::vector<int64_t> dims = v.cast<std::vector<int64_t>>();
        TXE_OpSetAttrShape(op, n, dims.data(), static_cast<int>(dims.size()), s.get());
        break;
      }
      case kTensor: {
        py::tuple t = py::reinterpret_borrow<py::tuple>(v);
        std::unique_ptr<TX_Tensor, void (*)(TX_Tensor*)> tensor(
            CopyToTensor(static_cast<TX_DataType>(t[0].cast<int>()), t[1].cast<py::array>()), TX_DeleteTensor);
        TXE_OpSetAttrTensor(op, n, tensor.get(), s.get());
        break;
      }
      default: ThrowTypeError("attr '" + name + "': unsupported attr kind in eager mode");
    }
    s.Check();
    return;
  }
  py::list items = py::list(py::reinterpret_borrow<py::object>(v));
  const int count = static_cast<int>(items.size());
  switch (base) {
    case kInt:
    case kType:
    case kBool:
    case kFloat: {
      std::vector<int64_t> iv;
      std::vector<float> fv;
      for (auto x : items) {
        if (base == kFloat)
          fv.push_back(x.cast<float>());
        else
          iv.push_back(x.cast<int64_t>());
      }
      if (base == kInt)
        TXE_OpSetAttrIntList(op, n, iv.data(), count);
      else if (base == kFloat)
        TXE_OpSetAttrFloatList(op, n, fv.data(), count);
      else if (base == kBool) {
        std::vector<unsigned char> b(iv.begin(), iv.end());
        TXE_OpSetAttrBoolList(op, n, b.data(), count);
      } else {
        std::vector<TX_DataType> t;
        for (auto x : iv) t.push_back(static_cast<TX_DataType>(x));
        TXE_OpSetAttrTypeList(op, n, t.data(), count);
      }
      return;
    }
    case kString:
    case kFunc: {
      std::vector<std::string> strs;
      for (auto x : items)
        strs.push_back(py::isinstance<py::bytes>(x) ? std::string(py::reinterpret_borrow<py::bytes>(x))
                                                    : x.cast<std::string>());
      std::vector<const void*> ptrs;
      std::vector<size_t> lens;
      for (const auto& str : strs) {
        ptrs.push_back(str.data());
        lens.push_back(str.size());
      }
      if (base == kFunc)
        TXE_OpSetAttrFunctionNameList(op, n, ptrs.data(), lens.data(), count);
      else
        TXE_OpSetAttrStringList(op, n, ptrs.data(), lens.data(), count);
      return;
    }
    case kShape: {
      std::vector<std::vector<int64_t>> shapes;
      std::vector<const int64_t*> ptrs;
      std::vector<int> nd;
      for (auto x : items) {
        shapes.push_back(x.is_none() ? std::vector<int64_t>{} : x.cast<std::vector<int64_t>>());
        nd.push_back(x.is_none() ? -1 : static_cast<int>(shapes.back().size()));
      }
      for (auto& sh : shapes) ptrs.push_back(sh.data());
      TXE_OpSetAttrShapeList(op, n, ptrs.data(), nd.data(), count, s.get());
      s.Check();
      return;
    }
    default: ThrowTypeError("attr '" + name + "': unsupported list attr kind in eager mode");
  }
}

// Whether v is a tensorflux DType object.
bool IsDType(PyObject* v) {
  return g_dtype_type != nullptr && Py_TYPE(v) == reinterpret_cast<PyTypeObject*>(g_dtype_type);
}

// The enum of a tensorflux DType object (IsDType(v)).
TX_DataType DTypeEnum(PyObject* v) {
  py::object e = py::reinterpret_borrow<py::object>(v).attr("_enum");
  return static_cast<TX_DataType>(ToInt(e.ptr()));
}

void SetAttr(TXE_Op* op, const std::string& name, int kind, PyObject* v) {
  // Fast paths for the common scalar kinds; everything else (and every error) through Python.
  if (kind == kInt && PyLong_CheckExact(v)) return TXE_OpSetAttrInt(op, name.c_str(), ToInt(v));
  if (kind == kBool && PyBool_Check(v)) return TXE_OpSetAttrBool(op, name.c_str(), v == Py_True);
  if (kind == kFloat && PyFloat_CheckExact(v))
    return TXE_OpSetAttrFloat(op, name.c_str(), static_cast<float>(PyFloat_AS_DOUBLE(v)));
  if (kind == kType && IsDType(v)) return TXE_OpSetAttrType(op, name.c_str(), DTypeEnum(v));
  if (kind == kFunc && PyUnicode_CheckExact(v)) {  // a function's name, as the converter passes it on
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(v, &size);
    if (data == nullptr) throw py::error_already_set();
    return TXE_OpSetAttrFunctionName(op, name.c_str(), data, static_cast<size_t>(size));
  }
  if (kind == (kType | kList) && PyTuple_CheckExact(v) && PyTuple_GET_SIZE(v) <= 16) {  // a call's Tout
    TX_DataType types[16];
    const Py_ssize_t count = PyTuple_GET_SIZE(v);
    Py_ssize_t i = 0;
    for (; i < count && IsDType(PyTuple_GET_ITEM(v, i)); ++i) types[i] = DTypeEnum(PyTuple_GET_ITEM(v, i));
    if (i == count) return TXE_OpSetAttrTypeList(op, name.c_str(), types, static_cast<int>(count));
  }
  py::str attr_name(name);
  py::int_ attr_kind(kind);
  PyObject* c = PyObject_CallFunctionObjArgs(g_convert_attr, attr_name.ptr(), attr_kind.ptr(), v, nullptr);
  if (c == nullptr) throw py::error_already_set();
  py::object conv = py::reinterpret_steal<py::object>(c);
  SetConverted(op, name, kind, conv);
}

// Releases the op for the next caller when the call ends (also on errors); resetting it drops its
// references to this call's inputs.
struct OpLease {
  OpSpec* spec;
  TXE_Op* op;
  ~OpLease() {
    if (op != spec->op) {
      TXE_DeleteOp(op);
      return;
    }
    if (op != nullptr) TXE_OpReset(op, spec->op_type.c_str(), nullptr, nullptr);
    spec->busy = false;
  }
};

py::object Execute(PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 4) ThrowTypeError("eager_execute(spec, inputs, attr_values, device)");
  OpSpec* spec = SpecOf(args[0]);
  // Generated wrappers pass tuples; other callers may pass lists.
  py::object inputs_holder, attrs_holder;
  PyObject* inputs = args[1];
  PyObject* attr_values = args[2];
  if (PyList_Check(inputs)) {
    inputs_holder = py::reinterpret_steal<py::object>(PyList_AsTuple(inputs));
    inputs = inputs_holder.ptr();
  }
  if (PyList_Check(attr_values)) {
    attrs_holder = py::reinterpret_steal<py::object>(PyList_AsTuple(attr_values));
    attr_values = attrs_holder.ptr();
  }
  PyObject* device = args[3];
  if (!PyTuple_Check(inputs) || PyTuple_GET_SIZE(inputs) != static_cast<Py_ssize_t>(spec->inputs.size()))
    ThrowTypeError("eager_execute: wrong inputs for " + spec->op_type);
  const size_t nin = spec->inputs.size();

  const char* dev = nullptr;
  std::string dev_str;
  if (device != Py_None) {
    dev_str = py::reinterpret_borrow<py::str>(device).cast<std::string>();
    dev = dev_str.c_str();
  }

  // Type attrs from the EagerTensors among the inputs, then everything else converted. Small
  // inline arrays: no heap allocation for ops with few inputs and type attrs.
  constexpr size_t kInline = 8;
  TX_DataType inferred_small[kInline];
  std::vector<TX_DataType> inferred_big;
  TX_DataType* inferred = inferred_small;
  const size_t ntypes = spec->type_defaults.size();
  if (ntypes > kInline) {
    inferred_big.resize(ntypes);
    inferred = inferred_big.data();
  }
  for (size_t k = 0; k < ntypes; ++k) inferred[k] = static_cast<TX_DataType>(0);
  for (size_t i = 0; i < nin; ++i) {
    PyObject* v = PyTuple_GET_ITEM(inputs, i);
    const InputSpec& in = spec->inputs[i];
    if (in.kind == kSingle) {
      if (IsEagerTensor(v)) Infer(inferred, in, v);
    } else if (in.kind == kNumberList && (PyList_Check(v) || PyTuple_Check(v))) {
      py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
      for (auto item : seq)
        if (IsEagerTensor(item.ptr())) {
          Infer(inferred, in, item.ptr());
          break;
        }
    }
  }
  std::vector<py::object> keep;  // converted inputs, alive until execution ends
  TXE_TensorHandle* single_small[kInline];
  std::vector<TXE_TensorHandle*> single_big;
  TXE_TensorHandle** single = single_small;  // the handle of each single-tensor input
  if (nin > kInline) {
    single_big.resize(nin);
    single = single_big.data();
  }
  std::vector<std::vector<TXE_TensorHandle*>> lists;  // list inputs, in order
  int64_t elements = 0;
  for (size_t i = 0; i < nin; ++i) {
    PyObject* v = PyTuple_GET_ITEM(inputs, i);
    const InputSpec& in = spec->inputs[i];
    auto dtype_for = [&]() -> TX_DataType {
      if (in.fixed != 0) return in.fixed;
      if (in.type_attr < 0) return static_cast<TX_DataType>(0);
      TX_DataType dt = inferred[in.type_attr];
      return dt != 0 ? dt : spec->type_defaults[in.type_attr];
    };
    auto handle_of = [&](PyObject* item) {
      if (!IsEagerTensor(item)) {
        const bool typed = in.kind == kSingle || in.kind == kNumberList;
        const bool preferred = typed && in.fixed == 0 && in.type_attr >= 0 && inferred[in.type_attr] == 0;
        keep.push_back(Convert(item, typed ? dtype_for() : static_cast<TX_DataType>(0), preferred, in, *spec, dev));
        item = keep.back().ptr();
        if (in.kind != 2) Infer(inferred, in, item);
      }
      TXE_TensorHandle* h = HandleOf(item);
      elements += TXE_TensorHandleNumElements(h, nullptr);
      return h;
    };
    if (in.kind == kSingle) {
      single[i] = handle_of(v);
    } else {
      if (!PyList_Check(v) && !PyTuple_Check(v))
        ThrowTypeError("Expected a list for input '" + in.name + "' of " + spec->op_type + ", not " +
                       Py_TYPE(v)->tp_name + ".");
      lists.emplace_back();
      py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
      for (auto item : seq) lists.back().push_back(handle_of(item.ptr()));
    }
  }

  OpLease lease{spec, nullptr};
  if (spec->op != nullptr && !spec->busy) {
    lease.op = spec->op;
    spec->busy = true;
  }
  Status s;
  if (lease.op == nullptr) {
    lease.op = TXE_NewOp(EagerContext(), spec->op_type.c_str(), s.get());
    s.Check();
    if (spec->op == nullptr) {
      spec->op = lease.op;
      spec->busy = true;
    }
  }
  TXE_Op* op = lease.op;
  TXE_OpReset(op, spec->op_type.c_str(), dev, s.get());
  s.Check();
  for (size_t i = 0, l = 0; i < nin; ++i) {
    if (spec->inputs[i].kind == kSingle) {
      TXE_OpAddInput(op, single[i], s.get());
    } else {
      TXE_OpAddInputList(op, lists[l].data(), static_cast<int>(lists[l].size()), s.get());
      ++l;
    }
    s.Check();
  }
  const Py_ssize_t nattr = PyTuple_Check(attr_values) ? PyTuple_GET_SIZE(attr_values) : -1;
  if (nattr != static_cast<Py_ssize_t>(spec->attrs.size()))
    ThrowTypeError("eager_execute: wrong attrs for " + spec->op_type);
  for (Py_ssize_t a = 0; a < nattr; ++a) {
    PyObject* v = PyTuple_GET_ITEM(attr_values, a);
    if (v != Py_None) SetAttr(op, spec->attrs[a].first, spec->attrs[a].second, v);
  }

  TXE_TensorHandle* small[16];
  std::vector<TXE_TensorHandle*> big;
  TXE_TensorHandle** out = small;
  int nout = 16;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (spec->runs_functions) {  // may run long: without the GIL, and Ctrl-C cancels it
      TX_Cancellation* interrupt = InterruptFlag();
      {
        InterruptScope armed(interrupt);
        py::gil_scoped_release release;
        TXE_ExecuteWithCancellation(op, out, &nout, interrupt, s.get());
      }
      RaiseIfInterrupted(interrupt, s);
    } else if (elements > kReleaseGilElements || spec->may_call_back) {
      py::gil_scoped_release release;
      TXE_Execute(op, out, &nout, s.get());
    } else {
      TXE_Execute(op, out, &nout, s.get());
    }
    if (s.ok() || attempt == 1 || out != small ||
        std::string(TX_Message(s.get())).find("retvals has room") == std::string::npos)
      break;
    big.resize(4096);  // an op with more than 16 outputs (refused before it ran): again with room for them
    out = big.data();
    nout = static_cast<int>(big.size());
  }
  s.Check();
  const size_t nargs_out = spec->outputs.size();
  if (nargs_out == 1 && !spec->outputs[0].second && nout == 1) return WrapHandle(out[0]);  // the common case
  std::vector<py::object> wrapped;
  wrapped.reserve(nout);
  for (int j = 0; j < nout; ++j) wrapped.push_back(WrapHandle(out[j]));  // WrapHandle frees on failure
  if (nargs_out == 0) return py::none();
  if (nargs_out == 1) {
    if (!spec->outputs[0].second) return wrapped[0];
    py::list l(nout);
    for (int j = 0; j < nout; ++j) l[j] = wrapped[j];
    return l;
  }
  py::list groups;
  int pos = 0;
  for (const auto& o : spec->outputs) {
    if (!o.second) {
      groups.append(wrapped[pos++]);
      continue;
    }
    int len = TXE_OpGetOutputLength(op, o.first.c_str(), s.get());
    s.Check();
    py::list l(len);
    for (int j = 0; j < len; ++j) l[j] = wrapped[pos++];
    groups.append(l);
  }
  py::tuple t(groups);
  if (!spec->output_class.is_none()) return spec->output_class(*t);
  return t;
}

PyObject* ExecuteRaw(PyObject*, PyObject* const* args, Py_ssize_t nargs) { return EagerExecute(args, nargs); }

PyMethodDef kExecuteDef[] = {
    {"eager_execute", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(ExecuteRaw)), METH_FASTCALL,
     "eager_execute(spec, inputs, attr_values, device): runs one op eagerly (Note [Eager fast path])."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

PyObject* EagerExecute(PyObject* const* args, Py_ssize_t nargs) {
  try {
    return Execute(args, nargs).release().ptr();
  } catch (py::error_already_set& e) { e.restore(); } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

void InitEagerExecute(py::module_& m) {
  m.def("eager_make_spec", &MakeSpec, "Compiles an OpSig for eager_execute.");
  m.def("eager_register_converters", [](py::object convert, py::object convert_attr, py::object dtype_cls) {
    g_convert = convert.release().ptr();
    g_convert_attr = convert_attr.release().ptr();
    g_dtype_type = dtype_cls.release().ptr();
  });
  if (PyModule_AddFunctions(m.ptr(), kExecuteDef) < 0) throw py::error_already_set();
}

}  // namespace txpy

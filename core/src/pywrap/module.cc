// `tensorflux._tx_c`: the Python binding of the Tensorflux C API.
//
// Error classes and the NumPy dtype table are defined in Python and registered here at import
// (tensorflux/_src/lib.py), so C++ raises tensorflux.errors.* directly.
#include <cstring>
#include <memory>

#include "attr_kinds.h"
#include <tensorflux/c/c_api_plugin.h>

#include "common.h"
#include "eager_tensor.h"

namespace txpy {
namespace {

constexpr int kMaxCode = 32;
constexpr int kMaxDtype = 32;

// Registered Python objects live until process exit on purpose: releasing them from static
// destructors would run after the interpreter is gone.
PyObject* g_error_classes[kMaxCode] = {};
PyObject* g_numpy_dtypes[kMaxDtype] = {};
PyObject* g_dtype_resolver = nullptr;

void RegisterErrors(const py::dict& classes) {
  for (auto item : classes) {
    int code = item.first.cast<int>();
    if (code < 0 || code >= kMaxCode) ThrowValueError("error code out of range");
    PyObject* cls = item.second.ptr();
    if (!PyType_Check(cls) ||
        !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), reinterpret_cast<PyTypeObject*>(PyExc_Exception))) {
      ThrowTypeError("error classes must be Exception subclasses");
    }
    Py_INCREF(cls);
    Py_XDECREF(g_error_classes[code]);
    g_error_classes[code] = cls;
  }
}

void RegisterDtypes(const py::dict& dtypes, py::object resolver) {
  for (auto item : dtypes) {
    int code = item.first.cast<int>();
    if (code < 0 || code >= kMaxDtype) ThrowValueError("dtype enum out of range");
    py::dtype dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(item.second));
    Py_XDECREF(g_numpy_dtypes[code]);
    g_numpy_dtypes[code] = dt.release().ptr();
  }
  if (!resolver.is_none()) {
    Py_XDECREF(g_dtype_resolver);
    g_dtype_resolver = resolver.release().ptr();
  }
}

py::bytes AllOpList() {
  TX_Buffer* buf = TX_GetAllOpList();
  if (buf == nullptr) ThrowStatus(TX_INTERNAL, "TX_GetAllOpList returned NULL");
  py::bytes out(static_cast<const char*>(buf->data), buf->length);
  TX_DeleteBuffer(buf);
  return out;
}

// Serialized KernelList of every registered kernel (op == nullptr) or of one op's kernels.
py::bytes RegisteredKernels(const char* op) {
  Status status;
  TX_Buffer* buf =
      op == nullptr ? TX_GetAllRegisteredKernels(status.get()) : TX_GetRegisteredKernelsForOp(op, status.get());
  status.Check();
  py::bytes out(static_cast<const char*>(buf->data), buf->length);
  TX_DeleteBuffer(buf);
  return out;
}

// Loads a plugin (TX_LoadLibrary) and returns the serialized OpList of its ops.
py::bytes LoadLibrary(const std::string& path) {
  Status s;
  TX_Library* lib = nullptr;
  {
    py::gil_scoped_release nogil;  // the plugin's TX_InitPlugin may take a while
    lib = TX_LoadLibrary(path.c_str(), s.get());
  }
  s.Check();
  TX_Buffer ops = TX_GetOpList(lib);
  py::bytes out(static_cast<const char*>(ops.data), ops.length);
  TX_DeleteLibraryHandle(lib);
  return out;
}

}  // namespace

void Status::Check() const {
  TX_Code code = TX_GetCode(s_);
  if (code != TX_OK) ThrowStatus(code, TX_Message(s_));
}

void ThrowStatus(TX_Code code, const char* message) {
  PyObject* cls = (code >= 0 && code < kMaxCode) ? g_error_classes[code] : nullptr;
  if (cls == nullptr) cls = g_error_classes[TX_UNKNOWN];
  if (cls == nullptr) cls = PyExc_RuntimeError;
  // Engine messages are UTF-8; never fail on a stray byte.
  PyObject* msg = PyUnicode_DecodeUTF8(message, static_cast<Py_ssize_t>(std::strlen(message)), "replace");
  if (msg == nullptr) throw py::error_already_set();
  PyObject* args = (cls == PyExc_RuntimeError) ? PyTuple_Pack(1, msg) : PyTuple_Pack(3, Py_None, Py_None, msg);
  Py_DECREF(msg);
  if (args == nullptr) throw py::error_already_set();
  PyErr_SetObject(cls, args);
  Py_DECREF(args);
  throw py::error_already_set();
}

void ThrowTypeError(const std::string& message) {
  PyErr_SetString(PyExc_TypeError, message.c_str());
  throw py::error_already_set();
}

void ThrowValueError(const std::string& message) {
  PyErr_SetString(PyExc_ValueError, message.c_str());
  throw py::error_already_set();
}

TX_Output ToOutput(py::handle pair) {
  if (!PyTuple_Check(pair.ptr()) || PyTuple_GET_SIZE(pair.ptr()) != 2) {
    ThrowTypeError("expected an (operation, index) pair");
  }
  TX_Output out;
  out.oper = ToOp(py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(pair.ptr(), 0)).cast<std::uintptr_t>());
  out.index = py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(pair.ptr(), 1)).cast<int>();
  return out;
}

py::dtype NumpyDtype(TX_DataType dt) {
  int code = static_cast<int>(dt);
  if (code > 0 && code < kMaxDtype) {
    if (g_numpy_dtypes[code] != nullptr) return py::reinterpret_borrow<py::dtype>(g_numpy_dtypes[code]);
    if (g_dtype_resolver != nullptr) {
      py::object r = py::reinterpret_borrow<py::object>(g_dtype_resolver)(code);
      if (!r.is_none()) {
        py::dtype d = py::dtype::from_args(r);
        g_numpy_dtypes[code] = py::object(d).release().ptr();
        return d;
      }
    }
  }
  if (dt == TX_VARIANT)
    ThrowTypeError(
        "variant tensors (TensorLists) hold engine objects and have no NumPy equivalent; read a list's "
        "values with ops such as TensorListStack (TensorArray.stack())");
  ThrowTypeError("tensors of data type " + std::to_string(code) + " have no NumPy equivalent here");
}

// Note [String tensors in Python]
// Strings cross the binding as bytes, as in TensorFlow: a fetched or .numpy() string tensor is a
// NumPy object array of bytes (a bytes object when scalar). Into the engine, each element may be
// bytes, str (encoded as UTF-8) or a NumPy bytes_/str_ scalar; a NumPy 'S' array gives its
// bytes without the trailing NULs NumPy pads with, and a 'U' array its text as UTF-8. Anything
// else is a TypeError naming the element.
TX_Tensor* StringsToTensor(const py::array& array) {
  py::array src = py::array::ensure(array, py::array::c_style);
  if (!src) throw py::error_already_set();
  const char kind = src.dtype().kind();
  if (kind != 'O' && kind != 'S' && kind != 'U')
    ThrowTypeError("Expected bytes or str for a string tensor, got an array of dtype " +
                   py::str(src.dtype()).cast<std::string>());
  std::vector<int64_t> dims(src.shape(), src.shape() + src.ndim());
  const int64_t n = static_cast<int64_t>(src.size());
  TX_Tensor* t = TX_AllocateTensor(TX_STRING, dims.data(), static_cast<int>(dims.size()),
                                   static_cast<size_t>(n) * sizeof(TX_TString));
  if (t == nullptr) ThrowStatus(TX_RESOURCE_EXHAUSTED, "could not allocate a string tensor");
  std::unique_ptr<TX_Tensor, void (*)(TX_Tensor*)> owner(t, TX_DeleteTensor);
  TX_TString* dst = static_cast<TX_TString*>(TX_TensorData(t));
  auto put = [&](int64_t i, const char* data, size_t len) {
    if (!TX_StringCopy(&dst[i], data, len)) ThrowStatus(TX_RESOURCE_EXHAUSTED, "out of memory copying a string");
  };
  if (kind == 'S') {
    const size_t width = static_cast<size_t>(src.itemsize());
    const char* base = static_cast<const char*>(src.data());
    for (int64_t i = 0; i < n; ++i) {
      const char* item = base + static_cast<size_t>(i) * width;
      size_t len = width;
      while (len > 0 && item[len - 1] == '\0') --len;
      put(i, item, len);
    }
    return owner.release();
  }
  py::list items = src.attr("ravel")().attr("tolist")();
  for (int64_t i = 0; i < n; ++i) {
    PyObject* o = items[static_cast<size_t>(i)].ptr();
    char* data = nullptr;
    Py_ssize_t len = 0;
    if (PyBytes_Check(o)) {
      PyBytes_AsStringAndSize(o, &data, &len);
    } else if (PyUnicode_Check(o)) {
      const char* utf8 = PyUnicode_AsUTF8AndSize(o, &len);
      if (utf8 == nullptr) throw py::error_already_set();
      data = const_cast<char*>(utf8);
    } else {
      ThrowTypeError("Expected bytes or str for a string tensor, got " + py::repr(o).cast<std::string>() +
                     " of type '" + std::string(Py_TYPE(o)->tp_name) + "'");
    }
    put(i, data, static_cast<size_t>(len));
  }
  return owner.release();
}

// An object array of bytes (a bytes object for rank 0) copied from a TX_STRING tensor.
py::object StringTensorToNumpy(const TX_Tensor* t) {
  const int nd = TX_NumDims(t);
  std::vector<py::ssize_t> shape(static_cast<size_t>(nd));
  for (int i = 0; i < nd; ++i) shape[i] = static_cast<py::ssize_t>(TX_Dim(t, i));
  const TX_TString* s = static_cast<const TX_TString*>(TX_TensorData(t));
  const int64_t n = TX_TensorElementCount(t);
  auto bytes = [&](int64_t i) {
    PyObject* b =
        PyBytes_FromStringAndSize(TX_StringGetDataPointer(&s[i]), static_cast<Py_ssize_t>(TX_StringGetSize(&s[i])));
    if (b == nullptr) throw py::error_already_set();
    return b;
  };
  if (nd == 0) return py::reinterpret_steal<py::object>(bytes(0));
  py::array out(py::dtype("O"), shape);
  PyObject** items = static_cast<PyObject**>(out.mutable_data());
  for (int64_t i = 0; i < n; ++i) {
    PyObject* b = bytes(i);
    Py_XDECREF(items[i]);  // NumPy filled the new object array with None
    items[i] = b;
  }
  return std::move(out);
}

TX_Tensor* CopyToTensor(TX_DataType dt, const py::array& array) {
  if (dt == TX_STRING) return StringsToTensor(array);
  size_t elem = TX_DataTypeSize(dt);
  if (elem == 0) ThrowTypeError("tensors of data type " + std::to_string(dt) + " are not supported yet");
  py::array src = py::array::ensure(array, py::array::c_style);
  if (!src) throw py::error_already_set();
  if (static_cast<size_t>(src.itemsize()) != elem) ThrowTypeError("array item size does not match the data type");
  std::vector<int64_t> dims(src.shape(), src.shape() + src.ndim());
  size_t nbytes = static_cast<size_t>(src.nbytes());
  TX_Tensor* t = TX_AllocateTensor(dt, dims.data(), static_cast<int>(dims.size()), nbytes);
  if (t == nullptr) ThrowStatus(TX_RESOURCE_EXHAUSTED, "could not allocate a tensor");
  if (nbytes > 0) std::memcpy(TX_TensorData(t), src.data(), nbytes);
  return t;
}

py::object TensorToNumpy(TX_Tensor* raw, bool copy) {
  std::unique_ptr<TX_Tensor, void (*)(TX_Tensor*)> t(raw, TX_DeleteTensor);
  if (TX_TensorType(raw) == TX_STRING) return StringTensorToNumpy(raw);
  py::dtype dtype = NumpyDtype(TX_TensorType(raw));
  int nd = TX_NumDims(raw);
  std::vector<py::ssize_t> shape(static_cast<size_t>(nd));
  int64_t count = 1;
  for (int i = 0; i < nd; ++i) {
    shape[i] = static_cast<py::ssize_t>(TX_Dim(raw, i));
    count *= shape[i];
  }
  size_t nbytes = TX_TensorByteSize(raw);
  if (nbytes != static_cast<size_t>(count) * static_cast<size_t>(dtype.itemsize())) {
    ThrowStatus(TX_INTERNAL, "fetched tensor byte size does not match its shape");
  }
  void* data = TX_TensorData(raw);
  py::object out;
  if (copy || count == 0 || data == nullptr) {
    py::array fresh(dtype, shape);
    if (nbytes > 0) std::memcpy(fresh.mutable_data(), data, nbytes);
    out = std::move(fresh);
  } else {
    py::capsule base(t.release(), [](void* p) { TX_DeleteTensor(static_cast<TX_Tensor*>(p)); });
    out = py::array(dtype, shape, std::vector<py::ssize_t>{}, data, base);
  }
  if (nd == 0) return out[py::tuple()];
  return out;
}

PYBIND11_MODULE(_tx_c, m) {
  m.doc() = "Private binding of the Tensorflux C API; use the `tensorflux` package instead.";
  m.def("version", [] { return std::string(TX_Version()); });
  m.def("register_errors", &RegisterErrors, "Registers {code: OpError subclass}.");
  m.def("register_dtypes", &RegisterDtypes, py::arg("dtypes"), py::arg("resolver") = py::none(),
        "Registers {TX_DataType: numpy dtype} and a resolver for dtypes loaded lazily.");
  m.def("get_all_op_list", &AllOpList, "Serialized OpList of every registered op.");
  m.def("get_registered_kernels", &RegisteredKernels, py::arg("op") = nullptr,
        "Serialized KernelList of every registered kernel, or of op `op`'s kernels.");
  m.attr("ATTR_KINDS") =
      py::dict(py::arg("string") = int(kString), py::arg("int") = int(kInt), py::arg("float") = int(kFloat),
               py::arg("bool") = int(kBool), py::arg("type") = int(kType), py::arg("shape") = int(kShape),
               py::arg("tensor") = int(kTensor), py::arg("func") = int(kFunc), py::arg("list") = int(kList),
               py::arg("proto") = int(kProto));
  m.attr("INPUT_KINDS") = py::dict(py::arg("single") = int(kSingle), py::arg("number_list") = int(kNumberList),
                                   py::arg("type_list") = int(kTypeList));
  m.def("load_library", &LoadLibrary, py::arg("path"), "Loads a plugin; the serialized OpList of its ops.");
  m.def("plugin_abi_version", &TX_GetPluginAbiVersion, "The plugin ABI version the engine serves.");
  InitGraph(m);
  InitOperation(m);
  InitImport(m);
  InitSession(m);
  InitGradients(m);
  InitCheckpoint(m);
  InitEager(m);
  InitEagerExecute(m);
  InitEagerTape(m);
  InitEagerDispatch(m);
  InitFunctions(m);
  InitHostCallback(m);
}

}  // namespace txpy

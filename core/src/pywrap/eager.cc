// The eager context and EagerTensor objects: a raw CPython base type owning one TXE_TensorHandle
// (cheap to create and free on the per-op hot path), with the few accessors the Python subclass
// (tensorflux/_src/eager_tensor.py) builds on.
//
// Note [EagerTensor.numpy() shares memory]
// _numpy() returns a read-only NumPy array over the handle's own buffer: the array's base is a
// capsule owning a TX_Tensor that shares the buffer, so the value stays alive as long as either
// the tensor or the array does. It is read-only because eager values are immutable (the engine
// may hand the same buffer to other tensors); NumPy callers that need to write copy it.
#include "eager_tensor.h"

#include <cstring>
#include <memory>
#include <string>

namespace txpy {

PyTypeObject* g_eager_tensor_type = nullptr;

namespace {

TXE_Context* g_context = nullptr;

void EagerTensorDealloc(PyObject* self) {
  auto* o = reinterpret_cast<EagerTensorObject*>(self);
  if (o->weakrefs != nullptr) PyObject_ClearWeakRefs(self);
  TXE_DeleteTensorHandle(o->handle);
  o->handle = nullptr;
  Py_TYPE(self)->tp_free(self);
}

TXE_TensorHandle* Checked(PyObject* self) {
  TXE_TensorHandle* h = HandleOf(self);
  if (h == nullptr) ThrowValueError("this EagerTensor holds no value");
  return h;
}

py::object Numpy(py::handle self) {
  Status s;
  TX_Tensor* t = TXE_TensorHandleResolve(Checked(self.ptr()), s.get());
  s.Check();
  py::object arr = TensorToNumpy(t, /*copy=*/false);
  if (py::isinstance<py::array>(arr)) arr.attr("setflags")(py::arg("write") = false);  // Note above
  return arr;
}

py::tuple ShapeTuple(py::handle self) {
  TXE_TensorHandle* h = Checked(self.ptr());
  Status s;
  int64_t dims[64];
  int rank = TXE_TensorHandleShape(h, dims, 64, s.get());
  s.Check();
  py::tuple out(rank);
  for (int i = 0; i < rank; ++i) out[i] = py::int_(dims[i]);
  return out;
}

PyObject* Call(PyObject* self, py::object (*fn)(py::handle)) {
  try {
    return fn(self).release().ptr();
  } catch (py::error_already_set& e) { e.restore(); } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

PyObject* MethNumpy(PyObject* self, PyObject*) { return Call(self, Numpy); }
PyObject* MethShape(PyObject* self, PyObject*) {
  return Call(self, [](py::handle h) -> py::object { return ShapeTuple(h); });
}
PyObject* GetDtypeEnum(PyObject* self, void*) {
  TXE_TensorHandle* h = HandleOf(self);
  return PyLong_FromLong(h ? static_cast<long>(TXE_TensorHandleDataType(h)) : 0);
}
PyObject* GetDevice(PyObject* self, void*) {
  return Call(self, [](py::handle h) -> py::object {
    Status s;
    const char* name = TXE_TensorHandleDeviceName(Checked(h.ptr()), s.get());
    s.Check();
    return py::str(name);
  });
}
PyObject* GetNumElements(PyObject* self, void*) {
  TXE_TensorHandle* h = HandleOf(self);
  return PyLong_FromLongLong(h ? TXE_TensorHandleNumElements(h, nullptr) : 0);
}

PyMethodDef kMethods[] = {
    {"_numpy", MethNumpy, METH_NOARGS, "The value as a read-only NumPy array sharing the tensor's memory."},
    {"_shape_tuple", MethShape, METH_NOARGS, "The shape as a tuple of ints."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef kGetSet[] = {
    {"_dtype_enum", GetDtypeEnum, nullptr, "The TX_DataType value.", nullptr},
    {"_device_name", GetDevice, nullptr, "The full name of the device holding the value.", nullptr},
    {"_num_elements", GetNumElements, nullptr, "The number of elements.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

void InitContext(int intra, int inter, int num_cpu_devices, int policy) {
  if (g_context != nullptr) return;
  std::unique_ptr<TXE_ContextOptions, void (*)(TXE_ContextOptions*)> opts(TXE_NewContextOptions(),
                                                                          TXE_DeleteContextOptions);
  TXE_ContextOptionsSetThreads(opts.get(), intra, inter);
  TXE_ContextOptionsSetNumCpuDevices(opts.get(), num_cpu_devices);
  TXE_ContextOptionsSetDevicePlacementPolicy(opts.get(), static_cast<TXE_ContextDevicePlacementPolicy>(policy));
  Status s;
  TXE_Context* ctx = TXE_NewContext(opts.get(), s.get());
  s.Check();
  g_context = ctx;  // lives until process exit (handles may be freed during interpreter teardown)
}

}  // namespace

PyTypeObject EagerTensorBaseType = [] {
  PyTypeObject t;
  std::memset(&t, 0, sizeof t);
  Py_SET_REFCNT(reinterpret_cast<PyObject*>(&t), 1);
  t.tp_name = "tensorflux._tx_c.EagerTensorBase";
  t.tp_basicsize = sizeof(EagerTensorObject);
  t.tp_dealloc = EagerTensorDealloc;
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  t.tp_doc = "Base of tensorflux EagerTensor: owns one engine tensor handle.";
  t.tp_weaklistoffset = offsetof(EagerTensorObject, weakrefs);
  t.tp_methods = kMethods;
  t.tp_getset = kGetSet;
  return t;
}();

TXE_Context* EagerContext() {
  if (g_context == nullptr) ThrowStatus(TX_FAILED_PRECONDITION, "the eager context was not initialized");
  return g_context;
}

py::object WrapHandle(TXE_TensorHandle* h) {
  PyTypeObject* type = g_eager_tensor_type ? g_eager_tensor_type : &EagerTensorBaseType;
  PyObject* o = type->tp_alloc(type, 0);
  if (o == nullptr) {
    TXE_DeleteTensorHandle(h);
    throw py::error_already_set();
  }
  reinterpret_cast<EagerTensorObject*>(o)->handle = h;
  return py::reinterpret_steal<py::object>(o);
}

py::object EagerFromArray(TX_DataType dt, const py::array& array) {
  std::unique_ptr<TX_Tensor, void (*)(TX_Tensor*)> t(CopyToTensor(dt, array), TX_DeleteTensor);
  Status s;
  TXE_TensorHandle* h = TXE_NewTensorHandle(t.get(), s.get());
  s.Check();
  return WrapHandle(h);
}

void InitEager(py::module_& m) {
  if (PyType_Ready(&EagerTensorBaseType) < 0) throw py::error_already_set();
  Py_INCREF(&EagerTensorBaseType);
  m.add_object("EagerTensorBase", reinterpret_cast<PyObject*>(&EagerTensorBaseType));
  m.def("eager_init", &InitContext, py::arg("intra_op_threads"), py::arg("inter_op_threads"),
        py::arg("num_cpu_devices"), py::arg("placement_policy"),
        "Creates the process's eager context (a no-op when it exists).");
  m.def("eager_initialized", [] { return g_context != nullptr; });
  m.def("eager_register_tensor_type", [](py::object cls) {
    if (!PyType_Check(cls.ptr()) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()), &EagerTensorBaseType))
      ThrowTypeError("expected a subclass of EagerTensorBase");
    Py_XDECREF(reinterpret_cast<PyObject*>(g_eager_tensor_type));
    g_eager_tensor_type = reinterpret_cast<PyTypeObject*>(cls.release().ptr());
  });
  m.def("eager_device_names", [] {
    TXE_Context* ctx = EagerContext();
    py::list out;
    for (int i = 0; i < TXE_ContextNumDevices(ctx); ++i) out.append(py::str(TXE_ContextDeviceName(ctx, i, nullptr)));
    return out;
  });
  m.def("eager_num_cached_kernels", [] { return TXE_ContextNumCachedKernels(EagerContext()); });
  m.def("eager_clear_caches", [] { TXE_ContextClearCaches(EagerContext()); });
  m.def("eager_set_soft_placement", [](bool on) {
    Status s;
    TXE_ContextSetSoftDevicePlacement(EagerContext(), on ? 1 : 0, s.get());
    s.Check();
  });
  m.def("eager_soft_placement", [] { return TXE_ContextGetSoftDevicePlacement(EagerContext()) != 0; });
  m.def(
      "eager_num_functions", [] { return g_context == nullptr ? 0 : TXE_ContextNumFunctions(EagerContext()); },
      "Number of functions in the eager context's library.");
  m.def(
      "eager_has_function",
      [](const std::string& name) {
        return g_context != nullptr && TXE_ContextHasFunction(EagerContext(), name.c_str()) != 0;
      },
      py::arg("name"), "Whether the eager context's library has the function.");
  m.def(
      "eager_remove_function",
      [](const std::string& name) {
        if (g_context == nullptr) return;
        Status status;
        TXE_ContextRemoveFunction(EagerContext(), name.c_str(), status.get());
        status.Check();
      },
      py::arg("name"), "Removes a function from the eager context's library (TXE_ContextRemoveFunction).");
  m.def(
      "eager_from_numpy", [](py::array arr, int dt) { return EagerFromArray(static_cast<TX_DataType>(dt), arr); },
      "A new EagerTensor holding a copy of `arr` as data type `dt`.");
  m.def(
      "eager_adopt_c_tensor",
      [](std::uintptr_t address) {
        auto* t = reinterpret_cast<TX_Tensor*>(address);
        if (t == nullptr) ThrowValueError("a TX_Tensor address must not be 0");
        Status s;
        TXE_TensorHandle* h = TXE_NewTensorHandle(t, s.get());
        TX_DeleteTensor(t);  // the handle shares its buffer (or failed): ours to release either way
        s.Check();
        return WrapHandle(h);
      },
      "An EagerTensor sharing the value of the TX_Tensor at `address`, whose ownership it takes.");
  m.def(
      "eager_to_c_tensor",
      [](py::handle t) {
        if (!IsEagerTensor(t.ptr())) ThrowTypeError("expected an EagerTensor");
        Status s;
        TX_Tensor* out = TXE_TensorHandleResolve(Checked(t.ptr()), s.get());
        s.Check();
        return reinterpret_cast<std::uintptr_t>(out);
      },
      "The address of a new TX_Tensor (the caller's to delete) sharing an EagerTensor's value.");
  m.def("eager_copy_to_device", [](py::handle t, const std::string& device) {
    if (!IsEagerTensor(t.ptr())) ThrowTypeError("expected an EagerTensor");
    Status s;
    TXE_TensorHandle* h = TXE_TensorHandleCopyToDevice(Checked(t.ptr()), EagerContext(), device.c_str(), s.get());
    s.Check();
    return WrapHandle(h);
  });
}

}  // namespace txpy

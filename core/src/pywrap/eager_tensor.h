// The eager half of the binding: the EagerTensor base type (a raw CPython type owning one
// TXE_TensorHandle) and the process's eager context, shared by eager.cc and eager_execute.cc.
#pragma once

#include <tensorflux/c/c_api_eager.h>

#include "common.h"

namespace txpy {

// An EagerTensor instance: the Python object owns the handle.
struct EagerTensorObject {
  PyObject_HEAD TXE_TensorHandle* handle;
  PyObject* weakrefs;
};

// The base type (tensorflux._tx_c.EagerTensorBase) and the Python subclass instances are made of
// (registered by tensorflux._src.eager_tensor at import).
extern PyTypeObject EagerTensorBaseType;
extern PyTypeObject* g_eager_tensor_type;

// The process's eager context; raises when it was never created (eager_init).
TXE_Context* EagerContext();

// True when `o` is an EagerTensor.
inline bool IsEagerTensor(PyObject* o) { return PyObject_TypeCheck(o, &EagerTensorBaseType); }
inline TXE_TensorHandle* HandleOf(PyObject* o) { return reinterpret_cast<EagerTensorObject*>(o)->handle; }

// A new EagerTensor owning `h` (deleted on failure).
py::object WrapHandle(TXE_TensorHandle* h);

// A new EagerTensor holding a copy of `array` as `dt`.
py::object EagerFromArray(TX_DataType dt, const py::array& array);

// eager_execute(spec, inputs, attr_values, device) as a C call: a new reference, or nullptr with
// the Python exception set.
PyObject* EagerExecute(PyObject* const* args, Py_ssize_t nargs);

// Module sections.
void InitEager(py::module_& m);
void InitEagerExecute(py::module_& m);
void InitEagerTape(py::module_& m);
void InitEagerDispatch(py::module_& m);

}  // namespace txpy

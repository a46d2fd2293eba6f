// Bindings for host callbacks (c_api_callback.h): a Python callable registered under a token,
// called by PyFunc / EagerPyFunc kernels on engine threads with the GIL taken there. Every binding
// call that may run a callback releases the GIL while the engine runs (session.cc, and
// eager_execute.cc for ops that call back or call functions).
#include <tensorflux/c/c_api_callback.h>

#include <cstring>
#include <string>

#include "common.h"

namespace txpy {
namespace {

bool Finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
}

// A NumPy array holding a copy of the borrowed tensor `t`.
py::object CopyToNumpy(const TX_Tensor* t) {
  if (TX_TensorType(t) == TX_STRING) return StringTensorToNumpy(t);
  const int nd = TX_NumDims(t);
  std::vector<int64_t> dims(nd);
  for (int i = 0; i < nd; ++i) dims[i] = TX_Dim(t, i);
  const size_t bytes = TX_TensorByteSize(t);
  TX_Tensor* copy = TX_AllocateTensor(TX_TensorType(t), dims.data(), nd, bytes);
  if (copy == nullptr) throw std::runtime_error("out of memory copying a host callback input");
  if (bytes > 0) std::memcpy(TX_TensorData(copy), TX_TensorData(t), bytes);
  return TensorToNumpy(copy, /*copy=*/false);
}

// Note [Python host callbacks]
// The registered Python callable takes a list of NumPy arrays and returns (outputs, None) on
// success, where outputs is a list of (TX_DataType enum, array) pairs, or (None, (code, message))
// on failure (tensorflux/_src/script_ops.py maps Python exceptions to codes and formats the
// traceback). Anything else it raises or returns becomes a TX_UNKNOWN / TX_INTERNAL error.
void Trampoline(void* context, TX_Tensor* const* inputs, int num_inputs, TX_Tensor** outputs, int num_outputs,
                TX_Status* status) {
  if (!Py_IsInitialized() || Finalizing()) {
    TX_SetStatus(status, TX_CANCELLED, "the Python interpreter is shutting down");
    return;
  }
  PyGILState_STATE gil = PyGILState_Ensure();
  try {
    py::list args(num_inputs);
    for (int i = 0; i < num_inputs; ++i) args[i] = CopyToNumpy(inputs[i]);
    py::handle fn(static_cast<PyObject*>(context));
    py::tuple result = fn(args).cast<py::tuple>();
    if (result.size() != 2) throw std::runtime_error("host callback wrapper must return a pair");
    if (!result[1].is_none()) {
      py::tuple err = result[1].cast<py::tuple>();
      TX_SetStatus(status, static_cast<TX_Code>(err[0].cast<int>()), err[1].cast<std::string>().c_str());
    } else {
      py::list outs = result[0].cast<py::list>();
      if (static_cast<int>(outs.size()) != num_outputs) {
        std::string m = "the Python function returned " + std::to_string(outs.size()) + " values, expected " +
            std::to_string(num_outputs) + " (Tout)";
        TX_SetStatus(status, TX_INVALID_ARGUMENT, m.c_str());
      } else {
        for (int i = 0; i < num_outputs; ++i) {
          py::tuple pair = outs[i].cast<py::tuple>();
          outputs[i] = CopyToTensor(static_cast<TX_DataType>(pair[0].cast<int>()), pair[1].cast<py::array>());
        }
      }
    }
  } catch (py::error_already_set& e) {
    std::string m = std::string("error in the host callback wrapper: ") + e.what();
    TX_SetStatus(status, TX_INTERNAL, m.c_str());
  } catch (const std::exception& e) { TX_SetStatus(status, TX_INTERNAL, e.what()); }
  PyGILState_Release(gil);
}

// Drops the registry's reference to the Python callable.
void ReleaseCallable(void* context) {
  if (!Py_IsInitialized() || Finalizing()) return;  // the process is exiting: leak instead
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(context));
  PyGILState_Release(gil);
}

void Register(const std::string& token, py::object fn) {
  if (!PyCallable_Check(fn.ptr())) ThrowTypeError("register_host_callback: fn must be callable");
  Status s;
  PyObject* ctx = fn.ptr();
  Py_INCREF(ctx);
  TX_RegisterHostCallback(token.c_str(), Trampoline, ctx, ReleaseCallable, s.get());
  if (!s.ok()) Py_DECREF(ctx);
  s.Check();
}

bool Unregister(const std::string& token) {
  // The deleter takes the GIL itself; release it so a callback finishing on another thread can end.
  py::gil_scoped_release release;
  return TX_UnregisterHostCallback(token.c_str()) != 0;
}

}  // namespace

void InitHostCallback(py::module_& m) {
  m.def("register_host_callback", &Register, "Registers a Python callable as host callback `token`.");
  m.def("unregister_host_callback", &Unregister, "Unregisters host callback `token`; False if it was absent.");
  m.def("num_host_callbacks", &TX_NumHostCallbacks, "Number of registered host callbacks.");
}

}  // namespace txpy

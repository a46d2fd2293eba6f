// EagerOperator: the C objects behind EagerTensor's +, - and * (and their reflected forms).
//
// Note [C operators]
// `a + b` on two EagerTensors is the per-op overhead users meet first, and a Python function in
// the operator slot cost more than the engine's own work (a frame, a dozen attribute lookups).
// An EagerOperator is a class attribute of EagerTensor made once per operator at import: a C
// callable with the method-descriptor flag, so `a + b` reaches it through the type's slot with
// (self, other) and no bound method. It runs the op through eager_execute when the Python
// version would have (no graph is being built on this thread, eager execution is on or forced,
// and `self` is not a string tensor, whose + is the Add op) and calls the symbolic operator
// (`fallback`) otherwise, so the two paths decide alike. The state it reads is the Python
// modules' own (the graph stack and the thread's eager state are threading.local objects,
// `_eager_disabled` a global of tensorflux._src.context), registered once by
// eager_operator_state; nothing is mirrored, so nothing can go stale.
#include <cstring>

#include "eager_tensor.h"

namespace txpy {
namespace {

// What every EagerOperator reads (Note [C operators]); owned references, set once.
struct OperatorState {
  PyObject* graph_stack = nullptr;  // graph._default_graph_stack: .stack, the graphs entered here
  PyObject* context_globals = nullptr;  // context module's dict: _eager_disabled
  PyObject* tls = nullptr;  // context._tls: .force_eager, .device
  PyObject* eager_spec = nullptr;  // op_def_library.eager_spec(sig) -> spec capsule
  PyObject* s_stack = nullptr;  // interned attribute names
  PyObject* s_eager_disabled = nullptr;
  PyObject* s_force_eager = nullptr;
  PyObject* s_device = nullptr;
  PyObject* s_name = nullptr;
};
OperatorState g_state;

struct EagerOperatorObject {
  PyObject_HEAD vectorcallfunc vectorcall;
  PyObject* sig;  // the generated OpSig (AddV2, Sub, Mul)
  PyObject* spec;  // its eager spec, made on the first eager call
  PyObject* fallback;  // the symbolic Tensor operator
  int reverse;  // 1 for the reflected form: the op gets (other, self)
};

// 1 when a Python attribute or global is truthy, 0 when falsy or absent, -1 on error.
int Truthy(PyObject* v) { return v == nullptr ? 0 : PyObject_IsTrue(v); }

// 1 when the fast path applies to `self`, 0 when the fallback must run, -1 on error.
int Applies(PyObject* self) {
  if (!IsEagerTensor(self) || HandleOf(self) == nullptr) return 0;
  PyObject* stack = PyObject_GetAttr(g_state.graph_stack, g_state.s_stack);
  if (stack == nullptr) return -1;
  const int building = PyObject_IsTrue(stack);
  Py_DECREF(stack);
  if (building != 0) return building < 0 ? -1 : 0;
  const int disabled = Truthy(PyDict_GetItemWithError(g_state.context_globals, g_state.s_eager_disabled));
  if (disabled < 0 || PyErr_Occurred()) return -1;
  if (disabled) {
    PyObject* forced = PyObject_GetAttr(g_state.tls, g_state.s_force_eager);
    if (forced == nullptr) return -1;
    const int on = PyObject_IsTrue(forced);
    Py_DECREF(forced);
    if (on <= 0) return on;
  }
  return TXE_TensorHandleDataType(HandleOf(self)) == TX_STRING ? 0 : 1;
}

PyObject* Run(EagerOperatorObject* op, PyObject* self, PyObject* other) {
  if (g_state.graph_stack == nullptr) {
    PyErr_SetString(PyExc_RuntimeError, "eager_operator_state was not called");
    return nullptr;
  }
  const int fast = Applies(self);
  if (fast < 0) return nullptr;
  if (fast == 0) {
    PyObject* args[2] = {self, other};
    return PyObject_Vectorcall(op->fallback, args, 2, nullptr);
  }
  if (op->spec == nullptr) {
    op->spec = PyObject_CallOneArg(g_state.eager_spec, op->sig);
    if (op->spec == nullptr) return nullptr;
  }
  PyObject* device = PyObject_GetAttr(g_state.tls, g_state.s_device);
  if (device == nullptr) return nullptr;
  PyObject* inputs = op->reverse ? PyTuple_Pack(2, other, self) : PyTuple_Pack(2, self, other);
  if (inputs == nullptr) {
    Py_DECREF(device);
    return nullptr;
  }
  PyObject* no_attrs = PyTuple_New(0);
  PyObject* result = nullptr;
  if (no_attrs != nullptr) {
    PyObject* args[4] = {op->spec, inputs, no_attrs, device};
    result = EagerExecute(args, 4);
    Py_DECREF(no_attrs);
  }
  Py_DECREF(inputs);
  Py_DECREF(device);
  return result;
}

PyObject* Vectorcall(PyObject* callable, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (nargs != 2 || (kwnames != nullptr && PyTuple_GET_SIZE(kwnames) != 0)) {
    PyErr_SetString(PyExc_TypeError, "an EagerTensor operator takes (self, other)");
    return nullptr;
  }
  return Run(reinterpret_cast<EagerOperatorObject*>(callable), args[0], args[1]);
}

PyObject* New(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject *sig, *fallback;
  int reverse;
  static const char* kKeywords[] = {"sig", "reverse", "fallback", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OpO:EagerOperator", const_cast<char**>(kKeywords), &sig, &reverse,
                                   &fallback))
    return nullptr;
  if (!PyCallable_Check(fallback)) {
    PyErr_SetString(PyExc_TypeError, "EagerOperator: fallback must be callable");
    return nullptr;
  }
  auto* op = reinterpret_cast<EagerOperatorObject*>(type->tp_alloc(type, 0));
  if (op == nullptr) return nullptr;
  op->vectorcall = Vectorcall;
  Py_INCREF(sig);
  op->sig = sig;
  op->spec = nullptr;
  Py_INCREF(fallback);
  op->fallback = fallback;
  op->reverse = reverse;
  return reinterpret_cast<PyObject*>(op);
}

void Dealloc(PyObject* self) {
  auto* op = reinterpret_cast<EagerOperatorObject*>(self);
  Py_XDECREF(op->sig);
  Py_XDECREF(op->spec);
  Py_XDECREF(op->fallback);
  Py_TYPE(self)->tp_free(self);
}

// `tensor.__add__` is a bound method, as for a Python function; `EagerTensor.__add__` the operator.
PyObject* DescrGet(PyObject* self, PyObject* obj, PyObject*) {
  if (obj == nullptr || obj == Py_None) {
    Py_INCREF(self);
    return self;
  }
  return PyMethod_New(self, obj);
}

// The fallback's __name__ (__add__, __radd__, ...).
PyObject* GetName(PyObject* self, void*) {
  return PyObject_GetAttr(reinterpret_cast<EagerOperatorObject*>(self)->fallback, g_state.s_name);
}

PyGetSetDef kGetSet[] = {
    {"__name__", GetName, nullptr, "The operator's name.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyTypeObject EagerOperatorType = [] {
  PyTypeObject t;
  std::memset(&t, 0, sizeof t);
  Py_SET_REFCNT(reinterpret_cast<PyObject*>(&t), 1);
  t.tp_name = "tensorflux._tx_c.EagerOperator";
  t.tp_basicsize = sizeof(EagerOperatorObject);
  t.tp_dealloc = Dealloc;
  t.tp_vectorcall_offset = offsetof(EagerOperatorObject, vectorcall);
  t.tp_call = PyVectorcall_Call;
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR;
  t.tp_doc = "EagerOperator(sig, reverse, fallback): an EagerTensor operator in C (Note [C operators]).";
  t.tp_descr_get = DescrGet;
  t.tp_getset = kGetSet;
  t.tp_new = New;
  return t;
}();

}  // namespace

void InitEagerOperator(py::module_& m) {
  if (PyType_Ready(&EagerOperatorType) < 0) throw py::error_already_set();
  Py_INCREF(&EagerOperatorType);
  m.add_object("EagerOperator", reinterpret_cast<PyObject*>(&EagerOperatorType));
  m.def(
      "eager_operator_state",
      [](py::object graph_stack, py::dict context_globals, py::object tls, py::object eager_spec) {
        Py_XDECREF(g_state.graph_stack);  // a reloaded module registers its own state again
        Py_XDECREF(g_state.context_globals);
        Py_XDECREF(g_state.tls);
        Py_XDECREF(g_state.eager_spec);
        g_state.graph_stack = graph_stack.release().ptr();
        g_state.context_globals = context_globals.release().ptr();
        g_state.tls = tls.release().ptr();
        g_state.eager_spec = eager_spec.release().ptr();
        g_state.s_stack = PyUnicode_InternFromString("stack");
        g_state.s_eager_disabled = PyUnicode_InternFromString("_eager_disabled");
        g_state.s_force_eager = PyUnicode_InternFromString("force_eager");
        g_state.s_device = PyUnicode_InternFromString("device");
        g_state.s_name = PyUnicode_InternFromString("__name__");
      },
      py::arg("graph_stack"), py::arg("context_globals"), py::arg("tls"), py::arg("eager_spec"),
      "Registers the Python state EagerOperator objects read (Note [C operators]).");
}

}  // namespace txpy

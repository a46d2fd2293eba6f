// Eager dispatch in C: apply_op, which every generated op wrapper calls, and EagerOperator, the
// objects behind EagerTensor's +, - and * (and their reflected forms).
//
// Note [C dispatch]
// An eager op called from Python is the per-op overhead users meet first, and the Python
// functions in between (the generated wrappers' apply_op, the operator slots) cost more than the
// engine's own work: a frame and a dozen attribute lookups each. Both deciders are C:
//  - apply_op(sig, name, args, attr_values) runs the op through eager_execute when no graph is
//    being built on this thread and eager execution is on (or forced, inside eager_scope), and
//    otherwise calls op_def_library._apply_graph_op, which adds the node to the graph.
//  - An EagerOperator is a class attribute of EagerTensor made once per operator at import: a C
//    callable with the method-descriptor flag, so `a + b` reaches it through the type's slot with
//    (self, other) and no bound method. It runs the op through eager_execute in the same cases as
//    apply_op, except when `self` is a string tensor (whose + is the Add op, not AddV2), and calls
//    the symbolic Tensor operator (`fallback`) otherwise.
// The state they read is the Python modules' own (the graph stack and the thread's eager state
// are threading.local objects, `_eager_disabled` a global of tensorflux._src.context), registered
// once by eager_dispatch_state; nothing is mirrored, so nothing can go stale.
#include <cstring>

#include "eager_tensor.h"

namespace txpy {
namespace {

// What apply_op and every EagerOperator read (Note [C dispatch]); owned references.
struct DispatchState {
  PyObject* graph_stack = nullptr;  // graph._default_graph_stack: .stack, the graphs entered here
  PyObject* context_globals = nullptr;  // context module's dict: _eager_disabled
  PyObject* tls = nullptr;  // context._tls: .force_eager, .device
  PyObject* eager_spec = nullptr;  // op_def_library.eager_spec(sig) -> spec capsule
  PyObject* apply_graph_op = nullptr;  // op_def_library._apply_graph_op(sig, name, args, attr_values)
  PyObject* s_stack = nullptr;  // interned attribute names
  PyObject* s_eager_disabled = nullptr;
  PyObject* s_force_eager = nullptr;
  PyObject* s_device = nullptr;
  PyObject* s_name = nullptr;
  PyObject* s_spec = nullptr;
};
DispatchState g_state;

struct EagerOperatorObject {
  PyObject_HEAD vectorcallfunc vectorcall;
  PyObject* sig;  // the generated OpSig (AddV2, Sub, Mul)
  PyObject* spec;  // its eager spec, made on the first eager call
  PyObject* fallback;  // the symbolic Tensor operator
  int reverse;  // 1 for the reflected form: the op gets (other, self)
};

// 1 when a Python attribute or global is truthy, 0 when falsy or absent, -1 on error.
int Truthy(PyObject* v) { return v == nullptr ? 0 : PyObject_IsTrue(v); }

// 1 when ops run eagerly on this thread now, 0 when they build a graph, -1 on error.
int EagerNow() {
  if (g_state.graph_stack == nullptr) {
    PyErr_SetString(PyExc_RuntimeError, "eager_dispatch_state was not called");
    return -1;
  }
  PyObject* stack = PyObject_GetAttr(g_state.graph_stack, g_state.s_stack);
  if (stack == nullptr) return -1;
  const int building = PyObject_IsTrue(stack);
  Py_DECREF(stack);
  if (building != 0) return building < 0 ? -1 : 0;
  const int disabled = Truthy(PyDict_GetItemWithError(g_state.context_globals, g_state.s_eager_disabled));
  if (disabled < 0 || PyErr_Occurred()) return -1;
  if (!disabled) return 1;
  PyObject* forced = PyObject_GetAttr(g_state.tls, g_state.s_force_eager);
  if (forced == nullptr) return -1;
  const int on = PyObject_IsTrue(forced);
  Py_DECREF(forced);
  return on;
}

// eager_execute(spec, inputs, attr_values, the thread's device request).
PyObject* ExecuteNow(PyObject* spec, PyObject* inputs, PyObject* attr_values) {
  PyObject* device = PyObject_GetAttr(g_state.tls, g_state.s_device);
  if (device == nullptr) return nullptr;
  PyObject* args[4] = {spec, inputs, attr_values, device};
  PyObject* result = EagerExecute(args, 4);
  Py_DECREF(device);
  return result;
}

// apply_op(sig, name, args, attr_values): Note [C dispatch].
PyObject* ApplyOp(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 4) {
    PyErr_SetString(PyExc_TypeError, "apply_op(sig, name, args, attr_values)");
    return nullptr;
  }
  const int eager = EagerNow();
  if (eager < 0) return nullptr;
  if (eager == 0) return PyObject_Vectorcall(g_state.apply_graph_op, args, 4, nullptr);
  PyObject* spec = PyObject_GetAttr(args[0], g_state.s_spec);
  if (spec == Py_None) {
    Py_DECREF(spec);
    spec = PyObject_CallOneArg(g_state.eager_spec, args[0]);
  }
  if (spec == nullptr) return nullptr;
  PyObject* result = ExecuteNow(spec, args[2], args[3]);
  Py_DECREF(spec);
  return result;
}

PyObject* Run(EagerOperatorObject* op, PyObject* self, PyObject* other) {
  int fast = IsEagerTensor(self) && HandleOf(self) != nullptr && TXE_TensorHandleDataType(HandleOf(self)) != TX_STRING;
  if (fast) fast = EagerNow();
  if (fast < 0) return nullptr;
  if (fast == 0) {
    PyObject* args[2] = {self, other};
    return PyObject_Vectorcall(op->fallback, args, 2, nullptr);
  }
  if (op->spec == nullptr) {
    op->spec = PyObject_CallOneArg(g_state.eager_spec, op->sig);
    if (op->spec == nullptr) return nullptr;
  }
  PyObject* inputs = op->reverse ? PyTuple_Pack(2, other, self) : PyTuple_Pack(2, self, other);
  if (inputs == nullptr) return nullptr;
  PyObject* no_attrs = PyTuple_New(0);
  PyObject* result = no_attrs == nullptr ? nullptr : ExecuteNow(op->spec, inputs, no_attrs);
  Py_XDECREF(no_attrs);
  Py_DECREF(inputs);
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
  t.tp_doc = "EagerOperator(sig, reverse, fallback): an EagerTensor operator in C (Note [C dispatch]).";
  t.tp_descr_get = DescrGet;
  t.tp_getset = kGetSet;
  t.tp_new = New;
  return t;
}();

PyMethodDef kApplyOpDef[] = {
    {"apply_op", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(ApplyOp)), METH_FASTCALL,
     "apply_op(sig, name, args, attr_values): runs the op now, or adds it to the graph (Note [C dispatch])."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

void InitEagerDispatch(py::module_& m) {
  if (PyType_Ready(&EagerOperatorType) < 0) throw py::error_already_set();
  Py_INCREF(&EagerOperatorType);
  m.add_object("EagerOperator", reinterpret_cast<PyObject*>(&EagerOperatorType));
  if (PyModule_AddFunctions(m.ptr(), kApplyOpDef) < 0) throw py::error_already_set();
  m.def(
      "eager_dispatch_state",
      [](py::object graph_stack, py::dict context_globals, py::object tls, py::object eager_spec,
         py::object apply_graph_op) {
        PyObject* olds[] = {g_state.graph_stack, g_state.context_globals, g_state.tls, g_state.eager_spec,
                            g_state.apply_graph_op};
        g_state.graph_stack = graph_stack.release().ptr();
        g_state.context_globals = context_globals.release().ptr();
        g_state.tls = tls.release().ptr();
        g_state.eager_spec = eager_spec.release().ptr();
        g_state.apply_graph_op = apply_graph_op.release().ptr();
        for (PyObject* o : olds) Py_XDECREF(o);  // a reloaded module registers its own state again
        g_state.s_stack = PyUnicode_InternFromString("stack");
        g_state.s_eager_disabled = PyUnicode_InternFromString("_eager_disabled");
        g_state.s_force_eager = PyUnicode_InternFromString("force_eager");
        g_state.s_device = PyUnicode_InternFromString("device");
        g_state.s_name = PyUnicode_InternFromString("__name__");
        g_state.s_spec = PyUnicode_InternFromString("_spec");
      },
      py::arg("graph_stack"), py::arg("context_globals"), py::arg("tls"), py::arg("eager_spec"),
      py::arg("apply_graph_op"), "Registers the Python state apply_op and EagerOperator read (Note [C dispatch]).");
}

}  // namespace txpy

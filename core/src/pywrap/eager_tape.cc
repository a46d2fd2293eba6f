// Gradient tapes for Python (tensorflux/_src/backprop.py) over the TXE_ tape C API, and custom
// gradients whose backward function is a Python callable.
#include <memory>
#include <vector>

#include "eager_tensor.h"

namespace txpy {
namespace {

constexpr const char* kTapeCapsule = "tensorflux.Tape";

TXE_Tape* TapeOf(py::handle capsule) {
  auto* t = static_cast<TXE_Tape*>(PyCapsule_GetPointer(capsule.ptr(), kTapeCapsule));
  if (t == nullptr) throw py::error_already_set();
  return t;
}

TXE_TensorHandle* Handle(py::handle t, const char* what) {
  if (!IsEagerTensor(t.ptr()))
    ThrowTypeError(std::string(what) + " must be an EagerTensor, got " + Py_TYPE(t.ptr())->tp_name);
  TXE_TensorHandle* h = HandleOf(t.ptr());
  if (h == nullptr) ThrowValueError(std::string(what) + " holds no value");
  return h;
}

std::vector<TXE_TensorHandle*> Handles(const py::list& items, const char* what, bool allow_none) {
  std::vector<TXE_TensorHandle*> out;
  for (auto item : items) out.push_back(allow_none && item.is_none() ? nullptr : Handle(item, what));
  return out;
}

py::capsule NewTape(bool persistent, bool watch_accessed_variables) {
  Status s;
  TXE_Tape* t = TXE_NewTape(EagerContext(), persistent, watch_accessed_variables, s.get());
  s.Check();
  return py::capsule(t, kTapeCapsule, [](PyObject* c) {
    TXE_DeleteTape(static_cast<TXE_Tape*>(PyCapsule_GetPointer(c, kTapeCapsule)));
  });
}

py::list Gradient(py::handle tape, const py::list& targets, const py::list& sources, py::object output_grads,
                  int unconnected) {
  std::vector<TXE_TensorHandle*> t = Handles(targets, "a target", false);
  std::vector<TXE_TensorHandle*> src = Handles(sources, "a source", false);
  std::vector<TXE_TensorHandle*> og;
  if (!output_grads.is_none()) {
    og = Handles(py::reinterpret_borrow<py::list>(output_grads), "an output gradient", true);
    if (og.size() != t.size()) ThrowValueError("output_gradients must have one entry per target");
  }
  std::vector<TXE_TensorHandle*> results(src.size(), nullptr);
  Status s;
  TXE_Tape* tp = TapeOf(tape);
  {
    // Gradient ops may call back into Python (EagerPyFunc: Note [GIL and host callbacks]).
    py::gil_scoped_release release;
    TXE_TapeGradient(tp, t.data(), static_cast<int>(t.size()), src.data(), static_cast<int>(src.size()),
                     og.empty() ? nullptr : og.data(), unconnected, results.data(), s.get());
  }
  s.Check();
  py::list out;
  for (TXE_TensorHandle* h : results) out.append(h == nullptr ? py::none() : WrapHandle(h));
  return out;
}

// The Python backward function of a custom gradient: fn(list of output gradients or None) ->
// list of input gradients (EagerTensors or None).
void CallCustomGradient(void* arg, TXE_TensorHandle** output_grads, int num_outputs, TXE_TensorHandle** input_grads,
                        int num_inputs, TX_Status* status) {
  PyGILState_STATE gil = PyGILState_Ensure();
  try {
    py::list grads;
    Status copy_status;
    for (int i = 0; i < num_outputs; ++i) {
      if (output_grads[i] == nullptr) {
        grads.append(py::none());
        continue;
      }
      TXE_TensorHandle* h = TXE_TensorHandleCopySharingTensor(output_grads[i], copy_status.get());
      copy_status.Check();
      grads.append(WrapHandle(h));
    }
    py::object result = py::reinterpret_borrow<py::object>(static_cast<PyObject*>(arg))(grads);
    py::list items = py::list(result);
    if (static_cast<int>(items.size()) != num_inputs)
      ThrowValueError("the custom gradient function returned " + std::to_string(items.size()) + " gradients for " +
                      std::to_string(num_inputs) + " inputs");
    for (int i = 0; i < num_inputs; ++i) {
      if (items[i].is_none()) continue;
      TXE_TensorHandle* h = TXE_TensorHandleCopySharingTensor(Handle(items[i], "a custom gradient"), copy_status.get());
      copy_status.Check();
      input_grads[i] = h;
    }
  } catch (py::error_already_set& e) {
    std::string msg = std::string("custom gradient function failed: ") + e.what();
    TX_SetStatus(status, TX_INVALID_ARGUMENT, msg.c_str());
  } catch (const std::exception& e) { TX_SetStatus(status, TX_INTERNAL, e.what()); }
  PyGILState_Release(gil);
}

void ReleaseCallable(void* arg) {
  if (!Py_IsInitialized()) return;
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(arg));
  PyGILState_Release(gil);
}

void RecordCustomGradient(const py::list& inputs, const py::list& outputs, py::object fn) {
  std::vector<TXE_TensorHandle*> in = Handles(inputs, "a custom gradient input", false);
  std::vector<TXE_TensorHandle*> out = Handles(outputs, "a custom gradient output", false);
  Status s;
  PyObject* arg = fn.release().ptr();  // the engine owns this reference from here (ReleaseCallable)
  TXE_TapeRecordCustomGradient(EagerContext(), in.data(), static_cast<int>(in.size()), out.data(),
                               static_cast<int>(out.size()), CallCustomGradient, arg, ReleaseCallable, s.get());
  s.Check();
}

}  // namespace

void InitEagerTape(py::module_& m) {
  m.def("tape_new", &NewTape, "Starts a gradient tape recording on this thread.");
  m.def("tape_watch", [](py::handle tape, py::handle t) {
    Status s;
    TXE_TapeWatch(TapeOf(tape), Handle(t, "a watched value"), s.get());
    s.Check();
  });
  m.def("tape_set_recording", [](py::handle tape, bool on) { TXE_TapeSetRecording(TapeOf(tape), on); });
  m.def("tape_is_recording", [](py::handle tape) { return TXE_TapeIsRecording(TapeOf(tape)) != 0; });
  m.def("tape_gradient", &Gradient);
  m.def("tape_watched_variable_ids", [](py::handle tape) {
    TXE_Tape* t = TapeOf(tape);
    py::list out;
    for (int i = 0; i < TXE_TapeNumWatchedVariables(t); ++i) {
      Status s;
      std::unique_ptr<TXE_TensorHandle, void (*)(TXE_TensorHandle*)> h(TXE_TapeWatchedVariable(t, i, s.get()),
                                                                       TXE_DeleteTensorHandle);
      s.Check();
      out.append(py::int_(TXE_TensorHandleId(h.get())));
    }
    return out;
  });
  m.def("eager_tensor_id", [](py::handle t) { return TXE_TensorHandleId(Handle(t, "the value")); });
  m.def("record_custom_gradient", &RecordCustomGradient);
}

}  // namespace txpy

// Shared pieces of the `tensorflux._tx_c` extension: status-to-exception mapping, the NumPy
// dtype table, owning handles and tensor conversion. The module binds the public C API only
// (DESIGN.md §1); no engine C++ header is included anywhere under pywrap/.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <tensorflux/c/c_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace txpy {

namespace py = pybind11;

// Owns a TX_Status for the span of one binding call.
class Status {
 public:
  Status() : s_(TX_NewStatus()) {}
  ~Status() { TX_DeleteStatus(s_); }
  Status(const Status&) = delete;
  Status& operator=(const Status&) = delete;
  TX_Status* get() { return s_; }
  bool ok() const { return TX_GetCode(s_) == TX_OK; }
  // Raises the Python exception registered for the status code when the status is an error.
  void Check() const;

 private:
  TX_Status* s_;
};

// Raises (as a C++ exception pybind11 turns into the Python one) the OpError subclass registered
// for `code`, constructed as cls(None, None, message) like TensorFlow's error classes.
[[noreturn]] void ThrowStatus(TX_Code code, const char* message);

// Binding-side argument errors, raised as Python TypeError / ValueError.
[[noreturn]] void ThrowTypeError(const std::string& message);
[[noreturn]] void ThrowValueError(const std::string& message);

// Operations cross into Python as integer handles (the TX_Operation* value); they stay valid as
// long as the graph lives, and the Python Operation keeps its Graph alive.
inline TX_Operation* ToOp(std::uintptr_t h) { return reinterpret_cast<TX_Operation*>(h); }
inline std::uintptr_t FromOp(const TX_Operation* op) { return reinterpret_cast<std::uintptr_t>(op); }
// Parses a (op_handle, index) pair.
TX_Output ToOutput(py::handle pair);

// The NumPy dtype for a TX_DataType (from the table Python registers at import, or the lazy
// resolver for dtypes such as bfloat16); raises TypeError when NumPy has none.
py::dtype NumpyDtype(TX_DataType dt);

// Owns a TX_Graph. Also remembers the data pointers of Const values so fetched arrays never
// alias graph constants (Note [Fetched arrays alias engine memory]).
struct GraphHandle {
  GraphHandle();
  ~GraphHandle();
  GraphHandle(const GraphHandle&) = delete;
  GraphHandle& operator=(const GraphHandle&) = delete;

  TX_Graph* graph;
};

// A new TX_Tensor holding a copy of `array` (any layout); caller owns it. For TX_STRING the array
// may hold bytes or str objects (object arrays) or be a NumPy 'S' or 'U' array (Note [String
// tensors in Python]).
TX_Tensor* CopyToTensor(TX_DataType dt, const py::array& array);
// A NumPy array over `t` without copying: the array's base is a capsule that deletes `t`.
// Takes ownership of `t`. Rank-0 tensors become NumPy scalars. TX_STRING tensors become object
// arrays of bytes (a bytes object for rank 0), always copied.
py::object TensorToNumpy(TX_Tensor* t, bool copy);
// The strings of a TX_STRING tensor (borrowed) as TensorToNumpy returns them.
py::object StringTensorToNumpy(const TX_Tensor* t);

// The bytes of `buf`, which is deleted.
inline py::bytes TakeBuffer(TX_Buffer* buf) {
  py::bytes out(static_cast<const char*>(buf->data), buf->length);
  TX_DeleteBuffer(buf);
  return out;
}

// Calls fill(buffer, status) on a new buffer and returns its bytes; raises on an error status.
template <typename F>
py::bytes FillBuffer(F fill) {
  TX_Buffer* buf = TX_NewBuffer();
  Status status;
  fill(buf, status.get());
  if (!status.ok()) {
    TX_DeleteBuffer(buf);
    status.Check();
  }
  return TakeBuffer(buf);
}

// Module sections (one per file).
void InitGraph(py::module_& m);
void InitOperation(py::module_& m);
void InitImport(py::module_& m);
void InitSession(py::module_& m);
void InitGradients(py::module_& m);
void InitCheckpoint(py::module_& m);
void InitFunctions(py::module_& m);
void InitHostCallback(py::module_& m);

}  // namespace txpy

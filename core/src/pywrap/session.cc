// Sessions and the run hot path: NumPy feeds in without copying, fetched tensors out as NumPy
// arrays that own them, with the GIL released while the engine runs.
//
// Note [Feeding NumPy arrays without copying]
// A fed array that is C-contiguous, aligned and already of the placeholder's dtype is wrapped
// by TX_NewTensor; the tensor holds a reference to the array that its deallocator drops. The
// deallocator may run on an engine thread (or after this call returns, when a fetched tensor
// aliases the feed), so it takes the GIL itself. Our own reference to each fed tensor is kept
// until TX_SessionRun returns, so the engine never sees a fed buffer as exclusively its own and
// never writes into it (buffer forwarding needs the only reference). Anything else is
// converted once with numpy.asarray, like TensorFlow converts feeds to the placeholder dtype.
//
// Note [Fetched arrays alias engine memory]
// A fetched tensor becomes a NumPy array over the tensor's own buffer (the array's base is a
// capsule that calls TX_DeleteTensor), with no copy. TX_SessionRun guarantees that fetched
// tensors never share engine memory that outlives the run (a Const's value) or each other, so
// writing through the array cannot change the graph. A fetched tensor may alias the caller's own
// fed array (Identity of a placeholder), as NumPy views do.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common.h"
#include "tensorflux/c/c_api_profiler.h"
#include "interrupt.h"

namespace txpy {
namespace {

constexpr int kCContiguous = 0x0001;  // NPY_ARRAY_C_CONTIGUOUS
constexpr int kAligned = 0x0100;  // NPY_ARRAY_ALIGNED

bool Finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
}

// TX_NewTensor deallocator for fed arrays: drops the tensor's reference to the array.
void ReleaseArray(void* /*data*/, size_t /*len*/, void* arg) {
  if (!Py_IsInitialized() || Finalizing()) return;  // the process is exiting: leak instead
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(arg));
  PyGILState_Release(gil);
}

std::string OutputName(TX_Output out) {
  return std::string(TX_OperationName(out.oper)) + ":" + std::to_string(out.index);
}

std::string ShapeString(const int64_t* dims, int nd) {
  std::string s = "(";
  for (int i = 0; i < nd; ++i) {
    if (i) s += ", ";
    s += dims[i] < 0 ? "None" : std::to_string(dims[i]);
  }
  return s + (nd == 1 ? ",)" : ")");
}

std::string TypeName(py::handle v) { return py::str(py::type::handle_of(v).attr("__name__")).cast<std::string>(); }

// True when `value` is text: str, bytes, a NumPy array of strings, or a (nested) list or tuple
// whose first element is one.
bool IsText(py::handle value) {
  while ((PyList_Check(value.ptr()) && PyList_GET_SIZE(value.ptr()) > 0) ||
         (PyTuple_Check(value.ptr()) && PyTuple_GET_SIZE(value.ptr()) > 0))
    value = PyList_Check(value.ptr()) ? PyList_GET_ITEM(value.ptr(), 0) : PyTuple_GET_ITEM(value.ptr(), 0);
  if (PyUnicode_Check(value.ptr()) || PyBytes_Check(value.ptr())) return true;
  if (!py::isinstance<py::array>(value)) return false;
  const char kind = py::reinterpret_borrow<py::array>(value).dtype().kind();
  return kind == 'U' || kind == 'S';
}

// numpy.asarray (looked up once).
py::object NumpyAsarray() {
  static PyObject* asarray = py::object(py::module_::import("numpy").attr("asarray")).release().ptr();
  return py::reinterpret_borrow<py::object>(asarray);
}

// Converts a feed value that cannot be wrapped as is (Note [Feeding NumPy arrays without copying]).
py::array ConvertFeed(py::handle value, const py::dtype& want, TX_Output out) {
  std::string dtype_name = py::str(want).cast<std::string>();
  if (IsText(value)) {
    ThrowTypeError("Cannot feed value of type " + TypeName(value) + " (a string, dtype string) to Tensor '" +
                   OutputName(out) + "' of dtype " + dtype_name);
  }
  try {
    return NumpyAsarray()(value, want, "C").cast<py::array>();
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_TypeError) && !e.matches(PyExc_ValueError) && !e.matches(PyExc_OverflowError)) throw;
    ThrowTypeError("Cannot feed value of type " + TypeName(value) + " to Tensor '" + OutputName(out) + "' of dtype " +
                   dtype_name + ": " + std::string(py::str(e.value())));
  }
}

// Raises ValueError when `dims` does not fit the static shape of `out`.
void CheckFeedShape(GraphHandle& g, TX_Output out, const std::vector<int64_t>& dims) {
  const int nd = static_cast<int>(dims.size());
  Status status;
  int static_nd = TX_GraphGetTensorNumDims(g.graph, out, status.get());
  if (!status.ok() || static_nd < 0) return;
  std::vector<int64_t> want_dims(static_cast<size_t>(static_nd));
  TX_GraphGetTensorShape(g.graph, out, want_dims.data(), static_nd, status.get());
  bool compatible = status.ok() && static_nd == nd;
  for (int i = 0; compatible && i < nd; ++i) compatible = want_dims[i] < 0 || want_dims[i] == dims[i];
  if (status.ok() && !compatible) {
    ThrowValueError("Cannot feed value of shape " + ShapeString(dims.data(), nd) + " for Tensor '" + OutputName(out) +
                    "', which has shape " + ShapeString(want_dims.data(), static_nd));
  }
}

// A string feed: text, or an array of it, copied into a new TX_STRING tensor (Note [String
// tensors in Python]); numbers are a TypeError naming both dtypes.
TX_Tensor* FeedStrings(GraphHandle& g, TX_Output out, py::handle value) {
  py::array arr = py::isinstance<py::array>(value) ? py::reinterpret_borrow<py::array>(value)
                                                   : NumpyAsarray()(value, py::arg("dtype") = "O").cast<py::array>();
  const char kind = arr.dtype().kind();
  if (kind != 'O' && kind != 'S' && kind != 'U') {
    ThrowTypeError("Cannot feed value of type " + TypeName(value) + " (dtype " +
                   py::str(arr.dtype()).cast<std::string>() + ") to Tensor '" + OutputName(out) + "' of dtype string");
  }
  CheckFeedShape(g, out, std::vector<int64_t>(arr.shape(), arr.shape() + arr.ndim()));
  try {
    return CopyToTensor(TX_STRING, arr);
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    ThrowTypeError("Cannot feed value of type " + TypeName(value) + " to Tensor '" + OutputName(out) +
                   "' of dtype string: " + std::string(py::str(e.value())));
  }
}

// Wraps (or converts, then wraps) `value` as the tensor fed to `out`; caller owns the result.
TX_Tensor* FeedTensor(GraphHandle& g, TX_Output out, py::handle value) {
  const TX_DataType dt = TX_OperationOutputType(out);
  if (dt == TX_STRING) return FeedStrings(g, out, value);
  py::dtype want = NumpyDtype(dt);
  bool usable = false;
  if (py::isinstance<py::array>(value)) {
    auto a = py::reinterpret_borrow<py::array>(value);
    py::dtype have = a.dtype();
    usable = (a.flags() & (kCContiguous | kAligned)) == (kCContiguous | kAligned) &&
        (have.ptr() == want.ptr() || have.equal(want));
  }
  // (A default-constructed py::array is a real empty array, so no "unset" state is used here.)
  py::array arr = usable ? py::reinterpret_borrow<py::array>(value) : ConvertFeed(value, want, out);

  const int nd = static_cast<int>(arr.ndim());
  std::vector<int64_t> dims(arr.shape(), arr.shape() + nd);
  CheckFeedShape(g, out, dims);
  PyObject* ref = arr.ptr();
  Py_INCREF(ref);  // dropped by ReleaseArray
  TX_Tensor* t = TX_NewTensor(dt, dims.data(), nd, const_cast<void*>(arr.data()), static_cast<size_t>(arr.nbytes()),
                              ReleaseArray, ref);
  if (t == nullptr)
    ThrowStatus(TX_INVALID_ARGUMENT,
                ("[" + std::string(TX_OperationName(out.oper)) + "] could not wrap the fed array as a tensor").c_str());
  return t;
}

struct TensorList {
  std::vector<TX_Tensor*> tensors;
  ~TensorList() {
    for (TX_Tensor* t : tensors) TX_DeleteTensor(t);
  }
};

// Owns a TX_Session and keeps the Python graph handle (and so the TX_Graph) alive.
struct SessionHandle {
  SessionHandle(py::object graph_obj, py::object config, int inter_op, int intra_op)
      : graph_ref(std::move(graph_obj)), graph(graph_ref.cast<GraphHandle*>()) {
    std::unique_ptr<TX_SessionOptions, void (*)(TX_SessionOptions*)> opts(TX_NewSessionOptions(),
                                                                          TX_DeleteSessionOptions);
    Status status;
    if (!config.is_none()) {
      std::string bytes = config.cast<std::string>();
      TX_SetConfig(opts.get(), bytes.data(), bytes.size(), status.get());
      status.Check();
    }
    if (inter_op >= 0) TX_SessionOptionsSetInterOpThreads(opts.get(), inter_op);
    if (intra_op >= 0) TX_SessionOptionsSetIntraOpThreads(opts.get(), intra_op);
    session = TX_NewSession(graph->graph, opts.get(), status.get());
    status.Check();
  }
  ~SessionHandle() {
    if (session == nullptr) return;
    Status status;
    py::gil_scoped_release release;  // engine threads may need the GIL to drop fed arrays
    TX_DeleteSession(session, status.get());
  }
  SessionHandle(const SessionHandle&) = delete;
  SessionHandle& operator=(const SessionHandle&) = delete;

  void Close() {
    Status status;
    {
      py::gil_scoped_release release;
      TX_CloseSession(session, status.get());
    }
    status.Check();
  }

  // `options`: None or a serialized RunOptions (bytes). Ctrl-C on the main thread cancels the run
  // and raises KeyboardInterrupt (Note [Interrupting runs]). With `metadata`, returns (results,
  // serialized RunMetadata) instead of the results alone.
  py::object Run(py::handle feeds, py::handle feed_values, py::handle fetches, py::handle targets, py::handle options,
                 bool metadata) {
    py::sequence feed_seq = py::reinterpret_borrow<py::sequence>(feeds);
    py::sequence value_seq = py::reinterpret_borrow<py::sequence>(feed_values);
    py::sequence fetch_seq = py::reinterpret_borrow<py::sequence>(fetches);
    py::sequence target_seq = py::reinterpret_borrow<py::sequence>(targets);
    const size_t nfeeds = feed_seq.size();
    if (value_seq.size() != nfeeds) ThrowValueError("feeds and feed values differ in length");

    std::vector<TX_Output> inputs(nfeeds);
    TensorList input_values;
    input_values.tensors.reserve(nfeeds);
    for (size_t i = 0; i < nfeeds; ++i) {
      inputs[i] = ToOutput(feed_seq[i]);
      input_values.tensors.push_back(FeedTensor(*graph, inputs[i], value_seq[i]));
    }
    const size_t nfetch = fetch_seq.size();
    std::vector<TX_Output> outputs(nfetch);
    for (size_t i = 0; i < nfetch; ++i) outputs[i] = ToOutput(fetch_seq[i]);
    std::vector<const TX_Operation*> target_ops;
    target_ops.reserve(target_seq.size());
    for (auto t : target_seq) target_ops.push_back(ToOp(t.cast<std::uintptr_t>()));

    TX_Buffer run_options{nullptr, 0, nullptr};
    std::string options_bytes;
    if (!options.is_none()) {
      if (!PyBytes_Check(options.ptr())) ThrowTypeError("session_run: options must be bytes or None");
      options_bytes = options.cast<std::string>();
      run_options.data = options_bytes.data();
      run_options.length = options_bytes.size();
    }

    TensorList output_values;
    output_values.tensors.assign(nfetch, nullptr);
    Status status;
    TX_Cancellation* interrupt = InterruptFlag();
    std::unique_ptr<TX_Buffer, decltype(&TX_DeleteBuffer)> run_metadata(metadata ? TX_NewBuffer() : nullptr,
                                                                        &TX_DeleteBuffer);
    {
      InterruptScope armed(interrupt);
      py::gil_scoped_release release;
      TX_SessionRunWithCancellation(session, options.is_none() ? nullptr : &run_options, interrupt, inputs.data(),
                                    input_values.tensors.data(), static_cast<int>(nfeeds), outputs.data(),
                                    output_values.tensors.data(), static_cast<int>(nfetch), target_ops.data(),
                                    static_cast<int>(target_ops.size()), run_metadata.get(), status.get());
    }
    RaiseIfInterrupted(interrupt, status);
    status.Check();

    py::list result(nfetch);
    for (size_t i = 0; i < nfetch; ++i) {
      TX_Tensor* t = output_values.tensors[i];
      if (t == nullptr)
        ThrowStatus(TX_INTERNAL, ("[" + OutputName(outputs[i]) + "] the engine fetched no value").c_str());
      output_values.tensors[i] = nullptr;
      result[i] = TensorToNumpy(t, /*copy=*/false);
    }
    if (!metadata) return std::move(result);
    py::bytes meta(static_cast<const char*>(run_metadata->data), run_metadata->length);
    return py::make_tuple(result, meta);
  }

  py::object graph_ref;
  GraphHandle* graph;
  TX_Session* session = nullptr;
};

}  // namespace

void InitSession(py::module_& m) {
  py::class_<SessionHandle>(m, "Session", "Owns a TX_Session.")
      .def(py::init<py::object, py::object, int, int>(), py::arg("graph"), py::arg("config"), py::arg("inter_op"),
           py::arg("intra_op"))
      .def("close", &SessionHandle::Close);
  m.def(
      "session_run",
      [](SessionHandle& s, py::handle feeds, py::handle values, py::handle fetches, py::handle targets,
         py::handle options, bool metadata) { return s.Run(feeds, values, fetches, targets, options, metadata); },
      py::arg("session"), py::arg("feed_outputs"), py::arg("feed_arrays"), py::arg("fetch_outputs"),
      py::arg("target_ops"), py::arg("options") = py::none(), py::arg("metadata") = false,
      "Runs with feeds [(op, index)] and their values, fetches [(op, index)] and target ops; returns "
      "the fetched values as NumPy arrays (Note [Feeding NumPy arrays without copying]), with "
      "metadata=True as (values, serialized RunMetadata).");
  m.def(
      "set_optimizer_option",
      [](const std::string& name, bool enabled) {
        Status status;
        TX_SetOptimizerOption(name.c_str(), enabled ? 1 : 0, status.get());
        status.Check();
      },
      "Sets a process-wide plan rewrite option (TX_SetOptimizerOption).");
  m.def(
      "get_optimizer_option",
      [](const std::string& name) {
        Status status;
        const bool on = TX_GetOptimizerOption(name.c_str(), status.get()) != 0;
        status.Check();
        return on;
      },
      "The value of a process-wide plan rewrite option (TX_GetOptimizerOption).");
  m.def(
      "profiler_start",
      [] {
        Status status;
        TX_ProfilerStart(status.get());
        status.Check();
      },
      "Starts the process-wide profiler (FailedPreconditionError when one records).");
  m.def(
      "profiler_stop", [] { return FillBuffer([](TX_Buffer* b, TX_Status* s) { TX_ProfilerStop(b, s); }); },
      "Stops the profiler and returns what it recorded as Chrome trace-event JSON (bytes).");
}

}  // namespace txpy

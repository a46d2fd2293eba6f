"""The conformance table's data model and the machinery that runs an entry.

An `OpEntry` describes one registered op by its OpDef names: samples give input values per input
argument name (a NumPy array, or a list of arrays for list arguments) and attr values per attr
name; `ref` is the NumPy/SciPy reference. `run_sample` builds the op through the generated
wrapper's signature (so attrs left out take the engine's OpDef defaults) in one of two modes:

- "static": inputs are Const nodes, so shape functions see every shape and constant; the static
  output shape must then be compatible with the computed one (this checks shape functions).
- "runtime": inputs are fed through placeholders of unknown shape, so kernels meet shapes that
  were not checked at graph construction.

Cross-checks call `tf.raw_ops.<Op>` with the same argument names, which is possible because our
OpDefs equal TensorFlow's.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional, Sequence

import numpy as np

import tensorflux as tx
import tf_oracle
from tensorflux._src import op_def_library
from tensorflux._src.generated import gen_ops

MODES = ("static", "runtime")
# Devices the engine offers; every sample runs on each.
DEVICES = ("/device:CPU:0",)


@dataclasses.dataclass
class Sample:
    """One call of the op: inputs by input-arg name, attrs by attr name."""

    inputs: dict
    attrs: dict = dataclasses.field(default_factory=dict)
    # Overrides the entry's tolerance for this sample.
    rtol: Optional[float] = None
    atol: Optional[float] = None
    note: str = ""
    # False when TensorFlow has no CPU kernel for this case (say why in `note`).
    cross_check: bool = True


@dataclasses.dataclass
class ErrorSample:
    """A call that must fail with `error` whose message matches `match` (a regex) and names the op."""

    inputs: dict
    attrs: dict = dataclasses.field(default_factory=dict)
    error: type = tx.errors.InvalidArgumentError
    match: str = ""
    # "static": fails at graph construction when inputs are constants; "runtime": fails in
    # Session.run when inputs are fed; "both": both.
    when: str = "both"
    note: str = ""


@dataclasses.dataclass
class OpEntry:
    """The conformance entry of one registered op."""

    op: str
    samples: Sequence[Sample]
    # ref(**inputs, **attrs) -> array or tuple of arrays; None when `check` is given instead.
    ref: Optional[Callable[..., Any]] = None
    errors: Sequence[ErrorSample] = ()
    rtol: float = 1e-6
    atol: float = 1e-6
    # check(outputs, sample) asserts properties when there is no exact reference (random ops).
    check: Optional[Callable[[list, Sample], None]] = None
    # Compare with tf.raw_ops.<op> when TensorFlow is installed.
    cross_check: bool = True
    # How many leading outputs to compare with TensorFlow (None: all); the rest are
    # implementation-defined (e.g. FusedBatchNormV3's reserve spaces differ between TensorFlow's
    # oneDNN and portable kernels).
    cross_check_outputs: Optional[int] = None
    # Inputs that must stay constants in "runtime" mode (e.g. an axis some kernels need static).
    constant_inputs: Sequence[str] = ()
    # Custom graph builder for ops the generic path cannot make (Placeholder): returns
    # (fetches, feed_dict) for a sample.
    build: Optional[Callable[[Sample], tuple]] = None
    # Gradient checks (gradcheck.py), run when the op has a registered gradient: samples in
    # float64 (default: the entry's samples whose floating inputs are all float64), the inputs to
    # differentiate (default: every float64 input) and tolerances against central differences.
    grad_samples: Sequence[Sample] = ()
    grad_inputs: Optional[Sequence[str]] = None
    grad_rtol: float = 1e-5
    grad_atol: float = 1e-6
    # The finite-difference step when it must differ from gradcheck.EPS; setting it also lets
    # float32 outputs of float64 inputs be differentiated (ops that always output float32).
    grad_eps: Optional[float] = None
    # The outputs to differentiate (default: every float64 output); e.g. CTCLoss's second output
    # is itself a gradient, through which TensorFlow (and the engine) pass none.
    grad_outputs: Optional[Sequence[int]] = None
    # For ops without float64 kernels: "file.py::test_name" of the test in core/tests that checks
    # the gradient another way (against a float64 composite, TensorFlow, ...).
    grad_checked_by: str = ""
    # True when the gradient needs static matrix dimensions (as TensorFlow's QR/SVD gradients do):
    # the "runtime" gradient check, whose inputs have unknown shapes, is skipped.
    grad_needs_static_shapes: bool = False


def signatures() -> dict:
    """Op name -> the generated wrapper's OpSig, for every registered op."""
    return {v.op_type: v for v in vars(gen_ops).values() if isinstance(v, op_def_library.OpSig)}


def _as_list(x) -> list:
    if isinstance(x, tuple) and not hasattr(x, "_fields"):
        return list(x)
    if isinstance(x, list):
        return x
    if hasattr(x, "_fields"):  # namedtuple of outputs
        out = []
        for v in x:
            out.extend(v if isinstance(v, list) else [v])
        return out
    return [x]


def _input_tensor(value, mode: str, feeds: dict, keep_constant: bool):
    arr = np.asarray(value)
    if mode == "static" or keep_constant:
        return tx.constant(arr)
    ph = tx.placeholder(tx.as_dtype(arr.dtype), shape=None)
    feeds[ph] = arr
    return ph


def build_sample(entry: OpEntry, sample: Sample, mode: str, device: str = DEVICES[0]):
    """Adds the op to the default graph; returns (output tensors, feed_dict)."""
    if entry.build is not None:
        return entry.build(sample)
    sig = signatures()[entry.op]
    feeds: dict = {}
    args = []
    with tx.device(device):
        for (arg_name, _, _, kind) in sig.inputs:
            if arg_name not in sample.inputs:
                raise KeyError(f"sample for {entry.op} lacks input {arg_name!r}")
            value = sample.inputs[arg_name]
            keep = arg_name in entry.constant_inputs
            if kind == op_def_library.SINGLE:
                args.append(_input_tensor(value, mode, feeds, keep))
            else:
                args.append([_input_tensor(v, mode, feeds, keep) for v in value])
        unknown = set(sample.attrs) - {a for a, _ in sig.attrs}
        if unknown:
            raise KeyError(f"sample for {entry.op} sets attrs {sorted(unknown)} that are not wrapper parameters")
        attr_values = [sample.attrs.get(a) for a, _ in sig.attrs]
        out = op_def_library.apply_op(sig, entry.op, args, attr_values)
    if isinstance(out, tx.Operation):
        return [], feeds
    return _as_list(out), feeds


def run_sample(entry: OpEntry, sample: Sample, mode: str, device: str = DEVICES[0]) -> list:
    """Builds and runs one sample in a fresh graph; returns (outputs as arrays, output tensors)."""
    g = tx.Graph()
    with g.as_default():
        tensors, feeds = build_sample(entry, sample, mode, device)
        with tx.Session(graph=g) as sess:
            values = sess.run(tensors, feed_dict=feeds) if tensors else []
    return values, tensors


def run_eager(entry: OpEntry, sample: Sample) -> list:
    """Runs one sample eagerly (inputs as EagerTensors); returns the outputs as arrays."""
    assert tx.executing_eagerly()
    sig = signatures()[entry.op]
    args = []
    for (arg_name, _, _, kind) in sig.inputs:
        value = sample.inputs[arg_name]
        if kind == op_def_library.SINGLE:
            args.append(tx.constant(np.asarray(value)))
        else:
            args.append([tx.constant(np.asarray(v)) for v in value])
    attr_values = [sample.attrs.get(a) for a, _ in sig.attrs]
    out = op_def_library.apply_op(sig, entry.op, args, attr_values)
    return [] if out is None else [np.asarray(t.numpy()) for t in _as_list(out)]


def reference(entry: OpEntry, sample: Sample) -> list:
    """The reference outputs for a sample, as a list of arrays."""
    out = entry.ref(**sample.inputs, **sample.attrs)
    return [np.asarray(o) for o in _as_list(out)]


def assert_close(actual, expected, rtol: float, atol: float, what: str) -> None:
    """Shape must match; exact equality for integers, bools and strings (compared as bytes; str
    references are UTF-8), tolerance for floats; NaNs match."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != expected {expected.shape}"
    if actual.dtype.kind in "OSU" or expected.dtype.kind in "OSU":
        def as_bytes(a):
            return [x.encode() if isinstance(x, str) else bytes(x) for x in a.reshape(-1).tolist()]
        assert as_bytes(actual) == as_bytes(expected), f"{what}: {actual!r} != expected {expected!r}"
    elif actual.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected.astype(actual.dtype), err_msg=what)
    elif actual.dtype.kind == "c":
        np.testing.assert_allclose(actual.astype(np.complex128), expected.astype(np.complex128), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=what)
    else:
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=what)


# tf.raw_ops applies TensorFlow's ApiDef renames of a few arguments and attrs: (op or "*", name) -> name.
TF_RAW_OPS_RENAMES = {("*", "reduction_indices"): "axis",
                      ("ReduceJoin", "reduction_indices"): "reduction_indices", ("*", "split_dim"): "axis", ("Where", "input"): "condition",
                      ("ExpandDims", "dim"): "axis", ("Squeeze", "squeeze_dims"): "axis"}


def tf_outputs(entry: OpEntry, sample: Sample) -> Optional[list]:
    """Runs the sample through tf.raw_ops (eager) and returns its outputs, or None without TF."""
    try:
        import tensorflow as tf
    except ImportError:
        return None
    fn = getattr(tf.raw_ops, entry.op)
    kwargs = {}
    for k, v in sample.inputs.items():
        k = TF_RAW_OPS_RENAMES.get((entry.op, k), TF_RAW_OPS_RENAMES.get(("*", k), k))
        kwargs[k] = [tf.constant(x) for x in v] if isinstance(v, (list, tuple)) else tf.constant(np.asarray(v))
    for k, v in sample.attrs.items():
        k = TF_RAW_OPS_RENAMES.get((entry.op, k), k)
        kwargs[k] = tf.as_dtype(v.as_numpy_dtype) if isinstance(v, tx.DType) else v
    out = tf_oracle.call(fn, **kwargs)
    if isinstance(out, tf.Operation) or out is None:
        return []
    outs = [np.asarray(o) for o in _as_list(out)]
    return outs if entry.cross_check_outputs is None else outs[:entry.cross_check_outputs]

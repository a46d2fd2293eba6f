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
    # Set on samples derived for the entry's dtype column (`dtype_samples`): the dtype's name.
    dtype: str = ""


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
    # False when central differences of the outputs do not define the gradient (the Gamma
    # samplers' implicit reparameterization): no sample is differentiated numerically, and
    # grad_checked_by names the test that checks the gradient.
    grad_by_differences: bool = True
    # The dtype column: dtypes beyond the samples' own (names such as "float16", "bfloat16",
    # "int8", "uint32") the forward check also runs in, on samples derived by `dtype_samples`.
    dtypes: Sequence[str] = ()
    # The type attr whose inputs the derived samples convert (default: the first input's type attr).
    dtype_attr: Optional[str] = None
    # Custom derivation: dtype name -> samples, or None to derive them as usual (Cast, ops whose
    # samples cannot simply be converted).
    make_dtype_samples: Optional[Callable[[str], Sequence[Sample]]] = None
    # dtype name -> (rtol, atol) overriding DTYPE_TOLERANCES for this entry.
    dtype_tolerances: dict = dataclasses.field(default_factory=dict)
    # dtypes of the column TensorFlow has no CPU kernel for (their TensorFlow cross-check is skipped).
    tf_lacks: Sequence[str] = ()
    # The outputs the dtype column's TensorFlow cross-check compares (None: all); say why in a comment.
    dtype_tf_outputs: Optional[Sequence[int]] = None
    # True when TensorFlow's 16-bit kernel accumulates in 16 bits: its cross-check then allows 4 ulps
    # of the largest output (the reference check keeps the normal tolerance).
    tf_accumulates_16bit: bool = False
    # dtype-column samples TensorFlow cannot run (sample -> True: no cross-check); say why.
    dtype_tf_skip: Optional[Callable[["Sample"], bool]] = None


# Note [Dtype column]
# An entry's `dtypes` lists the dtypes beyond its samples' own that its forward check runs in.
# For each, `dtype_samples` derives up to MAX_DTYPE_SAMPLES samples from the entry's float32 samples
# (float64 when it has none) for half and bfloat16, or from its int32 (else int64) samples for the
# integer types (unsigned targets take absolute values first): the inputs carrying the entry's type
# attr are rounded to the dtype. The reference then runs in float64 on the rounded values, widened
# exactly (integers keep their dtype, so wrap-around matches), its 16-bit outputs are rounded to the
# output's type (so both sides overflow to inf alike), and outputs are compared within
# DTYPE_TOLERANCES: about two units in the last place of the 16-bit type, since kernels compute in
# float32 and round once per output.
DTYPE_TOLERANCES = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2)}
MAX_DTYPE_SAMPLES = 4
FLOAT16_NAMES = ("float16", "bfloat16")


def numpy_dtype(name: str):
    """The NumPy dtype of a dtype name (bfloat16 through ml_dtypes)."""
    return np.dtype(tx.as_dtype(name).as_numpy_dtype)


def dtype_name(dtype) -> str:
    """The tx name of a NumPy dtype ("float16", "bfloat16", "int32", "bool", ...)."""
    return tx.as_dtype(np.dtype(dtype)).name


def type_attr(entry: "OpEntry") -> Optional[str]:
    """The type attr of the entry's data (Note [Dtype column]): `dtype_attr`, else "T" when an input
    uses it, else None when the first input has a fixed type (bool for LogicalAnd, All), else the
    first input's type attr (Tparams for Gather)."""
    if entry.dtype_attr:
        return entry.dtype_attr
    inputs = signatures()[entry.op].inputs
    if any(t == "T" for _, t, _, _ in inputs):
        return "T"
    if not inputs or not inputs[0][1]:
        return None
    return inputs[0][1]


def typed_inputs(entry: "OpEntry") -> list:
    """Names of the inputs whose dtype is the entry's type attr (the first input when that has a
    fixed type)."""
    inputs = signatures()[entry.op].inputs
    attr = type_attr(entry)
    if attr is None:
        return [inputs[0][0]] if inputs else []
    return [name for name, t, _, _ in inputs if t == attr]


def sample_dtypes(entry: "OpEntry") -> set:
    """Names of the dtypes the entry's own samples run in: those of the inputs carrying its type
    attr (the first input when no input carries one)."""
    names = typed_inputs(entry)
    out = set()
    for s in entry.samples:
        for k in [n for n in names if n in s.inputs] or list(s.inputs)[:1]:
            v = s.inputs[k]
            first = v[0] if isinstance(v, (list, tuple)) and v else v
            if isinstance(first, (list, tuple)):
                continue
            try:
                out.add(dtype_name(np.asarray(first).dtype))
            except TypeError:
                pass
    return out


def _convert(value, dtype, unsigned):
    if isinstance(value, (list, tuple)):
        return [_convert(v, dtype, unsigned) for v in value]
    arr = np.asarray(value)
    if unsigned:
        arr = np.abs(arr)
    with np.errstate(all="ignore"):
        return arr.astype(dtype)


def dtype_samples(entry: "OpEntry", name: str) -> list:
    """The samples the entry's forward check runs for dtype `name` (Note [Dtype column])."""
    custom = entry.make_dtype_samples(name) if entry.make_dtype_samples is not None else None
    if custom is not None:
        return [dataclasses.replace(s, dtype=name) for s in custom]
    target = numpy_dtype(name)
    names = typed_inputs(entry)
    bases = (np.float32, np.float64) if name in FLOAT16_NAMES or target.kind == "f" else (np.int32, np.int64)
    for base in bases:
        picked = []
        for s in entry.samples:
            values = [s.inputs[n] for n in names if n in s.inputs]
            flat = [v for x in values for v in (x if isinstance(x, (list, tuple)) else [x])]
            if flat and all(np.asarray(v).dtype == base for v in flat):
                picked.append(s)
        if picked:
            break
    out = []
    for s in picked[:MAX_DTYPE_SAMPLES]:
        inputs = dict(s.inputs)
        for n in names:
            inputs[n] = _convert(inputs[n], target, target.kind == "u")
        note = f"{s.note or 'sample'} as {name}"
        out.append(Sample(inputs, dict(s.attrs), note=note, cross_check=s.cross_check, dtype=name))
    return out


def dtype_tolerance(entry: "OpEntry", sample: "Sample") -> tuple:
    """(rtol, atol) for a sample: its own, the entry's per-dtype override, DTYPE_TOLERANCES for the
    16-bit floats, else the entry's."""
    rtol, atol = entry.dtype_tolerances.get(sample.dtype, DTYPE_TOLERANCES.get(sample.dtype, (entry.rtol, entry.atol)))
    return sample.rtol or rtol, sample.atol or atol


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


def _widen(value):
    if isinstance(value, (list, tuple)):
        return [_widen(v) for v in value]
    if not isinstance(value, (np.ndarray, np.generic)):
        return value  # e.g. a resource entry's Var
    return value.astype(np.float64) if value.dtype.name in FLOAT16_NAMES else value


def reference(entry: OpEntry, sample: Sample) -> list:
    """The reference outputs for a sample, as a list of arrays; 16-bit float inputs reach the
    reference widened to float64 (Note [Dtype column])."""
    inputs = {k: _widen(v) for k, v in sample.inputs.items()} if sample.dtype else sample.inputs
    out = entry.ref(**inputs, **sample.attrs)
    # .numpy(): np.asarray of a 0-d bfloat16 EagerTensor fails in TensorFlow.
    return [np.asarray(o.numpy() if hasattr(o, "numpy") else o) for o in _as_list(out)]


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
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(actual.astype(np.float64), np.asarray(expected).astype(np.float64), rtol=rtol,
                                       atol=atol, equal_nan=True, err_msg=what)


# tf.raw_ops applies TensorFlow's ApiDef renames of a few arguments and attrs: (op or "*", name) -> name.
TF_RAW_OPS_RENAMES = {("*", "reduction_indices"): "axis",
                      ("ReduceJoin", "reduction_indices"): "reduction_indices", ("*", "split_dim"): "axis",
                      ("Where", "input"): "condition",
                      ("ExpandDims", "dim"): "axis", ("Squeeze", "squeeze_dims"): "axis",
                      ("SparseSplit", "split_dim"): "split_dim"}


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
    # .numpy(): np.asarray of a 0-d bfloat16 EagerTensor fails in TensorFlow.
    outs = [np.asarray(o.numpy() if hasattr(o, "numpy") else o) for o in _as_list(out)]
    return outs if entry.cross_check_outputs is None else outs[:entry.cross_check_outputs]

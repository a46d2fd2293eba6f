"""Conformance entries: the stack ops StackV2, StackPushV2, StackPopV2 and StackCloseV2.

A stack handle cannot be a generic input, so every entry builds its own graph (the `build`
hook): a stack is made, tensors are pushed and popped in the order the sample names (control
dependencies), and the popped values are checked. While gradients use these ops to carry a
loop's intermediates (test_while_gradients.py); cross_check is off because tf.raw_ops stacks
need TensorFlow's own graph state.
"""

from __future__ import annotations

import numpy as np

import tensorflux as tx
from tensorflux._src.generated import gen_ops

from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample

_DTYPES = (np.float32, np.float64, np.int32, np.int64, np.bool_)


def _push_pop(sample: Sample):
    """Pushes sample.inputs["values"] in order onto one stack, pops them all (last first)."""
    values = [np.asarray(v) for v in sample.inputs["values"]]
    dtype = tx.as_dtype(sample.inputs.get("elem_type", values[0].dtype))
    h = gen_ops.stack_v2(tx.constant(sample.inputs.get("max_size", -1), tx.int32), elem_type=dtype)
    last = None
    for v in values:
        with tx.control_dependencies([last] if last is not None else []):
            last = gen_ops.stack_push_v2(h, tx.constant(v)).op
    pop_type = tx.as_dtype(sample.inputs.get("pop_type", dtype))
    out = []
    for _ in range(sample.inputs.get("pops", len(values))):
        with tx.control_dependencies([last]):
            t = gen_ops.stack_pop_v2(h, elem_type=pop_type)
        out.append(t)
        last = t.op
    if sample.inputs.get("close"):
        with tx.control_dependencies([last]):
            closed = gen_ops.stack_close_v2(h)
        with tx.control_dependencies([closed]):
            out.append(gen_ops.stack_pop_v2(h, elem_type=pop_type))
    return out, {}


def _reversed(values, **_):
    return [np.asarray(v) for v in reversed(values)]


def _samples():
    out = [Sample({"values": [rand((2, 3), dt, seed=1), rand((2, 3), dt, seed=2), rand((4,), dt, seed=3)]},
                  note=np.dtype(dt).name) for dt in _DTYPES]
    out.append(Sample({"values": [np.zeros((0, 2), np.float32), np.ones((), np.float32)]}, note="zero-size, scalar"))
    out.append(Sample({"values": [np.ones(2, np.float32)], "max_size": 1}, note="full to max_size"))
    return out


_F32 = np.ones(2, np.float32)
_ERRORS = {
    "StackV2": [ErrorSample({"values": [_F32], "max_size": [1, 2]}, error=tx.errors.InvalidArgumentError,
                            match="max_size must be a scalar", when="construction")],
    "StackPushV2": [
        ErrorSample({"values": [_F32, _F32], "max_size": 1}, error=tx.errors.ResourceExhaustedError, match="is full",
                    when="runtime"),
        ErrorSample({"values": [_F32], "elem_type": np.float64}, error=tx.errors.InvalidArgumentError,
                    match="holds double tensors, cannot push a float", when="runtime")],
    "StackPopV2": [
        ErrorSample({"values": [_F32], "pops": 2}, error=tx.errors.OutOfRangeError, match="is empty", when="runtime"),
        ErrorSample({"values": [_F32], "pop_type": np.float64}, error=tx.errors.InvalidArgumentError,
                    match="holds float tensors, but elem_type is double", when="runtime"),
        ErrorSample({"values": [_F32], "close": True}, error=tx.errors.FailedPreconditionError, match="is closed",
                    when="runtime")],
    "StackCloseV2": [],
}


def _entry(op):
    return OpEntry(op, _samples(), ref=_reversed, build=_push_pop, cross_check=False, errors=_ERRORS[op])


ENTRIES = [_entry(op) for op in ("StackV2", "StackPushV2", "StackPopV2", "StackCloseV2")]

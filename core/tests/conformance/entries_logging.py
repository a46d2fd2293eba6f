"""Conformance entry: Assert (its messages are TensorFlow's, character for character: each data
tensor summarized in brackets, bools as 1/0, nested brackets per dimension).

Assert has no outputs, so each sample fetches its condition through an Identity that depends on
the Assert (the Assert then runs); tf.raw_ops.Assert returns nothing, so cross_check is off.
Eager Asserts and conditions of unknown shape are tested in core/tests/test_control_flow.py.
"""

from __future__ import annotations

import numpy as np

import tensorflux as tx
from tensorflux._src.generated import gen_ops

from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample


def _build(sample):
    cond = tx.constant(np.asarray(sample.inputs["condition"]))
    data = [tx.constant(np.asarray(d)) for d in sample.inputs["data"]]
    op = gen_ops.assert_(cond, data, **sample.attrs)
    with tx.control_dependencies([op]):
        return [tx.identity(cond)], {}


def _samples():
    data = [rand((4,), np.float32), rand((2, 3), np.int64), np.array(True), np.zeros((0, 2), np.float64)]
    return [
        Sample({"condition": np.array(True), "data": data}, note="holds: mixed dtypes, zero-size"),
        Sample({"condition": np.array(True), "data": [np.arange(100, dtype=np.uint8)]}, {"summarize": -1},
               note="holds: summarize all"),
    ]


def _errors():
    def failing(data, attrs, match):
        return ErrorSample({"condition": np.array(False), "data": data}, attrs, match=match, when="runtime")

    return [
        failing([np.arange(1, 6, dtype=np.int32)], {}, r"\[Assert\] assertion failed: \[1 2 3\.\.\.\]$"),
        failing([np.array([1.5, -2.0], np.float64), np.array(7, np.int64)], {"summarize": 1},
                r"assertion failed: \[1\.5\.\.\.\] \[7\]$"),
        failing([np.array([[True, False], [False, True]])], {"summarize": -1},
                r"assertion failed: \[\[1 0\]\[0 1\]\]$"),
        failing([np.array([200, 7], np.uint8), np.array([-3], np.int8), np.zeros((0,), np.float32)], {},
                r"assertion failed: \[200 7\] \[-3\] \[\]$"),
        ErrorSample({"condition": np.array([True, False]), "data": [np.ones(2, np.float32)]},
                    match="condition must be rank 0 but is rank 1", when="static"),
    ]


ENTRIES = [
    OpEntry("Assert", _samples(), ref=lambda condition, data, **attrs: condition, errors=_errors(), build=_build,
            cross_check=False),
]

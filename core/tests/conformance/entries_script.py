"""Conformance entries: the host-callback ops PyFunc, PyFuncStateless and EagerPyFunc.

They need a Python function registered under their token, so each sample builds its op through
tx.numpy_function / tx.py_function (which register one for the graph's lifetime); the sample's
"fn" input names the function. TensorFlow's ops call TensorFlow's own registry, so cross_check
is off. Eager mode, tx.function, gradients and tracebacks are tested in core/tests/test_py_function.py.
"""

from __future__ import annotations

import numpy as np

import tensorflux as tx

from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample


def _double(*xs):
    return [np.asarray(x) * 2 for x in xs]


def _raise_value(*xs):
    raise ValueError("bad value in the callback")


def _wrong_count(*xs):
    return [np.asarray(x) for x in xs] + [np.zeros(1, np.float32)]


_FUNCTIONS = {"double": _double, "raise_value": _raise_value, "wrong_count": _wrong_count}


def _builder(op):
    def build(sample):
        fn = _FUNCTIONS[sample.inputs.get("fn", "double")]
        inputs = [tx.constant(np.asarray(x)) for x in sample.inputs["input"]]
        tout = [t.dtype for t in inputs]
        if op == "EagerPyFunc":
            out = tx.py_function(lambda *ts: fn(*[t.numpy() for t in ts]), inputs, tout)
        else:
            out = tx.numpy_function(fn, inputs, tout, stateful=op == "PyFunc")
        return list(out), {}

    return build


def _ref(input, fn="double"):  # noqa: A002 (the OpDef's argument name)
    return tuple(np.asarray(x) * 2 for x in input)


def _samples():
    return [
        Sample({"input": [rand((3, 4), np.float32)]}, note="one float input"),
        Sample({"input": [rand((2,), np.float32), np.arange(5, dtype=np.int64), np.array(3, np.int32)]},
               note="several dtypes, a scalar"),
        Sample({"input": [np.zeros((0, 3), np.float32)]}, note="empty"),
    ]


def _errors():
    x = [np.ones(2, np.float32)]
    return [
        ErrorSample({"input": x, "fn": "raise_value"}, match=r"ValueError: bad value in the callback",
                    when="runtime"),
        ErrorSample({"input": x, "fn": "wrong_count"}, match=r"returned 2 values, but Tout has 1", when="runtime"),
    ]


# EagerPyFunc's gradient (a callback re-running the function under a tape) needs the Python
# function, which the generic gradient check cannot register: test_py_function.py checks it.
ENTRIES = [OpEntry(op, _samples(), ref=_ref, errors=_errors(), build=_builder(op), cross_check=False,
                   grad_checked_by="test_py_function.py::test_py_function_gradient_graph_and_function")
           for op in ("PyFunc", "PyFuncStateless", "EagerPyFunc")]

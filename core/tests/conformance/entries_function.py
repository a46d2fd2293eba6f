"""Conformance entries: the function call ops PartitionedCall and StatefulPartitionedCall.

The `f` attr of a sample is a function object (`RefFunction`): the op wrapper adds its
definition to the graph's library, so the generic builder, the error samples and the gradient
table (float64 samples, static and unknown shapes) run these ops like any other. The functions
are built here from small graphs through the C API (TX_GraphToFunction).

In eager mode the wrapper adds the function to the eager context's library instead, so the eager
run of the table calls them too. tf.raw_ops cannot take these function objects, so cross_check is
off; core/tests/test_functions_tf.py runs TensorFlow-made graphs with PartitionedCall /
StatefulPartitionedCall and compares their results and gradients with TensorFlow's.
"""

from __future__ import annotations

import numpy as np

import tensorflux as tx
from tensorflux._src import functions

from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample


class RefFunction:
    """A library function with a NumPy reference; usable as a call op's `f` attr."""

    def __init__(self, fn, ref):
        self.fn = fn
        self.ref = ref

    @property
    def name(self):
        return self.fn.name

    def add_to_graph(self, graph=None):
        self.fn.add_to_graph(graph)

    def add_to_context(self):
        self.fn.add_to_context()

    def __repr__(self):
        return self.fn.name


def _mul_add(dtype):
    """f(x, y) = (x * y + x, sum(y)) over `dtype`."""
    g = tx.Graph()
    with g.as_default():
        x = tx.placeholder(dtype, name="x")
        y = tx.placeholder(dtype, name="y")
        z = x * y + x
        s = tx.reduce_sum(y)
    fn = functions.graph_to_function(g, "mul_add_" + dtype.name, [x, y], [z, s], output_names=["z", "s"])
    return RefFunction(fn, lambda x, y: (x * y + x, np.sum(y)))


def _identity_swap(dtype):
    """f(a, b) = (b, a): results that are the arguments themselves."""
    g = tx.Graph()
    with g.as_default():
        a = tx.placeholder(dtype, name="a")
        b = tx.placeholder(dtype, name="b")
    fn = functions.graph_to_function(g, "swap_" + dtype.name, [a, b], [b, a])
    return RefFunction(fn, lambda a, b: (b, a))


F32, F64 = _mul_add(tx.float32), _mul_add(tx.float64)
SWAP_I32, SWAP_F64 = _identity_swap(tx.int32), _identity_swap(tx.float64)


def _ref(args, Tout, f, **_):
    return f.ref(*[np.asarray(a) for a in args])


def _samples():
    out = []
    for f, dt in ((F32, np.float32), (F64, np.float64)):
        tout = [tx.as_dtype(dt)] * 2
        out += [
            Sample({"args": [rand((2, 3), dt), rand((2, 3), dt, seed=1)]}, {"Tout": tout, "f": f}),
            Sample({"args": [rand((4,), dt), rand((1,), dt, seed=2)]}, {"Tout": tout, "f": f}, note="broadcast"),
            Sample({"args": [np.zeros((0, 2), dt), np.zeros((2,), dt)]}, {"Tout": tout, "f": f}, note="zero-size"),
        ]
    out += [
        Sample({"args": [np.arange(3, dtype=np.int32), np.array(7, np.int32)]},
               {"Tout": [tx.int32, tx.int32], "f": SWAP_I32}, note="pass-through results"),
        Sample({"args": [rand((2,), np.float64), rand((3,), np.float64, seed=3)]},
               {"Tout": [tx.float64, tx.float64], "f": SWAP_F64}, note="pass-through results"),
    ]
    return out


def _errors():
    f32 = [tx.float32, tx.float32]
    return [
        ErrorSample({"args": [np.ones(3, np.float32)]}, {"Tout": f32, "f": F32},
                    match=r"function 'mul_add_float32' takes 2 arguments \[float, float\] but the call passes 1"),
        ErrorSample({"args": [np.ones(3, np.float32), np.ones(3, np.int32)]}, {"Tout": f32, "f": F32},
                    match="argument 1 of function 'mul_add_float32' has type float but the call passes int32"),
        ErrorSample({"args": [np.ones(3, np.float32)] * 2}, {"Tout": [tx.float32], "f": F32},
                    match=r"returns \[float, float\] but the call expects \[float\]"),
        ErrorSample({"args": [np.ones(3, np.float32), np.ones(2, np.float32)]}, {"Tout": f32, "f": F32},
                    match=r"function 'mul_add_float32'.*\[mul\]", note="shapes [3] and [2] do not broadcast"),
        ErrorSample({"args": [np.ones(3, np.float32)] * 2}, {"Tout": f32, "f": "no_such_function"},
                    error=tx.errors.NotFoundError, match="function 'no_such_function' is not in the graph's function"),
    ]


ENTRIES = [
    OpEntry(op, _samples(), ref=_ref, errors=_errors(), cross_check=False)
    for op in ("PartitionedCall", "StatefulPartitionedCall")
]

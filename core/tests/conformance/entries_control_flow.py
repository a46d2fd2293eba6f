"""Conformance entries: the functional control-flow ops If, StatelessIf, Case, StatelessCase,
While and StatelessWhile.

Branches, loop conditions and loop bodies are function objects (`RefFunction`, as for the call
ops in entries_function.py) made from small graphs; the op wrapper adds them to the graph's (or
the eager context's) library. tf.raw_ops cannot take these function objects, so cross_check is
off; the C++ test csrc/tests/control_flow_test.cc covers long loops and construction errors.
"""

from __future__ import annotations

import numpy as np

import tensorflux as tx
from tensorflux._src import functions

from conformance.entries_function import RefFunction
from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample


def _binary(name, op, ref, dtype):
    """f(x, y) = op(x, y) over `dtype`."""
    g = tx.Graph()
    with g.as_default():
        x = tx.placeholder(dtype, name="x")
        y = tx.placeholder(dtype, name="y")
        z = op(x, y)
    fn = functions.graph_to_function(g, "%s_%s" % (name, dtype.name), [x, y], [z])
    return RefFunction(fn, lambda x, y: (ref(x, y),))


def _branches(dtype):
    return [_binary("cf_add", lambda x, y: x + y, np.add, dtype),
            _binary("cf_mul", lambda x, y: x * y, np.multiply, dtype),
            _binary("cf_sub", lambda x, y: x - y, np.subtract, dtype)]


BRANCHES = {np.float32: _branches(tx.float32), np.float64: _branches(tx.float64)}


def _loop(dtype):
    """cond(x, k) = k < 3; body(x, k) = (x * 2, k + 1)."""
    g = tx.Graph()
    with g.as_default():
        x = tx.placeholder(dtype, name="x")
        k = tx.placeholder(tx.int32, name="k")
        go = k < tx.constant(3, tx.int32)
    cond = functions.graph_to_function(g, "cf_cond_" + dtype.name, [x, k], [go])
    g = tx.Graph()
    with g.as_default():
        x = tx.placeholder(dtype, name="x")
        k = tx.placeholder(tx.int32, name="k")
        x2 = x * tx.constant(2, dtype)
        k1 = k + tx.constant(1, tx.int32)
    body = functions.graph_to_function(g, "cf_body_" + dtype.name, [x, k], [x2, k1])

    def ref_body(x, k):
        return x * 2, k + 1

    return RefFunction(cond, lambda x, k: (k < 3,)), RefFunction(body, ref_body)


LOOPS = {np.float32: _loop(tx.float32), np.float64: _loop(tx.float64)}


def _truth(c):
    """TensorFlow's truth value of an If predicate."""
    c = np.asarray(c)
    return bool(c) if c.ndim == 0 else c.size > 0


def _if_ref(cond, input, Tout, then_branch, else_branch, **_):
    f = then_branch if _truth(cond) else else_branch
    return f.ref(*[np.asarray(a) for a in input])


def _case_ref(branch_index, input, Tout, branches, **_):
    i = int(branch_index)
    f = branches[i] if 0 <= i < len(branches) else branches[-1]
    return f.ref(*[np.asarray(a) for a in input])


def _while_ref(input, cond, body, **_):
    vars_ = [np.asarray(a) for a in input]
    while _truth(cond.ref(*vars_)[0]):
        vars_ = [np.asarray(v, dtype=a.dtype) for v, a in zip(body.ref(*vars_), vars_)]
    return tuple(vars_)


def _if_samples():
    out = []
    for dt in (np.float32, np.float64):
        add, mul, _ = BRANCHES[dt]
        attrs = {"Tout": [tx.as_dtype(dt)], "then_branch": add, "else_branch": mul}
        xy = [rand((2, 3), dt), rand((2, 3), dt, seed=1)]
        out += [
            Sample({"cond": np.array(True), "input": xy}, attrs, note="true"),
            Sample({"cond": np.array(False), "input": xy}, attrs, note="false"),
            Sample({"cond": np.array(0.0, dt), "input": xy}, attrs, note="zero scalar is false"),
            Sample({"cond": np.array(-2, np.int32), "input": xy}, attrs, note="non-zero scalar is true"),
            Sample({"cond": np.zeros((2,), np.int32), "input": xy}, attrs, note="non-empty tensor is true"),
            Sample({"cond": np.zeros((0,), np.float32), "input": xy}, attrs, note="empty tensor is false"),
            Sample({"cond": np.array(True), "input": [np.zeros((0, 2), dt), np.zeros((2,), dt)]}, attrs,
                   note="zero-size"),
        ]
    return out


def _case_samples():
    out = []
    for dt in (np.float32, np.float64):
        attrs = {"Tout": [tx.as_dtype(dt)], "branches": BRANCHES[dt]}
        xy = [rand((3,), dt), rand((3,), dt, seed=2)]
        out += [Sample({"branch_index": np.array(i, np.int32), "input": xy}, attrs, note="index %d" % i)
                for i in (0, 1, 2, 3, 100, -1)]
        out.append(Sample({"branch_index": np.array(1, np.int32), "input": [np.zeros((0,), dt)] * 2}, attrs,
                          note="zero-size"))
    return out


def _while_samples():
    out = []
    for dt in (np.float32, np.float64):
        cond, body = LOOPS[dt]
        attrs = {"cond": cond, "body": body}
        out += [
            Sample({"input": [rand((2, 3), dt), np.array(0, np.int32)]}, attrs, note="three iterations"),
            Sample({"input": [rand((4,), dt), np.array(3, np.int32)]}, attrs, note="no iteration"),
            Sample({"input": [rand((1,), dt), np.array(-5, np.int32)]}, attrs, note="eight iterations"),
            Sample({"input": [np.zeros((0, 2), dt), np.array(1, np.int32)]}, attrs, note="zero-size"),
        ]
    return out


def _branch_errors(is_case):
    add, mul, _ = BRANCHES[np.float32]
    xy = [np.ones(3, np.float32)] * 2
    if is_case:
        attrs = {"Tout": [tx.float32], "branches": [add, mul]}
        return [
            ErrorSample({"branch_index": np.array([0, 1], np.int32), "input": xy}, attrs,
                        match="branch_index must be a scalar"),
            ErrorSample({"branch_index": np.array(0, np.int32), "input": xy},
                        {"Tout": [tx.int32], "branches": [add, mul]},
                        match=r"branches\[0\]: function 'cf_add_float32' returns \[float\] "
                              r"but the call expects \[int32\]"),
            ErrorSample({"branch_index": np.array(0, np.int32), "input": xy},
                        {"Tout": [tx.float32], "branches": [add, "no_such_branch"]}, error=tx.errors.NotFoundError,
                        match=r"branches\[1\]: function 'no_such_branch' is not in"),
        ]
    attrs = {"Tout": [tx.float32], "then_branch": add, "else_branch": mul}
    return [
        ErrorSample({"cond": np.array(1, np.uint16), "input": xy}, attrs,
                    match="cond: a scalar uint16 cannot be converted to a boolean"),
        ErrorSample({"cond": np.array(True), "input": xy[:1]}, attrs,
                    match=r"then_branch: function 'cf_add_float32' takes 2 arguments"),
        ErrorSample({"cond": np.array(True), "input": xy},
                    {"Tout": [tx.float32], "then_branch": add, "else_branch": "no_such_branch"},
                    error=tx.errors.NotFoundError, match="else_branch: function 'no_such_branch' is not in"),
    ]


def _while_errors():
    cond, body = LOOPS[np.float32]
    add = BRANCHES[np.float32][0]
    xk = [np.ones(3, np.float32), np.array(0, np.int32)]
    return [
        ErrorSample({"input": xk}, {"cond": cond, "body": add},
                    match="body: argument 1 of function 'cf_add_float32' has type float but the call passes int32"),
        ErrorSample({"input": xk}, {"cond": body, "body": body},
                    match="cond: function 'cf_body_float32' returns 2 values; a loop condition returns one"),
        ErrorSample({"input": xk}, {"cond": "no_such_cond", "body": body}, error=tx.errors.NotFoundError,
                    match="cond: function 'no_such_cond' is not in"),
    ]


ENTRIES = (
    [OpEntry(op, _if_samples(), ref=_if_ref, errors=_branch_errors(False), cross_check=False)
     for op in ("If", "StatelessIf")]
    + [OpEntry(op, _case_samples(), ref=_case_ref, errors=_branch_errors(True), cross_check=False)
       for op in ("Case", "StatelessCase")]
    + [OpEntry(op, _while_samples(), ref=_while_ref, errors=_while_errors(), cross_check=False)
       for op in ("While", "StatelessWhile")]
)

"""AutoGraph cross-checked against TensorFlow: each snippet of autograph_cases.py runs through
tx.function and through tf.function (the same code, `tx` bound to tensorflow) on the same
inputs; the results, and the errors of the error cases, must agree."""

import types

import numpy as np
import pytest

import tensorflux as tx

import autograph_cases as cases

tf = pytest.importorskip("tensorflow")

pytestmark = pytest.mark.eager


def _with_tf(fn):
    """``fn`` with its global ``tx`` bound to tensorflow (the same code object, so the same source)."""
    env = dict(fn.__globals__)
    env["tx"] = tf
    out = types.FunctionType(fn.__code__, env, fn.__name__, fn.__defaults__, fn.__closure__)
    for name, value in list(env.items()):  # helpers the snippet calls see tensorflow too
        if isinstance(value, types.FunctionType) and value.__module__ == fn.__module__ and name.startswith("_"):
            env[name] = types.FunctionType(value.__code__, env, value.__name__, value.__defaults__, value.__closure__)
    return out


def _flat(x):
    if isinstance(x, (list, tuple)):
        return [v for s in x for v in _flat(s)]
    return [np.asarray(x)]


@pytest.mark.parametrize("fn,makers,ops", cases.CASES, ids=[c[0].__name__ + "-%d" % i for i, c in
                                                              enumerate(cases.CASES)])
def test_same_results_as_tf_function(fn, makers, ops):
    got = tx.function(fn)(*[m(tx) for m in makers])
    want = tf.function(_with_tf(fn))(*[m(tf) for m in makers])
    g, w = _flat(got), _flat(want)
    assert len(g) == len(w)
    for a, b in zip(g, w):
        assert a.dtype == b.dtype, (a.dtype, b.dtype)
        np.testing.assert_allclose(a, b, rtol=1e-6)


def _dtype_change(n):
    i = tx.constant(0)
    while i < n:
        i = tx.cast(i, tx.float32) + 1.5
    return i


def _undefined_in_else(x):
    if x > 0:
        y = x
    return y


def _branch_dtypes(x):
    if x > 0:
        y = tx.constant(1)
    else:
        y = tx.constant(2.5)
    return y


def _return_in_tensor_loop(xs):
    for v in xs:
        if v > 2.0:
            return v
    return -1.0


@pytest.mark.parametrize("fn,arg,error,text", [
    (_dtype_change, 3, TypeError, "'i' has dtype int32 before the loop, but dtype float32 after one iteration"),
    (_undefined_in_else, 1.0, ValueError, "'y' must also be initialized in the else branch"),
    (_branch_dtypes, 1.0, TypeError, "'y' has dtype int32 in the main branch, but dtype float32 in the else branch"),
    (_return_in_tensor_loop, [1.0, 3.0], NotImplementedError,
     "a return statement cannot be placed inside this TensorFlow loop"),
])
def test_same_errors_as_tf_function(fn, arg, error, text):
    with pytest.raises(error, match=text):
        tf.function(_with_tf(fn))(tf.constant(arg))
    with pytest.raises(error, match=text):
        tx.function(fn)(tx.constant(arg))


def _grow(x):
    while tx.reduce_sum(x) < 100.0:
        tx.autograph.experimental.set_loop_options(shape_invariants=[(x, tx.TensorShape([None]))])
        x = tx.concat([x, x * 2.0], 0)
    return x


def _capped(n):
    i = 0
    s = 0.0
    while i < n:
        tx.autograph.experimental.set_loop_options(maximum_iterations=5)
        s += 2.0
        i += 1
    return i, s


@pytest.mark.parametrize("fn,arg", [(_grow, [3.0]), (_capped, 10), (_capped, 2)])
def test_set_loop_options_like_tf(fn, arg):
    got = tx.function(fn)(tx.constant(arg))
    want = tf.function(_with_tf(fn))(tf.constant(arg))
    for a, b in zip(_flat(got), _flat(want)):
        np.testing.assert_allclose(a, b)

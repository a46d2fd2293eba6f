"""tx.sparse against tf.sparse (skipped without TensorFlow): every function on the same inputs,
values, and gradients through tx.GradientTape vs tf.GradientTape for the differentiable ones."""

import numpy as np
import pytest

import tensorflux as tx

tf = pytest.importorskip("tensorflow")

pytestmark = pytest.mark.eager

RNG = np.random.default_rng(17)


def _random(shape, density=0.4, dtype=np.float32):
    x = RNG.uniform(-2, 2, size=shape).astype(dtype)
    x[RNG.random(shape) > density] = 0
    return x


def _pair(x):
    return tx.sparse.from_dense(x), tf.sparse.from_dense(x)


def _same(got, want, rtol=1e-5, atol=1e-6):
    if isinstance(want, tf.SparseTensor):
        assert isinstance(got, tx.SparseTensor)
        for g, w in ((got.indices, want.indices), (got.values, want.values), (got.dense_shape, want.dense_shape)):
            _same(g, w, rtol, atol)
        return
    g, w = np.asarray(got.numpy()), np.asarray(want.numpy())
    assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
    np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol)


X = _random((4, 6))
Y = _random((4, 6))
X3 = _random((3, 4, 5))


@pytest.mark.parametrize("name,args,kwargs", [
    ("to_dense", (X,), {}),
    ("to_dense", (X,), {"default_value": 3.0}),
    ("reorder", (X,), {}),
    ("softmax", (X,), {}),
    ("reduce_sum", (X3,), {}),
    ("reduce_sum", (X3,), {"axis": 1}),
    ("reduce_sum", (X3,), {"axis": [0, 2], "keepdims": True}),
    ("reduce_sum", (X3,), {"axis": -1, "output_is_sparse": True}),
    ("reduce_max", (X3,), {"axis": 1}),
    ("reduce_max", (X3,), {"axis": (1, 2), "output_is_sparse": True}),
    ("reshape", (X3,), {"shape": [5, -1]}),
    ("slice", (X,), {"start": [1, 2], "size": [2, 9]}),
    ("expand_dims", (X,), {"axis": 1}),
    ("transpose", (X3,), {"perm": [1, 2, 0]}),
    ("transpose", (X,), {}),
    ("reset_shape", (X,), {}),
    ("fill_empty_rows", (np.array([[0, 0], [1, 2], [0, 0]], np.float32),), {"default_value": -1.0}),
])
def test_unary_functions(name, args, kwargs):
    sx, sf = _pair(args[0])
    got = getattr(tx.sparse, name)(sx, *args[1:], **kwargs)
    want = getattr(tf.sparse, name)(sf, *args[1:], **kwargs)
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            _same(g, w)
    else:
        _same(got, want)


def test_binary_functions():
    (ax, af), (bx, bf) = _pair(X), _pair(Y)
    _same(tx.sparse.add(ax, bx), tf.sparse.add(af, bf))
    _same(tx.sparse.add(ax, bx, threshold=0.5), tf.sparse.add(af, bf, threshold=0.5))
    _same(tx.sparse.add(ax, Y), tf.sparse.add(af, tf.constant(Y)))
    _same(tx.sparse.maximum(ax, bx), tf.sparse.maximum(af, bf))
    _same(tx.sparse.minimum(ax, bx), tf.sparse.minimum(af, bf))
    _same(tx.sparse.concat(1, [ax, bx]), tf.sparse.concat(1, [af, bf]))
    _same(tx.sparse.concat(0, [ax, bx]), tf.sparse.concat(0, [af, bf]))
    small_x, small_f = _pair(_random((2, 3)))
    _same(tx.sparse.concat(1, [ax, small_x], expand_nonconcat_dims=True),
          tf.sparse.concat(1, [af, small_f], expand_nonconcat_dims=True))
    for got, want in zip(tx.sparse.split(ax, 4, axis=1), tf.sparse.split(af, 4, axis=1)):
        _same(got, want)
    row = RNG.uniform(1, 2, size=6).astype(np.float32)
    _same(ax * row, af * tf.constant(row))
    _same(ax / row, af / tf.constant(row))
    keep = RNG.random(int(af.values.shape[0])) < 0.5
    _same(tx.sparse.retain(ax, keep), tf.sparse.retain(af, keep))
    _same(tx.sparse.map_values(tx.square, ax), tf.sparse.map_values(tf.square, af))


@pytest.mark.parametrize("adjoint_a", [False, True])
@pytest.mark.parametrize("adjoint_b", [False, True])
def test_sparse_dense_matmul(adjoint_a, adjoint_b):
    ax, af = _pair(X)
    b = RNG.normal(size=(5, 4 if adjoint_a else 6)).astype(np.float32)
    b = b if adjoint_b else b.T.copy()
    _same(tx.sparse.sparse_dense_matmul(ax, b, adjoint_a, adjoint_b),
          tf.sparse.sparse_dense_matmul(af, tf.constant(b), adjoint_a, adjoint_b))
    d = RNG.normal(size=(3, 4)).astype(np.float32)
    _same(tx.sparse.sparse_dense_matmul(d, ax), tf.sparse.sparse_dense_matmul(tf.constant(d), af))


def test_constructors_and_counts():
    _same(tx.sparse.eye(3, 5, dtype=tx.float64), tf.sparse.eye(3, 5, dtype=tf.float64))
    ids = np.array([[0, 0], [0, 1], [2, 0]], np.int64)
    vals = np.array([4, 1, 0], np.int64)
    _same(tx.sparse.to_indicator(tx.SparseTensor(ids, vals, [3, 2]), 6),
          tf.sparse.to_indicator(tf.SparseTensor(ids, vals, [3, 2]), 6))
    for v, kw in ((np.array([1, 1, 4, 2], np.int32), {}), (np.array([[1, 1, 4], [2, 0, 0]], np.int64), {"axis": -1}),
                  (np.array([1, 1, 4, 9], np.int32), {"maxlength": 5, "binary_output": True}),
                  (np.array([3, 1], np.int32), {"minlength": 7, "weights": np.array([0.5, 2.0], np.float32)})):
        _same(tx.sparse.bincount(v, **kw), tf.sparse.bincount(v, **kw))
    m1, m2 = RNG.normal(size=(2, 3, 4)).astype(np.float32), RNG.normal(size=(2, 4, 5)).astype(np.float32)
    idx = np.array([[[0, 1], [2, 4]], [[1, 1], [0, 0]]], np.int32)
    vals = RNG.normal(size=(2, 2)).astype(np.float32)
    got = tx.sparse.sampled_addmm(idx, vals, [3, 5], m1, m2, beta=0.5, alpha=2.0)
    want = tf.sparse.sampled_addmm(idx, vals, [3, 5], m1, m2, beta=0.5, alpha=2.0)
    for g, w in zip(got, want):
        _same(g, w, rtol=1e-5, atol=1e-5)


def _grads(tx_fn, tf_fn, values, dense=None):
    """d sum(f(values, dense) * w) / d(values, dense) in both frameworks (w fixed random weights)."""
    tv = tx.constant(values)
    fv = tf.constant(values)
    extra_x = [] if dense is None else [tx.constant(dense)]
    extra_f = [] if dense is None else [tf.constant(dense)]
    with tx.GradientTape() as tape:
        tape.watch([tv] + extra_x)
        out = tx_fn(tv, *extra_x)
        out = out.values if isinstance(out, tx.SparseTensor) else out
        w = np.random.default_rng(3).normal(size=out.shape.as_list()).astype(values.dtype)
        loss = tx.reduce_sum(out * w)
    gx = tape.gradient(loss, [tv] + extra_x)
    with tf.GradientTape() as tape:
        tape.watch([fv] + extra_f)
        out = tf_fn(fv, *extra_f)
        out = out.values if isinstance(out, tf.SparseTensor) else out
        loss = tf.reduce_sum(out * w)
    gf = tape.gradient(loss, [fv] + extra_f)
    for a, b in zip(gx, gf):
        np.testing.assert_allclose(a.numpy(), np.asarray(tf.convert_to_tensor(b)), rtol=1e-5, atol=1e-6)


IDX = np.argwhere(X != 0).astype(np.int64)
VALS = X[X != 0].astype(np.float64)
IDX3 = np.argwhere(X3 != 0).astype(np.int64)
VALS3 = X3[X3 != 0].astype(np.float64)


@pytest.mark.parametrize("case", ["to_dense", "reorder", "softmax", "reduce_sum", "slice", "fill_empty_rows", "add",
                                  "add_dense", "matmul", "matmul_adjoint", "mul", "div"])
def test_gradients_match_tensorflow(case):
    sx = lambda v: tx.SparseTensor(IDX, v, X.shape)  # noqa: E731
    sf = lambda v: tf.SparseTensor(IDX, v, X.shape)  # noqa: E731
    dense = RNG.uniform(0.5, 2.0, size=X.shape)
    if case == "to_dense":
        _grads(lambda v: tx.sparse.to_dense(sx(v)), lambda v: tf.sparse.to_dense(sf(v)), VALS)
    elif case == "reorder":
        perm = RNG.permutation(len(VALS))
        _grads(lambda v: tx.sparse.reorder(tx.SparseTensor(IDX[perm], v, X.shape)),
               lambda v: tf.sparse.reorder(tf.SparseTensor(IDX[perm], v, X.shape)), VALS)
    elif case == "softmax":
        _grads(lambda v: tx.sparse.softmax(sx(v)), lambda v: tf.sparse.softmax(sf(v)), VALS)
    elif case == "reduce_sum":
        _grads(lambda v: tx.sparse.reduce_sum(tx.SparseTensor(IDX3, v, X3.shape), axis=[0, 2]),
               lambda v: tf.sparse.reduce_sum(tf.SparseTensor(IDX3, v, X3.shape), axis=[0, 2]), VALS3)
    elif case == "slice":
        _grads(lambda v: tx.sparse.slice(sx(v), [1, 1], [2, 4]), lambda v: tf.sparse.slice(sf(v), [1, 1], [2, 4]), VALS)
    elif case == "fill_empty_rows":
        i = np.array([[0, 1], [2, 0]], np.int64)
        _grads(lambda v: tx.sparse.fill_empty_rows(tx.SparseTensor(i, v, [4, 3]), tx.constant(0.5, tx.float64))[0],
               lambda v: tf.sparse.fill_empty_rows(tf.SparseTensor(i, v, [4, 3]), tf.constant(0.5, tf.float64))[0],
               np.array([1.0, 2.0]))
    elif case == "add":
        other = np.argwhere(Y != 0).astype(np.int64)
        ov = Y[Y != 0].astype(np.float64)
        _grads(lambda v: tx.sparse.add(sx(v), tx.SparseTensor(other, ov, X.shape)),
               lambda v: tf.sparse.add(sf(v), tf.SparseTensor(other, ov, X.shape)), VALS)
    elif case == "add_dense":
        _grads(lambda v, d: tx.sparse.add(sx(v), d), lambda v, d: tf.sparse.add(sf(v), d), VALS, dense)
    elif case.startswith("matmul"):
        adj = case == "matmul_adjoint"
        b = RNG.normal(size=(3, 6) if adj else (6, 3))
        _grads(lambda v, m: tx.sparse.sparse_dense_matmul(sx(v), m, adjoint_b=adj),
               lambda v, m: tf.sparse.sparse_dense_matmul(sf(v), m, adjoint_b=adj), VALS, b)
    else:
        row = RNG.uniform(0.5, 2.0, size=(6,))
        op = (lambda a, b: a * b) if case == "mul" else (lambda a, b: a / b)
        _grads(lambda v, d: op(sx(v), d), lambda v, d: op(sf(v), d), VALS, row)

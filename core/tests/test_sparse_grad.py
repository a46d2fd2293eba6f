"""Gradients through tx.sparse: finite differences of composite pipelines (eager and graph mode),
and the ops TensorFlow defines no gradient for raise Unimplemented naming the op instead of
returning None."""

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src.generated import gen_ops

pytestmark = pytest.mark.eager

IDX = np.array([[0, 0], [0, 2], [1, 1], [2, 0], [2, 3]], np.int64)
SHAPE = np.array([3, 4], np.int64)
VALS = np.array([0.5, -1.0, 2.0, 1.5, -0.25])


def _pipeline(v, dense):
    """A loss touching most differentiable sparse ops: softmax, mul by a dense row, matmul, sum."""
    st = tx.SparseTensor(IDX, v, SHAPE)
    st = tx.sparse.softmax(st) * dense[0]
    prod = tx.sparse.sparse_dense_matmul(st, dense, adjoint_b=True)
    rows = tx.sparse.reduce_sum(tx.sparse.add(st, tx.SparseTensor(IDX[:2], v[:2] * v[:2], SHAPE)), axis=1)
    return tx.reduce_sum(prod * prod) + tx.reduce_sum(rows * rows) + tx.reduce_sum(tx.sparse.to_dense(st))


def test_pipeline_gradient_matches_finite_differences():
    dense = np.random.default_rng(0).uniform(0.5, 1.5, size=(2, 4))
    v, d = tx.constant(VALS), tx.constant(dense)
    with tx.GradientTape() as tape:
        tape.watch([v, d])
        loss = _pipeline(v, d)
    gv, gd = tape.gradient(loss, [v, d])
    eps = 1e-6
    for x, g, other in ((VALS, gv, dense), (dense, gd, VALS)):
        num = np.zeros_like(x)
        for k in np.ndindex(x.shape):
            plus, minus = x.copy(), x.copy()
            plus[k] += eps
            minus[k] -= eps
            args_p = (plus, other) if x is VALS else (other, plus)
            args_m = (minus, other) if x is VALS else (other, minus)
            num[k] = (float(_pipeline(*map(tx.constant, args_p)))
                      - float(_pipeline(*map(tx.constant, args_m)))) / (2 * eps)
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-5, atol=1e-6)


def test_graph_mode_gradients_equal_eager():
    dense = np.random.default_rng(1).uniform(0.5, 1.5, size=(2, 4))
    v, d = tx.constant(VALS), tx.constant(dense)
    with tx.GradientTape() as tape:
        tape.watch(v)
        loss = _pipeline(v, d)
    eager = tape.gradient(loss, v).numpy()
    with tx.Graph().as_default() as g:
        pv = tx.placeholder(tx.float64, [None])
        graph_grad = tx.gradients(_pipeline(pv, tx.constant(dense)), pv)[0]
        with tx.Session(graph=g) as sess:
            np.testing.assert_allclose(sess.run(graph_grad, {pv: VALS}), eager, rtol=1e-10)


def _b():
    return tx.SparseTensor(IDX[1:], tx.constant(VALS[1:] + 1.0), SHAPE)


@pytest.mark.parametrize("op,fn", [
    ("SparseSparseMaximum", lambda st: tx.sparse.maximum(st, _b()).values),
    ("SparseSparseMinimum", lambda st: tx.sparse.minimum(st, _b()).values),
    ("SparseReduceMax", lambda st: tx.sparse.reduce_max(st, 1)),
    ("SparseReduceMaxSparse", lambda st: tx.sparse.reduce_max(st, 1, output_is_sparse=True).values),
    ("SparseReduceSumSparse", lambda st: tx.sparse.reduce_sum(st, 1, output_is_sparse=True).values),
    ("SparseSplit", lambda st: tx.sparse.split(st, 2, axis=1)[0].values),
    ("SparseSliceGrad", lambda st: gen_ops.sparse_slice_grad(st.values, st.indices, tx.constant([0, 0], tx.int64),
                                                             st.indices)),
    ("SparseFillEmptyRowsGrad", lambda st: gen_ops.sparse_fill_empty_rows_grad(tx.constant([0, 1, 2, 3, 4], tx.int64),
                                                                               st.values)[0]),
])
def test_ops_without_gradient_raise_naming_the_op(op, fn):
    v = tx.constant(VALS)
    with tx.GradientTape() as tape:
        tape.watch(v)
        y = fn(tx.SparseTensor(IDX, v, SHAPE))
    with pytest.raises(tx.errors.UnimplementedError, match=op):
        tape.gradient(y, v)


def test_concat_is_not_differentiable_as_in_tensorflow():
    v = tx.constant(VALS)
    with tx.GradientTape() as tape:
        tape.watch(v)
        y = tx.sparse.concat(0, [tx.SparseTensor(IDX, v, SHAPE)] * 2).values
    assert tape.gradient(y, v) is None

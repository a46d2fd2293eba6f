"""tx.linalg against TensorFlow's tf.linalg on the same inputs: values and gradients (skipped when
TensorFlow is not installed)."""

import numpy as np
import pytest

import tensorflux as tx

tf = pytest.importorskip("tensorflow")

pytestmark = pytest.mark.eager

RNG = np.random.default_rng(7)


def rnd(*shape):
    return RNG.uniform(-1, 1, shape)


def wc(*shape):
    return rnd(*shape) + shape[-1] * np.eye(shape[-1])


def spd(*shape):
    a = rnd(*shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def close(a, b, tol=1e-8):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


# (name, our fn, their fn, input maker): the same composition in both libraries.
CASES = [
    ("solve", lambda m, x: m.linalg.solve(x, np.ones((2, 3, 2))), lambda: wc(2, 3, 3)),
    ("inv_adjoint", lambda m, x: m.linalg.inv(x, adjoint=True), lambda: wc(2, 3, 3)),
    ("det", lambda m, x: m.linalg.det(x), lambda: wc(2, 3, 3) / 3),
    ("slogdet", lambda m, x: m.linalg.slogdet(x)[1], lambda: -wc(3, 3)),
    ("logdet", lambda m, x: m.linalg.logdet(x), lambda: spd(2, 3, 3)),
    ("cholesky", lambda m, x: m.linalg.cholesky(x), lambda: spd(2, 4, 4)),
    ("cholesky_solve", lambda m, x: m.linalg.cholesky_solve(m.linalg.cholesky(x), np.ones((4, 1))),
     lambda: spd(4, 4)),
    ("triangular_solve", lambda m, x: m.linalg.triangular_solve(x, np.ones((2, 3, 2)), lower=False, adjoint=True),
     lambda: wc(2, 3, 3)),
    ("lu", lambda m, x: m.linalg.lu(x)[0], lambda: rnd(2, 4, 4)),
    ("lu_solve", lambda m, x: m.linalg.lu_solve(*m.linalg.lu(x), np.ones((4, 2))), lambda: wc(4, 4)),
    ("lu_reconstruct", lambda m, x: m.linalg.lu_reconstruct(*m.linalg.lu(x)), lambda: rnd(2, 3, 3)),
    ("qr_r_abs", lambda m, x: m.abs(m.linalg.qr(x)[1]), lambda: rnd(2, 4, 3)),
    ("svd_s", lambda m, x: m.linalg.svd(x, compute_uv=False), lambda: rnd(2, 4, 3)),
    # Products u[:, j] v[0, j] and |q|, |v| do not depend on the vectors' signs, which may differ.
    ("svd_uv", lambda m, x: m.linalg.svd(x)[1] * m.linalg.svd(x)[2][..., :1, :], lambda: rnd(2, 4, 3)),
    ("svd_uv_wide", lambda m, x: m.linalg.svd(x)[1][..., :1, :] * m.linalg.svd(x)[2], lambda: rnd(3, 5)),
    ("qr_q_abs", lambda m, x: m.abs(m.linalg.qr(x)[0]), lambda: rnd(4, 3)),
    ("eigh_v_abs", lambda m, x: m.abs(m.linalg.eigh(x + m.linalg.adjoint(x))[1]), lambda: rnd(2, 3, 3)),
    ("eigvalsh", lambda m, x: m.linalg.eigvalsh(x + m.linalg.adjoint(x)), lambda: rnd(2, 3, 3)),
    ("lstsq", lambda m, x: m.linalg.lstsq(x, np.ones((5, 2)), l2_regularizer=0.2), lambda: rnd(5, 3)),
    ("lstsq_wide", lambda m, x: m.linalg.lstsq(x, np.ones((3, 2)), l2_regularizer=0.2), lambda: rnd(3, 5)),
    ("pinv", lambda m, x: m.linalg.pinv(x), lambda: rnd(4, 3)),
    ("norm_fro", lambda m, x: m.linalg.norm(x, axis=[-2, -1]), lambda: rnd(2, 3, 4)),
    ("norm_1", lambda m, x: m.linalg.norm(x, ord=1, axis=[-2, -1]), lambda: rnd(2, 3, 4)),
    ("norm_inf", lambda m, x: m.linalg.norm(x, ord=np.inf, axis=[-2, -1], keepdims=True), lambda: rnd(2, 3, 4)),
    ("norm_2", lambda m, x: m.linalg.norm(x, ord=2, axis=[1, 2]), lambda: rnd(2, 3, 4)),
    ("norm_vec_p", lambda m, x: m.norm(x, ord=3, axis=-1), lambda: rnd(2, 3, 4)),
    ("norm_all", lambda m, x: m.norm(x), lambda: rnd(2, 3, 4)),
    ("trace", lambda m, x: m.linalg.trace(x), lambda: rnd(2, 3, 3)),
    ("diag", lambda m, x: m.linalg.diag(x, k=(-1, 1), align="LEFT_RIGHT"), lambda: rnd(2, 3, 3)),
    ("diag_part", lambda m, x: m.linalg.diag_part(x, k=(-1, 2), padding_value=4), lambda: rnd(2, 3, 5)),
    ("set_diag", lambda m, x: m.linalg.set_diag(x, np.ones((2, 3))), lambda: rnd(2, 3, 4)),
    ("band_part", lambda m, x: m.linalg.band_part(x, 1, 0), lambda: rnd(2, 4, 4)),
    ("matvec", lambda m, x: m.linalg.matvec(x, np.ones(4)), lambda: rnd(2, 3, 4)),
    ("cross", lambda m, x: m.linalg.cross(x, np.ones((2, 3))), lambda: rnd(2, 3)),
    ("expm", lambda m, x: m.linalg.expm(x), lambda: rnd(2, 3, 3) * 3),
    ("eye", lambda m, x: m.eye(3, 2, batch_shape=[2], dtype=m.float64) * x[0, 0], lambda: rnd(1, 1)),
    ("tensor_diag", lambda m, x: m.linalg.tensor_diag(x), lambda: rnd(2, 3)),
    ("l2_normalize", lambda m, x: m.linalg.l2_normalize(x, axis=-1), lambda: rnd(2, 3)),
    ("global_norm", lambda m, x: m.linalg.global_norm([x, x * 2]), lambda: rnd(2, 3)),
    ("einsum", lambda m, x: m.einsum("bij,bkj->bik", x, x), lambda: rnd(2, 3, 4)),
    ("einsum_3", lambda m, x: m.einsum("ij,jk,kl->il", x, np.ones((3, 3)), np.ones((3, 2))),
     lambda: rnd(3, 3)),
    ("tensordot", lambda m, x: m.tensordot(x, np.ones((4, 2)), axes=1), lambda: rnd(2, 3, 4)),
]


def test_signatures_match_tensorflow():
    import inspect

    names = [("linalg." + n, getattr(tx.linalg, n), getattr(tf.linalg, n)) for n in tx.linalg.__all__
             if n != "matmul"]
    names += [(n, getattr(tx, n), getattr(tf, n)) for n in ("einsum", "tensordot", "norm", "eye")]
    for name, ours, theirs in names:
        assert list(inspect.signature(ours).parameters) == list(inspect.signature(theirs).parameters), name


def _ours(fn, x):
    return np.asarray(fn(tx, tx.constant(x)))


def _theirs(fn, x):
    return np.asarray(fn(tf, tf.constant(x)))


@pytest.mark.parametrize("name,fn,make", CASES, ids=[c[0] for c in CASES])
def test_values_match_tensorflow(name, fn, make):
    x = make()
    close(_ours(fn, x), _theirs(fn, x), 1e-7)


GRAD_CASES = [c for c in CASES if c[0] in {
    "solve", "inv_adjoint", "det", "slogdet", "logdet", "cholesky", "cholesky_solve", "triangular_solve",
    "qr_r_abs", "qr_q_abs", "svd_s", "svd_uv", "svd_uv_wide", "eigh_v_abs", "eigvalsh", "lstsq", "lstsq_wide",
    "norm_fro", "norm_2", "trace", "diag", "diag_part",
    "set_diag", "band_part", "cross", "einsum", "einsum_3", "tensordot", "expm"}]


@pytest.mark.parametrize("name,fn,make", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_match_tensorflow(name, fn, make):
    x = make()
    w = np.random.default_rng(3).standard_normal(_ours(fn, x).shape)
    xt = tx.constant(x)
    with tx.GradientTape() as tape:
        tape.watch(xt)
        y = fn(tx, xt) * w
        if y.shape.rank:  # reduce_sum of a scalar trips over an untyped empty axis list in _reduction
            y = tx.reduce_sum(y)
    ours = tape.gradient(y, xt).numpy()
    xf = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xf)
        y = tf.reduce_sum(fn(tf, xf) * w)
    theirs = tape.gradient(y, xf).numpy()
    close(ours, theirs, 1e-6)

"""tx.linalg against NumPy/SciPy: values with batch dims, gradients by finite differences (eager
GradientTape and graph-mode tx.gradients), and the errors TensorFlow raises."""

import numpy as np
import pytest
import scipy.linalg

import tensorflux as tx

pytestmark = pytest.mark.eager

RNG = np.random.default_rng(0)


def rnd(*shape, dtype=np.float64):
    return RNG.uniform(-1, 1, shape).astype(dtype)


def wc(*shape, dtype=np.float64):
    """Well-conditioned (batch of) square matrices."""
    return (rnd(*shape) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def spd(*shape, dtype=np.float64):
    a = rnd(*shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def sym(*shape):
    a = rnd(*shape)
    return (a + np.swapaxes(a, -1, -2)) / 2


def close(a, b, tol=1e-9):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def numeric_grad(f, x, eps=1e-6):
    """Central differences of the scalar f at x (float64)."""
    g = np.zeros_like(x)
    for i in range(x.size):
        xp, xm = x.copy().reshape(-1), x.copy().reshape(-1)
        xp[i] += eps
        xm[i] -= eps
        g.reshape(-1)[i] = (f(xp.reshape(x.shape)) - f(xm.reshape(x.shape))) / (2 * eps)
    return g


def check_grad(fn, x, tol=1e-6, seed=0):
    """d/dx sum(w * fn(x)) by GradientTape against finite differences."""
    w = np.random.default_rng(seed).standard_normal(np.shape(fn(tx.constant(x)).numpy()))

    def scalar(v):
        return float(np.sum(w * fn(tx.constant(v)).numpy()))

    xt = tx.constant(x)
    with tx.GradientTape() as tape:
        tape.watch(xt)
        y = fn(xt) * w
        if y.shape.rank:  # (reduce_sum of a scalar with axis=None fails in _reduction: axis [] is not typed)
            y = tx.reduce_sum(y)
    got = tape.gradient(y, xt).numpy()
    close(got, numeric_grad(scalar, x), tol)


# Values against NumPy/SciPy, with batch dims.

@pytest.mark.parametrize("dtype,tol", [(np.float32, 2e-4), (np.float64, 1e-10)])
def test_solve_inv_det_slogdet_with_batch_dims(dtype, tol):
    a = wc(2, 3, 4, 4, dtype=dtype)
    b = rnd(2, 3, 4, 2).astype(dtype)
    close(tx.linalg.solve(a, b), np.linalg.solve(a, b), tol)
    close(tx.linalg.solve(a, b, adjoint=True), np.linalg.solve(np.swapaxes(a, -1, -2), b), tol)
    close(tx.linalg.inv(a), np.linalg.inv(a), tol)
    close(tx.linalg.det(a), np.linalg.det(a), tol * 100)
    sign, logdet = tx.linalg.slogdet(a)
    ref_sign, ref_logdet = np.linalg.slogdet(a)
    close(sign, ref_sign, 0)
    close(logdet, ref_logdet, tol)
    s = spd(3, 3, dtype=dtype)
    close(tx.linalg.logdet(s), np.linalg.slogdet(s)[1], tol)


def test_cholesky_and_solves():
    a = spd(2, 5, 5)
    chol = tx.linalg.cholesky(a).numpy()
    close(chol, np.linalg.cholesky(a))
    b = rnd(2, 5, 3)
    close(tx.linalg.cholesky_solve(chol, b), np.linalg.solve(a, b))
    close(tx.linalg.triangular_solve(chol, b),
          np.stack([scipy.linalg.solve_triangular(c, x, lower=True) for c, x in zip(chol, b)]))
    upper = np.swapaxes(chol, -1, -2)
    close(tx.linalg.triangular_solve(upper, b, lower=False, adjoint=True),
          np.stack([scipy.linalg.solve_triangular(u, x, lower=False, trans="T") for u, x in zip(upper, b)]))


def test_qr_svd_eigh_reconstruct():
    a = rnd(3, 5, 4)
    q, r = tx.linalg.qr(a)
    close(q.numpy() @ r.numpy(), a)
    close(np.triu(r.numpy()), r.numpy(), 0)
    qf, rf = tx.linalg.qr(a, full_matrices=True)
    assert qf.shape == (3, 5, 5) and rf.shape == (3, 5, 4)
    close(qf.numpy() @ rf.numpy(), a)
    s, u, v = tx.linalg.svd(a)
    close(s, np.linalg.svd(a, compute_uv=False))
    close((u.numpy() * s.numpy()[..., None, :]) @ np.swapaxes(v.numpy(), -1, -2), a)
    close(tx.linalg.svd(a, compute_uv=False), np.linalg.svd(a, compute_uv=False))
    h = sym(2, 4, 4)
    e, vecs = tx.linalg.eigh(h)
    close(e, np.linalg.eigvalsh(h))
    close(h @ vecs.numpy(), vecs.numpy() * e.numpy()[..., None, :])
    close(tx.linalg.eigvalsh(h), np.linalg.eigvalsh(h))


def test_lstsq_pinv_rank_norms_trace():
    a, b = rnd(6, 3), rnd(6, 2)
    close(tx.linalg.lstsq(a, b), np.linalg.lstsq(a, b, rcond=None)[0])
    close(tx.linalg.lstsq(a, b, fast=False), np.linalg.lstsq(a, b, rcond=None)[0])
    lam = 0.3
    close(tx.linalg.lstsq(a, b, l2_regularizer=lam), np.linalg.solve(a.T @ a + lam * np.eye(3), a.T @ b))
    assert tx.linalg.pinv(rnd(2, 4, 3)).shape == (2, 3, 4)
    x = rnd(4, 3)
    close(tx.linalg.pinv(x), np.linalg.pinv(x))
    low_rank = rnd(5, 2) @ rnd(2, 4)
    rank = tx.linalg.matrix_rank(low_rank)
    assert int(rank) == 2 and rank.dtype == tx.int32  # TensorFlow's dtype
    m = rnd(3, 4, 5)
    for ord_ in ("fro", "euclidean", 1, 2, np.inf):
        close(tx.linalg.norm(m, ord=ord_, axis=[-2, -1]), np.linalg.norm(m, ord="fro" if ord_ == "euclidean"
                                                                         else ord_, axis=(-2, -1)))
    for ord_ in ("euclidean", 1, 2, np.inf, 3.5):
        close(tx.norm(m, ord=ord_, axis=1), np.linalg.norm(m, ord=2 if ord_ == "euclidean" else ord_, axis=1))
    close(tx.norm(m), np.sqrt(np.sum(m * m)))
    assert tx.norm(m, axis=[1, 2], keepdims=True).shape == (3, 1, 1)
    assert tx.norm(m, ord=2, axis=[1, 2], keepdims=True).shape == (3, 1, 1)
    with pytest.raises(ValueError, match="ord"):
        tx.norm(m, ord=-1)
    with pytest.raises(ValueError, match="axis"):
        tx.norm(m, axis=[1, 1])
    close(tx.linalg.trace(m[:, :, :4]), np.trace(m[:, :, :4], axis1=-2, axis2=-1))
    n, nrm = tx.linalg.normalize(m, axis=-1)
    close(nrm.numpy()[..., 0], np.linalg.norm(m, axis=-1))
    close(tx.linalg.l2_normalize(m, axis=-1), m / np.linalg.norm(m, axis=-1, keepdims=True))
    close(tx.linalg.global_norm([m, x]), np.sqrt(np.sum(m * m) + np.sum(x * x)))


def test_lu_and_helpers():
    a = wc(2, 4, 4)
    packed, p = tx.linalg.lu(a)
    ref_p, ref_l, ref_u = zip(*[scipy.linalg.lu(x) for x in a])
    close(np.tril(packed.numpy(), -1) + np.eye(4), np.stack(ref_l))
    close(np.triu(packed.numpy()), np.stack(ref_u))
    close(tx.linalg.lu_reconstruct(packed, p), a)
    b = rnd(2, 4, 3)
    close(tx.linalg.lu_solve(packed, p, b), np.linalg.solve(a, b))
    close(tx.linalg.lu_matrix_inverse(packed, p), np.linalg.inv(a))
    assert tx.linalg.lu(a, output_idx_type=tx.int64).p.dtype == tx.int64
    check_grad(lambda x: tx.linalg.lu(x).lu, wc(2, 3, 3))
    check_grad(lambda x: tx.linalg.lu_solve(*tx.linalg.lu(x), tx.constant(np.ones((3, 2)))), wc(3, 3))


def test_structure_helpers():
    d = rnd(2, 3)
    close(tx.linalg.diag(d), np.stack([np.diag(v) for v in d]))
    m = rnd(2, 3, 4)
    close(tx.linalg.diag_part(m), np.diagonal(m, axis1=-2, axis2=-1))
    close(tx.linalg.set_diag(m, np.zeros((2, 3))), m * (1 - np.eye(3, 4)))
    close(tx.linalg.band_part(m, 0, -1), np.triu(m))
    close(tx.eye(3, 4, batch_shape=[2], dtype=tx.float64), np.broadcast_to(np.eye(3, 4), (2, 3, 4)))
    vec = rnd(2, 4)
    close(tx.linalg.matvec(m, vec), np.einsum("bij,bj->bi", m, vec))
    u, w = rnd(4, 3), rnd(4, 3)
    close(tx.linalg.cross(u, w), np.cross(u, w))
    close(tx.linalg.adjoint(m), np.swapaxes(m, -1, -2), 0)
    t = rnd(2, 3)
    close(tx.linalg.tensor_diag(t), np.diag(t.reshape(-1)).reshape(2, 3, 2, 3))
    close(tx.linalg.tensor_diag_part(tx.linalg.tensor_diag(t)), t)


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-4), (np.float64, 1e-10)])
def test_expm_matches_scipy(dtype, tol):
    for scale in (0.01, 0.5, 3.0, 20.0):
        a = (rnd(2, 4, 4) * scale).astype(dtype)
        ref = np.stack([scipy.linalg.expm(x.astype(np.float64)) for x in a])
        got = tx.linalg.expm(a).numpy()
        np.testing.assert_allclose(got, ref, rtol=tol * 10, atol=tol * 10 * np.abs(ref).max())


def test_einsum_and_tensordot():
    a, b, c = rnd(2, 3), rnd(3, 4), rnd(4, 5)
    close(tx.einsum("ij,jk,kl->il", a, b, c), a @ b @ c)
    close(tx.einsum("ij,jk", a, b), a @ b)
    close(tx.einsum("ij->", a), a.sum())
    p, q = rnd(2, 1, 2, 3), rnd(5, 3, 4)
    close(tx.linalg.einsum("...ij,...jk->...ik", p, q), np.einsum("...ij,...jk->...ik", p, q))
    x, y = rnd(2, 3, 4), rnd(4, 3, 5)
    close(tx.tensordot(x, y, axes=[[1, 2], [1, 0]]), np.tensordot(x, y, axes=([1, 2], [1, 0])))
    z = rnd(4, 5)
    close(tx.linalg.tensordot(x, z, 1), np.tensordot(x, z, 1))
    close(tx.tensordot(a, b, 0), np.tensordot(a, b, 0))
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"Einsum.*|Expected dimension"):
        tx.einsum("ij,jk->ik", a, c)
    with pytest.raises(ValueError, match="invalid subscript"):
        tx.einsum("i1,jk->ik", a, b)


# Errors (TensorFlow's messages).

def test_errors_name_the_op_and_match_tensorflow():
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"Input matrix is not invertible\."):
        tx.linalg.solve(np.ones((3, 3)), np.ones((3, 1)))
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"not invertible"):
        tx.linalg.inv(np.ones((2, 2, 2)))
    with pytest.raises(tx.errors.InvalidArgumentError,
                       match=r"Cholesky decomposition was not successful\. The input might not be valid\."):
        tx.linalg.cholesky(-np.eye(2))
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"square.*\[3,2\]|\[3,2\].*square"):
        tx.linalg.inv(np.ones((3, 2)))
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"square"):
        tx.linalg.det(np.ones((2, 3)))
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"rhs"):
        tx.linalg.solve(wc(3, 3), np.ones((4, 1)))
    # Process and context still work.
    close(tx.linalg.det(np.eye(2)), 1.0)


# Gradients: eager tape against finite differences.

@pytest.mark.parametrize("name,fn,make", [
    ("solve", lambda a: tx.linalg.solve(a, tx.constant(np.arange(6.0).reshape(2, 3, 1) / 5)), lambda: wc(2, 3, 3)),
    ("solve_adjoint", lambda a: tx.linalg.solve(a, tx.constant(np.ones((3, 2))), adjoint=True), lambda: wc(3, 3)),
    ("inv", lambda a: tx.linalg.inv(a), lambda: wc(2, 3, 3)),
    ("det", lambda a: tx.linalg.det(a), lambda: wc(2, 3, 3) / 2),
    ("slogdet", lambda a: tx.linalg.slogdet(a)[1], lambda: wc(3, 3) * -1),
    ("triangular_solve", lambda a: tx.linalg.triangular_solve(a, tx.constant(np.ones((3, 2)))), lambda: wc(2, 3, 3)),
    ("qr_q", lambda a: tx.linalg.qr(a)[0], lambda: rnd(4, 3)),
    ("qr_r", lambda a: tx.linalg.qr(a)[1], lambda: rnd(3, 3)),
    ("qr_wide", lambda a: tx.linalg.qr(a)[0] * 2 + tx.reduce_sum(tx.linalg.qr(a)[1]), lambda: rnd(3, 5)),
    ("svd_s", lambda a: tx.linalg.svd(a, compute_uv=False), lambda: rnd(4, 3)),
    ("svd_uv", lambda a: tx.linalg.svd(a)[1] * tx.linalg.svd(a)[2][..., :1, :], lambda: rnd(3, 4)),
    ("eigh", lambda a: tx.linalg.eigh(a + tx.linalg.adjoint(a))[0], lambda: rnd(3, 3)),
    ("eigh_v", lambda a: tx.abs(tx.linalg.eigh(a + tx.linalg.adjoint(a))[1]), lambda: rnd(3, 3)),
    ("einsum", lambda a: tx.einsum("bij,bjk->bik", a, a), lambda: rnd(2, 3, 3)),
    ("einsum_trace", lambda a: tx.einsum("ii->", a), lambda: rnd(3, 3)),
    ("einsum_diag_sum", lambda a: tx.einsum("iij,jk->ik", a, tx.constant(np.ones((2, 4)))), lambda: rnd(3, 3, 2)),
    ("einsum_ellipsis", lambda a: tx.einsum("...ij,...jk->...ik", a, tx.constant(np.ones((4, 3, 2)))),
     lambda: rnd(1, 2, 3)),
    ("lstsq", lambda a: tx.linalg.lstsq(a, tx.constant(np.ones((5, 2))), l2_regularizer=0.1), lambda: rnd(5, 3)),
])
def test_gradient_tape_matches_finite_differences(name, fn, make):
    check_grad(fn, make())


def test_cholesky_gradient_finite_differences():
    """Cholesky reads the lower triangle; its gradient (TensorFlow's) is for symmetric
    perturbations, so the check differentiates cholesky((A + A^T) / 2)."""
    def fn(a):
        return tx.linalg.cholesky((a + tx.linalg.adjoint(a)) * 0.5)
    check_grad(fn, spd(2, 4, 4))
    check_grad(lambda a: tx.linalg.logdet((a + tx.linalg.adjoint(a)) * 0.5), spd(3, 3))


@pytest.mark.parametrize("dtype", [np.float64])
def test_graph_mode_gradients(dtype):
    tx.compat.v1.disable_eager_execution()
    try:
        a_val = wc(2, 3, 3)
        a = tx.placeholder(tx.float64, shape=(2, 3, 3))
        y = tx.reduce_sum(tx.linalg.inv(a)) + tx.reduce_sum(tx.linalg.det(a))
        (g,) = tx.gradients(y, [a])
        with tx.Session() as s:
            got = s.run(g, {a: a_val})
        ref = numeric_grad(lambda v: float(np.sum(np.linalg.inv(v)) + np.sum(np.linalg.det(v))), a_val)
        close(got, ref, 1e-6)
    finally:
        tx.compat.v1.enable_eager_execution()


def test_graph_mode_compositions():
    """The Python compositions (while_loop in expm, SVD-based norms, chained einsum) in a graph."""
    tx.compat.v1.disable_eager_execution()
    try:
        a_val, b_val = rnd(2, 4, 4), rnd(4, 3)
        a = tx.placeholder(tx.float64, shape=(2, 4, 4))
        b = tx.placeholder(tx.float64, shape=(4, 3))
        outs = [tx.linalg.expm(a), tx.norm(a, ord=2, axis=[-2, -1]), tx.linalg.pinv(b),
                tx.einsum("bij,jk,kl->bil", a, b, tx.constant(np.ones((3, 2)))), tx.linalg.trace(a)]
        with tx.Session() as s:
            got = s.run(outs, {a: a_val, b: b_val})
        close(got[0], np.stack([scipy.linalg.expm(x) for x in a_val]), 1e-9)
        close(got[1], np.linalg.norm(a_val, ord=2, axis=(-2, -1)))
        close(got[2], np.linalg.pinv(b_val))
        close(got[3], a_val @ b_val @ np.ones((3, 2)))
        close(got[4], np.trace(a_val, axis1=-2, axis2=-1))
    finally:
        tx.compat.v1.enable_eager_execution()


def test_nan_inputs_follow_tensorflow():
    nan = np.full((3, 3), np.nan)
    assert np.isnan(tx.linalg.svd(nan)[0].numpy()).all()
    assert np.isnan(tx.linalg.det(nan).numpy())
    sign, logdet = tx.linalg.slogdet(nan)
    assert np.isnan(sign.numpy()) and np.isnan(logdet.numpy())
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"Self-adjoint eigen decomposition was not successful"):
        tx.linalg.eigh(nan)
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"Input is not invertible\."):
        tx.linalg.inv(nan)

"""tx.linalg.tridiagonal_matmul / tridiagonal_solve against NumPy and TensorFlow: the three
diagonal formats, pivoting and Thomas elimination, gradients and bad input."""

import numpy as np
import pytest
import tensorflux as tx

pytestmark = pytest.mark.eager

try:
    import tensorflow as tf
except ImportError:
    tf = None

needs_tf = pytest.mark.skipif(tf is None, reason="TensorFlow is not installed")
RNG = np.random.default_rng(5)


def dense_of(compact):
    sup, main, sub = compact[..., 0, :], compact[..., 1, :], compact[..., 2, :]
    out = np.zeros(compact.shape[:-2] + (main.shape[-1],) * 2)
    idx = np.arange(main.shape[-1])
    out[..., idx, idx] = main
    out[..., idx[:-1], idx[1:]] = sup[..., :-1]
    out[..., idx[1:], idx[:-1]] = sub[..., 1:]
    return out


def compact(batch, m, dominant):
    c = RNG.normal(size=batch + (3, m))
    if dominant:
        c[..., 1, :] += 4
    return c


@pytest.mark.parametrize("pivoting", [True, False])
@pytest.mark.parametrize("batch,m,k", [((), 1, 1), ((), 5, 2), ((2,), 4, 3), ((2, 3), 6, 1)])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_solve_and_matmul_against_numpy(pivoting, batch, m, k, dt):
    c = compact(batch, m, dominant=not pivoting).astype(dt)
    a = dense_of(c)
    b = RNG.normal(size=batch + (m, k)).astype(dt)
    t = dict(rtol=1e-4, atol=1e-4) if dt == "float32" else dict(rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(tx.linalg.tridiagonal_matmul(c, b).numpy(), a @ b, **t)
    np.testing.assert_allclose(tx.linalg.tridiagonal_solve(c, b, partial_pivoting=pivoting).numpy(),
                               np.linalg.solve(a, b), **t)
    seq = tuple(c[..., i, :] for i in range(3))
    np.testing.assert_allclose(tx.linalg.tridiagonal_solve(seq, b, diagonals_format="sequence").numpy(),
                               np.linalg.solve(a, b), **t)
    np.testing.assert_allclose(tx.linalg.tridiagonal_solve(a.astype(dt), b, diagonals_format="matrix").numpy(),
                               np.linalg.solve(a, b), **t)
    np.testing.assert_allclose(tx.linalg.tridiagonal_matmul(a.astype(dt), b, diagonals_format="matrix").numpy(),
                               a @ b, **t)
    np.testing.assert_allclose(tx.linalg.tridiagonal_solve(c, b[..., 0]).numpy(), np.linalg.solve(a, b)[..., 0], **t)
    np.testing.assert_allclose(
        tx.linalg.tridiagonal_solve(c, np.swapaxes(b, -1, -2), transpose_rhs=True).numpy(), np.linalg.solve(a, b), **t)


def test_pivoting_handles_a_zero_leading_entry():
    c = np.array([[1.0, 2.0, 3.0, 0.0], [0.0, 1.0, 1e-4, 2.0], [0.0, 5.0, 4.0, 1.0]])
    b = np.arange(4.0).reshape(4, 1)
    np.testing.assert_allclose(tx.linalg.tridiagonal_solve(c, b).numpy(), np.linalg.solve(dense_of(c), b),
                               rtol=1e-10, atol=1e-14)
    assert np.isnan(tx.linalg.tridiagonal_solve(c, b, partial_pivoting=False).numpy()).all()
    assert np.isnan(tx.linalg.tridiagonal_solve(np.zeros((3, 3)), np.ones((3, 1))).numpy()).all()


@needs_tf
@pytest.mark.parametrize("pivoting", [True, False])
def test_solve_matches_tensorflow_values_and_gradients(pivoting):
    c = compact((2,), 5, dominant=not pivoting)
    b = RNG.normal(size=(2, 5, 2))
    grads = []
    for lib in (tx, tf):
        cv, bv = lib.Variable(c), lib.Variable(b)
        with lib.GradientTape() as tape:
            x = lib.linalg.tridiagonal_solve(cv, bv, partial_pivoting=pivoting)
            y = lib.linalg.tridiagonal_matmul(cv, bv)
            loss = lib.reduce_sum(x ** 2) + lib.reduce_sum(y * x)
        grads.append([g.numpy() for g in tape.gradient(loss, [cv, bv])] + [x.numpy(), y.numpy()])
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-10)


def test_bad_input_raises_tensorflows_errors():
    with pytest.raises(ValueError, match="Expected 3 diagonals got 2"):
        tx.linalg.tridiagonal_solve(np.ones((2, 3)), np.ones((3, 1)))
    with pytest.raises(ValueError, match="Expected number of left-hand sided and right-hand sides to be equal"):
        tx.linalg.tridiagonal_solve(np.ones((3, 3)), np.ones((4, 1)))
    with pytest.raises(ValueError, match="Unrecognized diagonals_format: x"):
        tx.linalg.tridiagonal_solve(np.ones((3, 3)), np.ones((3, 1)), diagonals_format="x")
    with pytest.raises(ValueError, match="Expected diagonals to be a sequence of length 3"):
        tx.linalg.tridiagonal_solve((np.ones(3), np.ones(3)), np.ones((3, 1)), diagonals_format="sequence")
    with pytest.raises(ValueError, match="Expected last two dimensions of diagonals to be same, got 4 and 3"):
        tx.linalg.tridiagonal_solve(np.ones((3, 4)), np.ones((3, 1)), diagonals_format="matrix")
    with pytest.raises(ValueError, match="Batch shapes"):
        tx.linalg.tridiagonal_solve(np.ones((2, 3, 3)), np.ones((3, 3, 1)))
    with pytest.raises(ValueError, match="Expected the rank of rhs to be 1 or 2, got 3"):
        tx.linalg.tridiagonal_solve(np.ones((3, 3)), np.ones((2, 3, 1)))
    with pytest.raises(TypeError, match="Expected rhs to have dtype"):
        tx.linalg.tridiagonal_solve(np.ones((3, 3), np.float32), np.ones((3, 1)))
    with pytest.raises(ValueError, match="Expected rhs to have 3 rows"):
        tx.linalg.tridiagonal_matmul(np.ones((3, 3)), np.ones((4, 1)))
    with pytest.raises(NotImplementedError, match="perturb_singular"):
        tx.linalg.tridiagonal_solve(np.ones((3, 3)), np.ones((3, 1)), perturb_singular=True)

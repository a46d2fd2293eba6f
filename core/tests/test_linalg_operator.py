"""tx.linalg.LinearOperator* against TensorFlow's same operators on the same inputs (values, hints,
gradients, errors) and against NumPy on the dense matrices (TensorFlow parts skip without it)."""

import numpy as np
import pytest
import tensorflux as tx

pytestmark = pytest.mark.eager

try:
    import tensorflow as tf
except ImportError:  # the NumPy checks still run
    tf = None

needs_tf = pytest.mark.skipif(tf is None, reason="TensorFlow is not installed")
RNG = np.random.default_rng(11)
N = 3


def wc(*shape):
    return RNG.normal(size=shape) + shape[-1] * np.eye(shape[-1])


def spd(*shape):
    a = RNG.normal(size=shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def arrays(batch):
    """Inputs shared by both libraries, for a batch shape."""
    b = list(batch)
    d = RNG.uniform(1, 2, size=b + [N]) * np.where(RNG.random(b + [N]) < 0.5, -1, 1)
    return dict(m=wc(*b, N, N), m2=wc(2, 2), spd=spd(*b, N, N), d=d, s=RNG.uniform(1, 2, size=b),
                v=RNG.normal(size=b + [N]), col=RNG.normal(size=b + [N]) + np.eye(N)[0] * 4,
                row=RNG.normal(size=b + [N]), tri=RNG.normal(size=b + [3, N]) + np.array([0, 4, 0])[:, None],
                spec=RNG.uniform(1, 2, size=b + [N])[..., [0, 1, 1]])  # Hermitian: a real operator


def tn(lib, x, dt):
    """``x`` in dtype ``dt`` for ``lib``: arrays become tensors, variables (gradient tests) pass through."""
    return lib.constant(x.astype(dt)) if isinstance(x, np.ndarray) else x


# name -> builder(lib, a, dtype): the same operator in either library (lib is tx or tf).
BUILDERS = {
    "full": lambda L, a, dt: L.linalg.LinearOperatorFullMatrix(tn(L, a["m"], dt)),
    "full_spd": lambda L, a, dt: L.linalg.LinearOperatorFullMatrix(tn(L, a["spd"], dt), is_self_adjoint=True,
                                                                   is_positive_definite=True),
    "diag": lambda L, a, dt: L.linalg.LinearOperatorDiag(tn(L, a["d"], dt)),
    "identity": lambda L, a, dt: L.linalg.LinearOperatorIdentity(N, batch_shape=a["s"].shape, dtype=dt),
    "scaled_identity": lambda L, a, dt: L.linalg.LinearOperatorScaledIdentity(N, tn(L, a["s"], dt)),
    "lower_triangular": lambda L, a, dt: L.linalg.LinearOperatorLowerTriangular(tn(L, a["m"], dt)),
    "zeros": lambda L, a, dt: L.linalg.LinearOperatorZeros(N, batch_shape=a["s"].shape, dtype=dt),
    "adjoint": lambda L, a, dt: L.linalg.LinearOperatorAdjoint(L.linalg.LinearOperatorFullMatrix(tn(L, a["m"], dt))),
    "inversion": lambda L, a, dt: L.linalg.LinearOperatorInversion(
        L.linalg.LinearOperatorFullMatrix(tn(L, a["m"], dt))),
    "composition": lambda L, a, dt: L.linalg.LinearOperatorComposition(
        [L.linalg.LinearOperatorFullMatrix(tn(L, a["m"], dt)), L.linalg.LinearOperatorDiag(tn(L, a["d"], dt))]),
    "kronecker": lambda L, a, dt: L.linalg.LinearOperatorKronecker(
        [L.linalg.LinearOperatorFullMatrix(tn(L, a["m"], dt)), L.linalg.LinearOperatorFullMatrix(tn(L, a["m2"], dt))]),
    "block_diag": lambda L, a, dt: L.linalg.LinearOperatorBlockDiag(
        [L.linalg.LinearOperatorFullMatrix(tn(L, a["m"], dt)), L.linalg.LinearOperatorFullMatrix(tn(L, a["m2"], dt))]),
    "householder": lambda L, a, dt: L.linalg.LinearOperatorHouseholder(tn(L, a["v"], dt)),
    "permutation": lambda L, a, dt: L.linalg.LinearOperatorPermutation(
        np.broadcast_to(np.array([2, 0, 1], np.int32), a["v"].shape).copy(), dtype=dt),
    "toeplitz": lambda L, a, dt: L.linalg.LinearOperatorToeplitz(tn(L, a["col"], dt), tn(L, a["row"], dt)),
    "circulant": lambda L, a, dt: L.linalg.LinearOperatorCirculant(tn(L, a["spec"], dt),
                                                                   input_output_dtype=dt),
    "tridiag": lambda L, a, dt: L.linalg.LinearOperatorTridiag(tn(L, a["tri"], dt)),
    "tridiag_matrix": lambda L, a, dt: L.linalg.LinearOperatorTridiag(
        L.constant(np.triu(np.tril(a["m"], 1), -1).astype(dt)), diagonals_format="matrix"),
}
METHODS = ["to_dense", "determinant", "log_abs_determinant", "diag_part", "trace"]
CASES = [(name, dt, batch) for name in BUILDERS for dt in ("float32", "float64") for batch in ((), (2,))]


def tol(dt):
    return dict(rtol=2e-4, atol=2e-4) if dt == "float32" else dict(rtol=1e-9, atol=1e-9)


def ours_and_args(name, dt, batch):
    a = arrays(batch)
    op = BUILDERS[name](tx, a, dt)
    x = RNG.normal(size=list(op.batch_shape) + [op.domain_dimension, 2]).astype(dt)
    y = RNG.normal(size=list(op.batch_shape) + [op.range_dimension, 2]).astype(dt)
    return a, op, x, y


@pytest.mark.parametrize("name,dt,batch", CASES)
def test_against_numpy(name, dt, batch):
    _, op, x, y = ours_and_args(name, dt, batch)
    dense = op.to_dense().numpy().astype(np.float64)
    assert op.to_dense().dtype == tx.as_dtype(dt)
    assert list(op.shape) == list(dense.shape) and op.tensor_rank == dense.ndim
    assert op.shape_tensor().numpy().tolist() == list(dense.shape)
    t = tol(dt)
    np.testing.assert_allclose(op.matmul(x).numpy(), dense @ x, **t)
    np.testing.assert_allclose((op @ x).numpy(), dense @ x, **t)
    np.testing.assert_allclose(op.matmul(y, adjoint=True).numpy(), np.swapaxes(dense, -1, -2) @ y, **t)
    np.testing.assert_allclose(op.matmul(np.swapaxes(x, -1, -2), adjoint_arg=True).numpy(), dense @ x, **t)
    np.testing.assert_allclose(op.matvec(x[..., 0]).numpy(), (dense @ x)[..., 0], **t)
    np.testing.assert_allclose(op.diag_part().numpy(), np.diagonal(dense, axis1=-2, axis2=-1), **t)
    np.testing.assert_allclose(op.trace().numpy(), np.trace(dense, axis1=-2, axis2=-1), **t)
    np.testing.assert_allclose(op.determinant().numpy(), np.linalg.det(dense), **t)
    np.testing.assert_allclose(op.add_to_tensor(x[..., :1] * np.ones(dense.shape, dt)).numpy(),
                               dense + x[..., :1], **t)
    if name == "zeros":
        return
    np.testing.assert_allclose(op.log_abs_determinant().numpy(), np.linalg.slogdet(dense)[1], **t)
    np.testing.assert_allclose(op.solve(y).numpy(), np.linalg.solve(dense, y), **t)
    np.testing.assert_allclose(op.solve(y, adjoint=True).numpy(), np.linalg.solve(np.swapaxes(dense, -1, -2), y), **t)
    np.testing.assert_allclose(op.solvevec(y[..., 0]).numpy(), np.linalg.solve(dense, y)[..., 0], **t)
    np.testing.assert_allclose(op.inverse().to_dense().numpy(), np.linalg.inv(dense), **t)
    np.testing.assert_allclose(op.adjoint().to_dense().numpy(), np.swapaxes(dense, -1, -2), **t)
    np.testing.assert_allclose(op.H.to_dense().numpy(), np.swapaxes(dense, -1, -2), **t)


@needs_tf
@pytest.mark.parametrize("name,dt,batch", CASES)
def test_against_tensorflow(name, dt, batch):
    a, op, x, y = ours_and_args(name, dt, batch)
    theirs = BUILDERS[name](tf, a, dt)
    t = tol(dt)
    assert op.shape.as_list() == theirs.shape.as_list()
    assert op.batch_shape.as_list() == theirs.batch_shape.as_list()
    assert (op.domain_dimension, op.range_dimension) == (theirs.domain_dimension, theirs.range_dimension)
    for hint in ("is_non_singular", "is_self_adjoint", "is_positive_definite", "is_square"):
        assert getattr(op, hint) == getattr(theirs, hint), hint
    for method in METHODS:
        np.testing.assert_allclose(getattr(op, method)().numpy(), getattr(theirs, method)().numpy(), **t)
    np.testing.assert_allclose(op.matmul(x).numpy(), theirs.matmul(x).numpy(), **t)
    np.testing.assert_allclose(op.matmul(y, adjoint=True).numpy(), theirs.matmul(y, adjoint=True).numpy(), **t)
    np.testing.assert_allclose(op.matvec(x[..., 0]).numpy(), theirs.matvec(x[..., 0]).numpy(), **t)
    np.testing.assert_allclose(op.adjoint().to_dense().numpy(), theirs.adjoint().to_dense().numpy(), **t)
    if op.is_self_adjoint:
        np.testing.assert_allclose(np.sort(op.eigvals().numpy(), -1), np.sort(theirs.eigvals().numpy(), -1), **t)
    if name == "zeros":
        return
    np.testing.assert_allclose(op.solve(y).numpy(), theirs.solve(y).numpy(), **t)
    np.testing.assert_allclose(op.solvevec(y[..., 0], adjoint=True).numpy(),
                               theirs.solvevec(y[..., 0], adjoint=True).numpy(), **t)
    np.testing.assert_allclose(op.inverse().to_dense().numpy(), theirs.inverse().to_dense().numpy(), **t)


@needs_tf
def test_broadcasting_batch_of_argument_and_operator():
    a = arrays((2,))
    x = RNG.normal(size=(4, 1, N, 5))
    for name in ("full", "diag", "identity", "circulant"):  # TensorFlow's Tridiag does not broadcast here
        ours, theirs = BUILDERS[name](tx, a, "float64"), BUILDERS[name](tf, a, "float64")
        np.testing.assert_allclose(ours.matmul(x).numpy(), theirs.matmul(x).numpy(), rtol=1e-9, atol=1e-9)
        if name != "identity":
            np.testing.assert_allclose(ours.solve(x).numpy(), theirs.solve(x).numpy(), rtol=1e-9, atol=1e-9)


@needs_tf
def test_cholesky_and_composition_of_operators():
    a = arrays(())
    ours, theirs = BUILDERS["full_spd"](tx, a, "float64"), BUILDERS["full_spd"](tf, a, "float64")
    np.testing.assert_allclose(ours.cholesky().to_dense().numpy(), theirs.cholesky().to_dense().numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours.eigvals().numpy(), theirs.eigvals().numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours.cond().numpy(), theirs.cond().numpy(), rtol=1e-8)
    diag = tx.linalg.LinearOperatorDiag([1.0, 2.0, 3.0])
    assert isinstance(diag @ diag, tx.linalg.LinearOperatorDiag)
    full = BUILDERS["full"](tx, a, "float64")
    both = full.matmul(full, adjoint_arg=True)
    assert isinstance(both, tx.linalg.LinearOperatorComposition)
    np.testing.assert_allclose(both.to_dense().numpy(), a["m"] @ a["m"].T, rtol=1e-10)
    np.testing.assert_allclose(full.solve(full).to_dense().numpy(), np.eye(N), atol=1e-10)


GRAD_CASES = ["full", "diag", "scaled_identity", "lower_triangular", "householder", "toeplitz", "tridiag",
              "kronecker", "block_diag"]


@needs_tf
@pytest.mark.parametrize("name", GRAD_CASES)
def test_gradients_of_matmul_and_solve_match_tensorflow(name):
    a = arrays((2,))
    key = {"full": "m", "diag": "d", "scaled_identity": "s", "lower_triangular": "m", "householder": "v",
           "toeplitz": "col", "tridiag": "tri", "kronecker": "m", "block_diag": "m"}[name]
    results = []
    for lib, tape_cls in ((tx, tx.GradientTape), (tf, tf.GradientTape)):
        param = lib.Variable(a[key])
        with tape_cls() as tape:
            op = BUILDERS[name](lib, dict(a, **{key: param}), "float64")
            x = np.linspace(-1, 1, 2 * op.domain_dimension * 2).reshape(2, op.domain_dimension, 2)
            loss = lib.reduce_sum(op.matmul(x) ** 2) + lib.reduce_sum(op.solve(x, adjoint=True) ** 2)
        results.append(tape.gradient(loss, param).numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-7, atol=1e-9)


def test_errors_match_tensorflow_classes_and_messages():
    L = tx.linalg
    rect = L.LinearOperatorFullMatrix(np.ones((2, 3)))
    with pytest.raises(NotImplementedError, match="Determinant not implemented.*not be square"):
        rect.determinant()
    with pytest.raises(NotImplementedError, match="Exact solve not implemented.*not be square"):
        rect.solve(np.ones((2, 1)))
    with pytest.raises(ValueError, match="Dimensions 3 and 2 are not compatible"):
        rect.matmul(np.ones((2, 1)))
    with pytest.raises(ValueError, match="Cannot take the Inverse: This operator represents a non square matrix"):
        rect.inverse()
    with pytest.raises(TypeError, match="Expected argument to have dtype"):
        L.LinearOperatorFullMatrix(np.eye(2, dtype=np.float32)).matmul(np.ones((2, 2)))
    with pytest.raises(TypeError, match="Argument `matrix` must have dtype"):
        L.LinearOperatorFullMatrix(np.eye(2, dtype=np.int32))
    with pytest.raises(ValueError, match="must have at least 2 dimensions"):
        L.LinearOperatorFullMatrix([1.0, 2.0])
    with pytest.raises(ValueError, match="A positive definite matrix is always non-singular"):
        L.LinearOperatorDiag([1.0, 2.0], is_positive_definite=True, is_non_singular=False)
    with pytest.raises(ValueError, match="Cannot take the Cholesky decomposition"):
        L.LinearOperatorFullMatrix(np.eye(2)).cholesky()
    with pytest.raises(NotImplementedError, match="Only self-adjoint matrices are supported"):
        L.LinearOperatorFullMatrix(np.eye(2)).eigvals()
    with pytest.raises(ValueError, match="A zero operator is always singular"):
        L.LinearOperatorZeros(2, is_non_singular=True)
    with pytest.raises(NotImplementedError, match="expected to be singular"):
        L.LinearOperatorZeros(2).solve(np.ones((2, 1), np.float32))
    with pytest.raises(ValueError, match="Argument num_rows must be non-negative"):
        L.LinearOperatorIdentity(-1)
    with pytest.raises(ValueError, match="Expected a non-empty list of operators"):
        L.LinearOperatorComposition([])
    with pytest.raises(ValueError, match="Argument `is_non_singular` or argument `operator`"):
        L.LinearOperatorInversion(L.LinearOperatorFullMatrix(np.eye(2), is_non_singular=False))
    with pytest.raises(TypeError, match="Argument `perm` must be integer dtype"):
        L.LinearOperatorPermutation([1.0, 0.0])


def test_singular_operator_hinted_non_singular_fails_its_assertions():
    L = tx.linalg
    with pytest.raises(tx.errors.InvalidArgumentError, match="Diagonal contained zero values"):
        L.LinearOperatorDiag([1.0, 0.0], is_non_singular=True).assert_non_singular()
    with pytest.raises(tx.errors.InvalidArgumentError, match="Singular matrix up to precision epsilon"):
        L.LinearOperatorFullMatrix(np.ones((3, 3)), is_non_singular=True).assert_non_singular()
    with pytest.raises(tx.errors.InvalidArgumentError, match="not positive definite"):
        L.LinearOperatorDiag([1.0, -1.0], is_positive_definite=True).assert_positive_definite()
    with pytest.raises(tx.errors.InvalidArgumentError, match="Matrix was not equal to its adjoint"):
        L.LinearOperatorFullMatrix(np.array([[1.0, 2.0], [3.0, 4.0]])).assert_self_adjoint()
    with pytest.raises(tx.errors.InvalidArgumentError, match="Zero operators are always non-invertible"):
        L.LinearOperatorZeros(2).assert_non_singular()
    # Passing checks leave the context usable.
    L.LinearOperatorDiag([1.0, 2.0]).assert_non_singular()
    L.LinearOperatorFullMatrix(np.eye(2), is_self_adjoint=True).assert_positive_definite()
    L.LinearOperatorFullMatrix(np.eye(2)).assert_self_adjoint()
    assert float(L.LinearOperatorDiag([1.0, 2.0]).determinant()) == 2.0


def test_complex_operators_against_numpy():
    m = RNG.normal(size=(N, N)) + 1j * RNG.normal(size=(N, N)) + N * np.eye(N)
    x = RNG.normal(size=(N, 2)) + 1j * RNG.normal(size=(N, 2))
    for op, dense in ((tx.linalg.LinearOperatorFullMatrix(m), m), (tx.linalg.LinearOperatorDiag(np.diag(m)),
                                                                   np.diag(np.diag(m)))):
        np.testing.assert_allclose(op.matmul(x, adjoint=True).numpy(), dense.conj().T @ x, rtol=1e-10)
        np.testing.assert_allclose(op.adjoint().to_dense().numpy(), dense.conj().T, rtol=1e-10)
    diag = tx.linalg.LinearOperatorDiag(np.diag(m))
    np.testing.assert_allclose(diag.solve(x).numpy(), x / np.diag(m)[:, None], rtol=1e-10)
    np.testing.assert_allclose(diag.determinant().numpy(), np.prod(np.diag(m)), rtol=1e-10)
    spec = RNG.normal(size=N) + 1j * RNG.normal(size=N)
    circ = tx.linalg.LinearOperatorCirculant(spec, input_output_dtype=tx.complex128)
    dense = np.fft.ifft(spec[:, None] * np.fft.fft(np.eye(N), axis=0), axis=0)
    np.testing.assert_allclose(circ.to_dense().numpy(), dense, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(circ.solve(x).numpy(), np.linalg.solve(dense, x), rtol=1e-10)

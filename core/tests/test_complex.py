"""Complex64/complex128 tensors: the element-wise, reduction, matmul, cast and data-movement
kernels against NumPy, the complex functions of tx/tx.math, and gradients against central finite
differences and TensorFlow (TensorFlow's convention: the gradient of a real loss L with respect to
z is dL/dRe(z) + i dL/dIm(z), conjugated where TensorFlow conjugates)."""

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager

RNG = np.random.default_rng(7)
COMPLEX = (np.complex64, np.complex128)


def crand(shape, dt=np.complex128, scale=1.0):
    return ((RNG.uniform(-scale, scale, shape) + 1j * RNG.uniform(-scale, scale, shape))).astype(dt)


def _tol(dt):
    return dict(rtol=2e-5, atol=2e-6) if dt == np.complex64 else dict(rtol=1e-12, atol=1e-13)


# (function on tx tensors, NumPy reference)
BINARY = {
    "add": (lambda x, y: x + y, np.add),
    "subtract": (lambda x, y: x - y, np.subtract),
    "multiply": (lambda x, y: x * y, np.multiply),
    "divide": (lambda x, y: x / y, np.divide),
    "realdiv": (tx.realdiv, np.divide),
    "pow": (tx.pow, np.power),
    "squared_difference": (tx.math.squared_difference, lambda x, y: np.abs(x - y) ** 2 + 0j),
    "xlogy": (tx.math.xlogy, lambda x, y: x * np.log(y)),
    "xdivy": (tx.math.xdivy, lambda x, y: x / y),
    "xlog1py": (tx.math.xlog1py, lambda x, y: x * np.log1p(y)),
    "divide_no_nan": (tx.math.divide_no_nan, np.divide),
    "multiply_no_nan": (tx.math.multiply_no_nan, np.multiply),
}

UNARY = {
    "negative": (tx.negative, np.negative), "square": (tx.square, np.square),
    "reciprocal": (tx.math.reciprocal, np.reciprocal), "sign": (tx.sign, lambda x: x / np.abs(x)),
    "sqrt": (tx.sqrt, np.sqrt), "rsqrt": (tx.math.rsqrt, lambda x: 1 / np.sqrt(x)), "exp": (tx.exp, np.exp),
    "expm1": (tx.math.expm1, np.expm1), "log": (tx.math.log, np.log), "log1p": (tx.math.log1p, np.log1p),
    "sin": (tx.sin, np.sin), "cos": (tx.cos, np.cos), "tan": (tx.tan, np.tan), "sinh": (tx.sinh, np.sinh),
    "cosh": (tx.cosh, np.cosh), "tanh": (tx.tanh, np.tanh), "asin": (tx.asin, np.arcsin),
    "acos": (tx.acos, np.arccos), "atan": (tx.atan, np.arctan), "asinh": (tx.asinh, np.arcsinh),
    "acosh": (tx.acosh, np.arccosh), "atanh": (tx.atanh, np.arctanh),
    "sigmoid": (tx.sigmoid, lambda x: 1 / (1 + np.exp(-x))), "conj": (tx.math.conj, np.conj),
}

TO_REAL = {"real": (tx.math.real, np.real), "imag": (tx.math.imag, np.imag), "angle": (tx.math.angle, np.angle),
           "abs": (tx.abs, np.abs)}


@pytest.mark.parametrize("dt", COMPLEX)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_matches_numpy(name, dt):
    fn, ref = BINARY[name]
    x, y = crand((3, 4), dt), crand((4,), dt) + (1 + 1j)  # broadcasting; y away from 0
    got = fn(tx.constant(x), tx.constant(y)).numpy()
    assert got.dtype == dt
    np.testing.assert_allclose(got, ref(x.astype(np.complex128), y.astype(np.complex128)), **_tol(dt))


@pytest.mark.parametrize("dt", COMPLEX)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_matches_numpy(name, dt):
    fn, ref = UNARY[name]
    x = crand((2, 5), dt, scale=0.9)
    got = fn(tx.constant(x)).numpy()
    assert got.dtype == dt
    np.testing.assert_allclose(got, ref(x.astype(np.complex128)), **_tol(dt))


@pytest.mark.parametrize("dt", COMPLEX)
@pytest.mark.parametrize("name", sorted(TO_REAL))
def test_parts_match_numpy(name, dt):
    fn, ref = TO_REAL[name]
    x = crand((7,), dt)
    got = fn(tx.constant(x)).numpy()
    assert got.dtype == np.dtype(dt).type(0).real.dtype
    np.testing.assert_allclose(got, ref(x), **_tol(dt))


def test_comparisons_and_special_values():
    x = tx.constant([1 + 2j, 0j, 3 - 1j])
    assert tx.equal(x, tx.constant([1 + 2j, 0j, 3 + 1j])).numpy().tolist() == [True, True, False]
    assert tx.not_equal(x, x).numpy().tolist() == [False, False, False]
    assert tx.sign(x).numpy()[1] == 0
    assert tx.math.divide_no_nan(x, tx.zeros_like(x)).numpy().tolist() == [0j, 0j, 0j]
    # Accurate near 0, where exp(x) - 1 and log(1 + x) cancel.
    np.testing.assert_allclose(tx.math.expm1(tx.constant([1e-12 + 1e-12j])).numpy(), [1e-12 + 1e-12j], rtol=1e-9)
    np.testing.assert_allclose(tx.math.log1p(tx.constant([1e-12 - 1e-12j])).numpy(), [1e-12 - 1e-12j], rtol=1e-9)


def test_real_inputs_to_complex_functions():
    x = tx.constant([-2.0, 3.0])
    assert tx.math.real(x) is x
    assert tx.math.imag(x).numpy().tolist() == [0.0, 0.0]
    assert tx.math.conj(x) is x
    np.testing.assert_allclose(tx.math.angle(x).numpy(), [np.pi, 0.0])
    with pytest.raises(TypeError, match="numeric"):
        tx.math.conj(tx.constant([True]))


def test_complex_builds_with_broadcasting_and_checks_dtypes():
    z = tx.complex(tx.constant([[1.0], [2.0]]), tx.constant([3.0, 4.0]))
    np.testing.assert_array_equal(z.numpy(), [[1 + 3j, 1 + 4j], [2 + 3j, 2 + 4j]])
    assert z.dtype == tx.complex64
    assert tx.complex(tx.constant(1.0, tx.float64), 2.0).dtype == tx.complex128
    with pytest.raises(TypeError, match="must both be float32 or both float64"):
        tx.complex(tx.constant(1.0), tx.constant(1.0, tx.float64))
    with pytest.raises(TypeError, match="must both be float32 or both float64"):
        tx.complex(tx.constant(1), tx.constant(2))


@pytest.mark.parametrize("dt", COMPLEX)
def test_reductions(dt):
    x = crand((3, 4, 5), dt)
    for axis in (None, 0, [1, 2], -1):
        np.testing.assert_allclose(tx.reduce_sum(x, axis=axis).numpy(), np.sum(x, axis=tuple(np.atleast_1d(axis))
                                   if axis is not None else None), **_tol(dt))
        np.testing.assert_allclose(tx.reduce_mean(x, axis=axis).numpy(), np.mean(x, axis=tuple(np.atleast_1d(axis))
                                   if axis is not None else None), **_tol(dt))
        np.testing.assert_allclose(tx.reduce_prod(x, axis=axis).numpy(), np.prod(x, axis=tuple(np.atleast_1d(axis))
                                   if axis is not None else None), **_tol(dt))
    # TensorFlow's complex mean of nothing is 0 (its real mean is NaN).
    assert tx.reduce_mean(tx.zeros([0], tx.as_dtype(dt))).numpy() == 0
    np.testing.assert_allclose(tx.reduce_sum(x, axis=1, keepdims=True).numpy(), x.sum(1, keepdims=True), **_tol(dt))


@pytest.mark.parametrize("dt", COMPLEX)
def test_matmul_transpose_adjoint_and_batches(dt):
    a, b = crand((3, 4), dt), crand((4, 2), dt)
    np.testing.assert_allclose(tx.matmul(a, b).numpy(), a @ b, **_tol(dt))
    np.testing.assert_allclose(tx.matmul(a.T, b, transpose_a=True).numpy(), a @ b, **_tol(dt))
    np.testing.assert_allclose(tx.matmul(a.conj().T, b, adjoint_a=True).numpy(), a @ b, **_tol(dt))
    np.testing.assert_allclose(tx.matmul(a, b.conj().T, adjoint_b=True).numpy(), a @ b, **_tol(dt))
    x, y = crand((2, 1, 3, 4), dt), crand((5, 4, 2), dt)
    np.testing.assert_allclose(tx.matmul(x, y).numpy(), x @ y, **_tol(dt))
    xt = np.swapaxes(x, -1, -2)
    np.testing.assert_allclose(tx.matmul(xt, y, transpose_a=True).numpy(), x @ y, **_tol(dt))
    np.testing.assert_allclose(tx.matmul(xt.conj(), y, adjoint_a=True).numpy(), x @ y, **_tol(dt))
    np.testing.assert_allclose(tx.linalg.adjoint(tx.constant(x)).numpy(), xt.conj())
    big_a, big_b = crand((130, 70), dt), crand((70, 90), dt)  # split over the intra-op pool
    np.testing.assert_allclose(tx.matmul(big_a, big_b).numpy(), big_a @ big_b, rtol=1e-4 if dt == np.complex64
                               else 1e-11, atol=1e-4 if dt == np.complex64 else 1e-11)
    empty = tx.matmul(tx.zeros([2, 0], tx.as_dtype(dt)), tx.zeros([0, 3], tx.as_dtype(dt)))
    assert empty.numpy().tolist() == [[0j] * 3] * 2


REAL_TYPES = (np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
              np.uint64, np.bool_)


@pytest.mark.parametrize("dt", COMPLEX)
@pytest.mark.parametrize("other", REAL_TYPES)
def test_cast_to_and_from_real_types(dt, other):
    values = np.array([0, 1, 2, 100], other) if other != np.bool_ else np.array([True, False, True, True])
    z = tx.cast(tx.constant(values), tx.as_dtype(dt)).numpy()
    np.testing.assert_array_equal(z, values.astype(dt))
    back = tx.cast(tx.constant((values.astype(np.float64) + 0.25 + 7j).astype(dt)), tx.as_dtype(other)).numpy()
    # The real part converted as a real value is (imaginary parts are dropped, as in TensorFlow).
    np.testing.assert_array_equal(back,
                                  tx.cast(tx.constant(values.astype(np.float64) + 0.25), tx.as_dtype(other)).numpy())


def test_cast_between_complex_types():
    z = np.array([1 + 2j, -3.5 + 1e-3j], np.complex128)
    np.testing.assert_array_equal(tx.cast(tx.constant(z), tx.complex64).numpy(), z.astype(np.complex64))
    np.testing.assert_array_equal(tx.cast(tx.constant(z.astype(np.complex64)), tx.complex128).numpy(),
                                  z.astype(np.complex64).astype(np.complex128))


@pytest.mark.parametrize("dt", COMPLEX)
def test_add_n_like_and_data_movement(dt):
    x, y = crand((2, 3), dt), crand((2, 3), dt)
    np.testing.assert_allclose(tx.add_n([x, y, x]).numpy(), x + y + x, **_tol(dt))
    np.testing.assert_array_equal(tx.ones_like(x).numpy(), np.ones_like(x))
    np.testing.assert_array_equal(tx.zeros_like(x).numpy(), np.zeros_like(x))
    np.testing.assert_array_equal(tx.transpose(x).numpy(), x.T)
    np.testing.assert_array_equal(tx.concat([x, y], 0).numpy(), np.concatenate([x, y]))
    np.testing.assert_array_equal(tx.gather(x, [1, 0, 1], axis=1).numpy(), x[:, [1, 0, 1]])
    np.testing.assert_array_equal(tx.reshape(x, [3, 2]).numpy(), x.reshape(3, 2))
    np.testing.assert_array_equal(tx.slice(x, [0, 1], [2, 2]).numpy(), x[:, 1:3])
    np.testing.assert_array_equal(tx.stack([x, y]).numpy(), np.stack([x, y]))
    np.testing.assert_array_equal(tx.fill([2], tx.constant(1 - 1j, tx.as_dtype(dt))).numpy(), [1 - 1j] * 2)
    np.testing.assert_allclose(tx.cumsum(x, axis=1).numpy(), np.cumsum(x, 1), **_tol(dt))


def test_numpy_feed_and_fetch_in_graph_mode():
    g = tx.Graph()
    with g.as_default():
        p = tx.placeholder(tx.complex128, [None])
        out = p * tx.math.conj(p)
        with tx.Session() as s:
            got = s.run(out, {p: np.array([1 + 2j, 3j])})
    np.testing.assert_allclose(got, [5, 9])
    assert got.dtype == np.complex128


# --- gradients --------------------------------------------------------------------------------------


def _loss(fn, w):
    """L(z...) = sum Re(conj(w) * fn(z...)), w a complex weight, fn's output cast to complex128."""
    def loss(*args):
        out = fn(*args)
        if not out.dtype.is_complex:
            out = tx.cast(out, tx.complex128)
        return tx.math.real(tx.reduce_sum(tx.math.conj(tx.constant(w)) * out))
    return loss


def _numeric_grad(fn, args, w, eps=1e-6):
    """dL/dRe + i dL/dIm of each complex argument by central differences."""
    loss = _loss(fn, w)
    grads = []
    for k, a in enumerate(args):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            for unit in (1, 1j):
                plus = [x.copy() for x in args]
                minus = [x.copy() for x in args]
                plus[k][idx] += eps * unit
                minus[k][idx] -= eps * unit
                d = (float(loss(*[tx.constant(x) for x in plus]))
                     - float(loss(*[tx.constant(x) for x in minus]))) / (2 * eps)
                g[idx] += d * unit
        grads.append(g)
    return grads


def _tape_grad(fn, args, w):
    vs = [tx.constant(a) for a in args]
    with tx.GradientTape() as tape:
        for v in vs:
            tape.watch(v)
        loss = _loss(fn, w)(*vs)
    return [g.numpy() for g in tape.gradient(loss, vs)]


# Holomorphic functions and the complex-part functions: TensorFlow's gradient is the true
# gradient dL/dRe + i dL/dIm, so finite differences check it.
HOLOMORPHIC = {
    "multiply": (lambda x, y: x * y, 2), "divide": (lambda x, y: x / y, 2), "pow": (tx.pow, 2),
    "square": (tx.square, 1), "sqrt": (tx.sqrt, 1), "rsqrt": (tx.math.rsqrt, 1), "exp": (tx.exp, 1),
    "expm1": (tx.math.expm1, 1), "log": (tx.math.log, 1), "log1p": (tx.math.log1p, 1), "sin": (tx.sin, 1),
    "cos": (tx.cos, 1), "tan": (tx.tan, 1), "tanh": (tx.tanh, 1), "sigmoid": (tx.sigmoid, 1),
    "reciprocal": (tx.math.reciprocal, 1), "sinh": (tx.sinh, 1), "cosh": (tx.cosh, 1), "asin": (tx.asin, 1),
    "atan": (tx.atan, 1), "divide_no_nan": (tx.math.divide_no_nan, 2),
    "reduce_prod": (lambda x: tx.reduce_prod(x, axis=0), 1), "reduce_mean": (lambda x: tx.reduce_mean(x), 1),
    "matmul": (lambda x, y: tx.matmul(x, y), 2), "matmul_adjoint": (lambda x, y: tx.matmul(x, y, adjoint_a=True), 2),
    "batch_matmul_transpose": (lambda x, y: tx.matmul(x[None], y[None], transpose_b=True), 2),
    "abs": (tx.abs, 1), "angle": (tx.math.angle, 1), "real": (tx.math.real, 1), "imag": (tx.math.imag, 1),
    "conj": (tx.math.conj, 1), "cast_to_real": (lambda x: tx.cast(x, tx.float64), 1),
}


@pytest.mark.parametrize("name", sorted(HOLOMORPHIC))
def test_gradient_matches_finite_differences(name):
    fn, arity = HOLOMORPHIC[name]
    args = [crand((2, 2)) + (0.7 + 0.3j) for _ in range(arity)]  # away from branch cuts and 0
    w = crand(np.shape(fn(*[tx.constant(a) for a in args]).numpy()))
    for got, want in zip(_tape_grad(fn, args, w), _numeric_grad(fn, args, w)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=name)


def test_gradient_of_complex_from_parts():
    re, im = np.array([1.0, -2.0]), np.array([0.5, 3.0])
    w = np.array([0.3 - 1j, 2 + 0.5j])
    a, b = tx.constant(re), tx.constant(im)
    with tx.GradientTape() as tape:
        tape.watch([a, b])
        loss = tx.math.real(tx.reduce_sum(tx.math.conj(tx.constant(w)) * tx.complex(a, b)))
    ga, gb = tape.gradient(loss, [a, b])
    np.testing.assert_allclose(ga.numpy(), w.real)
    np.testing.assert_allclose(gb.numpy(), w.imag)


TF_ONLY = {
    # Not holomorphic: TensorFlow's gradient is 2 dz (x - y) (no conjugate); we match it.
    "squared_difference": (tx.math.squared_difference, "squared_difference", 2),
    "xlogy": (tx.math.xlogy, "xlogy", 2), "xdivy": (tx.math.xdivy, "xdivy", 2),
    "multiply_no_nan": (tx.math.multiply_no_nan, "multiply_no_nan", 2), "xlog1py": (tx.math.xlog1py, "xlog1py", 2),
}


@pytest.mark.parametrize("name", sorted(HOLOMORPHIC) + sorted(TF_ONLY))
def test_gradient_matches_tensorflow(name):
    tf = pytest.importorskip("tensorflow")
    if name in TF_ONLY:
        fn, tf_name, arity = TF_ONLY[name]
        tf_fn = getattr(tf.math, tf_name)
    else:
        fn, arity = HOLOMORPHIC[name]
        tf_fn = _TF_EQUIVALENT[name](tf)
    args = [crand((2, 2)) + (0.7 + 0.3j) for _ in range(arity)]
    out = fn(*[tx.constant(a) for a in args]).numpy()
    w = crand(np.shape(out))
    vs = [tf.constant(a) for a in args]
    with tf.GradientTape() as tape:
        for v in vs:
            tape.watch(v)
        y = tf_fn(*vs)
        y = y if y.dtype.is_complex else tf.cast(y, tf.complex128)
        loss = tf.math.real(tf.reduce_sum(tf.math.conj(tf.constant(w)) * y))
    theirs = [g.numpy() for g in tape.gradient(loss, vs)]
    np.testing.assert_allclose(out, y.numpy() if out.dtype.kind == "c" else np.real(y.numpy()), rtol=1e-12, atol=1e-12)
    for got, want in zip(_tape_grad(fn, args, w), theirs):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=name)


_TF_EQUIVALENT = {
    "multiply": lambda tf: lambda x, y: x * y, "divide": lambda tf: lambda x, y: x / y, "pow": lambda tf: tf.pow,
    "square": lambda tf: tf.square, "sqrt": lambda tf: tf.sqrt, "rsqrt": lambda tf: tf.math.rsqrt,
    "exp": lambda tf: tf.exp, "expm1": lambda tf: tf.math.expm1, "log": lambda tf: tf.math.log,
    "log1p": lambda tf: tf.math.log1p, "sin": lambda tf: tf.sin, "cos": lambda tf: tf.cos, "tan": lambda tf: tf.tan,
    "tanh": lambda tf: tf.tanh, "sigmoid": lambda tf: tf.sigmoid, "reciprocal": lambda tf: tf.math.reciprocal,
    "sinh": lambda tf: tf.sinh, "cosh": lambda tf: tf.cosh, "asin": lambda tf: tf.asin, "atan": lambda tf: tf.atan,
    "divide_no_nan": lambda tf: tf.math.divide_no_nan,
    "reduce_prod": lambda tf: lambda x: tf.reduce_prod(x, axis=0), "reduce_mean": lambda tf: tf.reduce_mean,
    "matmul": lambda tf: tf.matmul, "matmul_adjoint": lambda tf: lambda x, y: tf.matmul(x, y, adjoint_a=True),
    "batch_matmul_transpose": lambda tf: lambda x, y: tf.matmul(x[None], y[None], transpose_b=True),
    "abs": lambda tf: tf.abs, "angle": lambda tf: tf.math.angle, "real": lambda tf: tf.math.real,
    "imag": lambda tf: tf.math.imag, "conj": lambda tf: tf.math.conj,
    "cast_to_real": lambda tf: lambda x: tf.cast(tf.math.real(x), tf.float64),
}


def test_descent_on_a_complex_variable_converges():
    # TensorFlow's convention makes -gradient the steepest descent direction of a real loss, so
    # plain and momentum SGD (the fused kernels) fit a complex weight.
    x = tx.constant(np.array([1 + 1j, 2 - 1j, -1j], np.complex64))
    target = (0.5 - 2j) * x
    for momentum in (None, 0.5):
        w = tx.Variable(np.complex64(0))
        trace = tx.Variable(np.complex64(0))
        for _ in range(60):
            with tx.GradientTape() as tape:
                r = w * x - target
                loss = tx.reduce_sum(tx.math.real(tx.math.conj(r) * r))
            g = tape.gradient(loss, w)
            lr = tx.constant(0.05 + 0j, tx.complex64)
            if momentum is None:
                tx.raw_ops.ResourceApplyGradientDescent(var=w.handle, alpha=lr, delta=g)
            else:
                tx.raw_ops.ResourceApplyMomentum(var=w.handle, accum=trace.handle, lr=lr, grad=g,
                                                 momentum=tx.constant(momentum + 0j, tx.complex64))
        np.testing.assert_allclose(w.numpy(), 0.5 - 2j, atol=1e-4)
    v = tx.Variable(np.array([1 + 1j], np.complex128))
    v.assign_add([2 - 1j])
    v.assign_sub([1j])
    np.testing.assert_array_equal(v.numpy(), [3 - 1j])


def test_roll_and_diagonal_ops():
    z = crand((3, 4), np.complex64)
    np.testing.assert_array_equal(tx.roll(z, 1, 0).numpy(), np.roll(z, 1, 0))
    np.testing.assert_array_equal(tx.linalg.band_part(z, 0, 1).numpy(), np.triu(np.tril(z, 1)))
    np.testing.assert_array_equal(tx.linalg.diag_part(z).numpy(), np.diagonal(z))
    np.testing.assert_array_equal(tx.linalg.diag(z[0]).numpy(), np.diag(z[0]))


def test_transpose_conjugate_is_conjugate_transpose():
    z = (np.arange(6) - 1j * np.arange(6, 12)).reshape(2, 3).astype(np.complex64)
    np.testing.assert_array_equal(tx.transpose(z, conjugate=True).numpy(), z.conj().T)
    np.testing.assert_array_equal(tx.transpose(z, perm=[0, 1], conjugate=True).numpy(), z.conj())
    np.testing.assert_array_equal(tx.transpose(z).numpy(), z.T)  # conjugate=False keeps the values
    real = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(tx.transpose(real, conjugate=True).numpy(), real.T)

"""tx.random.gamma / poisson and the stateless gamma, Poisson and binomial samplers: shapes and
dtypes, SciPy's distributions, TensorFlow's values for the stateless ones, gradients (implicit
reparameterization) and errors."""

import math

import numpy as np
import pytest
import scipy.special as sp
import scipy.stats as st

import tensorflux as tx

pytestmark = pytest.mark.eager

N = 4000


def _ks_bound(n):
    return math.sqrt(-0.5 * math.log(1e-4 / 2)) / math.sqrt(n)


def test_stateless_gamma_scales_by_beta_and_follows_scipy():
    alpha = np.array([0.4, 1.0, 3.0])
    beta = np.array([2.0, 0.5, 1.0])
    x = tx.random.stateless_gamma([N, 3], seed=[5, 6], alpha=alpha, beta=beta, dtype=tx.float64).numpy()
    assert x.shape == (N, 3) and x.dtype == np.float64
    for col, a, b in zip(x.T, alpha, beta):
        assert st.kstest(col, st.gamma(a, scale=1 / b).cdf).statistic < _ks_bound(N)
    # Same seed, same values; another seed, other values.
    again = tx.random.stateless_gamma([N, 3], seed=[5, 6], alpha=alpha, beta=beta, dtype=tx.float64).numpy()
    np.testing.assert_array_equal(x, again)
    other = tx.random.stateless_gamma([N, 3], seed=[5, 7], alpha=alpha, beta=beta, dtype=tx.float64).numpy()
    assert not np.array_equal(x, other)


def test_gamma_shape_is_sample_shape_then_parameter_shape():
    tx.random.set_seed(3)
    x = tx.random.gamma([N], alpha=[[0.5, 2.0]], beta=[1.0, 4.0], dtype=tx.float64).numpy()
    assert x.shape == (N, 1, 2)
    assert st.kstest(x[:, 0, 0], st.gamma(0.5).cdf).statistic < _ks_bound(N)
    assert st.kstest(x[:, 0, 1], st.gamma(2.0, scale=0.25).cdf).statistic < _ks_bound(N)
    assert x.min() >= np.finfo(np.float64).tiny


def test_poisson_and_stateless_poisson_moments():
    tx.random.set_seed(4)
    lam = np.array([0.7, 12.0])
    for x in (tx.random.poisson([N], lam=lam, dtype=tx.int64).numpy(),
              tx.random.stateless_poisson([N, 2], seed=[1, 9], lam=lam).numpy()):
        assert x.shape == (N, 2) and x.dtype.kind == "i"
        for col, r in zip(x.T, lam):
            assert abs(col.mean() - r) < 5 * math.sqrt(r / N)
            assert abs(col.var() - r) < 5 * r * math.sqrt(2 / N) + 5 * math.sqrt(r / N)


def test_stateless_binomial_moments_and_edges():
    counts = np.array([[8.0], [200.0]])
    probs = np.array([0.25, 0.8, 0.0])
    x = tx.random.stateless_binomial([N, 2, 3], seed=[2, 3], counts=counts, probs=probs).numpy()
    assert x.shape == (N, 2, 3) and x.dtype == np.int32
    for i in range(2):
        for j in range(3):
            n, p = counts[i, 0], probs[j]
            col = x[:, i, j]
            assert col.min() >= 0 and col.max() <= n
            sd = math.sqrt(n * p * (1 - p))
            assert abs(col.mean() - n * p) <= 5 * sd / math.sqrt(N) + 1e-12


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stateless_samplers_equal_tensorflow(dtype):
    """Same seed, same values as TensorFlow's CPU kernels (the same algorithms on the same streams)."""
    tf = pytest.importorskip("tensorflow")
    alpha = np.array([0.3, 1.0, 2.5, 40.0], dtype)
    with tf.device("/CPU:0"):
        tg = tf.random.stateless_gamma([300, 4], seed=[7, -2], alpha=alpha, beta=np.array(2, dtype), dtype=dtype)
        tp = tf.random.stateless_poisson([300, 3], seed=[7, 2], lam=np.array([1.5, 9.99, 80.0], dtype))
        tb = tf.random.stateless_binomial([300, 3], seed=[4, 4], counts=np.array([5.0, 60.0, 1000.0], dtype),
                                          probs=np.array([0.1, 0.5, 0.7], dtype), output_dtype=tf.float64)
    og = tx.random.stateless_gamma([300, 4], seed=[7, -2], alpha=alpha, beta=np.array(2, dtype), dtype=dtype)
    op = tx.random.stateless_poisson([300, 3], seed=[7, 2], lam=np.array([1.5, 9.99, 80.0], dtype))
    ob = tx.random.stateless_binomial([300, 3], seed=[4, 4], counts=np.array([5.0, 60.0, 1000.0], dtype),
                                      probs=np.array([0.1, 0.5, 0.7], dtype), output_dtype=tx.float64)
    np.testing.assert_array_equal(og.numpy(), tg.numpy())
    np.testing.assert_array_equal(op.numpy(), tp.numpy())
    np.testing.assert_array_equal(ob.numpy(), tb.numpy())


def _implicit_grad(alpha, x):
    """-dP/da / dP/dx at the sample, from SciPy (dP/da by central differences)."""
    h = 1e-6 * max(alpha, 1.0)
    dpda = (sp.gammainc(alpha + h, x) - sp.gammainc(alpha - h, x)) / (2 * h)
    return -dpda / st.gamma(alpha).pdf(x)


def test_gamma_gradient_is_implicit_reparameterization():
    """d sample / d alpha is -dP/da / dP/dx at the sample; d sample / d beta is -sample / beta; the
    mean derivative in alpha is d E[X] / d alpha = 1 / beta."""
    alpha = tx.constant(np.array([0.6, 3.0]))
    beta = tx.constant(np.array([2.0, 0.5]))
    with tx.GradientTape(persistent=True) as tape:
        tape.watch([alpha, beta])
        x = tx.random.stateless_gamma([N, 2], seed=[8, 1], alpha=alpha, beta=beta, dtype=tx.float64)
        total = tx.reduce_sum(x)
        first = tx.reduce_sum(x[0])  # element j depends on alpha[j] only
    da, db = tape.gradient(total, [alpha, beta])
    np.testing.assert_allclose(db.numpy(), -np.sum(x.numpy(), 0) / beta.numpy(), rtol=1e-10)
    assert np.all(np.abs(da.numpy() / N - 1 / beta.numpy()) < 5 * 0.05 / beta.numpy()), da.numpy() / N
    unit = x.numpy()[0] * beta.numpy()  # the Gamma(alpha, 1) draws
    want = [_implicit_grad(a, u) / b for a, u, b in zip(alpha.numpy(), unit, beta.numpy())]
    np.testing.assert_allclose(tape.gradient(first, alpha).numpy(), want, rtol=1e-5)
    # The stateful sampler has the same gradient rule.
    with tx.GradientTape() as tape:
        tape.watch(alpha)
        y = tx.random.gamma([N], alpha=alpha, seed=3, dtype=tx.float64)
    g = tape.gradient(y, alpha).numpy()
    assert np.all(np.abs(g / N - 1) < 0.1), g / N


def test_gamma_gradient_equals_tensorflow():
    tf = pytest.importorskip("tensorflow")
    alpha = np.array([0.2, 1.0, 7.5])
    a_tf = tf.constant(alpha)
    with tf.GradientTape() as tape:
        tape.watch(a_tf)
        y = tf.random.stateless_gamma([50, 3], seed=[3, 3], alpha=a_tf, dtype=tf.float64)
        loss = tf.reduce_sum(tf.square(y))
    want = tape.gradient(loss, a_tf).numpy()
    a_tx = tx.constant(alpha)
    with tx.GradientTape() as tape:
        tape.watch(a_tx)
        loss = tx.reduce_sum(tx.square(tx.random.stateless_gamma([50, 3], seed=[3, 3], alpha=a_tx, dtype=tx.float64)))
    np.testing.assert_allclose(tape.gradient(loss, a_tx).numpy(), want, rtol=1e-9)


def test_samplers_in_tx_function_and_graph_mode():
    @tx.function
    def draw(alpha):
        return tx.random.stateless_gamma([5, 2], seed=[1, 1], alpha=alpha, dtype=tx.float64)

    a = draw(tx.constant([1.0, 2.0], dtype=tx.float64)).numpy()
    b = tx.random.stateless_gamma([5, 2], seed=[1, 1], alpha=np.array([1.0, 2.0]), dtype=tx.float64).numpy()
    np.testing.assert_array_equal(a, b)
    with tx.Graph().as_default():
        p = tx.random.stateless_poisson([3, 2], seed=[1, 2], lam=tx.constant([1.0, 2.0]))
        assert p.shape.as_list() == [3, 2]
        with tx.compat.v1.Session() as s:
            assert s.run(p).shape == (3, 2)


def test_sampler_errors_name_the_problem():
    with pytest.raises(tx.errors.InvalidArgumentError, match="must end with broadcasted shape"):
        tx.random.stateless_gamma([4, 2], seed=[1, 2], alpha=[1.0, 2.0, 3.0])
    with pytest.raises(tx.errors.InvalidArgumentError, match="must end with broadcasted shape"):
        tx.random.stateless_poisson([3], seed=[1, 2], lam=[1.0, 2.0])
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"seed must have shape \[2\]"):
        tx.random.stateless_binomial([3], seed=[1, 2, 3], counts=[1.0, 2.0, 3.0], probs=[0.5, 0.5, 0.5])
    with pytest.raises(tx.errors.InvalidArgumentError, match="[Ii]ncompatible shapes"):
        tx.random.stateless_binomial([2, 3], seed=[1, 2], counts=[1.0, 2.0, 3.0], probs=[0.5, 0.5])
    with pytest.raises(tx.errors.InvalidArgumentError, match="non-negative|invalid dimension"):
        tx.random.poisson([-1], lam=[1.0], seed=1)
    # The context stays usable.
    assert tx.random.stateless_poisson([2], seed=[1, 2], lam=[1.0, 2.0]).shape == (2,)


def test_fold_in_split_and_create_rng_state_equal_tensorflow():
    tf = pytest.importorskip("tensorflow")
    np.testing.assert_array_equal(tx.random.fold_in([1, 2], 3).numpy(), tf.random.fold_in([1, 2], 3).numpy())
    np.testing.assert_array_equal(tx.random.split([5, 6], num=3).numpy(), tf.random.split([5, 6], num=3).numpy())
    np.testing.assert_array_equal(tx.random.create_rng_state(7, "philox"), tf.random.create_rng_state(7, "philox"))

"""tx.math.igamma, igammac, betainc, ndtr and log_ndtr against SciPy (wide ranges, tails, domain
edges) and TensorFlow, their gradients by finite differences, and Bucketize."""

import numpy as np
import pytest
import scipy.special as sp

import tensorflux as tx

pytestmark = pytest.mark.eager

_RNG = np.random.default_rng(0)
A = np.concatenate([_RNG.uniform(0.01, 2, 200), _RNG.uniform(2, 50, 200), _RNG.uniform(50, 2000, 50)])
X = np.concatenate([_RNG.uniform(0, 3, 200), _RNG.uniform(0, 80, 200), _RNG.uniform(0, 3000, 50)])


def test_incomplete_gamma_matches_scipy_over_wide_ranges():
    p = tx.math.igamma(A, X).numpy()
    q = tx.math.igammac(A, X).numpy()
    np.testing.assert_allclose(p, sp.gammainc(A, X), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(q, sp.gammaincc(A, X), rtol=1e-10, atol=1e-14)
    # Q is computed directly where it is tiny (no cancellation in 1 - P).
    np.testing.assert_allclose(tx.math.igammac(np.float64(2.0), np.float64(60.0)).numpy(), sp.gammaincc(2.0, 60.0),
                               rtol=1e-12)
    f32 = tx.math.igamma(A.astype(np.float32), X.astype(np.float32)).numpy()
    assert f32.dtype == np.float32
    np.testing.assert_allclose(f32, sp.gammainc(A.astype(np.float32), X.astype(np.float32)), rtol=2e-5, atol=1e-6)


def test_incomplete_gamma_domain():
    a = np.array([0.0, -1.0, 2.0, 2.0, 2.0, np.nan])
    x = np.array([1.0, 1.0, -1.0, 0.0, np.inf, 1.0])
    np.testing.assert_array_equal(tx.math.igamma(a, x).numpy(), [np.nan, np.nan, np.nan, 0.0, 1.0, np.nan])
    np.testing.assert_array_equal(tx.math.igammac(a, x).numpy(), [np.nan, np.nan, np.nan, 1.0, 0.0, np.nan])


def test_betainc_matches_scipy():
    a = _RNG.uniform(0.05, 30, 300)
    b = _RNG.uniform(0.05, 30, 300)
    x = _RNG.uniform(0, 1, 300)
    np.testing.assert_allclose(tx.math.betainc(a, b, x).numpy(), sp.betainc(a, b, x), rtol=1e-9, atol=1e-14)
    # Scalars broadcast; other shapes must agree.
    np.testing.assert_allclose(tx.math.betainc(np.float64(2.0), b, np.float64(0.3)).numpy(), sp.betainc(2.0, b, 0.3),
                               rtol=1e-9)
    with pytest.raises(tx.errors.InvalidArgumentError, match="Shapes of a and x are inconsistent"):
        tx.math.betainc(np.ones(3), 1.0, np.ones(4) / 2)


def test_ndtr_and_log_ndtr_match_scipy_in_both_tails():
    x = np.concatenate([np.linspace(-40, 40, 801), [-1e3, -25.0, -19.9, -20.1, 7.9, 8.1, 30.0]])
    np.testing.assert_allclose(tx.math.ndtr(x).numpy(), sp.ndtr(x), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(tx.math.log_ndtr(x).numpy(), sp.log_ndtr(x), rtol=1e-10, atol=1e-300)
    x32 = np.linspace(-20, 10, 301).astype(np.float32)
    np.testing.assert_allclose(tx.math.log_ndtr(x32).numpy(), sp.log_ndtr(x32.astype(np.float64)), rtol=2e-5)
    with pytest.raises(TypeError, match="float32 or float64"):
        tx.math.log_ndtr(tx.constant([1, 2]))


def _central(f, v, h=1e-6):
    return (f(v + h) - f(v - h)) / (2 * h)


def test_gradients_match_finite_differences():
    a = tx.constant(np.array([0.5, 2.0, 7.0]))
    x = tx.constant(np.array([0.3, 2.5, 4.0]))
    b = tx.constant(np.array([1.5, 3.0, 0.7]))
    u = tx.constant(np.array([0.2, 0.5, 0.95]))
    z = tx.constant(np.array([-30.0, -3.0, 0.5, 6.0]))
    with tx.GradientTape(persistent=True) as tape:
        tape.watch([a, x, b, u, z])
        p = tx.reduce_sum(tx.math.igamma(a, x))
        q = tx.reduce_sum(tx.math.igammac(a, x))
        i = tx.reduce_sum(tx.math.betainc(a, b, u))
        ln = tx.reduce_sum(tx.math.log_ndtr(z))
    an, xn, bn, un, zn = (t.numpy() for t in (a, x, b, u, z))
    ga, gx = tape.gradient(p, [a, x])
    np.testing.assert_allclose(ga.numpy(), _central(lambda v: sp.gammainc(v, xn), an), rtol=1e-6)
    np.testing.assert_allclose(gx.numpy(), _central(lambda v: sp.gammainc(an, v), xn), rtol=1e-6)
    qa, qx = tape.gradient(q, [a, x])
    np.testing.assert_allclose(qa.numpy(), -ga.numpy(), rtol=1e-12)
    np.testing.assert_allclose(qx.numpy(), -gx.numpy(), rtol=1e-12)
    ia, iu = tape.gradient(i, [a, u])
    assert ia is None  # TensorFlow defines Betainc's gradient in x only
    np.testing.assert_allclose(iu.numpy(), _central(lambda v: sp.betainc(an, bn, v), un), rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(ln, z).numpy(), _central(sp.log_ndtr, zn), rtol=1e-6)


def test_incomplete_gamma_and_beta_equal_tensorflow():
    tf = pytest.importorskip("tensorflow")
    a, x = A[::5], X[::5]
    np.testing.assert_allclose(tx.math.igamma(a, x).numpy(), tf.math.igamma(a, x).numpy(), rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(tx.math.igammac(a, x).numpy(), tf.math.igammac(a, x).numpy(), rtol=1e-9, atol=1e-14)
    bb = np.linspace(0.5, 9, a.size)
    xx = np.linspace(0.01, 0.99, a.size)
    aa = np.minimum(a, 40)
    np.testing.assert_allclose(tx.math.betainc(aa, bb, xx).numpy(), tf.math.betainc(aa, bb, xx).numpy(), rtol=1e-9,
                               atol=1e-14)
    at, xt = tf.constant(a[:20]), tf.constant(x[:20])
    with tf.GradientTape() as tape:
        tape.watch([at, xt])
        y = tf.reduce_sum(tf.math.igamma(at, xt))
    want = [g.numpy() for g in tape.gradient(y, [at, xt])]
    ax, xx2 = tx.constant(a[:20]), tx.constant(x[:20])
    with tx.GradientTape() as tape:
        tape.watch([ax, xx2])
        y = tx.reduce_sum(tx.math.igamma(ax, xx2))
    got = [g.numpy() for g in tape.gradient(y, [ax, xx2])]
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-9, atol=1e-14)


def test_bucketize_raw_op():
    v = np.array([-2.0, 0.0, 0.5, 1.0, 3.0, 10.0], np.float32)
    out = tx.raw_ops.Bucketize(input=v, boundaries=[0.0, 1.0, 1.0, 5.0]).numpy()
    np.testing.assert_array_equal(out, np.searchsorted([0.0, 1.0, 1.0, 5.0], v, side="right"))
    assert out.dtype == np.int32
    with pytest.raises(tx.errors.InvalidArgumentError, match="Expected sorted boundaries"):
        tx.raw_ops.Bucketize(input=v, boundaries=[2.0, 1.0])

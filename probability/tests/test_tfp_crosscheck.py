"""A handful of log_probs, KLs and bijector log-dets against TensorFlow Probability itself, where it
imports beside TensorFlow (tensorflow-probability 0.25 fails to import with NumPy 2.3+: then these
skip)."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_probability as txp

from conftest import value


def _tfp():
    try:
        import tensorflow_probability as tfp
        tfp.distributions.Normal(0.0, 1.0)
        return tfp
    except Exception as e:  # noqa: BLE001 (any import failure: skip, saying why)
        pytest.skip("tensorflow-probability does not import here: %s: %s" % (type(e).__name__, str(e)[:80]))


def c(x):
    return tx.constant(np.asarray(x, np.float64))


X = np.array([0.3, 1.7, 2.5])
TRIL = np.array([[1.2, 0.0], [0.4, 0.7]])
CASES = {
    "Normal": (lambda d: d.Normal(np.float64(0.5), np.float64(1.3)), X),
    "Gamma": (lambda d: d.Gamma(np.float64(2.0), np.float64(1.5)), X),
    "StudentT": (lambda d: d.StudentT(np.float64(3.0), np.float64(0.0), np.float64(2.0)), X),
    "Beta": (lambda d: d.Beta(np.float64(2.0), np.float64(3.0)), X / 3),
    "MultivariateNormalTriL": (lambda d: d.MultivariateNormalTriL(np.zeros(2), TRIL), np.array([[0.3, -1.0]])),
    "Poisson": (lambda d: d.Poisson(np.float64(3.0)), np.array([0.0, 2.0, 5.0])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_equals_tfp(name):
    tfp = _tfp()
    make, x = CASES[name]
    theirs = make(tfp.distributions).log_prob(x).numpy()
    ours = value(make(txp.distributions).log_prob(c(x)))
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)


def test_kl_equals_tfp():
    tfp = _tfp()
    for pair in [("Normal", (0.0, 1.0), (1.0, 2.0)), ("Gamma", (2.0, 1.0), (3.0, 2.0)),
                 ("Beta", (2.0, 3.0), (1.0, 1.0))]:
        cls, a, b = pair
        theirs = tfp.distributions.kl_divergence(getattr(tfp.distributions, cls)(*map(np.float64, a)),
                                                 getattr(tfp.distributions, cls)(*map(np.float64, b))).numpy()
        ours = value(txp.distributions.kl_divergence(getattr(txp.distributions, cls)(*map(c, a)),
                                                     getattr(txp.distributions, cls)(*map(c, b))))
        np.testing.assert_allclose(ours, theirs, rtol=1e-10)


def test_bijector_log_dets_equal_tfp():
    tfp = _tfp()
    x = np.array([0.3, -1.2, 0.5])
    names = ["SoftmaxCentered", "Softplus", "Sigmoid", "Tanh"]
    try:
        theirs = [getattr(tfp.bijectors, n)().forward_log_det_jacobian(x, event_ndims=1).numpy() for n in names]
        filled = tfp.math.fill_triangular(np.arange(6.0)).numpy()
    except Exception as e:  # noqa: BLE001
        pytest.skip("tfp.bijectors do not work here: %s: %s" % (type(e).__name__, str(e)[:80]))
    for name, want in zip(names, theirs):
        ours = value(getattr(txp.bijectors, name)().forward_log_det_jacobian(c(x), event_ndims=1))
        np.testing.assert_allclose(ours, want, rtol=1e-10)
    np.testing.assert_array_equal(value(txp.math.fill_triangular(c(np.arange(6.0)))), filled)

"""The KL registry: analytic KLs against Monte Carlo estimates E_a[log a(x) - log b(x)]."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_probability as txp

from conftest import needs_core, value

tfd = txp.distributions


def c(x):
    return tx.constant(np.asarray(x, np.float64))


TRIL_A = np.array([[1.2, 0.0], [0.4, 0.7]])
TRIL_B = np.array([[0.9, 0.0], [-0.3, 1.5]])
PAIRS = {
    "Normal": (lambda: tfd.Normal(c([0.0, 1.0]), c([1.0, 0.5])), lambda: tfd.Normal(c([0.5, -1.0]), c([2.0, 0.7])), []),
    "LogNormal": (lambda: tfd.LogNormal(c(0.2), c(0.6)), lambda: tfd.LogNormal(c(-0.1), c(0.9)), []),
    "HalfNormal": (lambda: tfd.HalfNormal(c(1.0)), lambda: tfd.HalfNormal(c(2.5)), []),
    "Laplace": (lambda: tfd.Laplace(c(0.0), c(1.0)), lambda: tfd.Laplace(c(0.5), c(2.0)), []),
    "Uniform": (lambda: tfd.Uniform(c(0.0), c(1.0)), lambda: tfd.Uniform(c(-1.0), c(2.0)), []),
    "Exponential": (lambda: tfd.Exponential(c(1.5)), lambda: tfd.Exponential(c(0.5)), []),
    "Gamma": (lambda: tfd.Gamma(c(2.0), c(1.5)), lambda: tfd.Gamma(c(3.0), c(0.7)), ["random.stateless_gamma"]),
    "Beta": (lambda: tfd.Beta(c(2.0), c(3.0)), lambda: tfd.Beta(c(1.5), c(1.5)), ["random.stateless_gamma"]),
    "Dirichlet": (lambda: tfd.Dirichlet(c([2.0, 3.0, 1.5])), lambda: tfd.Dirichlet(c([1.0, 1.0, 1.0])),
                  ["random.stateless_gamma"]),
    "Bernoulli": (lambda: tfd.Bernoulli(probs=c(0.3)), lambda: tfd.Bernoulli(probs=c(0.6)), []),
    "Categorical": (lambda: tfd.Categorical(logits=c([0.1, 1.0, -0.5])),
                    lambda: tfd.Categorical(logits=c([0.0, 0.0, 0.3])), []),
    "Poisson": (lambda: tfd.Poisson(c(3.0)), lambda: tfd.Poisson(c(5.0)), ["random.stateless_poisson"]),
    "MVNDiag": (lambda: tfd.MultivariateNormalDiag(c([0.0, 1.0]), c([1.0, 0.5])),
                lambda: tfd.MultivariateNormalDiag(c([1.0, 0.0]), c([2.0, 1.0])), []),
    "MVNTriL": (lambda: tfd.MultivariateNormalTriL(c([0.0, 1.0]), c(TRIL_A)),
                lambda: tfd.MultivariateNormalTriL(c([1.0, 0.0]), c(TRIL_B)), []),
    "MVNTriL-Diag": (lambda: tfd.MultivariateNormalTriL(c([0.0, 1.0]), c(TRIL_A)),
                     lambda: tfd.MultivariateNormalDiag(c([1.0, 0.0]), c([2.0, 1.0])), []),
    "Independent": (lambda: tfd.Independent(tfd.Normal(c([0.0, 1.0]), c([1.0, 0.5])), 1),
                    lambda: tfd.Independent(tfd.Normal(c([0.5, -1.0]), c([2.0, 0.7])), 1), []),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_analytic_kl_matches_monte_carlo(name):
    make_a, make_b, needs = PAIRS[name]
    from tensorflux_probability.internal import core_features
    missing = [n for n in needs if not core_features.has(n)]
    if missing:
        pytest.skip("tensorflux lacks tx.%s (core addition pending)" % ", tx.".join(missing))
    a, b = make_a(), make_b()
    kl = value(tfd.kl_divergence(a, b))
    x = a.sample(200000, seed=11)
    diff = value(a.log_prob(x) - b.log_prob(x))
    se = diff.std(axis=0) / np.sqrt(diff.shape[0])
    assert np.all(np.abs(diff.mean(axis=0) - kl) < 5 * se + 1e-9), (kl, diff.mean(axis=0), se)
    assert np.all(kl >= 0)
    np.testing.assert_allclose(value(a.kl_divergence(a)), 0.0, atol=1e-12)


def test_missing_pair_is_a_clear_error():
    with pytest.raises(NotImplementedError, match="no KL\\(Normal \\|\\| Laplace\\) is registered"):
        tfd.kl_divergence(tfd.Normal(c(0.0), c(1.0)), tfd.Laplace(c(0.0), c(1.0)))


def test_registered_kl_of_a_subclass_is_found():
    class MyNormal(tfd.Normal):
        pass
    np.testing.assert_allclose(value(tfd.kl_divergence(MyNormal(c(0.0), c(1.0)), tfd.Normal(c(1.0), c(1.0)))), 0.5)


@needs_core("random.stateless_gamma")
def test_cross_entropy_is_entropy_plus_kl():
    a, b = tfd.Gamma(c(2.0), c(1.0)), tfd.Gamma(c(3.0), c(2.0))
    np.testing.assert_allclose(value(a.cross_entropy(b)), value(a.entropy() + tfd.kl_divergence(a, b)))

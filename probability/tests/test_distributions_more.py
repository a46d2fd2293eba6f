"""Discrete, multivariate and composite distributions against scipy.stats / NumPy in float64,
and the bad-input contract (validate_args errors, -inf outside the support, shapes that do not
broadcast)."""

import numpy as np
import pytest
from scipy import special, stats

import tensorflux as tx
import tensorflux_probability as txp

from conftest import needs_core, value

tfd = txp.distributions


def c(x):
    return tx.constant(np.asarray(x, np.float64))


def test_bernoulli_and_geometric_against_scipy():
    p = np.array([0.1, 0.5, 0.8])
    k = np.array([[0.0], [1.0]])
    np.testing.assert_allclose(value(tfd.Bernoulli(probs=c(p), dtype=tx.float64).log_prob(c(k))),
                               stats.bernoulli(p).logpmf(k), rtol=1e-10)
    logits = special.logit(p)
    np.testing.assert_allclose(value(tfd.Bernoulli(logits=c(logits), dtype=tx.float64).entropy()),
                               stats.bernoulli(p).entropy(), rtol=1e-10)
    # TFP's Geometric counts failures before the first success: scipy's geom shifted by one.
    g = tfd.Geometric(probs=c(p))
    kk = np.array([[0.0], [3.0]])
    np.testing.assert_allclose(value(g.log_prob(c(kk))), stats.geom(p).logpmf(kk + 1), rtol=1e-10)
    np.testing.assert_allclose(value(g.mean()), stats.geom(p).mean() - 1, rtol=1e-10)


def test_categorical_family():
    logits = np.array([[0.1, 1.0, -0.5], [2.0, 0.0, 0.0]])
    probs = special.softmax(logits, axis=-1)
    d = tfd.Categorical(logits=c(logits))
    assert d.batch_shape == tx.TensorShape([2]) and d.event_shape == tx.TensorShape([])
    np.testing.assert_allclose(value(d.log_prob([2, 0])), np.log(probs[[0, 1], [2, 0]]), rtol=1e-10)
    np.testing.assert_allclose(value(d.entropy()), stats.entropy(probs, axis=-1), rtol=1e-10)
    x = value(d.sample(20000, seed=1))
    np.testing.assert_allclose([np.bincount(x[:, i], minlength=3) / 20000 for i in range(2)], probs, atol=0.015)
    oh = tfd.OneHotCategorical(probs=c(probs), dtype=tx.float64)
    np.testing.assert_allclose(value(oh.log_prob(c(np.eye(3)[[2, 0]]))), np.log(probs[[0, 1], [2, 0]]), rtol=1e-10)
    relaxed = tfd.RelaxedOneHotCategorical(c(0.5), logits=c(logits))
    s = value(relaxed.sample(5, seed=2))
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-10)
    assert relaxed.reparameterization_type == tfd.FULLY_REPARAMETERIZED


def test_count_distributions_log_prob_against_scipy():
    n, p = np.array([5.0, 10.0, 20.0]), np.array([[0.3], [0.7]])
    k = np.array([[2.0, 4.0, 15.0], [5.0, 7.0, 13.0]])
    np.testing.assert_allclose(value(tfd.Binomial(c(n), probs=c(p)).log_prob(c(k))), stats.binom(n, p).logpmf(k),
                               rtol=1e-9)
    np.testing.assert_allclose(value(tfd.Poisson(c(n)).log_prob(c(k))), stats.poisson(n).logpmf(k), rtol=1e-9)
    # TFP's NegativeBinomial: failures before total_count successes with success prob 1 - probs.
    np.testing.assert_allclose(value(tfd.NegativeBinomial(c(n), probs=c(p)).log_prob(c(k))),
                               stats.nbinom(n, 1 - p).logpmf(k), rtol=1e-9)
    np.testing.assert_allclose(value(tfd.Binomial(c(n), probs=c(p)).variance()), stats.binom(n, p).var(), rtol=1e-10)
    assert np.all(value(tfd.Poisson(c(3.0)).log_prob(c([-1.0, 2.5]))) == -np.inf)


@needs_core("math.igammac")
def test_poisson_cdf_against_scipy():
    np.testing.assert_allclose(value(tfd.Poisson(c(3.5)).cdf(c([0.0, 2.0, 7.0]))), stats.poisson(3.5).cdf([0, 2, 7]),
                               rtol=1e-9)


@needs_core("random.stateless_poisson")
def test_poisson_samples_moments():
    x = value(tfd.Poisson(c([0.5, 4.0, 30.0])).sample(20000, seed=3))
    np.testing.assert_allclose(x.mean(0), [0.5, 4.0, 30.0], rtol=0.03)
    np.testing.assert_allclose(x.var(0), [0.5, 4.0, 30.0], rtol=0.06)


def test_multinomial_and_dirichlet_log_prob_against_scipy():
    p = np.array([0.2, 0.3, 0.5])
    counts = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 6.0]])
    np.testing.assert_allclose(value(tfd.Multinomial(c(6.0), probs=c(p)).log_prob(c(counts))),
                               stats.multinomial(6, p).logpmf(counts), rtol=1e-10)
    alpha = np.array([2.0, 3.0, 0.5])
    x = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    d = tfd.Dirichlet(c(alpha))
    np.testing.assert_allclose(value(d.log_prob(c(x))), [stats.dirichlet(alpha).logpdf(v) for v in x], rtol=1e-10)
    np.testing.assert_allclose(value(d.entropy()), stats.dirichlet(alpha).entropy(), rtol=1e-10)
    np.testing.assert_allclose(value(d.mean()), stats.dirichlet(alpha).mean(), rtol=1e-12)


def test_multivariate_normals_against_scipy(rng):
    a = rng.normal(size=(3, 3))
    cov = a @ a.T + 3 * np.eye(3)
    loc = rng.normal(size=(2, 3))
    x = rng.normal(size=(4, 2, 3))
    tril = np.linalg.cholesky(cov)
    d = tfd.MultivariateNormalTriL(c(loc), c(tril))
    assert d.batch_shape == tx.TensorShape([2]) and d.event_shape == tx.TensorShape([3])
    want = np.stack([stats.multivariate_normal(loc[i], cov).logpdf(x[:, i]) for i in range(2)], axis=1)
    np.testing.assert_allclose(value(d.log_prob(c(x))), want, rtol=1e-10)
    np.testing.assert_allclose(value(d.covariance()), np.broadcast_to(cov, (2, 3, 3)), rtol=1e-10)
    np.testing.assert_allclose(value(d.entropy()), stats.multivariate_normal(loc[0], cov).entropy(), rtol=1e-10)
    s = value(d.sample(20000, seed=5))
    np.testing.assert_allclose(np.cov(s[:, 0].T), cov, rtol=0.05, atol=0.1)
    diag = np.array([0.5, 1.0, 2.0])
    dd = tfd.MultivariateNormalDiag(c(loc), c(diag))
    want = np.stack([stats.multivariate_normal(loc[i], np.diag(diag**2)).logpdf(x[:, i]) for i in range(2)], axis=1)
    np.testing.assert_allclose(value(dd.log_prob(c(x))), want, rtol=1e-10)


def test_mixtures_against_numpy():
    w = np.array([0.3, 0.7])
    locs, scales = np.array([-1.0, 2.0]), np.array([0.5, 1.5])
    x = np.linspace(-3, 4, 9)
    want = np.log(np.sum(w * stats.norm(locs, scales).pdf(x[:, None]), axis=1))
    msf = tfd.MixtureSameFamily(tfd.Categorical(probs=c(w)), tfd.Normal(c(locs), c(scales)))
    np.testing.assert_allclose(value(msf.log_prob(c(x))), want, rtol=1e-10)
    mix = tfd.Mixture(tfd.Categorical(probs=c(w)), [tfd.Normal(c(-1.0), c(0.5)), tfd.Normal(c(2.0), c(1.5))])
    np.testing.assert_allclose(value(mix.log_prob(c(x))), want, rtol=1e-10)
    np.testing.assert_allclose(float(value(msf.mean())), w @ locs, rtol=1e-12)
    s = value(msf.sample(20000, seed=8))
    np.testing.assert_allclose(s.mean(), w @ locs, atol=0.05)


def test_independent_and_sample():
    d = tfd.Independent(tfd.Normal(c(np.zeros((2, 3))), c(1.0)), 1)
    assert d.batch_shape == tx.TensorShape([2]) and d.event_shape == tx.TensorShape([3])
    x = np.ones((2, 3))
    np.testing.assert_allclose(value(d.log_prob(c(x))), stats.norm.logpdf(x).sum(-1), rtol=1e-12)
    s = tfd.Sample(tfd.Normal(c(0.0), c(1.0)), sample_shape=[4])
    assert s.event_shape == tx.TensorShape([4]) and value(s.sample(3, seed=1)).shape == (3, 4)
    np.testing.assert_allclose(float(value(s.log_prob(c(np.zeros(4))))), 4 * stats.norm.logpdf(0.0), rtol=1e-12)


def test_joint_distributions():
    jd = tfd.JointDistributionSequential([tfd.Normal(c(0.0), c(1.0)), lambda m: tfd.Normal(m, c(2.0))])
    xs = jd.sample(seed=4)
    want = stats.norm(0, 1).logpdf(value(xs[0])) + stats.norm(value(xs[0]), 2).logpdf(value(xs[1]))
    np.testing.assert_allclose(float(value(jd.log_prob(xs))), want, rtol=1e-10)
    jn = tfd.JointDistributionNamed({"m": tfd.Normal(c(0.0), c(1.0)), "y": lambda m: tfd.Normal(m, c(2.0))})
    v = jn.sample(seed=4)
    assert set(v) == {"m", "y"}
    want = stats.norm(0, 1).logpdf(value(v["m"])) + stats.norm(value(v["m"]), 2).logpdf(value(v["y"]))
    np.testing.assert_allclose(float(value(jn.log_prob(v))), want, rtol=1e-10)


def test_validate_args_errors_name_the_problem():
    with pytest.raises(tx.errors.InvalidArgumentError, match="scale must be positive"):
        tfd.Normal(c(0.0), c(-1.0), validate_args=True)
    with pytest.raises(tx.errors.InvalidArgumentError, match="must sum to one"):
        tfd.Categorical(probs=c([0.3, 0.3]), validate_args=True)
    with pytest.raises(tx.errors.InvalidArgumentError, match="positive diagonal"):
        tfd.MultivariateNormalTriL(c([0.0, 0.0]), c([[1.0, 0.0], [0.5, -1.0]]), validate_args=True)
    with pytest.raises(tx.errors.InvalidArgumentError, match="concentration must be positive"):
        tfd.Gamma(c(-1.0), c(1.0), validate_args=True)
    # Without validate_args the same parameters are accepted (TFP's contract): statistics are NaN.
    assert np.isnan(value(tfd.Normal(c(0.0), c(-1.0)).log_prob(c(0.0))))


def test_validate_args_checks_variables_at_each_use():
    scale = tx.Variable(1.0, dtype=tx.float64)
    d = tfd.Normal(c(0.0), scale, validate_args=True)
    assert np.isfinite(value(d.log_prob(c(0.5))))
    scale.assign(-2.0)
    with pytest.raises(tx.errors.InvalidArgumentError, match="scale must be positive"):
        d.log_prob(c(0.5))


def test_parameters_that_do_not_broadcast_are_a_clear_error():
    with pytest.raises(ValueError, match="do not broadcast"):
        _ = tfd.Normal(c([0.0, 1.0]), c([1.0, 2.0, 3.0])).batch_shape
    with pytest.raises(TypeError, match="share one dtype"):
        tfd.Normal(tx.constant(0.0), tx.constant(1.0, tx.float64))


def test_log_prob_outside_support_is_minus_inf_for_discrete_and_simplex():
    assert value(tfd.Bernoulli(probs=c(0.3), dtype=tx.float64).log_prob(c(2.0))) == -np.inf
    assert value(tfd.Binomial(c(5.0), probs=c(0.3)).log_prob(c(6.0))) == -np.inf
    assert value(tfd.Dirichlet(c([1.0, 2.0])).log_prob(c([-0.5, 1.5]))) == -np.inf


def test_wishart_against_scipy(rng):
    a = rng.normal(size=(3, 3))
    sigma = a @ a.T + np.eye(3)
    tril = np.linalg.cholesky(sigma)
    df = 6.5
    ref = stats.wishart(df, sigma)
    xs = ref.rvs(4, random_state=1)
    d = tfd.WishartTriL(c(df), c(tril))
    assert d.event_shape == tx.TensorShape([3, 3])
    np.testing.assert_allclose(value(d.log_prob(c(xs))), ref.logpdf(xs.transpose(1, 2, 0)), rtol=1e-10)
    np.testing.assert_allclose(value(d.mean()), ref.mean(), rtol=1e-12)
    np.testing.assert_allclose(value(d.variance()), ref.var(), rtol=1e-12)
    np.testing.assert_allclose(value(d.entropy()), ref.entropy(), rtol=1e-10)
    chol = tfd.WishartTriL(c(df), c(tril), input_output_cholesky=True)
    np.testing.assert_allclose(value(chol.log_prob(c(np.linalg.cholesky(xs)))), ref.logpdf(xs.transpose(1, 2, 0)),
                               rtol=1e-10)


@needs_core("random.stateless_gamma")
def test_wishart_samples_have_its_mean():
    tril = np.array([[1.0, 0.0], [0.5, 0.8]])
    s = value(tfd.WishartTriL(c(5.0), c(tril)).sample(20000, seed=2))
    np.testing.assert_allclose(s.mean(0), 5.0 * tril @ tril.T, rtol=0.05)


def _lkj2_density(rho, eta):
    """n = 2: rho = 2B - 1 with B ~ Beta(eta, eta)."""
    return stats.beta(eta, eta).pdf((rho + 1) / 2) / 2


@pytest.mark.parametrize("eta", [0.5, 1.0, 3.0])
def test_cholesky_lkj_density(eta, rng):
    rho = np.array([-0.9, 0.0, 0.4])
    l2 = np.stack([np.array([[1.0, 0.0], [r, np.sqrt(1 - r * r)]]) for r in rho])
    d2 = tfd.CholeskyLKJ(2, c(eta))
    np.testing.assert_allclose(value(d2.log_prob(c(l2))), np.log(_lkj2_density(rho, eta)), rtol=1e-10)
    # n = 3: the density of the three strictly-lower entries integrates to one (Monte Carlo over
    # the box [-1, 1]^3; points outside the support count zero).
    u = rng.uniform(-1, 1, size=(200000, 3))
    l10, l20, l21 = u.T
    ok = (l10**2 < 1) & (l20**2 + l21**2 < 1)
    mats = np.zeros((len(u), 3, 3))
    mats[:, 0, 0] = 1
    mats[:, 1, 0], mats[:, 1, 1] = l10, np.sqrt(np.clip(1 - l10**2, 1e-300, None))
    mats[:, 2, 0], mats[:, 2, 1] = l20, l21
    mats[:, 2, 2] = np.sqrt(np.clip(1 - l20**2 - l21**2, 1e-300, None))
    dens = np.where(ok, np.exp(value(tfd.CholeskyLKJ(3, c(eta)).log_prob(c(mats)))), 0.0) * 8.0
    se = dens.std() / np.sqrt(len(u))
    assert abs(dens.mean() - 1.0) < 5 * se, (dens.mean(), se)
    assert value(d2.log_prob(c([[1.0, 0.0], [0.5, 0.5]]))) == -np.inf  # a row that is not a unit vector


@needs_core("random.stateless_gamma")
def test_cholesky_lkj_samples():
    s = value(tfd.LKJCholesky(3, c(2.0)).sample(4000, seed=6))
    corr = s @ s.transpose(0, 2, 1)
    np.testing.assert_allclose(np.diagonal(corr, axis1=1, axis2=2), 1.0, rtol=1e-10)
    # Off-diagonal correlations of LKJ(eta) in dimension n: rho = 2B - 1, B ~ Beta(eta - 1 + n/2, same).
    b = eta_n = 2.0 - 1 + 3 / 2
    assert stats.kstest(corr[:, 1, 0], lambda r: stats.beta(b, eta_n).cdf((r + 1) / 2)).pvalue > 1e-3

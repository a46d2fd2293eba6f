"""MCMC: NUTS and HMC recover a conjugate posterior (mean and covariance within Monte Carlo error,
R-hat < 1.01 on 4 chains), RWM targets its distribution, adaptation, diagnostics against NumPy
references, and bad targets (NaN log densities) rejected, never propagated."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_probability as txp

from conftest import value

tfd = txp.distributions
mcmc = txp.mcmc


def conjugate_model(rng):
    """Bayesian linear regression with known noise: prior w ~ N(0, I), y = X w + N(0, sigma^2).
    Returns the log joint over w ([chains, 2]) and the exact Gaussian posterior (mean, cov)."""
    n, sigma = 30, 0.5
    x = rng.normal(size=(n, 2))
    y = x @ np.array([1.0, -0.5]) + sigma * rng.normal(size=n)
    cov = np.linalg.inv(np.eye(2) + x.T @ x / sigma**2)
    mean = cov @ (x.T @ y / sigma**2)
    xt, yt = tx.constant(x), tx.constant(y)

    def log_joint(w):
        prior = -0.5 * tx.reduce_sum(tx.square(w), axis=-1)
        resid = yt - tx.linalg.matvec(xt, w)  # w: [chains, 2] -> [chains, n]
        return prior - 0.5 * tx.reduce_sum(tx.square(resid), axis=-1) / sigma**2
    return log_joint, mean, cov


def _check_posterior(draws, mean, cov, ess_floor=100):
    """draws: [N, chains, 2]."""
    flat = draws.reshape(-1, 2)
    ess = value(mcmc.effective_sample_size(tx.constant(draws), cross_chain_dims=1))
    assert np.all(ess > ess_floor), ess
    se = np.sqrt(np.diag(cov) / ess)
    assert np.all(np.abs(flat.mean(0) - mean) < 5 * se), (flat.mean(0), mean, se)
    np.testing.assert_allclose(np.cov(flat.T), cov, rtol=0.25, atol=0.1 * np.abs(cov).max())
    rhat = value(mcmc.potential_scale_reduction(tx.constant(draws)))
    assert np.all(rhat < 1.01), rhat


def test_nuts_recovers_conjugate_posterior_on_four_chains(rng):
    log_joint, mean, cov = conjugate_model(rng)
    kernel = mcmc.WindowedAdaptation(mcmc.NoUTurnSampler(log_joint, step_size=0.1, max_tree_depth=6),
                                     num_adaptation_steps=200)
    out = mcmc.sample_chain(500, tx.zeros([4, 2], tx.float64), kernel, num_burnin_steps=200, seed=17,
                            trace_fn=lambda _, r: (r.inner_results.step_size, r.inner_results.has_divergence))
    draws = value(out.all_states)
    assert draws.shape == (500, 4, 2)
    step, div = value(out.trace[0]), value(out.trace[1])
    assert np.all(step == step[0]) and 0.05 < step[0] < 2.0  # adapted, then fixed
    assert not div.any()
    _check_posterior(draws, mean, cov)


def test_hmc_with_dual_averaging_recovers_conjugate_posterior(rng):
    log_joint, mean, cov = conjugate_model(rng)
    hmc = mcmc.HamiltonianMonteCarlo(log_joint, step_size=1.0, num_leapfrog_steps=5)
    kernel = mcmc.DualAveragingStepSizeAdaptation(hmc, num_adaptation_steps=200, target_accept_prob=0.75)
    out = mcmc.sample_chain(1500, tx.zeros([4, 2], tx.float64), kernel, num_burnin_steps=250, seed=3,
                            trace_fn=lambda _, r: r.inner_results.is_accepted)
    accept = value(out.trace).mean()
    assert 0.55 < accept < 0.95, accept
    _check_posterior(value(out.all_states), mean, cov)


def test_random_walk_metropolis_targets_its_distribution():
    target = tfd.Normal(tx.constant(1.0, tx.float64), tx.constant(2.0, tx.float64))
    kernel = mcmc.RandomWalkMetropolis(target.log_prob, scale=3.0)
    x = value(mcmc.sample_chain(3000, tx.zeros([4], tx.float64), kernel, num_burnin_steps=200, trace_fn=None,
                                seed=9))
    ess = value(mcmc.effective_sample_size(tx.constant(x), cross_chain_dims=1))
    assert abs(x.mean() - 1.0) < 5 * 2.0 / np.sqrt(ess)
    assert abs(x.std() - 2.0) < 0.2


def test_state_as_a_list_of_parts_and_reproducible_seeds():
    def log_prob(a, b):  # a: [chains], b: [chains, 2]
        return -0.5 * tx.square(a) - 0.5 * tx.reduce_sum(tx.square(b - 1.0), axis=-1)
    kernel = mcmc.HamiltonianMonteCarlo(log_prob, step_size=0.5, num_leapfrog_steps=4)
    init = [tx.zeros([3]), tx.zeros([3, 2])]
    a1 = mcmc.sample_chain(50, init, kernel, trace_fn=None, seed=5)
    a2 = mcmc.sample_chain(50, init, kernel, trace_fn=None, seed=5)
    assert [t.shape for t in a1] == [tx.TensorShape([50, 3]), tx.TensorShape([50, 3, 2])]
    np.testing.assert_array_equal(value(a1[1]), value(a2[1]))
    assert not np.array_equal(value(a1[1]), value(mcmc.sample_chain(50, init, kernel, trace_fn=None, seed=6)[1]))


def test_sample_chain_inside_a_graph_function_equals_eager_call():
    kernel = mcmc.NoUTurnSampler(tfd.Normal(0.0, 1.0).log_prob, step_size=0.8, max_tree_depth=4)
    eager = value(mcmc.sample_chain(20, tx.zeros([2]), kernel, trace_fn=None, seed=4))
    traced = value(tx.function(lambda: mcmc.sample_chain(20, tx.zeros([2]), kernel, trace_fn=None, seed=4))())
    np.testing.assert_array_equal(eager, traced)


def test_nan_log_density_is_rejected_not_propagated():
    def log_prob(x):  # NaN to the right of 1: proposals there must be rejected
        return tx.where(x < 1.0, -0.5 * tx.square(x), tx.fill(tx.shape(x), tx.constant(np.nan)))
    for kernel in [mcmc.NoUTurnSampler(log_prob, step_size=0.5, max_tree_depth=5),
                   mcmc.HamiltonianMonteCarlo(log_prob, step_size=0.5, num_leapfrog_steps=4),
                   mcmc.RandomWalkMetropolis(log_prob, scale=1.0)]:
        x = value(mcmc.sample_chain(200, tx.zeros([4]), kernel, trace_fn=None, seed=1))
        assert np.all(np.isfinite(x)) and np.all(x < 1.0), type(kernel).__name__


def test_nuts_reports_divergences_on_a_funnel_edge():
    def log_prob(x):  # a very narrow direction: a large step diverges
        return -0.5 * tx.square(x[..., 0]) - 0.5 * tx.square(x[..., 1] * 1e3)
    kernel = mcmc.NoUTurnSampler(log_prob, step_size=0.5, max_tree_depth=3)
    out = mcmc.sample_chain(10, tx.zeros([2, 2]), kernel, trace_fn=lambda _, r: r.has_divergence, seed=2)
    assert value(out.trace).all()


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="num_leapfrog_steps must be >= 1"):
        mcmc.HamiltonianMonteCarlo(lambda x: -x * x, step_size=0.1, num_leapfrog_steps=0)
    with pytest.raises(ValueError, match="max_tree_depth must be in"):
        mcmc.NoUTurnSampler(lambda x: -x * x, step_size=0.1, max_tree_depth=0)
    with pytest.raises(ValueError, match="target_accept_prob must be in"):
        mcmc.DualAveragingStepSizeAdaptation(mcmc.NoUTurnSampler(lambda x: -x * x, 0.1), 10, target_accept_prob=1.5)
    with pytest.raises(ValueError, match="num_results must be >= 1"):
        mcmc.sample_chain(0, tx.zeros([2]), mcmc.RandomWalkMetropolis(lambda x: -x * x))


def _ess_numpy(x):
    """TFP's single-chain ESS: N / (-1 + 2 sum_t (1 - t/N) rho_t), stopped at the first rho_t < 0."""
    n = len(x)
    xc = x - x.mean()
    acov = np.correlate(xc, xc, "full")[n - 1:] / n
    rho = acov / acov[0]
    stop = np.argmax(rho < 0) if np.any(rho < 0) else n
    t = np.arange(stop)
    return n / (-1 + 2 * np.sum((1 - t / n) * rho[:stop]))


def test_effective_sample_size_matches_numpy_reference(rng):
    x = np.zeros(2000)
    for i in range(1, 2000):  # AR(1), phi = 0.7: ESS about N (1 - phi) / (1 + phi)
        x[i] = 0.7 * x[i - 1] + rng.normal()
    got = float(value(mcmc.effective_sample_size(tx.constant(x))))
    np.testing.assert_allclose(got, _ess_numpy(x), rtol=1e-8)
    assert 200 < got < 500


def test_potential_scale_reduction_matches_formula(rng):
    x = rng.normal(size=(400, 4, 3)) + np.array([0.0, 0.0, 0.0, 1.0])[None, :, None]
    n, m = 400, 4
    w = x.var(axis=0, ddof=1).mean(axis=0)
    b_over_n = x.mean(axis=0).var(axis=0, ddof=1)
    want = np.sqrt((m + 1) / m * ((n - 1) / n * w + b_over_n) / w - (n - 1) / (m * n))
    np.testing.assert_allclose(value(mcmc.potential_scale_reduction(tx.constant(x))), want, rtol=1e-10)
    assert np.all(want > 1.1)
    with pytest.raises(ValueError, match="shape \\[N, chains, ...\\]"):
        mcmc.potential_scale_reduction(tx.constant(x[:, 0, 0]))

"""Warm-up adaptation of HMC/NUTS: dual-averaging step size and a windowed diagonal mass matrix.

Note [Warm-up adaptation]: ``DualAveragingStepSizeAdaptation`` is Hoffman & Gelman's scheme (as
TFP's): after step t, H_t = (1 - 1/(t + t0)) H_{t-1} + (target - mean accept prob) / (t + t0),
log eps_t = mu - sqrt(t) / gamma * H_t, and the averaged log eps_bar_t = t^-kappa log eps_t +
(1 - t^-kappa) log eps_bar_{t-1}; after ``num_adaptation_steps`` the kernel keeps eps_bar. One
step size serves all chains (the mean acceptance over chains drives it). With
``adapt_mass_matrix=True`` (``WindowedAdaptation``, Stan's schedule) the diagonal inverse mass is
also estimated from the draws of doubling windows between an initial and a final buffer of the
warm-up: each window's pooled per-coordinate variance over all chains, shrunk towards 1e-3 as
Stan does (n / (n + 5) var + 1e-3 * 5 / (n + 5)), becomes the inverse mass, and the step-size
averaging restarts (mu = log(10 eps)). Everything is tensors indexed by the step counter, so the
whole warm-up runs inside the sampling loop.
"""

import collections

import numpy as np

import tensorflux as tx

from tensorflux_probability.mcmc import _util
from tensorflux_probability.mcmc.hmc import TransitionKernel

DualAveragingResults = collections.namedtuple(
    "DualAveragingStepSizeAdaptationResults",
    ["inner_results", "step", "shrinkage_target", "error_sum", "log_averaging_step", "window_step",
     "mass_count", "mass_mean", "mass_m2"])


def _window_ends(num_steps, init_buffer=75, term_buffer=50, base_window=25):
    """Stan's mass-matrix windows within ``num_steps`` warm-up steps: (the first window's first
    step, the 0-based steps after which a window closes)."""
    if num_steps < 20:
        return num_steps, []
    if init_buffer + term_buffer + base_window > num_steps:
        init_buffer, term_buffer = int(0.15 * num_steps), int(0.1 * num_steps)
        base_window = num_steps - init_buffer - term_buffer
    ends, start, size = [], init_buffer, base_window
    last = num_steps - term_buffer
    while start < last:
        end = start + size
        if end + 2 * size > last:  # the next window would not fit: this one runs to the buffer
            end = last
        ends.append(end - 1)
        start, size = end, size * 2
    return init_buffer, ends


class DualAveragingStepSizeAdaptation(TransitionKernel):
    """Adapts the inner HMC/NUTS kernel's step size for ``num_adaptation_steps`` steps towards an
    average acceptance of ``target_accept_prob`` (Note [Warm-up adaptation]).

    >>> tfd = txp.distributions
    >>> hmc = txp.mcmc.HamiltonianMonteCarlo(tfd.Normal(0.0, 1.0).log_prob, step_size=2.5, num_leapfrog_steps=3)
    >>> k = txp.mcmc.DualAveragingStepSizeAdaptation(hmc, num_adaptation_steps=200, target_accept_prob=0.8)
    >>> out = txp.mcmc.sample_chain(100, tx.zeros([4]), k, num_burnin_steps=250, seed=5,
    ...                             trace_fn=lambda _, r: r.inner_results.step_size)
    >>> 0.3 < float(out.trace[-1]) < 2.5
    True
    """

    _adapt_mass = False

    def __init__(self, inner_kernel, num_adaptation_steps, target_accept_prob=0.75, exploration_shrinkage=0.05,
                 step_count_smoothing=10, decay_rate=0.75, name=None):
        self.inner_kernel = inner_kernel
        self.num_adaptation_steps = int(num_adaptation_steps)
        self.target_accept_prob = float(target_accept_prob)
        if not 0.0 < self.target_accept_prob < 1.0:
            raise ValueError("target_accept_prob must be in (0, 1), got %r" % target_accept_prob)
        self.gamma = float(exploration_shrinkage)
        self.t0 = float(step_count_smoothing)
        self.kappa = float(decay_rate)
        self.name = name or "dual_averaging"
        start, ends = _window_ends(self.num_adaptation_steps) if self._adapt_mass else (0, [])
        self._window_end = np.zeros([max(self.num_adaptation_steps, 1)], bool)
        self._window_end[ends] = True
        self._window_start = start if ends else self.num_adaptation_steps

    def bootstrap_results(self, init_state):
        inner = self.inner_kernel.bootstrap_results(init_state)
        dt = inner.target_log_prob.dtype
        eps = tx.cast(inner.step_size, dt)
        dim = inner.inverse_mass.shape.as_list()[-1]
        zero = tx.constant(0.0, dt)
        return DualAveragingResults(inner, tx.constant(0), tx.math.log(10.0 * eps), zero, tx.math.log(eps),
                                    tx.constant(0), zero, tx.zeros([dim], dt), tx.zeros([dim], dt))

    def one_step(self, current_state, previous_kernel_results, seed=None):
        r = previous_kernel_results
        state, inner = self.inner_kernel.one_step(current_state, r.inner_results, seed)
        dt = inner.target_log_prob.dtype
        adapting = r.step < self.num_adaptation_steps
        accept = tx.reduce_mean(tx.exp(tx.minimum(inner.log_accept_ratio, tx.zeros_like(inner.log_accept_ratio))))
        t = tx.cast(r.window_step + 1, dt)
        w = 1.0 / (t + self.t0)
        error_sum = (1.0 - w) * r.error_sum + w * (self.target_accept_prob - accept)
        log_eps = r.shrinkage_target - tx.sqrt(t) / self.gamma * error_sum
        eta = tx.pow(t, -self.kappa)
        log_avg = eta * log_eps + (1.0 - eta) * r.log_averaging_step
        new_eps = tx.where(adapting, tx.exp(log_eps), tx.exp(log_avg))
        # After the last adaptation step the averaged step size is kept (TFP's behaviour).
        new_eps = tx.where(tx.equal(r.step, self.num_adaptation_steps - 1), tx.exp(log_avg), new_eps)
        new_eps = tx.where(r.step < self.num_adaptation_steps, new_eps, inner.step_size)
        out = DualAveragingResults(inner._replace(step_size=tx.cast(new_eps, dt)), r.step + 1, r.shrinkage_target,
                                   error_sum, log_avg, r.window_step + 1, r.mass_count, r.mass_mean, r.mass_m2)
        if self._adapt_mass:
            out = self._adapt_mass_matrix(state, out, r.step)
        return state, out

    def _adapt_mass_matrix(self, state, r, step):
        """Pools this step's draws into the window's variance estimate; at a window's end sets the
        inverse mass from it and restarts the step-size averaging (Note [Warm-up adaptation])."""
        inner = r.inner_results
        parts, _ = _util.as_parts(state)
        layout = _util.StateLayout(parts, inner.target_log_prob.shape.rank)
        x = tx.reshape(layout.pack(parts), [-1, layout.dim])
        dt = x.dtype
        in_window = tx.logical_and(step >= self._window_start, step < self.num_adaptation_steps)
        nb = tx.cast(tx.shape(x)[0], dt)
        mean_b = tx.reduce_mean(x, axis=0)
        m2_b = tx.reduce_sum(tx.square(x - mean_b), axis=0)
        n = r.mass_count + nb
        delta = mean_b - r.mass_mean
        mean = r.mass_mean + delta * nb / n
        m2 = r.mass_m2 + m2_b + tx.square(delta) * r.mass_count * nb / n
        count = tx.where(in_window, n, r.mass_count)
        mean = tx.where(in_window, mean, r.mass_mean)
        m2 = tx.where(in_window, m2, r.mass_m2)
        ends = tx.constant(self._window_end)
        idx = tx.minimum(step, tx.constant(self._window_end.shape[0] - 1))
        at_end = tx.logical_and(in_window, tx.gather(ends, idx))
        var = m2 / tx.maximum(count - 1.0, tx.ones_like(count))
        regularized = (count / (count + 5.0)) * var + 1e-3 * (5.0 / (count + 5.0))
        inv_mass = tx.where(at_end, regularized, inner.inverse_mass)
        zero = tx.zeros_like(count)
        eps = inner.step_size
        inner = inner._replace(inverse_mass=inv_mass)
        return DualAveragingResults(
            inner, r.step, tx.where(at_end, tx.math.log(10.0 * eps), r.shrinkage_target),
            tx.where(at_end, zero, r.error_sum), tx.where(at_end, tx.math.log(eps), r.log_averaging_step),
            tx.where(at_end, tx.constant(0), r.window_step), tx.where(at_end, zero, count),
            tx.where(at_end, tx.zeros_like(mean), mean), tx.where(at_end, tx.zeros_like(m2), m2))


class WindowedAdaptation(DualAveragingStepSizeAdaptation):
    """Stan's warm-up: dual-averaging step size and a diagonal mass matrix estimated over doubling
    windows (Note [Warm-up adaptation]); target acceptance 0.8 by default, as Stan and NumPyro.

    >>> tfd = txp.distributions
    >>> target = tfd.Independent(tfd.Normal([0.0, 0.0], [1.0, 10.0]), 1).log_prob
    >>> nuts = txp.mcmc.NoUTurnSampler(target, step_size=0.5)
    >>> k = txp.mcmc.WindowedAdaptation(nuts, num_adaptation_steps=300)
    >>> out = txp.mcmc.sample_chain(10, tx.zeros([2, 2]), k, num_burnin_steps=300, seed=7,
    ...                             trace_fn=lambda _, r: r.inner_results.inverse_mass)
    >>> m = out.trace[-1].numpy(); bool(m[1] / m[0] > 20)
    True
    """

    _adapt_mass = True

    def __init__(self, inner_kernel, num_adaptation_steps, target_accept_prob=0.8, **kwargs):
        super().__init__(inner_kernel, num_adaptation_steps, target_accept_prob, **kwargs)

"""Hamiltonian Monte Carlo and random-walk Metropolis transition kernels (TFP's ``tfp.mcmc``
contract: ``bootstrap_results(state)`` and ``one_step(state, results, seed)``, both pure tensor
functions, so a whole chain runs inside one ``tx.while_loop``)."""

import collections

import numpy as np

import tensorflux as tx

from tensorflux_probability.internal import samplers
from tensorflux_probability.mcmc import _util

HamiltonianMonteCarloResults = collections.namedtuple(
    "HamiltonianMonteCarloResults",
    ["target_log_prob", "grads_target_log_prob", "log_accept_ratio", "is_accepted", "step_size", "inverse_mass"])

RandomWalkMetropolisResults = collections.namedtuple(
    "RandomWalkMetropolisResults", ["target_log_prob", "log_accept_ratio", "is_accepted"])


class TransitionKernel:
    """A Markov transition: ``one_step(state, results, seed) -> (state, results)``."""

    is_calibrated = True

    def bootstrap_results(self, init_state):
        raise NotImplementedError

    def one_step(self, current_state, previous_kernel_results, seed=None):
        raise NotImplementedError


def _kinetic(p, inverse_mass):
    """0.5 p^T M^-1 p per chain (diagonal M^-1)."""
    return 0.5 * tx.reduce_sum(tx.square(p) * inverse_mass, axis=-1)


def leapfrog(grad_fn, x, p, g, step_size, inverse_mass, num_steps):
    """``num_steps`` leapfrog steps of size ``step_size`` (a scalar or one per chain, broadcast
    against ``x``) from (x, p) with gradient ``g``; returns (x, p, log density, gradient)."""
    def body(i, x, p, g, lp):
        p = p + 0.5 * step_size * g
        x = x + step_size * inverse_mass * p
        lp, g = grad_fn(x)
        p = p + 0.5 * step_size * g
        return i + 1, x, p, g, lp
    lp0 = tx.zeros(_util.shape_of(x)[:-1], x.dtype)
    _, x, p, g, lp = tx.while_loop(lambda i, *_: i < num_steps, body, [tx.constant(0), x, p, g, lp0])
    return x, p, lp, g


class HamiltonianMonteCarlo(TransitionKernel):
    """HMC with a diagonal mass matrix: ``num_leapfrog_steps`` leapfrog steps of ``step_size``,
    then a Metropolis accept/reject; a NaN or -inf log density at the proposal rejects it.

    ``step_size`` and the inverse mass (``inverse_mass_diag``, default ones) live in the kernel
    results, where the adaptation kernels change them during warm-up.

    >>> tfd = txp.distributions
    >>> kernel = txp.mcmc.HamiltonianMonteCarlo(tfd.Normal(0.0, 1.0).log_prob, step_size=0.5, num_leapfrog_steps=3)
    >>> samples = txp.mcmc.sample_chain(200, tx.zeros([4]), kernel, num_burnin_steps=50, trace_fn=None, seed=1)
    >>> samples.shape
    TensorShape([200, 4])
    """

    def __init__(self, target_log_prob_fn, step_size, num_leapfrog_steps, inverse_mass_diag=None, name=None):
        self.target_log_prob_fn = target_log_prob_fn
        self.step_size = step_size
        self.num_leapfrog_steps = int(num_leapfrog_steps)
        if self.num_leapfrog_steps < 1:
            raise ValueError("num_leapfrog_steps must be >= 1, got %d" % self.num_leapfrog_steps)
        self.inverse_mass_diag = inverse_mass_diag
        self.name = name or "hmc"

    def _layout(self, state):
        parts, self._is_list = _util.as_parts(state)
        layout = _util.StateLayout(parts, _util.batch_ndims_of(self.target_log_prob_fn, parts))
        return parts, layout

    def _grad_fn(self, layout):
        return lambda x: _util.value_and_gradient(self.target_log_prob_fn, layout, x)

    def _wrap(self, layout, x):
        parts = layout.unpack(x)
        return parts if self._is_list else parts[0]

    def bootstrap_results(self, init_state):
        """The results of a chain that starts at ``init_state``."""
        parts, layout = self._layout(init_state)
        x = layout.pack(parts)
        lp, g = self._grad_fn(layout)(x)
        inv_mass = (tx.ones([layout.dim], x.dtype) if self.inverse_mass_diag is None
                    else layout.pack([tx.broadcast_to(tx.cast(m, x.dtype), layout.batch_shape + s)
                                      for m, s in zip(_util.as_parts(self.inverse_mass_diag)[0],
                                                      layout.event_shapes)])[(0,) * len(layout.batch_shape)])
        return HamiltonianMonteCarloResults(lp, g, tx.zeros_like(lp), tx.ones(_util.shape_of(lp), tx.bool),
                                            tx.cast(self.step_size, x.dtype), inv_mass)

    def one_step(self, current_state, previous_kernel_results, seed=None):
        """One HMC transition: (next state, its results)."""
        parts, layout = self._layout(current_state)
        r = previous_kernel_results
        x = layout.pack(parts)
        momentum_seed, accept_seed = samplers.split_seed(seed, 2, salt="hmc")
        p = samplers.normal(_util.shape_of(x), momentum_seed, x.dtype) * tx.math.rsqrt(r.inverse_mass)
        x1, p1, lp1, g1 = leapfrog(self._grad_fn(layout), x, p, r.grads_target_log_prob, r.step_size,
                                   r.inverse_mass, self.num_leapfrog_steps)
        log_ratio = (lp1 - _kinetic(p1, r.inverse_mass)) - (r.target_log_prob - _kinetic(p, r.inverse_mass))
        log_ratio = _util.safe_log_accept(log_ratio)
        u = samplers.uniform_open(_util.shape_of(log_ratio), accept_seed, x.dtype)
        accept = tx.math.log(u) < log_ratio
        acc_x = _util.expand_right(accept, x)
        new_x = tx.where(acc_x, x1, x)
        results = HamiltonianMonteCarloResults(
            tx.where(accept, lp1, r.target_log_prob), tx.where(acc_x, g1, r.grads_target_log_prob),
            log_ratio, accept, r.step_size, r.inverse_mass)
        return self._wrap(layout, new_x), results


class RandomWalkMetropolis(TransitionKernel):
    """Metropolis with a symmetric proposal: ``new_state_fn(state_parts, seed)`` (default: add
    N(0, scale**2) noise to every part).

    >>> k = txp.mcmc.RandomWalkMetropolis(txp.distributions.Normal(0.0, 1.0).log_prob, scale=1.0)
    >>> txp.mcmc.sample_chain(100, tx.zeros([2]), k, trace_fn=None, seed=3).shape
    TensorShape([100, 2])
    """

    def __init__(self, target_log_prob_fn, new_state_fn=None, scale=1.0, name=None):
        self.target_log_prob_fn = target_log_prob_fn
        self.new_state_fn = new_state_fn or random_walk_normal_fn(scale)
        self.name = name or "rwm"

    def bootstrap_results(self, init_state):
        parts, _ = _util.as_parts(init_state)
        lp = _safe_lp(self.target_log_prob_fn(*parts))
        return RandomWalkMetropolisResults(lp, tx.zeros_like(lp), tx.ones(_util.shape_of(lp), tx.bool))

    def one_step(self, current_state, previous_kernel_results, seed=None):
        parts, is_list = _util.as_parts(current_state)
        proposal_seed, accept_seed = samplers.split_seed(seed, 2, salt="rwm")
        proposed = list(self.new_state_fn(parts, proposal_seed))
        lp1 = _safe_lp(self.target_log_prob_fn(*proposed))
        log_ratio = _util.safe_log_accept(lp1 - previous_kernel_results.target_log_prob)
        u = samplers.uniform_open(_util.shape_of(log_ratio), accept_seed, lp1.dtype)
        accept = tx.math.log(u) < log_ratio
        new = [tx.where(_util.expand_right(accept, a), a, b) for a, b in zip(proposed, parts)]
        results = RandomWalkMetropolisResults(tx.where(accept, lp1, previous_kernel_results.target_log_prob),
                                              log_ratio, accept)
        return (new if is_list else new[0]), results


def _safe_lp(lp):
    lp = tx.convert_to_tensor(lp)
    return tx.where(tx.math.is_nan(lp), tx.constant(-np.inf, lp.dtype), lp)


def random_walk_normal_fn(scale=1.0):
    """A proposal adding N(0, scale**2) noise to each state part (``scale`` one value or one per part)."""
    def fn(parts, seed):
        scales = scale if isinstance(scale, (list, tuple)) else [scale] * len(parts)
        seeds = samplers.split_seed(seed, len(parts)) if len(parts) > 1 else [seed]
        return [p + tx.cast(s, p.dtype) * samplers.normal(_util.shape_of(p), sd, p.dtype)
                for p, s, sd in zip(parts, scales, seeds)]
    return fn


def random_walk_uniform_fn(scale=1.0):
    """A proposal adding U(-scale, scale) noise to each state part."""
    def fn(parts, seed):
        scales = scale if isinstance(scale, (list, tuple)) else [scale] * len(parts)
        seeds = samplers.split_seed(seed, len(parts)) if len(parts) > 1 else [seed]
        return [p + samplers.uniform(_util.shape_of(p), sd, p.dtype, -1.0, 1.0) * tx.cast(s, p.dtype)
                for p, s, sd in zip(parts, scales, seeds)]
    return fn

"""The No-U-Turn Sampler, iterative, for a batch of chains inside the engine.

Note [Iterative NUTS]: one transition draws a momentum and doubles a trajectory up to
``max_tree_depth`` times, each doubling in a random direction and built leaf by leaf in a
``tx.while_loop`` (no recursion, so the whole transition is one graph). Within a new subtree a
candidate is drawn multinomially (leaf weights exp(-H)); across doublings the subtree's candidate
replaces the tree's with probability min(1, w_subtree / w_tree) (Betancourt's biased progressive
sampling, as Stan and NumPyro). The generalised no-U-turn criterion (rho . M^-1 p_end > 0 at both
ends, rho the momentum sum) is checked on every balanced sub-subtree as soon as its last leaf is
made: for each level l the momentum and running momentum sum at the leaf that opened the current
level-l block are kept in a ``[max_tree_depth, chains, D]`` checkpoint, so checks need O(depth)
memory. A U-turn or a divergence (energy error above 1000) inside a subtree discards it and ends
the tree; a U-turn of the whole tree ends it after merging. Chains finish at different depths:
a finished chain's values are held by masks while the others go on, so every chain takes one
transition per step. The acceptance statistic for step-size adaptation is the mean of
min(1, exp(H0 - H)) over the new leaves (``log_accept_ratio`` holds its log).
"""

import collections

import numpy as np

import tensorflux as tx

from tensorflux_probability.internal import samplers
from tensorflux_probability.mcmc import _util
from tensorflux_probability.mcmc.hmc import HamiltonianMonteCarlo, _kinetic

NUTSResults = collections.namedtuple(
    "NUTSKernelResults",
    ["target_log_prob", "grads_target_log_prob", "log_accept_ratio", "is_accepted", "step_size", "inverse_mass",
     "leapfrogs_taken", "tree_depth", "has_divergence"])

_MAX_ENERGY_ERROR = 1000.0


def _concat(a, b):
    return a + b if isinstance(a, list) and isinstance(b, list) else tx.concat([a, b], 0)


def _dot(a, b):
    return tx.reduce_sum(a * b, axis=-1)


def _log_add(a, b):
    m = tx.maximum(a, b)
    m_safe = tx.where(tx.math.is_finite(m), m, tx.zeros_like(m))
    return m_safe + tx.math.log(tx.exp(a - m_safe) + tx.exp(b - m_safe))


class NoUTurnSampler(HamiltonianMonteCarlo):
    """NUTS (Note [Iterative NUTS]) with a diagonal mass matrix; up to 2**max_tree_depth - 1
    leapfrog steps per transition. Combine with ``WindowedAdaptation`` for Stan-style warm-up.

    >>> tfd = txp.distributions
    >>> k = txp.mcmc.NoUTurnSampler(tfd.Normal(0.0, 1.0).log_prob, step_size=0.7)
    >>> x = txp.mcmc.sample_chain(300, tx.zeros([4]), k, trace_fn=None, seed=11)
    >>> abs(float(tx.reduce_mean(x))) < 0.2
    True
    """

    def __init__(self, target_log_prob_fn, step_size, max_tree_depth=10, inverse_mass_diag=None, name=None):
        super().__init__(target_log_prob_fn, step_size, 1, inverse_mass_diag, name or "nuts")
        self.max_tree_depth = int(max_tree_depth)
        if not 1 <= self.max_tree_depth <= 30:
            raise ValueError("max_tree_depth must be in [1, 30], got %d" % self.max_tree_depth)

    def bootstrap_results(self, init_state):
        r = super().bootstrap_results(init_state)
        zeros = tx.zeros(_util.shape_of(r.target_log_prob), tx.int32)
        return NUTSResults(*r, zeros, zeros, tx.zeros(_util.shape_of(r.target_log_prob), tx.bool))

    def one_step(self, current_state, previous_kernel_results, seed=None):
        """One NUTS transition: (next state, its results)."""
        parts, layout = self._layout(current_state)
        r = previous_kernel_results
        grad_fn = self._grad_fn(layout)
        x0 = layout.pack(parts)
        m = r.inverse_mass
        seed = samplers.sanitize_seed(seed, salt="nuts")
        seed, momentum_seed = samplers.split_seed(seed, 2)
        p0 = samplers.normal(_util.shape_of(x0), momentum_seed, x0.dtype) * tx.math.rsqrt(m)
        h0 = -r.target_log_prob + _kinetic(p0, m)
        lp0, g0 = r.target_log_prob, r.grads_target_log_prob
        batch = _util.shape_of(lp0)
        dt = x0.dtype
        zero_b = tx.zeros(batch, dt)
        levels = self.max_tree_depth
        pow2 = tx.constant([2 ** level for level in range(levels)], tx.int32)

        def expand(v, like):
            return _util.expand_right(v, like)

        def leaf_loop(depth, d, xs, ps, gs, lps, active, seed):
            """Builds a subtree of 2**depth leaves from edge (xs, ps, gs) in direction d (+-1 per
            chain); returns its last leaf, candidate, log weight, momentum sum, validity, acceptance."""
            n_leaves = tx.gather(pow2, depth)
            step = expand(tx.cast(d, dt), xs) * r.step_size
            ck = tx.zeros(_concat([levels], _util.shape_of(xs)), dt)

            def body(k, x, p, g, lp, cx, clp, cg, logw, psum, ck_p, ck_sum, live, valid, acc, n, dvg, seed):
                seed, pick_seed = samplers.split_seed(seed, 2)
                p1 = p + 0.5 * step * g
                x1 = x + step * m * p1
                lp1, g1 = grad_fn(x1)
                p1 = p1 + 0.5 * step * g1
                delta = -lp1 + _kinetic(p1, m) - h0
                delta = tx.where(tx.math.is_nan(delta), tx.constant(np.inf, dt), delta)
                divergent = delta > _MAX_ENERGY_ERROR
                logw1 = _log_add(logw, -delta)
                u = samplers.uniform_open(batch, pick_seed, dt)
                take = tx.math.log(u) < (-delta - logw1)
                psum1 = psum + p1
                store = tx.equal(tx.math.floormod(k, pow2), 0)
                store_b = tx.reshape(store, [levels] + [1] * (ck_p.shape.rank - 1))
                ck_p1 = tx.where(store_b, p1, ck_p)
                ck_sum1 = tx.where(store_b, psum, ck_sum)
                check = tx.logical_and(tx.equal(tx.math.floormod(k + 1, pow2), 0),
                                       tx.logical_and(pow2 > 1, pow2 <= n_leaves))
                rho = psum1 - ck_sum1
                turned = tx.logical_or(_dot(rho, m * ck_p1) <= 0, _dot(rho, m * p1) <= 0)  # [levels, chains...]
                check_b = tx.reshape(check, [levels] + [1] * (turned.shape.rank - 1))
                uturn = tx.reduce_any(tx.logical_and(check_b, turned), axis=0)
                upd = live
                ub = expand(upd, x)
                ub_ck = tx.expand_dims(ub, 0)
                take = tx.logical_and(upd, take)
                tb = expand(take, x)
                return (k + 1, tx.where(ub, x1, x), tx.where(ub, p1, p), tx.where(ub, g1, g), tx.where(upd, lp1, lp),
                        tx.where(tb, x1, cx), tx.where(take, lp1, clp), tx.where(tb, g1, cg),
                        tx.where(upd, logw1, logw), tx.where(ub, psum1, psum),
                        tx.where(ub_ck, ck_p1, ck_p), tx.where(ub_ck, ck_sum1, ck_sum),
                        tx.logical_and(live, tx.logical_not(tx.logical_or(uturn, divergent))),
                        tx.logical_and(valid, tx.logical_not(tx.logical_and(upd, tx.logical_or(uturn, divergent)))),
                        acc + tx.where(upd, tx.exp(tx.minimum(-delta, zero_b)), zero_b),
                        n + tx.cast(upd, tx.int32), tx.logical_or(dvg, tx.logical_and(upd, divergent)), seed)

            def cond(k, *rest):
                live = rest[11]
                return tx.logical_and(k < n_leaves, tx.reduce_any(live))

            neg_inf = tx.fill(batch, tx.constant(-np.inf, dt))
            out = tx.while_loop(cond, body, [tx.constant(0), xs, ps, gs, lps, xs, lps, gs, neg_inf, tx.zeros_like(xs),
                                             ck, ck, active, tx.ones(batch, tx.bool), zero_b,
                                             tx.zeros(batch, tx.int32), tx.zeros(batch, tx.bool), seed])
            return out[1:]

        def tree_body(depth, xl, pl, gl, lpl, xr, pr, gr, lpr, cx, clp, cg, logw, psum, active, acc, n, div, seed):
            seed, dir_seed, leaf_seed, merge_seed = samplers.split_seed(seed, 4)
            d = tx.where(samplers.uniform(batch, dir_seed, dt) < 0.5, tx.constant(-1.0, dt), tx.constant(1.0, dt))
            fwd = d > 0
            fb = expand(fwd, xl)
            xs, ps, gs, lps = (tx.where(fb, xr, xl), tx.where(fb, pr, pl), tx.where(fb, gr, gl),
                               tx.where(fwd, lpr, lpl))
            (x, p, g, lp, sx, slp, sg, slogw, spsum, _, _, _, valid, sacc, sn, sdiv, _) = leaf_loop(
                depth, d, xs, ps, gs, lps, active, leaf_seed)
            merge = tx.logical_and(active, valid)
            u = samplers.uniform_open(batch, merge_seed, dt)
            take = tx.logical_and(merge, tx.math.log(u) < slogw - logw)
            tb, mb = expand(take, xl), expand(merge, xl)
            right, left = tx.logical_and(merge, fwd), tx.logical_and(merge, tx.logical_not(fwd))
            rb, lb = expand(right, xl), expand(left, xl)
            xr, pr, gr, lpr = tx.where(rb, x, xr), tx.where(rb, p, pr), tx.where(rb, g, gr), tx.where(right, lp, lpr)
            xl, pl, gl, lpl = tx.where(lb, x, xl), tx.where(lb, p, pl), tx.where(lb, g, gl), tx.where(left, lp, lpl)
            psum = tx.where(mb, psum + spsum, psum)
            turned = tx.logical_or(_dot(psum, m * pl) <= 0, _dot(psum, m * pr) <= 0)
            return (depth + 1, xl, pl, gl, lpl, xr, pr, gr, lpr,
                    tx.where(tb, sx, cx), tx.where(take, slp, clp), tx.where(tb, sg, cg),
                    tx.where(merge, _log_add(logw, slogw), logw), psum,
                    tx.logical_and(merge, tx.logical_not(turned)), acc + sacc, n + sn,
                    tx.logical_or(div, sdiv), seed)

        def tree_cond(depth, *rest):
            return tx.logical_and(depth < self.max_tree_depth, tx.reduce_any(rest[13]))

        init = [tx.constant(0), x0, p0, g0, lp0, x0, p0, g0, lp0, x0, lp0, g0, tx.zeros_like(lp0), p0,
                tx.ones(batch, tx.bool), zero_b, tx.zeros(batch, tx.int32), tx.zeros(batch, tx.bool), seed]
        out = tx.while_loop(tree_cond, tree_body, init)
        depth, cx, clp, cg, acc, n, div = out[0], out[9], out[10], out[11], out[15], out[16], out[17]
        n_f = tx.maximum(tx.cast(n, dt), tx.ones_like(acc))
        log_accept = tx.math.log(acc / n_f)
        moved = tx.reduce_any(tx.not_equal(cx, x0), axis=-1)
        results = NUTSResults(clp, cg, log_accept, moved, r.step_size, m, n, tx.fill(batch, depth), div)
        return self._wrap(layout, cx), results

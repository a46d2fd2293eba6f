"""Sharpness-Aware Minimization, Foret, Kleiner, Mobahi & Neyshabur 2021, "Sharpness-Aware
Minimization for Efficiently Improving Generalization" (arXiv:2010.01412), Algorithm 1:

    eps_t   = rho * g(theta_t) / ||g(theta_t)||_2           (one global norm over all variables)
    theta_{t+1} = theta_t + inner_update(g(theta_t + eps_t))

As a plain optimizer it alternates (optax.contrib.sam's transparent mode, sync_period=2): an odd
apply_gradients call is the ascent step (the variables move to theta + eps and are remembered),
the next one applies the wrapped optimizer, with the gradient taken there, from the remembered
theta. So every other call is a real step: under Keras's fit, each SAM step sees two batches (the
stochastic variant); `minimize` with a loss callable (eager) does both halves on the same loss.
"""

import tensorflux as tx
from tensorflux.optimizers import GradientTransformation, Optimizer

from tensorflux_addons.optimizers._base import (check_hyper, commit_all, copy_of, inner_transformation,
                                                prefixed_slots, run_deferred)

INNER = "inner/"


def sam(transformation, rho=0.05, epsilon=1e-12):
    """SAM around ``transformation`` (slot ``cache``, the remembered theta, plus its slots under
    ``inner/``): even steps ascend by rho * g / ||g||, odd steps apply ``transformation``."""
    check_hyper(rho=rho, epsilon=epsilon)

    def update(updates, slot_vars, params, step):
        ascent = tx.equal(step % 2, tx.cast(0, step.dtype))
        norm = tx.sqrt(tx.add_n([tx.reduce_sum(tx.square(tx.cast(u, tx.float64))) for u in updates]))
        caches = [s["cache"].value() for s in slot_vars]
        thetas = [p.value() for p in params]
        inner_updates, deferred = run_deferred(transformation, INNER, updates, slot_vars, params, step // 2)
        out, ops = [], []
        for u, iu, cache, theta, s in zip(updates, inner_updates, caches, thetas, slot_vars):
            up = u * tx.cast(rho / (norm + epsilon), u.dtype)
            out.append(tx.where(ascent, up, cache - theta + iu))
            with tx.control_dependencies([cache, theta]):
                ops.append(s["cache"].assign(tx.where(ascent, theta, cache), read_value=False))
        ops.extend(commit_all(deferred, tx.logical_not(ascent)))
        if not tx.executing_eagerly():
            with tx.control_dependencies(ops):
                out = [tx.identity(u) for u in out]
        return out, ops
    return GradientTransformation("sam", dict(prefixed_slots(INNER, transformation), cache=copy_of), update)


class SAMOptimizer(Optimizer):
    """An Optimizer running SAM's two half-steps on alternate calls; `minimize` with an eager loss
    callable runs both on that loss."""

    def minimize(self, loss, var_list=None, name=None, tape=None):
        """Eagerly, with a loss callable: the ascent and the update on the same loss (one SAM
        step); otherwise one half-step, as apply_gradients."""
        if tx.executing_eagerly() and callable(loss) and tape is None:
            super().minimize(loss, var_list, name=name)
        return super().minimize(loss, var_list, name=name, tape=tape)


def SAM(optimizer, rho=0.05, name=None):  # noqa: N802
    """``optimizer`` (an Optimizer or a transformation) made sharpness-aware.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([3.0, 4.0])
    >>> opt = txa.optimizers.SAM(tx.optimizers.SGD(0.1), rho=0.5)
    >>> opt.minimize(lambda: tx.reduce_sum(w * w), var_list=[w])   # gradient taken at w + 0.5 w / |w|
    >>> np.round(w.numpy(), 4)
    array([2.34, 3.12], dtype=float32)
    """
    inner = inner_transformation(optimizer)
    return SAMOptimizer(sam(inner, rho), name=name or "SAM" + ("_" + optimizer.name if isinstance(
        optimizer, Optimizer) else ""))

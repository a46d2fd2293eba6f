"""Lookahead, Zhang, Lucas, Hinton & Ba 2019, "Lookahead Optimizer: k steps forward, 1 step back"
(arXiv:1907.08610), Algorithm 1: the wrapped ("fast") optimizer updates the variables; every k
steps the slow weights phi move towards them and the variables restart from there:

    theta_t = theta_{t-1} + inner_update_t                  (the wrapped optimizer, whole)
    if t mod k = 0:  phi <- phi + alpha (theta_t - phi);  theta_t <- phi

The wrapped optimizer is kept whole, its weight decay included (tensorflow-addons' Lookahead
wrapped only the gradient step of its inner optimizer and so dropped decoupled weight decay).
"""

import tensorflux as tx
from tensorflux.optimizers import GradientTransformation, Optimizer

from tensorflux_addons.optimizers._base import check_hyper, check_unit_interval, copy_of, inner_transformation

INNER = "inner/"


def lookahead(transformation, sync_period=6, slow_step_size=0.5):
    """Lookahead around ``transformation`` (slot ``slow`` plus its slots under ``inner/``)."""
    check_hyper(slow_step_size=slow_step_size)
    check_unit_interval(slow_step_size=slow_step_size)
    if int(sync_period) != sync_period or sync_period < 1:
        raise ValueError("sync_period must be a positive integer, got %r" % (sync_period,))

    def update(updates, slot_vars, params, step):
        inner = [{k[len(INNER):]: v for k, v in s.items() if k.startswith(INNER)} for s in slot_vars]
        fast_updates, ops = transformation.update(updates, inner, params, step)
        sync = tx.equal((step + 1) % int(sync_period), tx.cast(0, step.dtype))
        out = []
        for u, s, p in zip(fast_updates, slot_vars, params):
            theta, slow = p.value(), s["slow"].value()
            new_slow = slow + (theta + u - slow) * tx.cast(slow_step_size, u.dtype)
            with tx.control_dependencies([theta, slow]):
                ops.append(s["slow"].assign(tx.where(sync, new_slow, slow), read_value=False))
            out.append(tx.where(sync, new_slow - theta, u))
        return out, ops
    slots = {INNER + k: init for k, init in transformation.slots.items()}
    slots["slow"] = copy_of
    return GradientTransformation("lookahead", slots, update)


def Lookahead(optimizer, sync_period=6, slow_step_size=0.5, name=None):  # noqa: N802
    """``optimizer`` (an Optimizer or a transformation) wrapped by Lookahead.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([1.0])
    >>> opt = txa.optimizers.Lookahead(tx.optimizers.SGD(0.1), sync_period=2, slow_step_size=0.5)
    >>> for _ in range(2):
    ...     _ = opt.apply_gradients([(tx.constant([1.0]), w)])
    >>> w.numpy()   # fast weights reached 0.8; the slow ones moved halfway from 1.0
    array([0.9], dtype=float32)
    """
    inner = inner_transformation(optimizer)
    return Optimizer(lookahead(inner, sync_period, slow_step_size),
                     name=name or "Lookahead" + ("_" + optimizer.name if isinstance(optimizer, Optimizer) else ""))

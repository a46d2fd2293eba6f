"""Schedule-Free AdamW, Defazio et al. 2024, "The Road Less Scheduled" (arXiv:2405.15682),
Algorithm 1. The variables hold y, where gradients are taken; the slots hold z (the base
sequence) and Adam's second moment; the evaluation point x is recovered from y and z:

    y_t     = (1 - beta_1) z_t + beta_1 x_t
    v_t     = beta_2 v_{t-1} + (1 - beta_2) g_t^2
    z_{t+1} = z_t - lr_t (g_t / (sqrt(v_t / (1 - beta_2^t)) + eps) + weight_decay y_t)
    c_{t+1} = w_t / sum_{i<=t} w_i,   w_t = (max_{i<=t} lr_i)^weight_lr_power
    x_{t+1} = (1 - c_{t+1}) x_t + c_{t+1} z_{t+1}

with a linear learning-rate warmup over ``warmup_steps`` and no decay schedule (the point of the
method). Evaluate at x: `ScheduleFreeOptimizer.eval_value(var)` or `assign_eval_params`. As
optax.contrib.schedule_free_adamw, the warmup value for the weights is taken at t, for z at t - 1.
"""

import tensorflux as tx
from tensorflux.optimizers import GradientTransformation, Optimizer

from tensorflux_addons.optimizers._base import (check_hyper, check_unit_interval, copy_of, scalar, t_of, zeros)


def _warmup(learning_rate, warmup_steps):
    def lr(count, dtype):
        value = tx.cast(learning_rate, dtype)
        if not warmup_steps:
            return value
        return value * tx.minimum(tx.cast(count, dtype) / float(warmup_steps), tx.cast(1.0, dtype))
    return lr


def scale_by_schedule_free_adamw(learning_rate=0.0025, warmup_steps=0, beta_1=0.9, beta_2=0.999, epsilon=1e-8,
                                 weight_decay=0.0, weight_lr_power=2.0):
    """The whole Schedule-Free AdamW step (it includes the learning rate): slots z, v and the
    scalars weight_sum and max_lr."""
    lr = _warmup(learning_rate, warmup_steps)

    def update(updates, slot_vars, params, step):
        out, ops = [], []
        for g, s, p in zip(updates, slot_vars, params):
            dt = g.dtype
            t = t_of(step, dt)
            y, z, v = p.value(), s["z"].value(), s["v"].value()
            max_lr = tx.maximum(s["max_lr"].value(), lr(step + 1, dt))
            weight = tx.pow(max_lr, tx.cast(weight_lr_power, dt))
            weight_sum = s["weight_sum"].value() + weight
            c = tx.where(tx.greater(weight_sum, tx.cast(0.0, dt)), weight / weight_sum, tx.zeros_like(weight))
            v_new = v * beta_2 + tx.square(g) * (1.0 - beta_2)
            adam = g / (tx.sqrt(v_new / (1.0 - tx.pow(tx.cast(beta_2, dt), t))) + epsilon)
            z_new = z - (adam + y * weight_decay) * lr(step, dt)
            x = (y - z * (1.0 - beta_1)) / beta_1
            x_new = x * (1.0 - c) + z_new * c
            y_new = x_new * beta_1 + z_new * (1.0 - beta_1)
            reads = [y, z, v, s["max_lr"].value(), s["weight_sum"].value()]
            with tx.control_dependencies(reads):
                ops += [s["z"].assign(z_new, read_value=False), s["v"].assign(v_new, read_value=False),
                        s["max_lr"].assign(max_lr, read_value=False),
                        s["weight_sum"].assign(weight_sum, read_value=False)]
            out.append(y_new - y)
        return out, ops
    return GradientTransformation("schedule_free_adamw", {"z": copy_of, "v": zeros, "max_lr": scalar(0.0),
                                                          "weight_sum": scalar(0.0)}, update)


class ScheduleFreeOptimizer(Optimizer):
    """An Optimizer whose variables hold y; `eval_value` gives the evaluation point x."""

    def __init__(self, transformation, beta_1, name):
        super().__init__(transformation, name=name)
        self.beta_1 = beta_1

    def eval_value(self, var):
        """x = (y - (1 - beta_1) z) / beta_1 for ``var`` (its value where the model is evaluated)."""
        z = self.get_slot(var, "z").value()
        return (var.value() - z * (1.0 - self.beta_1)) / self.beta_1

    def assign_eval_params(self, var_list):
        """Sets ``var_list`` to their evaluation points x (before evaluating or saving a model that
        will not train further): at once eagerly (None), else the op doing it."""
        values = [self.eval_value(v) for v in var_list]
        ops = [v.assign(x, read_value=False) for v, x in zip(var_list, values)]
        if tx.executing_eagerly():
            return None
        with tx.control_dependencies(ops):
            return tx.no_op()


def ScheduleFreeAdamW(learning_rate=0.0025, warmup_steps=0, beta_1=0.9, beta_2=0.999, epsilon=1e-8,  # noqa: N802
                      weight_decay=0.0, weight_lr_power=2.0, name="ScheduleFreeAdamW"):
    """Schedule-Free AdamW: AdamW without a learning-rate schedule, interpolating between a
    Polyak average and the base sequence instead of keeping momentum.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([1.0, -2.0])
    >>> opt = txa.optimizers.ScheduleFreeAdamW(learning_rate=0.1)
    >>> _ = opt.minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> np.round(w.numpy(), 4), np.round(opt.eval_value(w).numpy(), 4)   # c_1 = 1: x_1 = y_1 = z_1
    (array([ 0.9, -1.9], dtype=float32), array([ 0.9, -1.9], dtype=float32))
    """
    check_hyper(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, weight_decay=weight_decay,
                weight_lr_power=weight_lr_power)
    check_unit_interval(beta_2=beta_2)
    if not 0.0 < beta_1 <= 1.0:
        raise ValueError("beta_1 must lie in (0, 1], got %r" % (beta_1,))
    if int(warmup_steps) != warmup_steps or warmup_steps < 0:
        raise ValueError("warmup_steps must be a non-negative integer, got %r" % (warmup_steps,))
    return ScheduleFreeOptimizer(scale_by_schedule_free_adamw(learning_rate, int(warmup_steps), beta_1, beta_2,
                                                              epsilon, weight_decay, weight_lr_power), beta_1, name)

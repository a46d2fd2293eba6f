"""Yogi, Zaheer et al. 2018, "Adaptive Methods for Nonconvex Optimization" (NeurIPS 2018),
Algorithm 2, with bias correction as in optax:

    m_t = beta_1 m_{t-1} + (1 - beta_1) g_t
    v_t = v_{t-1} - (1 - beta_2) * sign(v_{t-1} - g_t^2) * g_t^2
    theta_t = theta_{t-1} - lr * m_hat_t / (sqrt(v_hat_t) + eps)

Both moments start at ``initial_accumulator_value`` (1e-6), as in the paper's experiments.
"""

import tensorflux as tx
from tensorflux.optimizers import Optimizer, chain

from tensorflux_addons.optimizers._base import (bias_correction, check_hyper, check_unit_interval, filled,
                                                learning_rate as _lr, per_variable, t_of)


def scale_by_yogi(beta_1=0.9, beta_2=0.999, epsilon=1e-3, initial_accumulator_value=1e-6):
    """Yogi's direction: the second moment moves additively towards g^2 (slots m and v)."""
    def fn(g, s, p, step):
        t = t_of(step, g.dtype)
        g2 = tx.square(g)
        m = s["m"] * beta_1 + g * (1.0 - beta_1)
        v = s["v"] - (1.0 - beta_2) * tx.sign(s["v"] - g2) * g2
        return bias_correction(m, beta_1, t) / (tx.sqrt(bias_correction(v, beta_2, t)) + epsilon), {"m": m, "v": v}
    init = filled(initial_accumulator_value)
    return per_variable("scale_by_yogi", {"m": init, "v": init}, fn)


def yogi(learning_rate=1e-2, beta_1=0.9, beta_2=0.999, epsilon=1e-3, initial_accumulator_value=1e-6):
    """Yogi as a chain of transformations."""
    check_hyper(beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, initial_accumulator_value=initial_accumulator_value)
    check_unit_interval(beta_1=beta_1, beta_2=beta_2)
    return chain(scale_by_yogi(beta_1, beta_2, epsilon, initial_accumulator_value), _lr(learning_rate))


def Yogi(learning_rate=1e-2, beta_1=0.9, beta_2=0.999, epsilon=1e-3, initial_accumulator_value=1e-6,  # noqa: N802
         name="Yogi"):
    """The Yogi optimizer: Adam with an additive second-moment update that cannot grow the
    effective learning rate abruptly.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([1.0, -2.0])
    >>> _ = txa.optimizers.Yogi(learning_rate=0.1).minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> np.round(w.numpy(), 3)
    array([ 0.9, -1.9], dtype=float32)
    """
    return Optimizer(yogi(learning_rate, beta_1, beta_2, epsilon, initial_accumulator_value), name=name)

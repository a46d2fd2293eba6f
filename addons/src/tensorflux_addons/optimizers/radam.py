"""RAdam, Liu et al. 2020, "On the Variance of the Adaptive Learning Rate and Beyond"
(arXiv:1908.03265), Algorithm 2:

    m_t = beta_1 m_{t-1} + (1 - beta_1) g_t,   v_t = beta_2 v_{t-1} + (1 - beta_2) g_t^2
    rho_inf = 2 / (1 - beta_2) - 1,            rho_t = rho_inf - 2 t beta_2^t / (1 - beta_2^t)
    if rho_t >= threshold (5; the paper writes > 4):
        r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
        theta_t = theta_{t-1} - lr * r_t * m_hat_t / (sqrt(v_hat_t) + eps)
    else:
        theta_t = theta_{t-1} - lr * m_hat_t
"""

import tensorflux as tx
from tensorflux.optimizers import Optimizer, chain

from tensorflux_addons.optimizers._base import (bias_correction, check_hyper, check_unit_interval,
                                                learning_rate as _lr, per_variable, t_of, zeros)


def scale_by_radam(beta_1=0.9, beta_2=0.999, epsilon=1e-8, threshold=5.0):
    """RAdam's rectified direction (slots m and v)."""
    rho_inf = 2.0 / (1.0 - beta_2) - 1.0

    def fn(g, s, p, step):
        t = t_of(step, g.dtype)
        m = s["m"] * beta_1 + g * (1.0 - beta_1)
        v = s["v"] * beta_2 + tx.square(g) * (1.0 - beta_2)
        b2t = tx.pow(tx.cast(beta_2, g.dtype), t)
        rho = rho_inf - 2.0 * t * b2t / (1.0 - b2t)
        m_hat, v_hat = bias_correction(m, beta_1, t), bias_correction(v, beta_2, t)
        ok = tx.greater_equal(rho, tx.cast(threshold, g.dtype))
        safe_rho = tx.where(ok, rho, tx.cast(rho_inf, g.dtype))  # keeps the square root real when unused
        r = tx.sqrt((safe_rho - 4.0) * (safe_rho - 2.0) * rho_inf / ((rho_inf - 4.0) * (rho_inf - 2.0) * safe_rho))
        return tx.where(ok, r * m_hat / (tx.sqrt(v_hat) + epsilon), m_hat), {"m": m, "v": v}
    return per_variable("scale_by_radam", {"m": zeros, "v": zeros}, fn)


def radam(learning_rate=1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-8, threshold=5.0):
    """RAdam as a chain of transformations."""
    check_hyper(beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, threshold=threshold)
    check_unit_interval(beta_1=beta_1, beta_2=beta_2)
    return chain(scale_by_radam(beta_1, beta_2, epsilon, threshold), _lr(learning_rate))


def RAdam(learning_rate=1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-8, threshold=5.0, name="RAdam"):  # noqa: N802
    """The RAdam optimizer: Adam whose adaptive step is switched on (and rectified) only once the
    variance of its second-moment estimate is tractable; before that, SGD with momentum.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([1.0, -2.0])
    >>> _ = txa.optimizers.RAdam(learning_rate=0.1).minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> np.round(w.numpy(), 4)   # the first steps are momentum SGD: w - 0.1 * 2w
    array([ 0.8, -1.6], dtype=float32)
    """
    return Optimizer(radam(learning_rate, beta_1, beta_2, epsilon, threshold), name=name)

"""AdaBelief, Zhuang et al. 2020, "AdaBelief Optimizer: Adapting Stepsizes by the Belief in
Observed Gradients" (arXiv:2010.07468), Algorithm 2:

    m_t = beta_1 m_{t-1} + (1 - beta_1) g_t
    s_t = beta_2 s_{t-1} + (1 - beta_2) (g_t - m_t)^2 + eps
    theta_t = theta_{t-1} - lr * m_hat_t / (sqrt(s_hat_t) + eps)        (bias-corrected m and s)
"""

import tensorflux as tx
from tensorflux.optimizers import Optimizer, chain

from tensorflux_addons.optimizers._base import (bias_correction, check_hyper, check_unit_interval,
                                                learning_rate as _lr, per_variable, t_of, zeros)


def scale_by_belief(beta_1=0.9, beta_2=0.999, epsilon=1e-16, epsilon_root=1e-16):
    """AdaBelief's direction: the second moment tracks (g - m)^2, the "belief" in the gradient
    (``epsilon_root`` is the eps added to s_t, ``epsilon`` the one in the denominator)."""
    def fn(g, st, p, step):
        t = t_of(step, g.dtype)
        m = st["m"] * beta_1 + g * (1.0 - beta_1)
        s = st["s"] * beta_2 + tx.square(g - m) * (1.0 - beta_2) + epsilon_root
        return bias_correction(m, beta_1, t) / (tx.sqrt(bias_correction(s, beta_2, t)) + epsilon), {"m": m, "s": s}
    return per_variable("scale_by_belief", {"m": zeros, "s": zeros}, fn)


def adabelief(learning_rate=1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-16, epsilon_root=1e-16):
    """AdaBelief as a chain of transformations."""
    check_hyper(beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, epsilon_root=epsilon_root)
    check_unit_interval(beta_1=beta_1, beta_2=beta_2)
    return chain(scale_by_belief(beta_1, beta_2, epsilon, epsilon_root), _lr(learning_rate))


def AdaBelief(learning_rate=1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-16, epsilon_root=1e-16,  # noqa: N802
              name="AdaBelief"):
    """The AdaBelief optimizer: Adam whose step shrinks where gradients disagree with their mean.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([1.0, -2.0])
    >>> _ = txa.optimizers.AdaBelief(learning_rate=0.1).minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> np.round(w.numpy(), 4)   # the first step is lr * g / |g - m_1| = lr / 0.9 per element
    array([ 0.8889, -1.8889], dtype=float32)
    """
    return Optimizer(adabelief(learning_rate, beta_1, beta_2, epsilon, epsilon_root), name=name)

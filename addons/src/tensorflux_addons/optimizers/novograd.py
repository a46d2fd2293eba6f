"""NovoGrad, Ginsburg et al. 2019, "Stochastic Gradient Methods with Layer-wise Adaptive Moments
for Training of Deep Networks" (arXiv:1905.11286), Algorithm 1, per layer (variable) l:

    v_1 = ||g_1||^2,                      v_t = beta_2 v_{t-1} + (1 - beta_2) ||g_t||^2
    m_1 = g_1 / (sqrt(v_1) + eps) + wd * theta_0
    m_t = beta_1 m_{t-1} + g_t / (sqrt(v_t) + eps) + wd * theta_{t-1}
    theta_t = theta_{t-1} - lr * m_t

The second moment is one scalar per variable (a scalar slot ``v``).
"""

import tensorflux as tx
from tensorflux.optimizers import Optimizer, chain

from tensorflux_addons.optimizers._base import (check_hyper, check_unit_interval, learning_rate as _lr,
                                                per_variable, scalar, zeros)


def scale_by_novograd(beta_1=0.9, beta_2=0.25, epsilon=1e-6, weight_decay=0.0):
    """NovoGrad's direction (slots m and the scalar v)."""
    def fn(g, s, p, step):
        first = tx.equal(step, tx.cast(0, step.dtype))
        norm2 = tx.reduce_sum(tx.square(g))
        v = tx.where(first, norm2, s["v"] * beta_2 + norm2 * (1.0 - beta_2))
        m = tx.where(first, tx.zeros_like(g), s["m"] * beta_1) + g / (tx.sqrt(v) + epsilon) + p * weight_decay
        return m, {"m": m, "v": v}
    return per_variable("scale_by_novograd", {"m": zeros, "v": scalar(0.0)}, fn)


def novograd(learning_rate=1e-3, beta_1=0.9, beta_2=0.25, epsilon=1e-6, weight_decay=0.0):
    """NovoGrad as a chain of transformations."""
    check_hyper(beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, weight_decay=weight_decay)
    check_unit_interval(beta_1=beta_1, beta_2=beta_2)
    return chain(scale_by_novograd(beta_1, beta_2, epsilon, weight_decay), _lr(learning_rate))


def NovoGrad(learning_rate=1e-3, beta_1=0.9, beta_2=0.25, epsilon=1e-6, weight_decay=0.0,  # noqa: N802
             name="NovoGrad"):
    """The NovoGrad optimizer: momentum of gradients normalised by a per-layer second moment.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([3.0, 4.0])
    >>> _ = txa.optimizers.NovoGrad(learning_rate=0.5).minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> np.round(w.numpy(), 4)   # the first step is lr * g / ||g||
    array([2.7, 3.6], dtype=float32)
    """
    return Optimizer(novograd(learning_rate, beta_1, beta_2, epsilon, weight_decay), name=name)

"""LAMB, You et al. 2019, "Large Batch Optimization for Deep Learning: Training BERT in 76 minutes"
(arXiv:1904.00962), Algorithm 2, per layer (variable) l:

    m_t = beta_1 * m_{t-1} + (1 - beta_1) * g_t,     v_t = beta_2 * v_{t-1} + (1 - beta_2) * g_t^2
    r_t = m_hat_t / (sqrt(v_hat_t) + eps) + weight_decay * theta_{t-1}      (bias-corrected moments)
    theta_t = theta_{t-1} - lr * ||theta_{t-1}|| / ||r_t|| * r_t            (ratio 1 if a norm is 0)

The chain is optax.lamb's: Adam's moments, decoupled weight decay, the trust ratio, -lr.
"""

from tensorflux.optimizers import Optimizer, add_decayed_weights, chain

from tensorflux_addons.optimizers._base import (check_hyper, check_unit_interval, learning_rate as _lr,
                                                scale_by_adam_moments, scale_by_trust_ratio)


def lamb(learning_rate=1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-6, weight_decay=0.0):
    """LAMB as a chain of transformations (the paper's defaults, epsilon 1e-6)."""
    check_hyper(beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, weight_decay=weight_decay)
    check_unit_interval(beta_1=beta_1, beta_2=beta_2)
    return chain(scale_by_adam_moments(beta_1, beta_2, epsilon),
                 add_decayed_weights(weight_decay) if weight_decay else None,
                 scale_by_trust_ratio(), _lr(learning_rate))


def LAMB(learning_rate=1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-6, weight_decay=0.0, name="LAMB"):  # noqa: N802
    """The LAMB optimizer: Adam's direction plus decoupled weight decay, rescaled per variable by
    ||theta|| / ||update||.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([3.0, 4.0])
    >>> _ = txa.optimizers.LAMB(learning_rate=0.1).minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> np.round(w.numpy(), 4)   # moved by lr * ||w|| along the normalised Adam direction
    array([2.6464, 3.6464], dtype=float32)
    """
    return Optimizer(lamb(learning_rate, beta_1, beta_2, epsilon, weight_decay), name=name)

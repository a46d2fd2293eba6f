"""LAMB, You et al. 2019, "Large Batch Optimization for Deep Learning: Training BERT in 76 minutes"
(arXiv:1904.00962), Algorithm 2, per layer (variable) l:

    m_t = beta_1 * m_{t-1} + (1 - beta_1) * g_t,     v_t = beta_2 * v_{t-1} + (1 - beta_2) * g_t^2
    r_t = m_hat_t / (sqrt(v_hat_t) + eps) + weight_decay * theta_{t-1}      (bias-corrected moments)
    theta_t = theta_{t-1} - lr * ||theta_{t-1}|| / ||r_t|| * r_t            (ratio 1 if a norm is 0)

The chain is optax.lamb's: Adam's moments, decoupled weight decay, the trust ratio, -lr. `LAMB`
runs it as one fused kernel per variable (AddonsResourceApplyLamb, from the add-on's plugin: two
passes over memory instead of about fifteen) unless told otherwise.
"""

import tensorflux as tx
from tensorflux.optimizers import Optimizer, add_decayed_weights, chain

from tensorflux_addons import _native
from tensorflux_addons.optimizers._base import (check_hyper, check_unit_interval, learning_rate as _lr,
                                                scale_by_adam_moments, scale_by_trust_ratio, t_of)
from tensorflux_addons.optimizers._hyper import resolve

SLOTS = ("0_scale_by_adam_moments/m", "0_scale_by_adam_moments/v")  # the moments' names in the `lamb` chain


def lamb(learning_rate=1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-6, weight_decay=0.0):
    """LAMB as a chain of transformations (the paper's defaults, epsilon 1e-6)."""
    check_hyper(beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, weight_decay=weight_decay)
    check_unit_interval(beta_1=beta_1, beta_2=beta_2)
    return chain(scale_by_adam_moments(beta_1, beta_2, epsilon),
                 add_decayed_weights(weight_decay) if weight_decay else None,
                 scale_by_trust_ratio(), _lr(learning_rate))


def LAMB(learning_rate=1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-6, weight_decay=0.0, fused=True,  # noqa: N802
         name="LAMB"):
    """The LAMB optimizer: Adam's direction plus decoupled weight decay, rescaled per variable by
    ||theta|| / ||update||; ``fused`` runs one AddonsResourceApplyLamb kernel per variable (float32
    and float64), else the op-by-op chain `lamb`. Both keep the slots m and v.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([3.0, 4.0])
    >>> _ = txa.optimizers.LAMB(learning_rate=0.1).minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> np.round(w.numpy(), 4)   # moved by lr * ||w|| along the normalised Adam direction
    array([2.6464, 3.6464], dtype=float32)
    """
    transformation = lamb(learning_rate, beta_1, beta_2, epsilon, weight_decay)
    if not fused:
        return Optimizer(transformation, name=name)
    kernel = _native.ops().addons_resource_apply_lamb

    def apply(var, grad, slots, step):
        dt = var.dtype
        t = t_of(step, dt)
        b1, b2 = tx.cast(beta_1, dt), tx.cast(beta_2, dt)
        return kernel(var.handle, slots[SLOTS[0]].handle, slots[SLOTS[1]].handle, tx.pow(b1, t), tx.pow(b2, t),
                      resolve("learning_rate", learning_rate, step, dt), b1, b2, tx.cast(epsilon, dt),
                      tx.cast(weight_decay, dt), grad)
    return Optimizer(transformation, name=name, fused=apply)

"""LARS, You, Gitman & Ginsburg 2017, "Large Batch Training of Convolutional Networks"
(arXiv:1708.03888), Algorithm 1, per layer (variable) l:

    local_lr = trust_coefficient * ||theta|| / (||g + weight_decay * theta|| + eps)   (1 if a norm is 0)
    v_t      = momentum * v_{t-1} + lr * local_lr * (g_t + weight_decay * theta_{t-1})
    theta_t  = theta_{t-1} - v_t

The chain is optax.lars's: weight decay, the trust ratio, -lr, then momentum.
"""

from tensorflux.optimizers import Optimizer, add_decayed_weights, chain, trace

from tensorflux_addons.optimizers._base import check_hyper, check_unit_interval, learning_rate as _lr, \
    scale_by_trust_ratio


def lars(learning_rate=0.1, weight_decay=0.0, trust_coefficient=0.001, epsilon=0.0, momentum=0.9, nesterov=False):
    """LARS as a chain of transformations."""
    check_hyper(weight_decay=weight_decay, trust_coefficient=trust_coefficient, epsilon=epsilon, momentum=momentum)
    check_unit_interval(momentum=momentum)
    return chain(add_decayed_weights(weight_decay) if weight_decay else None,
                 scale_by_trust_ratio(trust_coefficient=trust_coefficient, eps=epsilon), _lr(learning_rate),
                 trace(momentum, nesterov) if momentum else None)


def LARS(learning_rate=0.1, weight_decay=0.0, trust_coefficient=0.001, epsilon=0.0, momentum=0.9,  # noqa: N802
         nesterov=False, name="LARS"):
    """The LARS optimizer: momentum SGD with a per-variable learning rate
    trust_coefficient * ||theta|| / ||g + weight_decay * theta||.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([3.0, 4.0])
    >>> _ = txa.optimizers.LARS(1.0, trust_coefficient=0.1).minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> np.round(w.numpy(), 4)   # a step of length 0.1 * ||w||
    array([2.7, 3.6], dtype=float32)
    """
    return Optimizer(lars(learning_rate, weight_decay, trust_coefficient, epsilon, momentum, nesterov), name=name)

"""MADGRAD, Defazio & Jelassi 2022, "Adaptivity without Compromise: A Momentumized, Adaptive, Dual
Averaged Gradient Method for Stochastic Optimization" (arXiv:2101.11075), Algorithm 1, with
lambda_k = (lr + eps) * sqrt(k + 1) as in the authors' implementation (k counts from 0):

    s_{k+1}  = s_k + lambda_k g_k,             nu_{k+1} = nu_k + lambda_k g_k^2
    z_{k+1}  = x_0 - s_{k+1} / (cbrt(nu_{k+1}) + eps)
    x_{k+1}  = momentum * x_k + (1 - momentum) * z_{k+1}

Weight decay, if any, is added to the gradient first (L2, as in the paper's experiments).
"""

import tensorflux as tx
from tensorflux.optimizers import Optimizer, add_decayed_weights, chain

from tensorflux_addons.optimizers._base import check_hyper, check_unit_interval, copy_of, per_variable, zeros
from tensorflux_addons.optimizers._hyper import check_scalar, resolve


def scale_by_madgrad(learning_rate=1e-2, momentum=0.9, epsilon=1e-6):
    """MADGRAD's step (it includes the learning rate): the update moves x towards the dual-averaged
    point z (slots s, nu and the starting point x0)."""
    check_scalar("learning_rate", learning_rate)

    def fn(g, st, x, step):
        dt = g.dtype
        lam = (resolve("learning_rate", learning_rate, step, dt) + epsilon) * tx.sqrt(tx.cast(step, dt) + 1.0)
        s = st["s"] + g * lam
        nu = st["nu"] + tx.square(g) * lam
        z = st["x0"] - s / (tx.pow(nu, tx.cast(1.0 / 3.0, dt)) + epsilon)
        x_new = x * momentum + z * (1.0 - momentum)
        return x_new - x, {"s": s, "nu": nu}
    return per_variable("scale_by_madgrad", {"s": zeros, "nu": zeros, "x0": copy_of}, fn)


def madgrad(learning_rate=1e-2, momentum=0.9, weight_decay=0.0, epsilon=1e-6):
    """MADGRAD as a chain of transformations."""
    check_hyper(momentum=momentum, weight_decay=weight_decay, epsilon=epsilon)
    check_unit_interval(momentum=momentum)
    return chain(add_decayed_weights(weight_decay) if weight_decay else None,
                 scale_by_madgrad(learning_rate, momentum, epsilon))


def MADGRAD(learning_rate=1e-2, momentum=0.9, weight_decay=0.0, epsilon=1e-6, name="MADGRAD"):  # noqa: N802
    """The MADGRAD optimizer: dual averaging with a cube-root adaptive denominator and momentum by
    averaging iterates.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([1.0, -2.0])
    >>> _ = txa.optimizers.MADGRAD(learning_rate=0.1, momentum=0.0).minimize(lambda: tx.reduce_sum(w), var_list=[w])
    >>> np.round(w.numpy(), 4)   # x0 - lambda_0 g / cbrt(lambda_0 g^2) = x0 - lambda_0^(2/3)
    array([ 0.7846, -2.2154], dtype=float32)
    """
    return Optimizer(madgrad(learning_rate, momentum, weight_decay, epsilon), name=name)

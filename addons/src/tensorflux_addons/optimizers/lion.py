"""Lion (EvoLved Sign Momentum), Chen et al. 2023, "Symbolic Discovery of Optimization Algorithms"
(arXiv:2302.06675), Algorithm 2:

    c_t     = beta_1 * m_{t-1} + (1 - beta_1) * g_t
    theta_t = theta_{t-1} - lr * (sign(c_t) + weight_decay * theta_{t-1})
    m_t     = beta_2 * m_{t-1} + (1 - beta_2) * g_t

Two implementations compute it: the composition of gradient transformations (`lion`, the
reference) and one fused kernel per variable (AddonsResourceApplyLion, from the add-on's plugin);
`Lion` uses the fused one unless told otherwise. optax.lion is the same chain.
"""

import tensorflux as tx
from tensorflux.optimizers import GradientTransformation, Optimizer, add_decayed_weights, chain, scale_by_learning_rate

from tensorflux_addons import _native
from tensorflux_addons.optimizers._hyper import check_scalar, resolve

SLOT = "0_scale_by_lion/m"  # the momentum slot's name inside the `lion` chain


def _zeros(var):
    return tx.zeros(var.shape, var.dtype)


def scale_by_lion(beta_1=0.9, beta_2=0.99):
    """Lion's direction: updates become sign(beta_1 * m + (1 - beta_1) * u), and the momentum slot
    ``m`` becomes beta_2 * m + (1 - beta_2) * u.

    >>> from tensorflux_addons.optimizers import scale_by_lion
    >>> opt = tx.optimizers.Optimizer(tx.optimizers.chain(scale_by_lion(), tx.optimizers.scale(-0.1)))
    >>> w = tx.Variable([1.0, -1.0])
    >>> _ = opt.minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> w.numpy()
    array([ 0.9, -0.9], dtype=float32)
    """
    def update(updates, slots, params, step):
        out, ops = [], []
        for u, s in zip(updates, slots):
            m = s["m"].value()
            c = m * tx.cast(beta_1, u.dtype) + u * tx.cast(1.0 - beta_1, u.dtype)
            ops.append(s["m"].assign(m * tx.cast(beta_2, u.dtype) + u * tx.cast(1.0 - beta_2, u.dtype),
                                     read_value=False))
            out.append(tx.sign(c))
        return out, ops
    return GradientTransformation("scale_by_lion", {"m": _zeros}, update)


def lion(learning_rate=1e-4, beta_1=0.9, beta_2=0.99, weight_decay=0.0):
    """Lion as a chain of transformations (the composed twin of the fused kernel): scale_by_lion,
    add_decayed_weights(weight_decay), scale_by_learning_rate(learning_rate)."""
    _check(learning_rate, beta_1, beta_2, weight_decay)
    if callable(learning_rate):
        schedule = learning_rate
        learning_rate = lambda step: check_scalar("learning_rate (the schedule's value)", schedule(step))  # noqa: E731
    return chain(scale_by_lion(beta_1, beta_2), add_decayed_weights(weight_decay) if weight_decay else None,
                 scale_by_learning_rate(learning_rate))


def Lion(learning_rate=1e-4, beta_1=0.9, beta_2=0.99, weight_decay=0.0, fused=True, name="Lion"):  # noqa: N802
    """The Lion optimizer; ``fused`` runs one AddonsResourceApplyLion kernel per variable (float32
    and float64 variables), else the op-by-op chain `lion`. Both keep one slot per variable, ``m``.
    ``learning_rate`` is a number, a scalar tensor or a schedule (``step -> lr``); the paper
    suggests a learning rate 3-10x smaller than AdamW's and a weight decay 3-10x larger.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([0.5, -2.0])
    >>> opt = txa.optimizers.Lion(learning_rate=0.1)
    >>> _ = opt.minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> w.numpy()
    array([ 0.4, -1.9], dtype=float32)
    """
    transformation = lion(learning_rate, beta_1, beta_2, weight_decay)
    if not fused:
        return Optimizer(transformation, name=name)
    kernel = _native.ops().addons_resource_apply_lion

    def apply(var, grad, slots, step):
        dt = var.dtype
        return kernel(var.handle, slots[SLOT].handle, resolve("learning_rate", learning_rate, step, dt),
                      tx.cast(beta_1, dt), tx.cast(beta_2, dt), tx.cast(weight_decay, dt), grad)
    return Optimizer(transformation, name=name, fused=apply)


def _check(learning_rate, beta_1, beta_2, weight_decay):
    check_scalar("learning_rate", learning_rate)
    for name, value in (("beta_1", beta_1), ("beta_2", beta_2), ("weight_decay", weight_decay)):
        check_scalar(name, value)
        if callable(value):
            raise TypeError("%s must be a number, not a schedule" % name)
    if not (0.0 <= beta_1 <= 1.0 and 0.0 <= beta_2 <= 1.0):
        raise ValueError("beta_1 and beta_2 must lie in [0, 1], got %r and %r" % (beta_1, beta_2))

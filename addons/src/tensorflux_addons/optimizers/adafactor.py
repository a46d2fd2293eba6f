"""Adafactor, Shazeer & Stern 2018, "Adafactor: Adaptive Learning Rates with Sublinear Memory Cost"
(arXiv:1804.04235), Algorithms 4 and 5 with the paper's update clipping and relative step size:

    beta_2t = 1 - t^(-decay_rate)
    matrices (the two largest axes of size >= min_dim_size_to_factor):
        R_t = beta_2t R_{t-1} + (1 - beta_2t) mean_cols(g^2 + eps_1)
        C_t = beta_2t C_{t-1} + (1 - beta_2t) mean_rows(g^2 + eps_1)
        u_t = g_t / sqrt(R_t C_t / mean(R_t))
    other variables:  V_t = beta_2t V_{t-1} + (1 - beta_2t) (g^2 + eps_1),  u_t = g_t / sqrt(V_t)
    u_t     = u_t / max(1, RMS(u_t) / clipping_threshold)                        (update clipping)
    theta_t = theta_{t-1} - lr * max(eps_2, RMS(theta_{t-1})) * u_t              (relative step)

The factored second moment keeps O(n + m) numbers per n x m matrix. The chain is optax.adafactor's
(factored RMS, block-RMS clipping, learning rate, parameter scale).
"""

import numpy as np

import tensorflux as tx
from tensorflux.optimizers import Optimizer, chain

from tensorflux_addons.optimizers._base import check_hyper, learning_rate as _lr, per_variable, t_of


def factored_dims(shape, min_dim_size_to_factor=128):
    """(d1, d0): the second largest and the largest axis of ``shape`` when both are at least
    ``min_dim_size_to_factor`` long (the statistics are then factored), else None."""
    if len(shape) < 2:
        return None
    order = np.argsort(shape, kind="stable")
    if shape[order[-2]] < min_dim_size_to_factor:
        return None
    return int(order[-2]), int(order[-1])


def _static_shape(var):
    dims = var.shape.as_list()
    if any(d is None for d in dims):
        raise ValueError("Adafactor needs variables of a static shape, got %s with shape %s" % (var.name, dims))
    return dims


def _slot(kind, min_dim):
    def init(var):
        dims = _static_shape(var)
        f = factored_dims(dims, min_dim)
        if f is None:
            shape = dims if kind == "v" else [1]
        else:
            d1, d0 = f
            shape = {"v_row": [d for i, d in enumerate(dims) if i != d0],
                     "v_col": [d for i, d in enumerate(dims) if i != d1], "v": [1]}[kind]
        return tx.zeros(shape, var.dtype)
    return init


def _rms(x):
    return tx.sqrt(tx.reduce_mean(tx.square(x)))


def scale_by_factored_rms(decay_rate=0.8, epsilon=1e-30, min_dim_size_to_factor=128):
    """Adafactor's direction: g over the (factored) root mean square of past gradients."""
    def fn(g, s, p, step):
        dt = g.dtype
        t = t_of(step, dt)
        beta = 1.0 - tx.pow(t, tx.cast(-decay_rate, dt))
        g2 = tx.square(g) + epsilon
        f = factored_dims(p.shape.as_list(), min_dim_size_to_factor)  # p's static shape: g's may be unknown
        if f is None:
            v = s["v"] * beta + g2 * (1.0 - beta)
            return g * tx.math.rsqrt(v), {"v": v}
        d1, d0 = f
        v_row = s["v_row"] * beta + tx.reduce_mean(g2, axis=d0) * (1.0 - beta)
        v_col = s["v_col"] * beta + tx.reduce_mean(g2, axis=d1) * (1.0 - beta)
        reduced_d1 = d1 - 1 if d1 > d0 else d1
        row_factor = tx.math.rsqrt(v_row / tx.reduce_mean(v_row, axis=reduced_d1, keepdims=True))
        col_factor = tx.math.rsqrt(v_col)
        return g * tx.expand_dims(row_factor, d0) * tx.expand_dims(col_factor, d1), {"v_row": v_row, "v_col": v_col}
    return per_variable("scale_by_factored_rms",
                        {k: _slot(k, min_dim_size_to_factor) for k in ("v_row", "v_col", "v")}, fn)


def clip_by_block_rms(threshold=1.0):
    """Update clipping: each variable's update divided by max(1, RMS(update) / threshold)."""
    def fn(u, s, p, step):
        return u / tx.maximum(tx.cast(1.0, u.dtype), _rms(u) / threshold), {}
    return per_variable("clip_by_block_rms", {}, fn)


def scale_by_param_block_rms(min_scale=1e-3):
    """The relative step: updates multiplied by max(min_scale, RMS(theta))."""
    def fn(u, s, p, step):
        return u * tx.maximum(_rms(p), tx.cast(min_scale, u.dtype)), {}
    return per_variable("scale_by_param_block_rms", {}, fn)


def adafactor(learning_rate=1e-2, decay_rate=0.8, epsilon=1e-30, clipping_threshold=1.0,
              multiply_by_parameter_scale=True, min_dim_size_to_factor=128):
    """Adafactor as a chain of transformations (``clipping_threshold=None`` disables clipping)."""
    check_hyper(decay_rate=decay_rate, epsilon=epsilon)
    return chain(scale_by_factored_rms(decay_rate, epsilon, min_dim_size_to_factor),
                 clip_by_block_rms(clipping_threshold) if clipping_threshold is not None else None,
                 _lr(learning_rate),
                 scale_by_param_block_rms() if multiply_by_parameter_scale else None)


def Adafactor(learning_rate=1e-2, decay_rate=0.8, epsilon=1e-30, clipping_threshold=1.0,  # noqa: N802
              multiply_by_parameter_scale=True, min_dim_size_to_factor=128, name="Adafactor"):
    """The Adafactor optimizer: Adam-like steps with a factored second moment for matrices (memory
    sublinear in the parameter count), update clipping and steps relative to the parameters' scale.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([3.0, 4.0])
    >>> _ = txa.optimizers.Adafactor(learning_rate=0.1).minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> np.round(w.numpy(), 4)   # a first step of lr * RMS(w) * sign(g)
    array([2.6464, 3.6464], dtype=float32)
    """
    return Optimizer(adafactor(learning_rate, decay_rate, epsilon, clipping_threshold, multiply_by_parameter_scale,
                               min_dim_size_to_factor), name=name)

"""Element-wise special functions written with care for their extreme arguments."""

import math

import numpy as np

import tensorflux as tx

from tensorflux_probability.internal.core_features import require

_SQRT_HALF = math.sqrt(0.5)


def ndtr(x):
    """The standard normal CDF, 0.5 * erfc(-x / sqrt(2)) (accurate in the lower tail).

    >>> round(float(txp.math.ndtr(tx.constant(0.0))), 6)
    0.5
    """
    x = tx.convert_to_tensor(x)
    return 0.5 * tx.math.erfc(-x * _SQRT_HALF)


def log_ndtr(x):
    """log of the standard normal CDF, accurate far into the lower tail (core's ``tx.math.log_ndtr``;
    Note [Core functions] in internal/core_features.py)."""
    return require("math.log_ndtr", "log_ndtr")(tx.convert_to_tensor(x))


def log1mexp(x):
    """log(1 - exp(-|x|)), switching between log(-expm1) and log1p(-exp) at log 2 (Maechler's rule).

    >>> round(float(txp.math.log1mexp(tx.constant(2.0))), 6)
    -0.145413
    """
    x = tx.abs(tx.convert_to_tensor(x))
    small = x < math.log(2.0)
    safe_small = tx.where(small, x, tx.ones_like(x))
    safe_big = tx.where(small, tx.ones_like(x), x)
    return tx.where(small, tx.math.log(-tx.math.expm1(-safe_small)), tx.math.log1p(-tx.exp(-safe_big)))


def log_add_exp(a, b):
    """log(exp(a) + exp(b)) without overflow.

    >>> round(float(txp.math.log_add_exp(tx.constant(0.0), tx.constant(0.0))), 6)
    0.693147
    """
    a, b = tx.convert_to_tensor(a), tx.convert_to_tensor(b)
    m = tx.maximum(a, b)
    m_safe = tx.where(tx.math.is_finite(m), m, tx.zeros_like(m))
    return m_safe + tx.math.log(tx.exp(a - m_safe) + tx.exp(b - m_safe))


def log_sub_exp(a, b):
    """log(exp(a) - exp(b)) for a >= b (log(0) = -inf when they are equal)."""
    a, b = tx.convert_to_tensor(a), tx.convert_to_tensor(b)
    return a + log1mexp(a - b)


def softplus_inverse(x):
    """The y with softplus(y) = x (x > 0): log(expm1(x)), written as x + log(-expm1(-x)) for large x.

    >>> round(float(tx.math.softplus(txp.math.softplus_inverse(tx.constant(3.0)))), 5)
    3.0
    """
    x = tx.convert_to_tensor(x)
    eps = np.finfo(x.dtype.as_numpy_dtype).eps
    threshold = math.log(eps) + 2.0
    is_small = x < math.exp(threshold)
    is_large = x > -threshold
    safe = tx.where(tx.logical_or(is_small, is_large), tx.ones_like(x), x)
    return tx.where(is_small, tx.math.log(x), tx.where(is_large, x, safe + tx.math.log(-tx.math.expm1(-safe))))


def lbeta(a, b):
    """log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b)."""
    a, b = tx.convert_to_tensor(a), tx.convert_to_tensor(b)
    return tx.math.lgamma(a) + tx.math.lgamma(b) - tx.math.lgamma(a + b)


def log_combinations(n, counts, axis=-1):
    """log of the multinomial coefficient n! / prod(counts!) along ``axis``."""
    n, counts = tx.convert_to_tensor(n), tx.convert_to_tensor(counts)
    return tx.math.lgamma(n + 1.0) - tx.reduce_sum(tx.math.lgamma(counts + 1.0), axis=axis)


def log_cosh(x):
    """log(cosh(x)) = |x| + log1p(exp(-2|x|)) - log 2, finite for every finite x."""
    x = tx.abs(tx.convert_to_tensor(x))
    return x + tx.math.log1p(tx.exp(-2.0 * x)) - math.log(2.0)

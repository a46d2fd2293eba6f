"""The incomplete gamma and beta functions and the standard normal CDF for ``tx.math``:
``igamma``, ``igammac``, ``betainc`` (engine ops, differentiable as in TensorFlow), ``ndtr`` and
``log_ndtr`` (composed like TensorFlow Probability's: accurate in both tails)."""

import math

import numpy as np

from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope


def _tensor(x, dtype=None):
    return x if isinstance(x, _TENSORS) else convert_to_tensor(x, dtype=dtype)


def igamma(a, x, name=None):
    """P(a, x), the regularized lower incomplete gamma function, element-wise with broadcasting
    (NaN where a <= 0 or x < 0); differentiable in a and x.

    >>> round(float(tx.math.igamma(2.0, 3.0)), 6)
    0.800852
    """
    return gen_ops.igamma(a, x, name=name or "Igamma")


def igammac(a, x, name=None):
    """Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function, element-wise with
    broadcasting (computed directly, so accurate where it is small); differentiable in a and x.

    >>> round(float(tx.math.igammac(2.0, 3.0)), 6)
    0.199148
    """
    return gen_ops.igammac(a, x, name=name or "Igammac")


def betainc(a, b, x, name=None):
    """I_x(a, b), the regularized incomplete beta function, element-wise; a, b and x are each a
    scalar or of one common shape (NaN outside a, b > 0, 0 <= x <= 1); differentiable in x only,
    as in TensorFlow.

    >>> round(float(tx.math.betainc(2.0, 3.0, 0.5)), 6)
    0.6875
    """
    return gen_ops.betainc(a, b, x, name=name or "Betainc")


_HALF_SQRT2 = 0.5 * math.sqrt(2.0)


def _ndtr(x):
    """0.5 (1 + erf(x / sqrt 2)), through erfc where that keeps more digits."""
    dt = x.dtype
    w = gen_ops.mul(x, convert_to_tensor(_HALF_SQRT2, dtype=dt))
    z = gen_ops.abs(w)
    one, two, zero = (convert_to_tensor(v, dtype=dt) for v in (1.0, 2.0, 0.0))
    erfc_z = gen_ops.erfc(z)
    y = gen_ops.select_v2(gen_ops.less(z, convert_to_tensor(_HALF_SQRT2, dtype=dt)),
                          gen_ops.add_v2(one, gen_ops.erf(w)),
                          gen_ops.select_v2(gen_ops.greater(w, zero), gen_ops.sub(two, erfc_z), erfc_z))
    return gen_ops.mul(convert_to_tensor(0.5, dtype=dt), y)


def ndtr(x, name=None):
    """The standard normal CDF, element-wise (float32 or float64).

    >>> round(float(tx.math.ndtr(1.0)), 6)
    0.841345
    """
    with name_scope(name or "ndtr"):
        return _ndtr(_tensor(x))


# Note [log_ndtr segments]: for x > 0, log1p(-ndtr(-x)) (no cancellation as ndtr(x) nears 1);
# between `lower` and 0 the log of ndtr; below `lower` the asymptotic series of log ndtr in 1/x^2
# to order 3 (ndtr itself underflows there). `lower` is TensorFlow Probability's, per dtype.
_LOG_NDTR_LOWER = {np.dtype(np.float64): -20.0, np.dtype(np.float32): -10.0}
_LOG_NDTR_SERIES_ORDER = 3


def _log_ndtr_lower(x):
    """log ndtr(x) for x << 0 by the asymptotic series (Note [log_ndtr segments])."""
    dt = x.dtype
    x2 = gen_ops.square(x)
    log_scale = gen_ops.sub(gen_ops.sub(gen_ops.mul(convert_to_tensor(-0.5, dtype=dt), x2),
                                        gen_ops.log(gen_ops.neg(x))),
                            convert_to_tensor(0.5 * math.log(2.0 * math.pi), dtype=dt))
    series = convert_to_tensor(1.0, dtype=dt)
    x2n = x2
    for n in range(1, _LOG_NDTR_SERIES_ORDER + 1):
        term = gen_ops.real_div(convert_to_tensor(float(np.prod(np.arange(2 * n - 1, 0, -2))), dtype=dt), x2n)
        series = gen_ops.sub(series, term) if n % 2 else gen_ops.add_v2(series, term)
        x2n = gen_ops.mul(x2n, x2)
    return gen_ops.add_v2(log_scale, gen_ops.log(series))


def log_ndtr(x, name=None):
    """log of the standard normal CDF, element-wise (float32 or float64), accurate far into both
    tails (Note [log_ndtr segments]).

    >>> round(float(tx.math.log_ndtr(-30.0)), 3)
    -454.321
    """
    with name_scope(name or "log_ndtr"):
        x = _tensor(x)
        np_dt = np.dtype(x.dtype.as_numpy_dtype)
        if np_dt not in _LOG_NDTR_LOWER:
            raise TypeError("log_ndtr: x must be float32 or float64, got %s" % x.dtype.name)
        lo = convert_to_tensor(_LOG_NDTR_LOWER[np_dt], dtype=x.dtype)
        zero = convert_to_tensor(0.0, dtype=x.dtype)
        upper = gen_ops.log1p(gen_ops.neg(_ndtr(gen_ops.neg(gen_ops.maximum(x, zero)))))
        middle = gen_ops.log(_ndtr(gen_ops.minimum(gen_ops.maximum(x, lo), zero)))
        lower = _log_ndtr_lower(gen_ops.minimum(x, lo))
        return gen_ops.select_v2(gen_ops.greater(x, zero), upper,
                                 gen_ops.select_v2(gen_ops.greater(x, lo), middle, lower))

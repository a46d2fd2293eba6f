"""Normal and HalfNormal."""

import math

import numpy as np

import tensorflux as tx

from tensorflux_probability.distributions.distribution import FULLY_REPARAMETERIZED, Distribution
from tensorflux_probability.internal import assertions, samplers
from tensorflux_probability.internal import tensors as _tensors
from tensorflux_probability.math.special import log_ndtr, ndtr

_HALF_LOG_TWO_PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


class Normal(Distribution):
    """The normal distribution N(loc, scale**2).

    >>> d = txp.distributions.Normal(loc=0.0, scale=2.0)
    >>> round(float(d.log_prob(1.0)), 5)
    -1.73709
    """

    _params_event_ndims = {"loc": 0, "scale": 0}
    _validators = {"scale": assertions.positive}

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Normal"):
        parameters = dict(locals())
        dtype = _tensors.common_dtype([loc, scale])
        super().__init__(dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, loc=loc, scale=scale)

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _z(self, x):
        return (x - self._p("loc")) / self._p("scale")

    def _sample_n(self, n, seed):
        eps = samplers.normal(self._sample_batch_event_shape(n), seed, self.dtype)
        return eps * self._p("scale") + self._p("loc")

    def _log_prob(self, x):
        scale = self._p("scale")
        z = (x - self._p("loc")) / scale
        return -0.5 * tx.square(z) - (tx.math.log(scale) + _HALF_LOG_TWO_PI)

    def _cdf(self, x):
        return ndtr(self._z(x))

    def _log_cdf(self, x):
        return log_ndtr(self._z(x))

    def _survival_function(self, x):
        return ndtr(-self._z(x))

    def _log_survival_function(self, x):
        return log_ndtr(-self._z(x))

    def _quantile(self, p):
        return self._p("loc") + self._p("scale") * tx.math.ndtri(p)

    def _mean(self):
        return self._broadcast_to_batch(self._p("loc"))

    _mode = _mean

    def _stddev(self):
        return self._broadcast_to_batch(self._p("scale"))

    def _entropy(self):
        return self._broadcast_to_batch(0.5 + _HALF_LOG_TWO_PI + tx.math.log(self._p("scale")))


class HalfNormal(Distribution):
    """|X| for X ~ N(0, scale**2): support [0, inf).

    >>> round(float(txp.distributions.HalfNormal(1.0).mean()), 5)
    0.79788
    """

    _params_event_ndims = {"scale": 0}
    _validators = {"scale": assertions.positive}

    def __init__(self, scale, validate_args=False, allow_nan_stats=True, name="HalfNormal"):
        parameters = dict(locals())
        dtype = _tensors.common_dtype([scale])
        super().__init__(dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, scale=scale)

    @property
    def scale(self):
        return self._scale

    def _sample_n(self, n, seed):
        return tx.abs(samplers.normal(self._sample_batch_event_shape(n), seed, self.dtype)) * self._p("scale")

    def _log_prob(self, x):
        scale = self._p("scale")
        lp = 0.5 * math.log(2.0 / math.pi) - tx.math.log(scale) - 0.5 * tx.square(x / scale)
        return tx.where(x >= 0, lp, tx.fill(tx.shape(lp), tx.constant(-np.inf, lp.dtype)))

    def _cdf(self, x):
        c = tx.math.erf(x / (self._p("scale") * math.sqrt(2.0)))
        return tx.maximum(c, tx.zeros_like(c))

    def _survival_function(self, x):
        s = tx.math.erfc(x / (self._p("scale") * math.sqrt(2.0)))
        return tx.minimum(s, tx.ones_like(s))

    def _log_survival_function(self, x):
        return tx.math.log(self._survival_function(x))

    def _quantile(self, p):
        return tx.math.erfinv(p) * self._p("scale") * math.sqrt(2.0)

    def _mean(self):
        return self._broadcast_to_batch(self._p("scale") * _SQRT_2_OVER_PI)

    def _variance(self):
        return self._broadcast_to_batch(tx.square(self._p("scale")) * (1.0 - 2.0 / math.pi))

    def _mode(self):
        return tx.zeros_like(self._broadcast_to_batch(self._p("scale")))

    def _entropy(self):
        return self._broadcast_to_batch(0.5 * math.log(math.pi / 2.0) + 0.5 + tx.math.log(self._p("scale")))

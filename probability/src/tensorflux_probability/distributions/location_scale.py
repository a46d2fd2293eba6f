"""Location-scale families with closed forms throughout: Laplace, Logistic, Gumbel, Cauchy,
HalfCauchy, and LogNormal."""

import math

import tensorflux as tx

from tensorflux_probability.distributions.distribution import FULLY_REPARAMETERIZED, Distribution
from tensorflux_probability.internal import assertions, samplers
from tensorflux_probability.internal import tensors as _tensors
from tensorflux_probability.math.special import log_ndtr, ndtr

_EULER_GAMMA = 0.5772156649015329


class _LocScale(Distribution):
    """A distribution with ``loc`` and a positive ``scale``, sampled by transforming uniforms."""

    _params_event_ndims = {"loc": 0, "scale": 0}
    _validators = {"scale": assertions.positive}

    def __init__(self, loc, scale, validate_args, allow_nan_stats, parameters, name):
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
        u = samplers.uniform_open(self._sample_batch_event_shape(n), seed, self.dtype)
        return self._p("loc") + self._p("scale") * self._standard_from_uniform(u)

    def _quantile(self, p):
        return self._p("loc") + self._p("scale") * self._standard_from_uniform(p)

    def _scale_batch(self, factor=1.0):
        return self._broadcast_to_batch(self._p("scale") * factor)


class Laplace(_LocScale):
    """Laplace(loc, scale): density exp(-|x - loc| / scale) / (2 scale).

    >>> round(float(txp.distributions.Laplace(0.0, 1.0).log_prob(1.0)), 5)
    -1.69315
    """

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Laplace"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, dict(locals()), name)

    @staticmethod
    def _standard_from_uniform(u):
        v = 2.0 * u - 1.0
        return -tx.sign(v) * tx.math.log1p(-tx.abs(v))

    def _log_prob(self, x):
        scale = self._p("scale")
        return -tx.abs(x - self._p("loc")) / scale - tx.math.log(2.0 * scale)

    def _cdf(self, x):
        z = self._z(x)
        return 0.5 - 0.5 * tx.sign(z) * tx.math.expm1(-tx.abs(z))

    def _log_cdf(self, x):
        z = self._z(x)
        return tx.where(z < 0, z - math.log(2.0), tx.math.log1p(-0.5 * tx.exp(-tx.abs(z))))

    def _mean(self):
        return self._broadcast_to_batch(self._p("loc"))

    _mode = _mean

    def _stddev(self):
        return self._scale_batch(math.sqrt(2.0))

    def _entropy(self):
        return self._broadcast_to_batch(1.0 + tx.math.log(2.0 * self._p("scale")))


class Logistic(_LocScale):
    """Logistic(loc, scale): CDF sigmoid((x - loc) / scale).

    >>> round(float(txp.distributions.Logistic(0.0, 1.0).cdf(0.0)), 5)
    0.5
    """

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Logistic"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, dict(locals()), name)

    @staticmethod
    def _standard_from_uniform(u):
        return tx.math.log(u) - tx.math.log1p(-u)

    def _log_prob(self, x):
        z = self._z(x)
        return -z - 2.0 * tx.math.softplus(-z) - tx.math.log(self._p("scale"))

    def _cdf(self, x):
        return tx.sigmoid(self._z(x))

    def _log_cdf(self, x):
        return -tx.math.softplus(-self._z(x))

    def _log_survival_function(self, x):
        return -tx.math.softplus(self._z(x))

    def _mean(self):
        return self._broadcast_to_batch(self._p("loc"))

    _mode = _mean

    def _stddev(self):
        return self._scale_batch(math.pi / math.sqrt(3.0))

    def _entropy(self):
        return self._broadcast_to_batch(tx.math.log(self._p("scale")) + 2.0)


class Gumbel(_LocScale):
    """Gumbel(loc, scale) (maximum-value type I): CDF exp(-exp(-(x - loc) / scale)).

    >>> round(float(txp.distributions.Gumbel(0.0, 1.0).mean()), 5)
    0.57722
    """

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Gumbel"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, dict(locals()), name)

    @staticmethod
    def _standard_from_uniform(u):
        return -tx.math.log(-tx.math.log(u))

    def _log_prob(self, x):
        z = self._z(x)
        return -(z + tx.exp(-z)) - tx.math.log(self._p("scale"))

    def _log_cdf(self, x):
        return -tx.exp(-self._z(x))

    def _cdf(self, x):
        return tx.exp(-tx.exp(-self._z(x)))

    def _mean(self):
        return self._broadcast_to_batch(self._p("loc") + self._p("scale") * _EULER_GAMMA)

    def _mode(self):
        return self._broadcast_to_batch(self._p("loc"))

    def _stddev(self):
        return self._scale_batch(math.pi / math.sqrt(6.0))

    def _entropy(self):
        return self._broadcast_to_batch(tx.math.log(self._p("scale")) + 1.0 + _EULER_GAMMA)


class Cauchy(_LocScale):
    """Cauchy(loc, scale): density 1 / (pi scale (1 + z**2)); mean and variance undefined (NaN).

    >>> round(float(txp.distributions.Cauchy(0.0, 1.0).cdf(1.0)), 5)
    0.75
    """

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Cauchy"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, dict(locals()), name)

    @staticmethod
    def _standard_from_uniform(u):
        return tx.tan(math.pi * (u - 0.5))

    def _log_prob(self, x):
        z = self._z(x)
        return -math.log(math.pi) - tx.math.log(self._p("scale")) - tx.math.log1p(tx.square(z))

    def _cdf(self, x):
        return 0.5 + tx.atan(self._z(x)) / math.pi

    def _mode(self):
        return self._broadcast_to_batch(self._p("loc"))

    def _undefined(self):
        v = self._scale_batch()
        return self._nan_if(tx.ones_like(v) > 0, v)

    _mean = _undefined
    _variance = _undefined

    def _stddev(self):
        return self._undefined()

    def _entropy(self):
        return self._broadcast_to_batch(math.log(4.0 * math.pi) + tx.math.log(self._p("scale")))


class HalfCauchy(_LocScale):
    """The Cauchy distribution folded at ``loc``: support [loc, inf).

    >>> round(float(txp.distributions.HalfCauchy(0.0, 1.0).cdf(1.0)), 5)
    0.5
    """

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="HalfCauchy"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, dict(locals()), name)

    @staticmethod
    def _standard_from_uniform(u):
        return tx.tan(0.5 * math.pi * u)

    def _log_prob(self, x):
        z = self._z(x)
        lp = math.log(2.0 / math.pi) - tx.math.log(self._p("scale")) - tx.math.log1p(tx.square(z))
        return self._in_support(lp, x >= self._p("loc"))

    def _cdf(self, x):
        c = 2.0 / math.pi * tx.atan(self._z(x))
        return tx.maximum(c, tx.zeros_like(c))

    def _mode(self):
        return self._broadcast_to_batch(self._p("loc"))

    def _undefined(self):
        v = self._scale_batch()
        return self._nan_if(tx.ones_like(v) > 0, v)

    _mean = _undefined
    _variance = _undefined

    def _stddev(self):
        return self._undefined()

    def _entropy(self):
        return self._broadcast_to_batch(math.log(2.0 * math.pi) + tx.math.log(self._p("scale")))


class LogNormal(_LocScale):
    """exp(X) for X ~ N(loc, scale**2).

    >>> round(float(txp.distributions.LogNormal(0.0, 1.0).mean()), 5)
    1.64872
    """

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="LogNormal"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, dict(locals()), name)

    def _sample_n(self, n, seed):
        eps = samplers.normal(self._sample_batch_event_shape(n), seed, self.dtype)
        return tx.exp(self._p("loc") + self._p("scale") * eps)

    def _quantile(self, p):
        return tx.exp(self._p("loc") + self._p("scale") * tx.math.ndtri(p))

    def _log_prob(self, x):
        positive = x > 0
        safe = tx.where(positive, x, tx.ones_like(x))
        log_x = tx.math.log(safe)
        scale = self._p("scale")
        z = (log_x - self._p("loc")) / scale
        lp = -0.5 * tx.square(z) - tx.math.log(scale) - 0.5 * math.log(2.0 * math.pi) - log_x
        return self._in_support(lp, positive)

    def _log_z(self, x):
        positive = x > 0
        return (tx.math.log(tx.where(positive, x, tx.ones_like(x))) - self._p("loc")) / self._p("scale"), positive

    def _cdf(self, x):
        z, positive = self._log_z(x)
        c = ndtr(z)
        return tx.where(positive, c, tx.zeros_like(c))

    def _log_cdf(self, x):
        z, positive = self._log_z(x)
        return self._in_support(log_ndtr(z), positive)

    def _mean(self):
        return self._broadcast_to_batch(tx.exp(self._p("loc") + 0.5 * tx.square(self._p("scale"))))

    def _variance(self):
        s2 = tx.square(self._p("scale"))
        return self._broadcast_to_batch(tx.math.expm1(s2) * tx.exp(2.0 * self._p("loc") + s2))

    def _mode(self):
        return self._broadcast_to_batch(tx.exp(self._p("loc") - tx.square(self._p("scale"))))

    def _entropy(self):
        return self._broadcast_to_batch(self._p("loc") + 0.5 + 0.5 * math.log(2.0 * math.pi)
                                        + tx.math.log(self._p("scale")))



"""Uniform, Weibull and Pareto: closed forms throughout, sampled by inverting the CDF."""

import numpy as np

import tensorflux as tx

from tensorflux_probability.distributions.distribution import FULLY_REPARAMETERIZED, Distribution
from tensorflux_probability.internal import assertions, samplers
from tensorflux_probability.internal import tensors as _tensors

_EULER_GAMMA = 0.5772156649015329


class Uniform(Distribution):
    """The uniform distribution on [low, high).

    >>> round(float(txp.distributions.Uniform(0.0, 4.0).prob(1.0)), 5)
    0.25
    """

    _params_event_ndims = {"low": 0, "high": 0}

    def __init__(self, low=0.0, high=1.0, validate_args=False, allow_nan_stats=True, name="Uniform"):
        parameters = dict(locals())
        dtype = _tensors.common_dtype([low, high])
        super().__init__(dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, low=low, high=high)
        if validate_args and not _tensors.is_variable_like(self._low) and not _tensors.is_variable_like(self._high):
            assertions.less(self._low, self._high, "Uniform: low must be less than high")

    @property
    def low(self):
        return self._low

    @property
    def high(self):
        return self._high

    def _bounds(self):
        low, high = self._p("low"), self._p("high")
        if self._validate_args:
            low = assertions.less(low, high, "Uniform: low must be less than high")
        return low, high

    def _sample_n(self, n, seed):
        low, high = self._bounds()
        u = samplers.uniform(self._sample_batch_event_shape(n), seed, self.dtype)
        return low + (high - low) * u

    def _log_prob(self, x):
        low, high = self._bounds()
        lp = -tx.math.log(high - low) + tx.zeros_like(x)
        return self._in_support(lp, tx.logical_and(x >= low, x < high))

    def _cdf(self, x):
        low, high = self._bounds()
        c = (x - low) / (high - low)
        return tx.clip_by_value(c, tx.zeros_like(c), tx.ones_like(c))

    def _quantile(self, p):
        low, high = self._bounds()
        return low + (high - low) * p

    def _mean(self):
        low, high = self._bounds()
        return self._broadcast_to_batch(0.5 * (low + high))

    def _variance(self):
        low, high = self._bounds()
        return self._broadcast_to_batch(tx.square(high - low) / 12.0)

    def _entropy(self):
        low, high = self._bounds()
        return self._broadcast_to_batch(tx.math.log(high - low))


class Weibull(Distribution):
    """Weibull(concentration k, scale lambda): CDF 1 - exp(-(x / lambda)**k) on x >= 0.

    >>> round(float(txp.distributions.Weibull(1.0, 2.0).mean()), 5)
    2.0
    """

    _params_event_ndims = {"concentration": 0, "scale": 0}
    _validators = {"concentration": assertions.positive, "scale": assertions.positive}

    def __init__(self, concentration, scale, validate_args=False, allow_nan_stats=True, name="Weibull"):
        parameters = dict(locals())
        dtype = _tensors.common_dtype([concentration, scale])
        super().__init__(dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, concentration=concentration, scale=scale)

    @property
    def concentration(self):
        return self._concentration

    @property
    def scale(self):
        return self._scale

    def _sample_n(self, n, seed):
        u = samplers.uniform_open(self._sample_batch_event_shape(n), seed, self.dtype)
        return self._quantile(u)

    def _quantile(self, p):
        return self._p("scale") * tx.pow(-tx.math.log1p(-p), 1.0 / self._p("concentration"))

    def _log_prob(self, x):
        k, lam = self._p("concentration"), self._p("scale")
        nonneg = x >= 0
        z = tx.where(nonneg, x, tx.zeros_like(x)) / lam
        lp = tx.math.log(k) - tx.math.log(lam) + tx.math.xlogy(k - 1.0, z) - tx.pow(z, k)
        return self._in_support(lp, nonneg)

    def _cdf(self, x):
        z = tx.maximum(x, tx.zeros_like(x)) / self._p("scale")
        return -tx.math.expm1(-tx.pow(z, self._p("concentration")))

    def _log_survival_function(self, x):
        z = tx.maximum(x, tx.zeros_like(x)) / self._p("scale")
        return -tx.pow(z, self._p("concentration"))

    def _mean(self):
        k = self._p("concentration")
        return self._broadcast_to_batch(self._p("scale") * tx.exp(tx.math.lgamma(1.0 + 1.0 / k)))

    def _variance(self):
        k, lam = self._p("concentration"), self._p("scale")
        g1 = tx.exp(tx.math.lgamma(1.0 + 1.0 / k))
        g2 = tx.exp(tx.math.lgamma(1.0 + 2.0 / k))
        return self._broadcast_to_batch(tx.square(lam) * (g2 - tx.square(g1)))

    def _mode(self):
        k = self._broadcast_to_batch(self._p("concentration"))
        safe = tx.where(k > 1.0, k, tx.fill(tx.shape(k), tx.constant(2.0, k.dtype)))
        m = self._p("scale") * tx.pow((safe - 1.0) / safe, 1.0 / safe)
        return tx.where(k > 1.0, m, tx.zeros_like(m))

    def _entropy(self):
        k, lam = self._p("concentration"), self._p("scale")
        return self._broadcast_to_batch(_EULER_GAMMA * (1.0 - 1.0 / k) + tx.math.log(lam / k) + 1.0)


class Pareto(Distribution):
    """Pareto(concentration alpha, scale m): density alpha m**alpha / x**(alpha+1) on x >= m.

    >>> round(float(txp.distributions.Pareto(3.0, 1.0).mean()), 5)
    1.5
    """

    _params_event_ndims = {"concentration": 0, "scale": 0}
    _validators = {"concentration": assertions.positive, "scale": assertions.positive}

    def __init__(self, concentration, scale=1.0, validate_args=False, allow_nan_stats=True, name="Pareto"):
        parameters = dict(locals())
        dtype = _tensors.common_dtype([concentration, scale])
        super().__init__(dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, concentration=concentration, scale=scale)

    @property
    def concentration(self):
        return self._concentration

    @property
    def scale(self):
        return self._scale

    def _sample_n(self, n, seed):
        u = samplers.uniform_open(self._sample_batch_event_shape(n), seed, self.dtype)
        return self._p("scale") * tx.pow(u, -1.0 / self._p("concentration"))

    def _quantile(self, p):
        return self._p("scale") * tx.pow(1.0 - p, -1.0 / self._p("concentration"))

    def _log_prob(self, x):
        a, m = self._p("concentration"), self._p("scale")
        inside = x >= m
        safe = tx.where(inside, x, m + tx.zeros_like(x))
        lp = tx.math.log(a) + a * tx.math.log(m) - (a + 1.0) * tx.math.log(safe)
        return self._in_support(lp, inside)

    def _cdf(self, x):
        a, m = self._p("concentration"), self._p("scale")
        inside = x >= m
        safe = tx.where(inside, x, m + tx.zeros_like(x))
        c = -tx.math.expm1(a * tx.math.log(m / safe))
        return tx.where(inside, c, tx.zeros_like(c))

    def _mean(self):
        a = self._broadcast_to_batch(self._p("concentration"))
        m = self._p("scale")
        safe = tx.where(a > 1.0, a, tx.fill(tx.shape(a), tx.constant(2.0, a.dtype)))
        return tx.where(a > 1.0, safe * m / (safe - 1.0), tx.fill(tx.shape(a), tx.constant(np.inf, a.dtype)))

    def _variance(self):
        a = self._broadcast_to_batch(self._p("concentration"))
        m = self._p("scale")
        safe = tx.where(a > 2.0, a, tx.fill(tx.shape(a), tx.constant(3.0, a.dtype)))
        v = tx.square(m) * safe / (tx.square(safe - 1.0) * (safe - 2.0))
        return tx.where(a > 2.0, v, tx.fill(tx.shape(a), tx.constant(np.inf, a.dtype)))

    def _mode(self):
        return self._broadcast_to_batch(self._p("scale"))

    def _entropy(self):
        a, m = self._p("concentration"), self._p("scale")
        return self._broadcast_to_batch(tx.math.log(m / a) + 1.0 / a + 1.0)



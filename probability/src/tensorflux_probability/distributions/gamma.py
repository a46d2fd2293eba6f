"""Gamma, InverseGamma, Chi2 and Exponential.

Sampling draws from core's ``tx.random.stateless_gamma``, whose gradient with respect to the
concentration is the implicit reparameterisation one, so these are FULLY_REPARAMETERIZED; CDFs use
``tx.math.igamma`` / ``igammac`` (Note [Core functions] in internal/core_features.py).
"""

import numpy as np

import tensorflux as tx

from tensorflux_probability.distributions.distribution import FULLY_REPARAMETERIZED, Distribution
from tensorflux_probability.internal import assertions, samplers
from tensorflux_probability.internal import tensors as _tensors
from tensorflux_probability.internal.core_features import require


def _tiny(dtype):
    return np.finfo(dtype.as_numpy_dtype).tiny


class Gamma(Distribution):
    """Gamma(concentration, rate): density rate**c x**(c-1) exp(-rate x) / Gamma(c) on x > 0.

    >>> round(float(txp.distributions.Gamma(2.0, 3.0).log_prob(1.0)), 5)
    -0.80278
    """

    _params_event_ndims = {"concentration": 0, "rate": 0}
    _validators = {"concentration": assertions.positive, "rate": assertions.positive}

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True, name="Gamma"):
        parameters = dict(locals())
        dtype = _tensors.common_dtype([concentration, rate])
        super().__init__(dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, concentration=concentration, rate=rate)

    @property
    def concentration(self):
        return self._concentration

    @property
    def rate(self):
        return self._rate

    def _sample_n(self, n, seed):
        conc = self._broadcast_to_batch(self._p("concentration"))
        g = samplers.gamma(self._sample_batch_event_shape(n), conc, seed, self.dtype)
        return tx.maximum(g / self._p("rate"), tx.constant(_tiny(self.dtype), self.dtype))

    def _log_prob(self, x):
        c, r = self._p("concentration"), self._p("rate")
        positive = x >= 0
        safe = tx.where(positive, x, tx.constant(1.0, x.dtype))  # finite gradients outside the support
        # (c - 1) log x with 0 at c = 1 even where x = 0 (xlogy's convention; multiply_no_nan is faster).
        lp = tx.math.multiply_no_nan(tx.math.log(safe), c - 1.0) - r * safe + (c * tx.math.log(r) - tx.math.lgamma(c))
        return self._in_support(lp, positive)

    def _cdf(self, x):
        igamma = require("math.igamma", "Gamma.cdf")
        return igamma(self._p("concentration"), self._p("rate") * tx.maximum(x, tx.zeros_like(x)))

    def _survival_function(self, x):
        igammac = require("math.igammac", "Gamma.survival_function")
        return igammac(self._p("concentration"), self._p("rate") * tx.maximum(x, tx.zeros_like(x)))

    def _mean(self):
        return self._broadcast_to_batch(self._p("concentration") / self._p("rate"))

    def _variance(self):
        return self._broadcast_to_batch(self._p("concentration") / tx.square(self._p("rate")))

    def _mode(self):
        c = self._broadcast_to_batch(self._p("concentration"))
        return self._nan_if(c < 1.0, (c - 1.0) / self._p("rate"))

    def _entropy(self):
        c, r = self._p("concentration"), self._p("rate")
        return self._broadcast_to_batch(c - tx.math.log(r) + tx.math.lgamma(c) + (1.0 - c) * tx.math.digamma(c))


class Exponential(Gamma):
    """Exponential(rate) = Gamma(1, rate), sampled and inverted in closed form.

    >>> round(float(txp.distributions.Exponential(2.0).cdf(1.0)), 5)
    0.86466
    """

    _params_event_ndims = {"rate": 0}

    def __init__(self, rate, validate_args=False, allow_nan_stats=True, name="Exponential"):
        parameters = dict(locals())
        dtype = _tensors.common_dtype([rate])
        Distribution.__init__(self, dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, rate=rate)
        self._concentration = tx.constant(1.0, dtype)

    def _sample_n(self, n, seed):
        u = samplers.uniform_open(self._sample_batch_event_shape(n), seed, self.dtype)
        return -tx.math.log(u) / self._p("rate")

    def _log_prob(self, x):
        r = self._p("rate")
        return self._in_support(tx.math.log(r) - r * x, x >= 0)

    def _cdf(self, x):
        return -tx.math.expm1(-self._p("rate") * tx.maximum(x, tx.zeros_like(x)))

    def _survival_function(self, x):
        return tx.exp(-self._p("rate") * tx.maximum(x, tx.zeros_like(x)))

    def _log_survival_function(self, x):
        return -self._p("rate") * tx.maximum(x, tx.zeros_like(x))

    def _quantile(self, p):
        return -tx.math.log1p(-p) / self._p("rate")

    def _mode(self):
        return tx.zeros_like(self._broadcast_to_batch(self._p("rate")))

    def _entropy(self):
        return self._broadcast_to_batch(1.0 - tx.math.log(self._p("rate")))


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom: Gamma(df / 2, 1 / 2).

    >>> round(float(txp.distributions.Chi2(3.0).mean()), 5)
    3.0
    """

    _params_event_ndims = {"df": 0}
    _validators = {"df": assertions.positive}

    def __init__(self, df, validate_args=False, allow_nan_stats=True, name="Chi2"):
        parameters = dict(locals())
        dtype = _tensors.common_dtype([df])
        Distribution.__init__(self, dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, df=df)

    @property
    def df(self):
        return self._df

    def _p(self, k):
        if k == "concentration":
            return 0.5 * Distribution._p(self, "df")
        if k == "rate":
            return tx.constant(0.5, self.dtype)
        return Distribution._p(self, k)

    @property
    def concentration(self):
        return self._p("concentration")

    @property
    def rate(self):
        return self._p("rate")


class InverseGamma(Distribution):
    """1 / X for X ~ Gamma(concentration, rate=scale): density scale**c x**(-c-1) exp(-scale / x) / Gamma(c).

    >>> round(float(txp.distributions.InverseGamma(3.0, 2.0).mean()), 5)
    1.0
    """

    _params_event_ndims = {"concentration": 0, "scale": 0}
    _validators = {"concentration": assertions.positive, "scale": assertions.positive}

    def __init__(self, concentration, scale, validate_args=False, allow_nan_stats=True, name="InverseGamma"):
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
        conc = self._broadcast_to_batch(self._p("concentration"))
        g = samplers.gamma(self._sample_batch_event_shape(n), conc, seed, self.dtype)
        return self._p("scale") / tx.maximum(g, tx.constant(_tiny(self.dtype), self.dtype))

    def _log_prob(self, x):
        c, s = self._p("concentration"), self._p("scale")
        positive = x > 0
        safe = tx.where(positive, x, tx.ones_like(x))
        lp = c * tx.math.log(s) - tx.math.lgamma(c) - (c + 1.0) * tx.math.log(safe) - s / safe
        return self._in_support(lp, positive)

    def _cdf(self, x):
        igammac = require("math.igammac", "InverseGamma.cdf")
        positive = x > 0
        safe = tx.where(positive, x, tx.ones_like(x))
        c = igammac(self._p("concentration"), self._p("scale") / safe)
        return tx.where(positive, c, tx.zeros_like(c))

    def _mean(self):
        c = self._broadcast_to_batch(self._p("concentration"))
        return self._nan_if(c <= 1.0, self._p("scale") / (c - 1.0))

    def _variance(self):
        c = self._broadcast_to_batch(self._p("concentration"))
        return self._nan_if(c <= 2.0, tx.square(self._p("scale")) / (tx.square(c - 1.0) * (c - 2.0)))

    def _mode(self):
        return self._broadcast_to_batch(self._p("scale") / (self._p("concentration") + 1.0))

    def _entropy(self):
        c, s = self._p("concentration"), self._p("scale")
        return self._broadcast_to_batch(c + tx.math.log(s) + tx.math.lgamma(c) - (1.0 + c) * tx.math.digamma(c))

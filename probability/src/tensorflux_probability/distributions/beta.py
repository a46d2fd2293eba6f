"""Beta and StudentT: densities from lgamma, samples through Gamma draws (core's
stateless_gamma, implicitly reparameterised), CDFs through ``tx.math.betainc`` (Note [Core
functions] in internal/core_features.py)."""

import math

import numpy as np

import tensorflux as tx

from tensorflux_probability.distributions.distribution import FULLY_REPARAMETERIZED, Distribution
from tensorflux_probability.internal import assertions, samplers
from tensorflux_probability.internal import tensors as _tensors
from tensorflux_probability.internal.core_features import require
from tensorflux_probability.math.special import lbeta


class Beta(Distribution):
    """Beta(concentration1, concentration0) on [0, 1]: density x**(c1-1) (1-x)**(c0-1) / B(c1, c0).

    >>> round(float(txp.distributions.Beta(2.0, 3.0).mean()), 5)
    0.4
    """

    _params_event_ndims = {"concentration1": 0, "concentration0": 0}
    _validators = {"concentration1": assertions.positive, "concentration0": assertions.positive}

    def __init__(self, concentration1, concentration0, validate_args=False, allow_nan_stats=True, name="Beta"):
        parameters = dict(locals())
        dtype = _tensors.common_dtype([concentration1, concentration0])
        super().__init__(dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, concentration1=concentration1, concentration0=concentration0)

    @property
    def concentration1(self):
        return self._concentration1

    @property
    def concentration0(self):
        return self._concentration0

    def _sample_n(self, n, seed):
        s1, s0 = samplers.split_seed(seed, 2, salt="beta")
        shape = self._sample_batch_event_shape(n)
        g1 = samplers.gamma(shape, self._broadcast_to_batch(self._p("concentration1")), s1, self.dtype)
        g0 = samplers.gamma(shape, self._broadcast_to_batch(self._p("concentration0")), s0, self.dtype)
        return g1 / (g1 + g0)

    def _log_prob(self, x):
        a, b = self._p("concentration1"), self._p("concentration0")
        inside = tx.logical_and(x >= 0, x <= 1)
        safe = tx.where(inside, x, tx.fill(tx.shape(x), tx.constant(0.5, x.dtype)))
        lp = tx.math.xlogy(a - 1.0, safe) + tx.math.xlog1py(b - 1.0, -safe) - lbeta(a, b)
        return self._in_support(lp, inside)

    def _cdf(self, x):
        betainc = require("math.betainc", "Beta.cdf")
        a, b = self._broadcast_to_batch(self._p("concentration1")), self._broadcast_to_batch(self._p("concentration0"))
        clipped = tx.clip_by_value(x, tx.zeros_like(x), tx.ones_like(x))
        return betainc(a + tx.zeros_like(clipped), b + tx.zeros_like(clipped), clipped + tx.zeros_like(a))

    def _mean(self):
        a, b = self._p("concentration1"), self._p("concentration0")
        return self._broadcast_to_batch(a / (a + b))

    def _variance(self):
        a, b = self._p("concentration1"), self._p("concentration0")
        total = a + b
        return self._broadcast_to_batch(a * b / (tx.square(total) * (total + 1.0)))

    def _mode(self):
        a = self._broadcast_to_batch(self._p("concentration1"))
        b = self._broadcast_to_batch(self._p("concentration0"))
        return self._nan_if(tx.logical_or(a <= 1.0, b <= 1.0), (a - 1.0) / (a + b - 2.0))

    def _entropy(self):
        a, b = self._p("concentration1"), self._p("concentration0")
        dg = tx.math.digamma
        return self._broadcast_to_batch(lbeta(a, b) - (a - 1.0) * dg(a) - (b - 1.0) * dg(b)
                                        + (a + b - 2.0) * dg(a + b))


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``.

    >>> round(float(txp.distributions.StudentT(3.0, 0.0, 1.0).log_prob(0.0)), 5)
    -1.00089
    """

    _params_event_ndims = {"df": 0, "loc": 0, "scale": 0}
    _validators = {"df": assertions.positive, "scale": assertions.positive}

    def __init__(self, df, loc, scale, validate_args=False, allow_nan_stats=True, name="StudentT"):
        parameters = dict(locals())
        dtype = _tensors.common_dtype([df, loc, scale])
        super().__init__(dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, df=df, loc=loc, scale=scale)

    @property
    def df(self):
        return self._df

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _sample_n(self, n, seed):
        sn, sg = samplers.split_seed(seed, 2, salt="student_t")
        shape = self._sample_batch_event_shape(n)
        df = self._broadcast_to_batch(self._p("df"))
        g = samplers.gamma(shape, 0.5 * df, sg, self.dtype)  # chi2(df) / 2
        z = samplers.normal(shape, sn, self.dtype)
        return self._p("loc") + self._p("scale") * z * tx.math.rsqrt(g / (0.5 * df))

    def _log_prob(self, x):
        df, scale = self._p("df"), self._p("scale")
        z = (x - self._p("loc")) / scale
        return (tx.math.lgamma(0.5 * (df + 1.0)) - tx.math.lgamma(0.5 * df) - 0.5 * tx.math.log(df * math.pi)
                - tx.math.log(scale) - 0.5 * (df + 1.0) * tx.math.log1p(tx.square(z) / df))

    def _cdf(self, x):
        betainc = require("math.betainc", "StudentT.cdf")
        df = self._p("df")
        t = (x - self._p("loc")) / self._p("scale")
        xt = df / (df + tx.square(t))
        half_df = 0.5 * df + tx.zeros_like(xt)
        p = 0.5 * betainc(half_df, tx.fill(tx.shape(xt), tx.constant(0.5, xt.dtype)), xt + tx.zeros_like(half_df))
        return tx.where(t < 0, p, 1.0 - p)

    def _mean(self):
        df = self._broadcast_to_batch(self._p("df"))
        return self._nan_if(df <= 1.0, self._broadcast_to_batch(self._p("loc")))

    def _mode(self):
        return self._broadcast_to_batch(self._p("loc"))

    def _variance(self):
        df = self._broadcast_to_batch(self._p("df"))
        safe = tx.where(df > 2.0, df, tx.fill(tx.shape(df), tx.constant(3.0, df.dtype)))
        v = tx.square(self._p("scale")) * safe / (safe - 2.0)
        v = tx.where(df > 2.0, v, tx.fill(tx.shape(v), tx.constant(np.inf, v.dtype)))
        return self._nan_if(df <= 1.0, v)

    def _entropy(self):
        df = self._p("df")
        half = 0.5 * (df + 1.0)
        return self._broadcast_to_batch(half * (tx.math.digamma(half) - tx.math.digamma(0.5 * df))
                                        + 0.5 * tx.math.log(df) + lbeta(0.5 * df, 0.5 + tx.zeros_like(df))
                                        + tx.math.log(self._p("scale")))

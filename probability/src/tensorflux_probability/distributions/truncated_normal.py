"""TruncatedNormal: the normal distribution restricted to [low, high].

Note [Truncated normal sampling]: samples invert the CDF, x = ndtri(ndtr(a) + u (ndtr(b) -
ndtr(a))) in standard units, on the mirrored interval [-b, -a] when a > 0 so that the CDF values
involved stay small (where ndtr and ndtri are accurate) instead of crowding against 1. The sample
is a differentiable function of loc, scale, low and high, so it is fully reparameterised.
"""

import math

import tensorflux as tx

from tensorflux_probability.distributions.distribution import FULLY_REPARAMETERIZED, Distribution
from tensorflux_probability.internal import assertions, samplers
from tensorflux_probability.internal import tensors as _tensors
from tensorflux_probability.math.special import ndtr

_HALF_LOG_TWO_PI = 0.5 * math.log(2.0 * math.pi)


def _phi(z):
    """The standard normal density, 0 at +-inf."""
    finite = tx.math.is_finite(z)
    safe = tx.where(finite, z, tx.zeros_like(z))
    return tx.where(finite, tx.exp(-0.5 * tx.square(safe) - _HALF_LOG_TWO_PI), tx.zeros_like(z))


def _z_times_phi(z):
    finite = tx.math.is_finite(z)
    safe = tx.where(finite, z, tx.zeros_like(z))
    return tx.where(finite, safe * _phi(safe), tx.zeros_like(z))


class TruncatedNormal(Distribution):
    """N(loc, scale**2) conditioned on [low, high] (Note [Truncated normal sampling]).

    >>> d = txp.distributions.TruncatedNormal(0.0, 1.0, low=0.0, high=np.inf)
    >>> round(float(d.mean()), 5)
    0.79788
    """

    _params_event_ndims = {"loc": 0, "scale": 0, "low": 0, "high": 0}
    _validators = {"scale": assertions.positive}

    def __init__(self, loc, scale, low, high, validate_args=False, allow_nan_stats=True, name="TruncatedNormal"):
        parameters = dict(locals())
        dtype = _tensors.common_dtype([loc, scale, low, high])
        super().__init__(dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, loc=loc, scale=scale, low=low, high=high)
        if validate_args and not any(_tensors.is_variable_like(p) for p in (self._low, self._high)):
            assertions.less(self._low, self._high, "TruncatedNormal: low must be less than high")

    loc = property(lambda self: self._loc)
    scale = property(lambda self: self._scale)
    low = property(lambda self: self._low)
    high = property(lambda self: self._high)

    def _standard_bounds(self):
        loc, scale = self._p("loc"), self._p("scale")
        low, high = self._p("low"), self._p("high")
        if self._validate_args:
            low = assertions.less(low, high, "TruncatedNormal: low must be less than high")
        return (low - loc) / scale, (high - loc) / scale

    @staticmethod
    def _mass(a, b):
        """ndtr(b) - ndtr(a), computed in the lower tail on whichever side it is small."""
        right = a > 0
        return tx.where(right, ndtr(-a) - ndtr(-b), ndtr(b) - ndtr(a))

    def _sample_n(self, n, seed):
        a, b = self._standard_bounds()
        a = self._broadcast_to_batch(a)
        b = self._broadcast_to_batch(b)
        u = samplers.uniform_open(self._sample_batch_event_shape(n), seed, self.dtype)
        mirrored = a > 0
        lo = tx.where(mirrored, -b, a)
        mass = self._mass(a, b)
        z = tx.math.ndtri(ndtr(lo) + u * mass)
        z = tx.where(mirrored, -z, z)
        z = tx.minimum(tx.maximum(z, a), b)
        return self._p("loc") + self._p("scale") * z

    def _log_prob(self, x):
        a, b = self._standard_bounds()
        scale = self._p("scale")
        z = (x - self._p("loc")) / scale
        lp = -0.5 * tx.square(z) - _HALF_LOG_TWO_PI - tx.math.log(scale) - tx.math.log(self._mass(a, b))
        return self._in_support(lp, tx.logical_and(z >= a, z <= b))

    def _cdf(self, x):
        a, b = self._standard_bounds()
        z = (x - self._p("loc")) / self._p("scale")
        zc = tx.minimum(tx.maximum(z, a), b)
        return self._mass(a, zc) / self._mass(a, b)

    def _mean(self):
        a, b = self._standard_bounds()
        m = self._p("loc") + self._p("scale") * (_phi(a) - _phi(b)) / self._mass(a, b)
        return self._broadcast_to_batch(m)

    def _variance(self):
        a, b = self._standard_bounds()
        mass = self._mass(a, b)
        d = (_phi(a) - _phi(b)) / mass
        v = tx.square(self._p("scale")) * (1.0 + (_z_times_phi(a) - _z_times_phi(b)) / mass - tx.square(d))
        return self._broadcast_to_batch(v)

    def _mode(self):
        loc = self._p("loc")
        return self._broadcast_to_batch(tx.minimum(tx.maximum(loc, self._p("low")), self._p("high")))

    def _entropy(self):
        a, b = self._standard_bounds()
        mass = self._mass(a, b)
        h = (0.5 * math.log(2.0 * math.pi * math.e) + tx.math.log(self._p("scale") * mass)
             + (_z_times_phi(a) - _z_times_phi(b)) / (2.0 * mass))
        return self._broadcast_to_batch(h)



"""VonMises: the circular normal distribution on [-pi, pi).

Note [Von Mises sampling]: Best and Fisher's (1979) rejection sampler, vectorised: every element
draws proposals until one is accepted, inside a ``tx.while_loop`` whose seed for round i is the
sample seed folded with i, so the draws are reproducible from the seed alone. Samples are not
reparameterised (the implicit gradient through the CDF series is left out).
"""

import math

import numpy as np

import tensorflux as tx

from tensorflux_probability.distributions.distribution import NOT_REPARAMETERIZED, Distribution
from tensorflux_probability.internal import assertions, samplers
from tensorflux_probability.internal import tensors as _tensors

_LOG_TWO_PI = math.log(2.0 * math.pi)


class VonMises(Distribution):
    """VonMises(loc, concentration): density exp(k cos(x - loc)) / (2 pi I0(k)).

    >>> round(float(txp.distributions.VonMises(0.0, 1.0).log_prob(0.0)), 5)
    -1.07379
    """

    _params_event_ndims = {"loc": 0, "concentration": 0}
    _validators = {"concentration": assertions.non_negative}

    def __init__(self, loc, concentration, validate_args=False, allow_nan_stats=True, name="VonMises"):
        parameters = dict(locals())
        dtype = _tensors.common_dtype([loc, concentration])
        super().__init__(dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, loc=loc, concentration=concentration)

    loc = property(lambda self: self._loc)
    concentration = property(lambda self: self._concentration)

    def _log_prob(self, x):
        k = self._p("concentration")
        return k * (tx.cos(x - self._p("loc")) - 1.0) - _LOG_TWO_PI - tx.math.log(tx.math.bessel_i0e(k))

    def _mean(self):
        return self._broadcast_to_batch(self._p("loc"))

    _mode = _mean

    def _variance(self):
        k = self._p("concentration")
        return self._broadcast_to_batch(1.0 - tx.math.bessel_i1e(k) / tx.math.bessel_i0e(k))

    def _entropy(self):
        k = self._p("concentration")
        i0e = tx.math.bessel_i0e(k)
        return self._broadcast_to_batch(-k * tx.math.bessel_i1e(k) / i0e + _LOG_TWO_PI + tx.math.log(i0e) + k)

    def _sample_n(self, n, seed):
        shape = self._sample_batch_event_shape(n)
        dtype = self.dtype
        tiny = np.finfo(dtype.as_numpy_dtype).tiny
        k = tx.maximum(self._broadcast_to_batch(self._p("concentration")), tx.constant(1e-6, dtype))
        k = tx.broadcast_to(k, shape)
        tau = 1.0 + tx.sqrt(1.0 + 4.0 * tx.square(k))
        rho = (tau - tx.sqrt(2.0 * tau)) / (2.0 * k)
        r = (1.0 + tx.square(rho)) / (2.0 * rho)
        seed = samplers.sanitize_seed(seed, salt="von_mises")

        def body(i, done, theta):
            s = tx.random.experimental.stateless_fold_in(seed, i)
            u = tx.random.stateless_uniform(tx.concat([[3], tx.shape(k)], 0), seed=s, dtype=dtype)
            u1, u2, u3 = u[0], tx.maximum(u[1], tx.constant(tiny, dtype)), u[2]
            z = tx.cos(math.pi * u1)
            f = (1.0 + r * z) / (r + z)
            c = k * (r - f)
            accept = tx.logical_or(c * (2.0 - c) - u2 > 0, tx.math.log(c / u2) + 1.0 - c >= 0)
            f = tx.clip_by_value(f, tx.constant(-1.0, dtype), tx.constant(1.0, dtype))
            proposal = tx.sign(u3 - 0.5) * tx.acos(f)
            take = tx.logical_and(accept, tx.logical_not(done))
            return i + 1, tx.logical_or(done, accept), tx.where(take, proposal, theta)

        _, _, theta = tx.while_loop(lambda i, done, theta: tx.logical_not(tx.reduce_all(done)), body,
                                    [tx.constant(0), tx.zeros(tx.shape(k), tx.bool), tx.zeros_like(k)])
        x = theta + self._p("loc")
        return tx.math.floormod(x + math.pi, 2.0 * math.pi) - math.pi

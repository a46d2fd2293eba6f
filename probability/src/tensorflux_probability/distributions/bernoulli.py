"""Bernoulli and Geometric."""

import tensorflux as tx

from tensorflux_probability.distributions import _logits_probs as lp_util
from tensorflux_probability.distributions.distribution import NOT_REPARAMETERIZED, Distribution
from tensorflux_probability.internal import samplers


def _integer_in(x, low, high=None):
    """x is an integer value in [low, high] (high None: unbounded)."""
    ok = tx.logical_and(tx.equal(x, tx.floor(x)), x >= low)
    return ok if high is None else tx.logical_and(ok, x <= high)


class Bernoulli(Distribution):
    """Bernoulli(probs) on {0, 1}, given by ``logits`` or ``probs``; samples have ``dtype`` (int32).

    >>> round(float(txp.distributions.Bernoulli(probs=0.3).log_prob(1)), 5)
    -1.20397
    """

    _params_event_ndims = {"logits": 0, "probs": 0}
    _validators = lp_util.VALIDATORS_BINARY

    def __init__(self, logits=None, probs=None, dtype=tx.int32, validate_args=False, allow_nan_stats=True,
                 name="Bernoulli"):
        parameters = dict(locals())
        super().__init__(dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._param_dtype = lp_util.init_logits_probs(self, logits, probs)

    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)

    def logits_parameter(self):
        return lp_util.logits_of(self)

    def probs_parameter(self):
        return lp_util.probs_of(self)

    def _convert_value(self, value):
        return tx.cast(tx.convert_to_tensor(value), self._param_dtype)

    def _sample_n(self, n, seed):
        p = lp_util.probs_of(self)
        u = samplers.uniform(self._sample_batch_event_shape(n), seed, self._param_dtype)
        return tx.cast(u < p, self.dtype)

    def _log_prob(self, x):
        log_p, log_q = lp_util.log_probs_pair(self)
        zeros = tx.zeros_like(x * log_p)
        lp = tx.where(tx.equal(x, 1.0), log_p + zeros, log_q + zeros)
        return self._in_support(lp, _integer_in(x, 0.0, 1.0))

    def _cdf(self, x):
        q = 1.0 - lp_util.probs_of(self)
        c = tx.where(x < 0, tx.zeros_like(x * q), tx.where(x < 1, q + tx.zeros_like(x), tx.ones_like(x * q)))
        return c

    def _mean(self):
        return self._broadcast_to_batch(lp_util.probs_of(self))

    def _variance(self):
        p = lp_util.probs_of(self)
        return self._broadcast_to_batch(p * (1.0 - p))

    def _mode(self):
        return tx.cast(self._broadcast_to_batch(lp_util.probs_of(self)) > 0.5, self.dtype)

    def _entropy(self):
        log_p, log_q = lp_util.log_probs_pair(self)
        p = lp_util.probs_of(self)
        return self._broadcast_to_batch(-(tx.math.multiply_no_nan(log_p, p) + tx.math.multiply_no_nan(log_q, 1.0 - p)))


class Geometric(Distribution):
    """The number of failures before the first success of Bernoulli(probs) trials: {0, 1, 2, ...}.

    >>> round(float(txp.distributions.Geometric(probs=0.25).mean()), 5)
    3.0
    """

    _params_event_ndims = {"logits": 0, "probs": 0}
    _validators = lp_util.VALIDATORS_BINARY

    def __init__(self, logits=None, probs=None, validate_args=False, allow_nan_stats=True, name="Geometric"):
        parameters = dict(locals())
        super().__init__(None, NOT_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._dtype = lp_util.init_logits_probs(self, logits, probs)

    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)

    def _sample_n(self, n, seed):
        _, log_q = lp_util.log_probs_pair(self)
        u = samplers.uniform_open(self._sample_batch_event_shape(n), seed, self.dtype)
        return tx.floor(tx.math.log(u) / log_q)

    def _log_prob(self, x):
        log_p, log_q = lp_util.log_probs_pair(self)
        safe = tx.where(_integer_in(x, 0.0), x, tx.zeros_like(x))
        return self._in_support(tx.math.multiply_no_nan(log_q, safe) + log_p, _integer_in(x, 0.0))

    def _cdf(self, x):
        _, log_q = lp_util.log_probs_pair(self)
        k = tx.floor(x)
        c = -tx.math.expm1((k + 1.0) * log_q)
        return tx.where(x < 0, tx.zeros_like(c), c)

    def _mean(self):
        p = lp_util.probs_of(self)
        return self._broadcast_to_batch((1.0 - p) / p)

    def _variance(self):
        p = lp_util.probs_of(self)
        return self._broadcast_to_batch((1.0 - p) / tx.square(p))

    def _mode(self):
        return tx.zeros_like(self._broadcast_to_batch(lp_util.probs_of(self)))

    def _entropy(self):
        log_p, log_q = lp_util.log_probs_pair(self)
        p = lp_util.probs_of(self)
        return self._broadcast_to_batch(-(tx.math.multiply_no_nan(log_q, 1.0 - p) + p * log_p) / p)



"""Count distributions: Poisson, Binomial and NegativeBinomial. Samples come from core's
stateless Poisson/Binomial/Gamma samplers, CDFs from ``tx.math.igammac`` / ``betainc`` (Note
[Core functions] in internal/core_features.py)."""

import tensorflux as tx

from tensorflux_probability.distributions import _logits_probs as lp_util
from tensorflux_probability.distributions.bernoulli import _integer_in
from tensorflux_probability.distributions.distribution import NOT_REPARAMETERIZED, Distribution
from tensorflux_probability.internal import assertions, samplers
from tensorflux_probability.internal import tensors as _tensors
from tensorflux_probability.internal.core_features import require


class Poisson(Distribution):
    """Poisson(rate) on {0, 1, 2, ...}, given by ``rate`` or ``log_rate``.

    >>> round(float(txp.distributions.Poisson(rate=2.0).log_prob(3.0)), 5)
    -1.71232
    """

    _params_event_ndims = {"rate": 0, "log_rate": 0}
    _validators = {"rate": assertions.non_negative}

    def __init__(self, rate=None, log_rate=None, force_probs_to_zero_outside_support=True, validate_args=False,
                 allow_nan_stats=True, name="Poisson"):
        parameters = dict(locals())
        if (rate is None) == (log_rate is None):
            raise ValueError("Poisson: pass exactly one of rate and log_rate")
        dtype = _tensors.common_dtype([rate, log_rate])
        super().__init__(dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, rate=rate, log_rate=log_rate)

    rate = property(lambda self: self._rate)
    log_rate = property(lambda self: self._log_rate)

    def rate_parameter(self):
        return self._p("rate") if self._rate is not None else tx.exp(self._p("log_rate"))

    def _log_rate_value(self):
        return self._p("log_rate") if self._log_rate is not None else tx.math.log(self._p("rate"))

    def _sample_n(self, n, seed):
        rate = self._broadcast_to_batch(self.rate_parameter())
        return samplers.poisson(self._sample_batch_event_shape(n), rate, seed, self.dtype)

    def _log_prob(self, x):
        ok = _integer_in(x, 0.0)
        safe = tx.where(ok, x, tx.zeros_like(x))
        lp = tx.math.multiply_no_nan(self._log_rate_value(), safe) - self.rate_parameter() - tx.math.lgamma(safe + 1.0)
        return self._in_support(lp, ok)

    def _cdf(self, x):
        igammac = require("math.igammac", "Poisson.cdf")
        k = tx.floor(x)
        rate = self.rate_parameter() + tx.zeros_like(k)
        safe = tx.maximum(k, tx.zeros_like(k))
        c = igammac(safe + 1.0, rate)
        return tx.where(x < 0, tx.zeros_like(c), c)

    def _mean(self):
        return self._broadcast_to_batch(self.rate_parameter())

    _variance = _mean

    def _mode(self):
        return self._broadcast_to_batch(tx.floor(self.rate_parameter()))


class Binomial(Distribution):
    """The number of successes in ``total_count`` Bernoulli(probs) trials.

    >>> round(float(txp.distributions.Binomial(10.0, probs=0.5).log_prob(5.0)), 5)
    -1.40204
    """

    _params_event_ndims = {"total_count": 0, "logits": 0, "probs": 0}
    _validators = {"total_count": assertions.non_negative, **lp_util.VALIDATORS_BINARY}

    def __init__(self, total_count, logits=None, probs=None, validate_args=False, allow_nan_stats=True,
                 name="Binomial"):
        parameters = dict(locals())
        super().__init__(None, NOT_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._dtype = lp_util.init_logits_probs(self, logits, probs, total_count=total_count)

    total_count = property(lambda self: self._total_count)
    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)

    def _sample_n(self, n, seed):
        counts = self._broadcast_to_batch(self._p("total_count"))
        probs = self._broadcast_to_batch(lp_util.probs_of(self))
        return samplers.binomial(self._sample_batch_event_shape(n), counts, probs, seed, self.dtype)

    def _log_prob(self, x):
        n = self._p("total_count")
        log_p, log_q = lp_util.log_probs_pair(self)
        ok = tx.logical_and(_integer_in(x, 0.0), x <= n)
        safe = tx.where(ok, x, tx.zeros_like(x))
        log_comb = tx.math.lgamma(n + 1.0) - tx.math.lgamma(safe + 1.0) - tx.math.lgamma(n - safe + 1.0)
        lp = log_comb + tx.math.multiply_no_nan(log_p, safe) + tx.math.multiply_no_nan(log_q, n - safe)
        return self._in_support(lp, ok)

    def _cdf(self, x):
        betainc = require("math.betainc", "Binomial.cdf")
        n = self._p("total_count") + tx.zeros_like(x)
        k = tx.floor(x)
        q = 1.0 - lp_util.probs_of(self) + tx.zeros_like(k)
        inside = tx.logical_and(k >= 0, k < n)
        safe_k = tx.where(inside, k, tx.zeros_like(k))
        c = betainc(tx.where(inside, n - safe_k, tx.ones_like(n)), safe_k + 1.0, q)
        return tx.where(k < 0, tx.zeros_like(c), tx.where(k >= n, tx.ones_like(c), c))

    def _mean(self):
        return self._broadcast_to_batch(self._p("total_count") * lp_util.probs_of(self))

    def _variance(self):
        p = lp_util.probs_of(self)
        return self._broadcast_to_batch(self._p("total_count") * p * (1.0 - p))

    def _mode(self):
        n = self._p("total_count")
        return self._broadcast_to_batch(tx.minimum(tx.floor((n + 1.0) * lp_util.probs_of(self)), n))


class NegativeBinomial(Distribution):
    """The number of successes (probability ``probs``) before ``total_count`` failures (TFP's convention).

    >>> round(float(txp.distributions.NegativeBinomial(3.0, probs=0.25).mean()), 5)
    1.0
    """

    _params_event_ndims = {"total_count": 0, "logits": 0, "probs": 0}
    _validators = {"total_count": assertions.positive, **lp_util.VALIDATORS_BINARY}

    def __init__(self, total_count, logits=None, probs=None, validate_args=False, allow_nan_stats=True,
                 name="NegativeBinomial"):
        parameters = dict(locals())
        super().__init__(None, NOT_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._dtype = lp_util.init_logits_probs(self, logits, probs, total_count=total_count)

    total_count = property(lambda self: self._total_count)
    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)

    def _sample_n(self, n, seed):
        s_gamma, s_poisson = samplers.split_seed(seed, 2, salt="negative_binomial")
        shape = self._sample_batch_event_shape(n)
        r = self._broadcast_to_batch(self._p("total_count"))
        log_odds = lp_util.logits_of(self)
        rate = samplers.gamma(shape, r, s_gamma, self.dtype) * tx.exp(log_odds)
        return samplers.poisson(shape, rate, s_poisson, self.dtype)

    def _log_prob(self, x):
        r = self._p("total_count")
        log_p, log_q = lp_util.log_probs_pair(self)
        ok = _integer_in(x, 0.0)
        safe = tx.where(ok, x, tx.zeros_like(x))
        lp = (tx.math.lgamma(safe + r) - tx.math.lgamma(safe + 1.0) - tx.math.lgamma(r)
              + r * log_q + tx.math.multiply_no_nan(log_p, safe))
        return self._in_support(lp, ok)

    def _cdf(self, x):
        betainc = require("math.betainc", "NegativeBinomial.cdf")
        k = tx.floor(x)
        r = self._p("total_count") + tx.zeros_like(k)
        q = 1.0 - lp_util.probs_of(self) + tx.zeros_like(k)
        safe = tx.maximum(k, tx.zeros_like(k))
        c = betainc(r, safe + 1.0, q)
        return tx.where(k < 0, tx.zeros_like(c), c)

    def _mean(self):
        return self._broadcast_to_batch(self._p("total_count") * tx.exp(lp_util.logits_of(self)))

    def _variance(self):
        p = lp_util.probs_of(self)
        return self._broadcast_to_batch(self._p("total_count") * p / tx.square(1.0 - p))

    def _mode(self):
        r = self._p("total_count")
        m = tx.floor((r - 1.0) * tx.exp(lp_util.logits_of(self)))
        return self._broadcast_to_batch(tx.where(r > 1.0, m, tx.zeros_like(m)))

"""Multinomial and Dirichlet: distributions over count vectors and the probability simplex."""

import tensorflux as tx

from tensorflux_probability.distributions import _logits_probs as lp_util
from tensorflux_probability.distributions.categorical import _CategoricalBase
from tensorflux_probability.distributions.distribution import (FULLY_REPARAMETERIZED, NOT_REPARAMETERIZED,
                                                               Distribution)
from tensorflux_probability.internal import assertions, samplers
from tensorflux_probability.internal import shapes as _shapes
from tensorflux_probability.internal import tensors as _tensors


class Multinomial(_CategoricalBase):
    """Counts of ``total_count`` categorical draws over K classes (event shape [K]).

    >>> d = txp.distributions.Multinomial(total_count=4.0, probs=[0.5, 0.5])
    >>> round(float(d.log_prob([2.0, 2.0])), 5)
    -0.98083
    """

    _params_event_ndims = {"total_count": 0, "logits": 1, "probs": 1}
    _validators = {"total_count": assertions.non_negative, **lp_util.VALIDATORS_SIMPLEX}

    def __init__(self, total_count, logits=None, probs=None, validate_args=False, allow_nan_stats=True,
                 name="Multinomial"):
        parameters = dict(locals())
        super().__init__(None, NOT_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init(logits, probs, extra=(total_count,))
        self._dtype = self._param_dtype
        self._total_count = _tensors.as_param(total_count, self._dtype, "total_count")

    total_count = property(lambda self: self._total_count)

    def _event_shape(self):
        return [self._num_categories_static]

    def _sample_n(self, n, seed):
        """Each count vector sums max(total_count) categorical draws, those past its own total masked."""
        k = self._num_categories_static
        total = self._broadcast_to_batch(self._p("total_count"))
        n_max = tx.cast(tx.reduce_max(total), tx.int32)
        logits = self._unnormalized_logits()
        batch = self.batch_shape_tensor()
        draw_shape = _shapes.concat([n] if isinstance(n, int) else tx.reshape(n, [1]), batch, tx.reshape(n_max, [1]),
                                    [k])
        u = samplers.uniform_open(draw_shape, seed, self.dtype)
        gumbel = -tx.math.log(-tx.math.log(u))
        draws = tx.argmax(tx.expand_dims(logits, -2) + gumbel, axis=-1, output_type=tx.int32)
        j = tx.cast(tx.range(n_max), self.dtype)
        keep = tx.cast(j < tx.expand_dims(total, -1), self.dtype)
        return tx.reduce_sum(tx.one_hot(draws, k, dtype=self.dtype) * tx.expand_dims(keep, -1), axis=-2)

    def _log_prob(self, x):
        n = self._p("total_count")
        log_p = self._log_probs_all()
        ok = tx.logical_and(tx.reduce_all(tx.logical_and(x >= 0, tx.equal(x, tx.floor(x))), axis=-1),
                            tx.equal(tx.reduce_sum(x, axis=-1), n))
        safe = tx.where(x >= 0, x, tx.zeros_like(x))
        lp = (tx.math.lgamma(n + 1.0) - tx.reduce_sum(tx.math.lgamma(safe + 1.0), axis=-1)
              + tx.reduce_sum(tx.math.multiply_no_nan(log_p, safe), axis=-1))
        return self._in_support(lp, ok)

    def _mean(self):
        p = tx.exp(self._log_probs_all())
        return self._broadcast_to_batch(tx.expand_dims(self._p("total_count"), -1) * p, [self._num_categories_static])

    def _variance(self):
        p = tx.exp(self._log_probs_all())
        n = tx.expand_dims(self._p("total_count"), -1)
        return self._broadcast_to_batch(n * p * (1.0 - p), [self._num_categories_static])

    _entropy = None  # no closed form (the categorical base's entropy is not the multinomial's)

    def _covariance(self):
        p = self._broadcast_to_batch(tx.exp(self._log_probs_all()), [self._num_categories_static])
        n = self._p("total_count")[..., None, None] if self._p("total_count").shape.rank else self._p("total_count")
        return n * (tx.linalg.diag(p) - p[..., :, None] * p[..., None, :])



class Dirichlet(Distribution):
    """Dirichlet(concentration) on the probability simplex (event shape [K]).

    >>> round(float(txp.distributions.Dirichlet([1.0, 1.0, 1.0]).log_prob([0.2, 0.3, 0.5])), 5)
    0.69315
    """

    _params_event_ndims = {"concentration": 1}
    _validators = {"concentration": assertions.positive}

    def __init__(self, concentration, validate_args=False, allow_nan_stats=True, name="Dirichlet"):
        parameters = dict(locals())
        dtype = _tensors.common_dtype([concentration])
        super().__init__(dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, concentration=concentration)
        self._k = _shapes.static_shape(self._concentration)[-1]

    concentration = property(lambda self: self._concentration)

    def _event_shape(self):
        return [self._k]

    def _alpha(self):
        return self._broadcast_to_batch(self._p("concentration"), [self._k])

    def _sample_n(self, n, seed):
        g = samplers.gamma(self._sample_batch_event_shape(n), self._alpha(), seed, self.dtype)
        return g / tx.reduce_sum(g, axis=-1, keepdims=True)

    def _log_prob(self, x):
        a = self._p("concentration")
        a0 = tx.reduce_sum(a, axis=-1)
        norm = tx.reduce_sum(tx.math.lgamma(a), axis=-1) - tx.math.lgamma(a0)
        lp = tx.reduce_sum(tx.math.xlogy(a - 1.0, tx.maximum(x, tx.zeros_like(x))), axis=-1) - norm
        return self._in_support(lp, tx.reduce_all(x >= 0, axis=-1))

    def _mean(self):
        a = self._alpha()
        return a / tx.reduce_sum(a, axis=-1, keepdims=True)

    def _variance(self):
        a = self._alpha()
        a0 = tx.reduce_sum(a, axis=-1, keepdims=True)
        m = a / a0
        return m * (1.0 - m) / (a0 + 1.0)

    def _covariance(self):
        a = self._alpha()
        a0 = tx.reduce_sum(a, axis=-1, keepdims=True)
        m = a / a0
        cov = (tx.linalg.diag(m) - m[..., :, None] * m[..., None, :]) / (a0[..., None] + 1.0)
        return cov

    def _mode(self):
        a = self._alpha()
        a0 = tx.reduce_sum(a, axis=-1, keepdims=True)
        m = (a - 1.0) / (a0 - float(self._k))
        undefined = tx.broadcast_to(tx.reduce_any(a <= 1.0, axis=-1, keepdims=True), tx.shape(m))
        return self._nan_if(undefined, m)

    def _entropy(self):
        a = self._alpha()
        a0 = tx.reduce_sum(a, axis=-1)
        lbeta = tx.reduce_sum(tx.math.lgamma(a), axis=-1) - tx.math.lgamma(a0)
        return (lbeta + (a0 - float(self._k)) * tx.math.digamma(a0)
                - tx.reduce_sum((a - 1.0) * tx.math.digamma(a), axis=-1))


"""Categorical, OneHotCategorical and RelaxedOneHotCategorical (Gumbel-softmax).

Samples use the Gumbel-max trick on stateless uniforms: argmax(logits + G) with G standard Gumbel
is a categorical draw, and softmax((logits + G) / temperature) its continuous relaxation.
"""

import math

import tensorflux as tx

from tensorflux_probability.distributions import _logits_probs as lp_util
from tensorflux_probability.distributions.distribution import (FULLY_REPARAMETERIZED, NOT_REPARAMETERIZED,
                                                               Distribution)
from tensorflux_probability.internal import assertions, samplers
from tensorflux_probability.internal import shapes as _shapes
from tensorflux_probability.internal import tensors as _tensors


class _CategoricalBase(Distribution):
    _params_event_ndims = {"logits": 1, "probs": 1}
    _validators = lp_util.VALIDATORS_SIMPLEX

    def _init(self, logits, probs, extra=()):
        self._param_dtype = lp_util.init_logits_probs(self, logits, probs, extra=extra)
        param = self._logits if self._logits is not None else self._probs
        k = _shapes.static_shape(param)
        self._num_categories_static = None if k is None else k[-1]

    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)

    def logits_parameter(self):
        return lp_util.logits_of(self, binary=False)

    def probs_parameter(self):
        return lp_util.probs_of(self, binary=False)

    def _log_probs_all(self):
        """log of the normalised probabilities, [..., K]."""
        if self._logits is not None:
            return tx.nn.log_softmax(self._p("logits"))
        p = self._p("probs")
        return tx.math.log(p / tx.reduce_sum(p, axis=-1, keepdims=True))

    def _unnormalized_logits(self):
        return self._p("logits") if self._logits is not None else tx.math.log(self._p("probs"))

    @property
    def num_categories(self):
        return self._num_categories_static

    def _gumbel(self, n, seed, dtype):
        shape = _shapes.concat([n] if isinstance(n, int) else tx.reshape(n, [1]), self.batch_shape_tensor(),
                               [self._num_categories_static] if self._num_categories_static is not None
                               else tx.shape(self._unnormalized_logits())[-1:])
        u = samplers.uniform_open(shape, seed, dtype)
        return -tx.math.log(-tx.math.log(u))

    def _draw(self, n, seed):
        """Category indices, [n] + batch (int32)."""
        z = self._unnormalized_logits() + self._gumbel(n, seed, self._param_dtype)
        return tx.argmax(z, axis=-1, output_type=tx.int32)

    def _entropy(self):
        log_p = self._log_probs_all()
        return self._broadcast_to_batch(-tx.reduce_sum(tx.math.multiply_no_nan(log_p, tx.exp(log_p)), axis=-1))


class Categorical(_CategoricalBase):
    """A draw from {0, ..., K-1} with probabilities ``probs`` (or softmax(``logits``)) along the last axis.

    >>> d = txp.distributions.Categorical(probs=[0.2, 0.5, 0.3])
    >>> round(float(d.log_prob(1)), 5)
    -0.69315
    """

    def __init__(self, logits=None, probs=None, dtype=tx.int32, force_probs_to_zero_outside_support=False,
                 validate_args=False, allow_nan_stats=True, name="Categorical"):
        parameters = dict(locals())
        super().__init__(dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init(logits, probs)

    def _convert_value(self, value):
        return tx.convert_to_tensor(value)

    def _sample_n(self, n, seed):
        return tx.cast(self._draw(n, seed), self.dtype)

    def _log_prob(self, k):
        log_p = self._log_probs_all()
        num = tx.shape(log_p)[-1] if self._num_categories_static is None else self._num_categories_static
        k = tx.cast(k, tx.int32) if k.dtype.is_integer else k
        if not k.dtype.is_integer:
            ok_int = tx.equal(k, tx.floor(k))
            k = tx.cast(tx.where(ok_int, k, -tx.ones_like(k)), tx.int32)
        ok = tx.logical_and(k >= 0, k < num)
        safe = tx.where(ok, k, tx.zeros_like(k))
        lp = tx.reduce_sum(tx.one_hot(safe, num, dtype=log_p.dtype) * log_p, axis=-1)
        return self._in_support(lp, tx.broadcast_to(ok, tx.shape(lp)) if ok.shape != lp.shape else ok)

    def _cdf(self, k):
        p = tx.exp(self._log_probs_all())
        num = self._num_categories_static
        cum = tx.math.cumsum(p, axis=-1)
        k = tx.cast(k, p.dtype) if not k.dtype.is_floating else k
        idx = tx.cast(tx.floor(k), tx.int32)
        safe = tx.clip_by_value(idx, 0, num - 1)
        c = tx.reduce_sum(tx.one_hot(safe, num, dtype=p.dtype) * cum, axis=-1)
        return tx.where(idx < 0, tx.zeros_like(c), tx.where(idx >= num - 1, tx.ones_like(c), c))

    def _mode(self):
        return tx.cast(tx.argmax(self._broadcast_to_batch(self._log_probs_all(), [self._num_categories_static]),
                                 axis=-1, output_type=tx.int32), self.dtype)


class OneHotCategorical(_CategoricalBase):
    """A Categorical draw as a one-hot vector of length K (event shape [K]).

    >>> d = txp.distributions.OneHotCategorical(probs=[0.2, 0.8])
    >>> d.event_shape, round(float(d.log_prob([0, 1])), 5)
    (TensorShape([2]), -0.22314)
    """

    def __init__(self, logits=None, probs=None, dtype=tx.int32, validate_args=False, allow_nan_stats=True,
                 name="OneHotCategorical"):
        parameters = dict(locals())
        super().__init__(dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init(logits, probs)

    def _event_shape(self):
        return [self._num_categories_static]

    def _convert_value(self, value):
        return tx.cast(tx.convert_to_tensor(value), self._param_dtype)

    def _sample_n(self, n, seed):
        return tx.one_hot(self._draw(n, seed), self._num_categories_static, dtype=self.dtype)

    def _log_prob(self, x):
        return tx.reduce_sum(tx.math.multiply_no_nan(self._log_probs_all(), x), axis=-1)

    def _mean(self):
        return self._broadcast_to_batch(tx.exp(self._log_probs_all()), [self._num_categories_static])

    def _mode(self):
        lp = self._broadcast_to_batch(self._log_probs_all(), [self._num_categories_static])
        return tx.one_hot(tx.argmax(lp, axis=-1, output_type=tx.int32), self._num_categories_static,
                          dtype=self.dtype)

    def _variance(self):
        p = self._mean()
        return p * (1.0 - p)

    def _covariance(self):
        p = self._mean()
        return tx.linalg.diag(p) - p[..., :, None] * p[..., None, :]


class RelaxedOneHotCategorical(_CategoricalBase):
    """The Gumbel-softmax (Concrete) relaxation of OneHotCategorical at ``temperature``: samples
    softmax((logits + G) / temperature) on the simplex, fully reparameterised.

    >>> d = txp.distributions.RelaxedOneHotCategorical(0.5, probs=[0.3, 0.7])
    >>> float(tx.reduce_sum(d.sample(seed=3)))
    1.0
    """

    _params_event_ndims = {"temperature": 0, "logits": 1, "probs": 1}
    _validators = {"temperature": assertions.positive, **lp_util.VALIDATORS_SIMPLEX}

    def __init__(self, temperature, logits=None, probs=None, validate_args=False, allow_nan_stats=True,
                 name="RelaxedOneHotCategorical"):
        parameters = dict(locals())
        super().__init__(None, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init(logits, probs, extra=(temperature,))
        self._dtype = self._param_dtype
        self._temperature = _tensors.as_param(temperature, self._dtype, "temperature")
        if validate_args and not _tensors.is_variable_like(self._temperature):
            assertions.positive(self._temperature, "temperature")

    temperature = property(lambda self: self._temperature)

    def _event_shape(self):
        return [self._num_categories_static]

    def _sample_n(self, n, seed):
        t = self._p("temperature")
        t = tx.expand_dims(t, -1) if t.shape.rank else t
        z = (self._unnormalized_logits() + self._gumbel(n, seed, self.dtype)) / t
        return tx.nn.softmax(z)

    def _log_prob(self, x):
        t = self._p("temperature")
        k = self._num_categories_static
        log_x = tx.math.log(x)
        t_e = tx.expand_dims(t, -1) if t.shape.rank else t
        logits = self._unnormalized_logits()
        scores = logits - t_e * log_x
        return (math.lgamma(k) + (k - 1.0) * tx.math.log(t) + tx.reduce_sum(scores - log_x, axis=-1)
                - k * tx.reduce_logsumexp(scores, axis=-1))

"""TransformedDistribution: the distribution of bijector.forward(X) for X ~ distribution."""

import tensorflux as tx

from tensorflux_probability.distributions.distribution import Distribution


class TransformedDistribution(Distribution):
    """Y = bijector.forward(X), X ~ ``distribution``; log p(y) = log p_X(f^-1(y)) + log |det df^-1/dy|.

    >>> tfd, tfb = txp.distributions, txp.bijectors
    >>> d = tfd.TransformedDistribution(tfd.Normal(0.0, 1.0), tfb.Exp())
    >>> round(float(d.log_prob(1.0)), 5) == round(float(tfd.LogNormal(0.0, 1.0).log_prob(1.0)), 5)
    True
    """

    def __init__(self, distribution, bijector, kwargs_split_fn=None, validate_args=False, parameters=None,
                 name=None):
        parameters = dict(locals()) if parameters is None else parameters
        super().__init__(bijector.forward_dtype(distribution.dtype), distribution.reparameterization_type,
                         validate_args, distribution.allow_nan_stats, parameters,
                         name or bijector.name + distribution.name)
        self._distribution = distribution
        self._bijector = bijector
        base_event = distribution.event_shape
        if base_event.rank is not None and base_event.rank < bijector.forward_min_event_ndims:
            raise ValueError("bijector %s needs events of rank >= %d, but %s has event rank %d"
                             % (bijector.name, bijector.forward_min_event_ndims, distribution.name, base_event.rank))

    distribution = property(lambda self: self._distribution)
    bijector = property(lambda self: self._bijector)

    def _batch_shape(self):
        b = self._distribution.batch_shape
        return None if b.rank is None else b.as_list()

    def _event_shape(self):
        s = self._bijector.forward_event_shape(self._distribution.event_shape)
        return None if s.rank is None else s.as_list()

    def _base_event_ndims(self):
        return self._distribution.event_shape.rank

    def _sample_n(self, n, seed):
        return self._bijector.forward(self._distribution.sample(n, seed=seed))

    def _convert_value(self, value):
        return value if tx.is_tensor(value) else tx.convert_to_tensor(value, dtype=self.dtype)

    def _log_prob(self, y):
        x = self._bijector.inverse(y)
        ildj = self._bijector.inverse_log_det_jacobian(y, event_ndims=self.event_shape.rank)
        return self._distribution.log_prob(x) + ildj

    def _cdf(self, y):
        if self._bijector.forward_min_event_ndims != 0:
            raise NotImplementedError("cdf of a TransformedDistribution needs a scalar bijector")
        return self._distribution.cdf(self._bijector.inverse(y))

    def _quantile(self, p):
        return self._bijector.forward(self._distribution.quantile(p))

    def _mean(self):
        if not self._bijector.is_constant_jacobian:
            raise NotImplementedError("TransformedDistribution.mean needs an affine bijector")
        return self._bijector.forward(self._distribution.mean())

"""Independent (batch dimensions reinterpreted as event dimensions) and Sample (iid draws as an
event)."""

import numpy as np

import tensorflux as tx

from tensorflux_probability.distributions.distribution import Distribution
from tensorflux_probability.internal import shapes as _shapes


class Independent(Distribution):
    """``distribution`` with its last ``reinterpreted_batch_ndims`` batch dimensions made event
    dimensions: log_prob sums over them.

    >>> d = txp.distributions.Independent(txp.distributions.Normal([0.0, 0.0], 1.0), 1)
    >>> d.batch_shape, d.event_shape
    (TensorShape([]), TensorShape([2]))
    """

    def __init__(self, distribution, reinterpreted_batch_ndims=None, validate_args=False, name=None):
        parameters = dict(locals())
        base_batch = distribution.batch_shape
        if reinterpreted_batch_ndims is None:
            if base_batch.rank is None:
                raise ValueError("Independent needs reinterpreted_batch_ndims when the batch rank is unknown")
            reinterpreted_batch_ndims = base_batch.rank
        n = int(reinterpreted_batch_ndims)
        if base_batch.rank is not None and n > base_batch.rank:
            raise ValueError("reinterpreted_batch_ndims=%d exceeds the batch rank %d of %s"
                             % (n, base_batch.rank, distribution.name))
        super().__init__(distribution.dtype, distribution.reparameterization_type, validate_args,
                         distribution.allow_nan_stats, parameters, name or "Independent" + distribution.name)
        self._distribution = distribution
        self._ndims = n

    distribution = property(lambda self: self._distribution)
    reinterpreted_batch_ndims = property(lambda self: self._ndims)

    def _batch_shape(self):
        b = self._distribution.batch_shape
        if b.rank is None:
            return None
        return b.as_list()[:b.rank - self._ndims]

    def _event_shape(self):
        b = self._distribution.batch_shape
        return b.as_list()[b.rank - self._ndims:] + self._distribution.event_shape.as_list()

    def _reduce(self, x):
        if self._ndims == 0:
            return x
        return tx.reduce_sum(x, axis=list(range(-self._ndims, 0)))

    def _sample_n(self, n, seed):
        return self._distribution.sample(n, seed=seed)

    def _log_prob(self, x):
        return self._reduce(self._distribution.log_prob(x))

    def _convert_value(self, value):
        return value

    def _entropy(self):
        return self._reduce(self._distribution.entropy())

    def _mean(self):
        return self._distribution.mean()

    def _mode(self):
        return self._distribution.mode()

    def _variance(self):
        return self._distribution.variance()


class Sample(Distribution):
    """``sample_shape`` iid draws of ``distribution`` as one event (event shape ``sample_shape +
    distribution.event_shape``, batch shape unchanged).

    >>> d = txp.distributions.Sample(txp.distributions.Normal(0.0, 1.0), sample_shape=3)
    >>> d.event_shape, d.sample(2, seed=1).shape
    (TensorShape([3]), TensorShape([2, 3]))
    """

    def __init__(self, distribution, sample_shape=(), validate_args=False, name=None):
        parameters = dict(locals())
        super().__init__(distribution.dtype, distribution.reparameterization_type, validate_args,
                         distribution.allow_nan_stats, parameters, name or "Sample" + distribution.name)
        self._distribution = distribution
        self._sample_shape = _shapes.sample_shape_list(sample_shape)
        if not isinstance(self._sample_shape, list):
            raise ValueError("Sample needs a sample_shape known when it is built")

    distribution = property(lambda self: self._distribution)
    sample_shape = property(lambda self: list(self._sample_shape))

    def _batch_shape(self):
        b = self._distribution.batch_shape
        return None if b.rank is None else b.as_list()

    def _event_shape(self):
        return self._sample_shape + self._distribution.event_shape.as_list()

    def _sample_n(self, n, seed):
        s = self._sample_shape
        ns = len(s)
        x = self._distribution.sample([n] + s, seed=seed)  # [n, S, batch, event]
        b_rank = self._distribution.batch_shape.rank
        e_rank = self._distribution.event_shape.rank
        perm = [0] + list(range(1 + ns, 1 + ns + b_rank)) + list(range(1, 1 + ns)) + \
            list(range(1 + ns + b_rank, 1 + ns + b_rank + e_rank))
        return tx.transpose(x, perm) if perm != list(range(len(perm))) else x

    def _convert_value(self, value):
        return value

    def _log_prob(self, x):
        x = tx.convert_to_tensor(x, dtype=self.dtype) if not tx.is_tensor(x) else x
        ns, b_rank, e_rank = len(self._sample_shape), self._distribution.batch_shape.rank, \
            self._distribution.event_shape.rank
        r = x.shape.rank
        if ns == 0:
            return self._distribution.log_prob(x)
        # Move the sample dims (just before the base event dims) in front of the batch dims.
        lead = r - b_rank - ns - e_rank
        if lead < 0:  # x lacks some batch dims: broadcast them in
            x = tx.broadcast_to(x, self.batch_shape.as_list() + self.event_shape.as_list())
            r, lead = x.shape.rank, 0
        perm = (list(range(lead)) + list(range(lead + b_rank, lead + b_rank + ns)) + list(range(lead, lead + b_rank))
                + list(range(lead + b_rank + ns, r)))
        lp = self._distribution.log_prob(tx.transpose(x, perm))
        return tx.reduce_sum(lp, axis=list(range(lead, lead + ns)))

    def _entropy(self):
        return self._distribution.entropy() * float(np.prod(self._sample_shape))

    def _tile(self, v):
        b = self._distribution.batch_shape.as_list()
        e = self._distribution.event_shape.as_list()
        v = tx.reshape(v, b + [1] * len(self._sample_shape) + e)
        return tx.broadcast_to(v, b + self._sample_shape + e)

    def _mean(self):
        return self._tile(self._distribution.mean())

    def _variance(self):
        return self._tile(self._distribution.variance())

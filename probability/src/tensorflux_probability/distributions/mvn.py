"""Multivariate normals: MultivariateNormalDiag and MultivariateNormalTriL (event shape [d]).

Note [MVN log_prob]: with a scale that has no batch dimensions (the common case, e.g. one
posterior over many samples), log_prob solves L z = x - loc for all samples at once as one matmul
with L^-1 (a d-by-d triangular inverse computed once), which is far cheaper than a batched
triangular solve per sample; with batched scales it broadcasts and uses the triangular solve.
"""

import math

import tensorflux as tx

from tensorflux_probability.distributions.distribution import FULLY_REPARAMETERIZED, Distribution
from tensorflux_probability.internal import assertions, samplers
from tensorflux_probability.internal import shapes as _shapes
from tensorflux_probability.internal import tensors as _tensors

_LOG_TWO_PI = math.log(2.0 * math.pi)


class MultivariateNormalDiag(Distribution):
    """N(loc, diag(scale_diag)**2) over vectors (event shape [d]).

    >>> d = txp.distributions.MultivariateNormalDiag(loc=[0.0, 0.0], scale_diag=[1.0, 2.0])
    >>> round(float(d.log_prob([0.0, 0.0])), 5)
    -2.53102
    """

    _params_event_ndims = {"loc": 1, "scale_diag": 1}
    _validators = {"scale_diag": assertions.positive}

    def __init__(self, loc=None, scale_diag=None, validate_args=False, allow_nan_stats=True,
                 name="MultivariateNormalDiag"):
        parameters = dict(locals())
        if loc is None and scale_diag is None:
            raise ValueError("MultivariateNormalDiag needs loc or scale_diag")
        dtype = _tensors.common_dtype([loc, scale_diag])
        super().__init__(dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, loc=loc, scale_diag=scale_diag)
        ref = self._loc if self._loc is not None else self._scale_diag
        self._d = _shapes.static_shape(ref)[-1]
        if self._loc is not None and self._scale_diag is not None:
            d2 = _shapes.static_shape(self._scale_diag)[-1]
            if None not in (self._d, d2) and self._d != d2 and 1 not in (self._d, d2):
                raise ValueError("loc has event size %d but scale_diag %d" % (self._d, d2))
            self._d = max(self._d, d2)

    loc = property(lambda self: self._loc)
    scale_diag = property(lambda self: self._scale_diag)

    def _event_shape(self):
        return [self._d]

    def _loc_v(self):
        return self._p("loc") if self._loc is not None else tx.zeros([self._d], self.dtype)

    def _scale_v(self):
        return self._p("scale_diag") if self._scale_diag is not None else tx.ones([self._d], self.dtype)

    def _sample_n(self, n, seed):
        eps = samplers.normal(self._sample_batch_event_shape(n), seed, self.dtype)
        return self._loc_v() + self._scale_v() * eps

    def _log_prob(self, x):
        scale = self._scale_v()
        z = (x - self._loc_v()) / scale
        return (-0.5 * tx.reduce_sum(tx.square(z), axis=-1) - tx.reduce_sum(tx.math.log(tx.abs(scale)), axis=-1)
                - 0.5 * self._d * _LOG_TWO_PI)

    def _mean(self):
        return self._broadcast_to_batch(self._loc_v(), [self._d])

    _mode = _mean

    def _stddev(self):
        return self._broadcast_to_batch(tx.abs(self._scale_v()), [self._d])

    def _covariance(self):
        return tx.linalg.diag(tx.square(self._stddev()))

    def _entropy(self):
        h = 0.5 * self._d * (1.0 + _LOG_TWO_PI) + tx.reduce_sum(tx.math.log(tx.abs(self._scale_v())), axis=-1)
        return self._broadcast_to_batch(h)


def _check_tril(scale_tril, name):
    lower = tx.linalg.band_part(scale_tril, -1, 0)
    t = assertions.check(tx.equal(lower, scale_tril), "%s must be lower triangular" % name, scale_tril)
    return assertions.positive_definite_tril(t, name)


class MultivariateNormalTriL(Distribution):
    """N(loc, L L^T) for a lower-triangular ``scale_tril`` L with a positive diagonal (event shape [d]).

    >>> d = txp.distributions.MultivariateNormalTriL(loc=[1.0, 2.0], scale_tril=[[1.0, 0.0], [0.5, 1.0]])
    >>> d.covariance().numpy()
    array([[1.  , 0.5 ],
           [0.5 , 1.25]], dtype=float32)
    """

    _params_event_ndims = {"loc": 1, "scale_tril": 2}
    _validators = {"scale_tril": _check_tril}

    def __init__(self, loc=None, scale_tril=None, validate_args=False, allow_nan_stats=True,
                 name="MultivariateNormalTriL"):
        parameters = dict(locals())
        if scale_tril is None:
            raise ValueError("MultivariateNormalTriL needs scale_tril")
        dtype = _tensors.common_dtype([loc, scale_tril])
        super().__init__(dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, loc=loc, scale_tril=scale_tril)
        st = _shapes.static_shape(self._scale_tril)
        if st is None or len(st) < 2 or st[-1] != st[-2]:
            raise ValueError("scale_tril must be a [..., d, d] matrix, got shape %s" % (st,))
        self._d = st[-1]
        if self._loc is not None:
            dl = _shapes.static_shape(self._loc)[-1]
            if dl is not None and self._d is not None and dl != self._d:
                raise ValueError("loc has event size %d but scale_tril is %dx%d" % (dl, self._d, self._d))

    loc = property(lambda self: self._loc)
    scale_tril = property(lambda self: self._scale_tril)

    def _event_shape(self):
        return [self._d]

    def _loc_v(self):
        return self._p("loc") if self._loc is not None else tx.zeros([self._d], self.dtype)

    def _sample_n(self, n, seed):
        eps = samplers.normal(self._sample_batch_event_shape(n), seed, self.dtype)
        scale = self._p("scale_tril")
        if scale.shape.rank == 2:
            y = tx.matmul(tx.reshape(eps, [-1, self._d]), scale, transpose_b=True)
            y = tx.reshape(y, tx.shape(eps))
        else:
            y = tx.squeeze(tx.matmul(tx.broadcast_to(scale, tx.concat([tx.shape(eps), [self._d]], 0)),
                                     tx.expand_dims(eps, -1)), axis=-1)
        return y + self._loc_v()

    def _log_prob(self, x):
        scale = self._p("scale_tril")
        y = x - self._loc_v()
        diag = tx.linalg.diag_part(scale)
        if scale.shape.rank == 2:  # Note [MVN log_prob]
            inv = tx.linalg.triangular_solve(scale, tx.eye(self._d, dtype=self.dtype), lower=True)
            z = tx.matmul(tx.reshape(y, [-1, self._d]), inv, transpose_b=True)
            maha = tx.reshape(tx.reduce_sum(tx.square(z), axis=-1), tx.shape(y)[:-1])
        else:
            full = tx.shape(y + tx.zeros_like(scale[..., 0]))
            sb = tx.broadcast_to(scale, tx.concat([full, [self._d]], 0))
            yb = tx.broadcast_to(y, full)
            z = tx.linalg.triangular_solve(sb, tx.expand_dims(yb, -1), lower=True)
            maha = tx.reduce_sum(tx.square(tx.squeeze(z, -1)), axis=-1)
        return -0.5 * maha - tx.reduce_sum(tx.math.log(tx.abs(diag)), axis=-1) - 0.5 * self._d * _LOG_TWO_PI

    def _mean(self):
        return self._broadcast_to_batch(self._loc_v(), [self._d])

    _mode = _mean

    def _covariance(self):
        scale = self._p("scale_tril")
        cov = tx.matmul(scale, scale, transpose_b=True)
        return self._broadcast_to_batch(cov, [self._d, self._d])

    def _variance(self):
        return self._broadcast_to_batch(tx.reduce_sum(tx.square(self._p("scale_tril")), axis=-1), [self._d])

    def _entropy(self):
        diag = tx.linalg.diag_part(self._p("scale_tril"))
        h = 0.5 * self._d * (1.0 + _LOG_TWO_PI) + tx.reduce_sum(tx.math.log(tx.abs(diag)), axis=-1)
        return self._broadcast_to_batch(h)

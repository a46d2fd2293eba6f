"""Bijectors of vectors and matrices: ScaleMatvecTriL, FillTriangular, FillScaleTriL,
CholeskyOuterProduct, SoftmaxCentered."""

import math

import numpy as np

import tensorflux as tx

from tensorflux_probability.bijectors.bijector import Bijector
from tensorflux_probability.bijectors.elementwise import Softplus
from tensorflux_probability.internal import tensors as _tensors
from tensorflux_probability.math.linalg import fill_triangular, fill_triangular_inverse


class ScaleMatvecTriL(Bijector):
    """y = scale_tril @ x for a lower-triangular ``scale_tril`` ([..., n, n]) with non-zero diagonal.

    >>> b = txp.bijectors.ScaleMatvecTriL([[2.0, 0.0], [1.0, 3.0]])
    >>> b.forward([1.0, 1.0]).numpy(), round(float(b.forward_log_det_jacobian([1.0, 1.0], 1)), 5)
    (array([2., 4.], dtype=float32), 1.79176)
    """

    def __init__(self, scale_tril, adjoint=False, validate_args=False, name="scale_matvec_tril"):
        dtype = _tensors.common_dtype([scale_tril])
        super().__init__(1, is_constant_jacobian=True, validate_args=validate_args, dtype=dtype,
                         parameters=dict(locals()), name=name)
        self._scale_tril = _tensors.as_param(scale_tril, dtype, "scale_tril")
        self._adjoint = adjoint

    scale_tril = property(lambda self: self._scale_tril)

    def _l(self):
        return _tensors.value(self._scale_tril)

    def _forward(self, x):
        return tx.linalg.matvec(self._l(), x, adjoint_a=self._adjoint)

    def _inverse(self, y):
        tril = self._l()
        rhs = tx.expand_dims(y, -1)
        batch = tx.shape(tx.zeros_like(tril[..., 0, 0]) + tx.zeros_like(rhs[..., 0, 0]))  # broadcast batch
        tril = tx.broadcast_to(tril, tx.concat([batch, tx.shape(tril)[-2:]], 0))
        rhs = tx.broadcast_to(rhs, tx.concat([batch, tx.shape(rhs)[-2:]], 0))
        return tx.squeeze(tx.linalg.triangular_solve(tril, rhs, lower=True, adjoint=self._adjoint), -1)

    def _forward_log_det_jacobian(self, x):
        return tx.reduce_sum(tx.math.log(tx.abs(tx.linalg.diag_part(self._l()))), axis=-1)


class FillTriangular(Bijector):
    """Vector [..., n(n+1)/2] -> lower (or upper) triangular matrix [..., n, n] (txp.math.fill_triangular).

    >>> txp.bijectors.FillTriangular().forward([1.0, 2.0, 3.0]).numpy()
    array([[3., 0.],
           [2., 1.]], dtype=float32)
    """

    def __init__(self, upper=False, validate_args=False, name="fill_triangular"):
        super().__init__(1, 2, is_constant_jacobian=True, validate_args=validate_args, parameters=dict(locals()),
                         name=name)
        self._upper = upper

    def _forward(self, x):
        return fill_triangular(x, upper=self._upper)

    def _inverse(self, y):
        return fill_triangular_inverse(y, upper=self._upper)

    def _forward_log_det_jacobian(self, x):
        return tx.zeros([], x.dtype)

    def _inverse_log_det_jacobian(self, y):
        return tx.zeros([], y.dtype)

    def _forward_event_shape(self, s):
        m = s.as_list()[-1] if s.rank else None
        n = None if m is None else int((math.sqrt(8 * m + 1) - 1) / 2)
        return s[:-1].concatenate([n, n])

    def _inverse_event_shape(self, s):
        n = s.as_list()[-1] if s.rank else None
        return s[:-2].concatenate([None if n is None else n * (n + 1) // 2])


class FillScaleTriL(Bijector):
    """Vector -> lower-triangular matrix with a positive diagonal: fill_triangular, then
    ``diag_bijector`` (default Softplus) plus ``diag_shift`` on the diagonal (TFP's default
    ``MultivariateNormalTriL`` parameterisation).

    >>> y = txp.bijectors.FillScaleTriL().forward([0.0, 1.0, 0.0]).numpy()
    >>> bool(y[0, 1] == 0 and y[0, 0] > 0 and y[1, 1] > 0)
    True
    """

    def __init__(self, diag_bijector=None, diag_shift=1e-5, validate_args=False, name="fill_scale_tril"):
        super().__init__(1, 2, validate_args=validate_args, parameters=dict(locals()), name=name)
        self._diag_bijector = diag_bijector or Softplus()
        self._diag_shift = diag_shift

    def _forward(self, x):
        tril = fill_triangular(x)
        d = self._diag_bijector.forward(tx.linalg.diag_part(tril))
        if self._diag_shift is not None:
            d = d + tx.cast(self._diag_shift, d.dtype)
        return tx.linalg.set_diag(tril, d)

    def _inverse(self, y):
        d = tx.linalg.diag_part(y)
        if self._diag_shift is not None:
            d = d - tx.cast(self._diag_shift, d.dtype)
        return fill_triangular_inverse(tx.linalg.set_diag(y, self._diag_bijector.inverse(d)))

    def _forward_log_det_jacobian(self, x):
        d = tx.linalg.diag_part(fill_triangular(x))
        return self._diag_bijector.forward_log_det_jacobian(d, event_ndims=1)

    def _forward_event_shape(self, s):
        return FillTriangular()._forward_event_shape(s)

    def _inverse_event_shape(self, s):
        return FillTriangular()._inverse_event_shape(s)


class CholeskyOuterProduct(Bijector):
    """y = L @ L^T for a lower-triangular L with positive diagonal; inverse: the Cholesky factor.
    log|det J| = n log 2 + sum_i (n - i) log L_ii (0-based i).

    >>> b = txp.bijectors.CholeskyOuterProduct()
    >>> b.forward([[2.0, 0.0], [1.0, 1.0]]).numpy()
    array([[4., 2.],
           [2., 2.]], dtype=float32)
    """

    def __init__(self, validate_args=False, name="cholesky_outer_product"):
        super().__init__(2, validate_args=validate_args, parameters=dict(locals()), name=name)

    def _forward(self, x):
        return tx.matmul(x, x, transpose_b=True)

    def _inverse(self, y):
        return tx.linalg.cholesky(y)

    def _forward_log_det_jacobian(self, x):
        n = x.shape.as_list()[-1]
        if n is None:
            raise ValueError("%s needs a static matrix size" % self.name)
        powers = tx.constant(np.arange(n, 0, -1, dtype=x.dtype.as_numpy_dtype))
        return n * math.log(2.0) + tx.reduce_sum(powers * tx.math.log(tx.abs(tx.linalg.diag_part(x))), axis=-1)


class SoftmaxCentered(Bijector):
    """R^(K-1) -> the interior of the K-simplex: y = softmax([x, 0]). As TFP, the log-det-Jacobian
    is that of the map onto the simplex as a surface in R^K: 0.5 log K + sum(log y) (the map onto
    y's first K-1 coordinates has sum(log y); the simplex's area element adds sqrt(K)).

    >>> txp.bijectors.SoftmaxCentered().forward([0.0]).numpy()
    array([0.5, 0.5], dtype=float32)
    """

    def __init__(self, validate_args=False, name="softmax_centered"):
        super().__init__(1, validate_args=validate_args, parameters=dict(locals()), name=name)

    def _forward(self, x):
        pad = tx.zeros(tx.concat([tx.shape(x)[:-1], [1]], 0), x.dtype)
        return tx.nn.softmax(tx.concat([x, pad], axis=-1), axis=-1)

    def _inverse(self, y):
        log_y = tx.math.log(y)
        return log_y[..., :-1] - log_y[..., -1:]

    def _inverse_log_det_jacobian(self, y):
        k = tx.cast(tx.shape(y)[-1], y.dtype)
        return -0.5 * tx.math.log(k) - tx.reduce_sum(tx.math.log(y), axis=-1)

    def _forward_log_det_jacobian(self, x):
        k = tx.cast(tx.shape(x)[-1] + 1, x.dtype)
        # sum(log y) with log y = x_pad - logsumexp(x_pad), x_pad = [x, 0].
        lse = tx.math.softplus(tx.math.reduce_logsumexp(x, axis=-1))
        return 0.5 * tx.math.log(k) + tx.reduce_sum(x, axis=-1) - k * lse

    def _forward_event_shape(self, s):
        k = s.as_list()[-1] if s.rank else None
        return s[:-1].concatenate([None if k is None else k + 1])

    def _inverse_event_shape(self, s):
        k = s.as_list()[-1] if s.rank else None
        return s[:-1].concatenate([None if k is None else k - 1])

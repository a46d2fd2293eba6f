"""Distributions over matrices: WishartTriL and CholeskyLKJ (LKJCholesky).

Note [LKJ on Cholesky factors]: LKJ(eta) on n-by-n correlation matrices C has density
det(C)^(eta - 1) / Z with log Z = sum_{k=1}^{n-1} [(2 eta - 2 + n - k)(n - k) log 2 + (n - k)
lbeta(eta + (n - k - 1)/2, eta + (n - k - 1)/2)] (Lewandowski, Kurowicka & Joe 2009). CholeskyLKJ
is the distribution of C's Cholesky factor L, a density on L's strictly-lower entries: det(C) =
prod L_ii^2 and |dC/dL| = prod_i L_ii^(n - i - 1) (0-based i), so log p(L) = sum_i (n - i - 3 +
2 eta) log L_ii - log Z. Samples come from the onion method: row i (i = 1..n-1) is [sqrt(y) u,
sqrt(1 - y)] with y ~ Beta(i/2, eta + (n - 1 - i)/2) and u uniform on the unit sphere in R^i.
"""

import math

import numpy as np

import tensorflux as tx

from tensorflux_probability.distributions.distribution import NOT_REPARAMETERIZED, Distribution
from tensorflux_probability.internal import assertions, samplers
from tensorflux_probability.internal import tensors as _tensors


def _lmvgamma(a, p):
    """log of the multivariate gamma function Gamma_p(a)."""
    j = tx.constant(np.arange(p, dtype=np.float64) * 0.5, a.dtype)
    return p * (p - 1) / 4.0 * math.log(math.pi) + tx.reduce_sum(tx.math.lgamma(tx.expand_dims(a, -1) - j), axis=-1)


def _mvdigamma(a, p):
    j = tx.constant(np.arange(p, dtype=np.float64) * 0.5, a.dtype)
    return tx.reduce_sum(tx.math.digamma(tx.expand_dims(a, -1) - j), axis=-1)


def _log_diag_sum(m):
    return tx.reduce_sum(tx.math.log(tx.linalg.diag_part(m)), axis=-1)


class WishartTriL(Distribution):
    """Wishart(df, Sigma) over p-by-p positive-definite matrices, Sigma = scale_tril scale_tril^T
    (event shape [p, p]); with ``input_output_cholesky`` samples are Cholesky factors and
    ``log_prob`` takes one (the density is still that of the matrix).

    >>> import numpy as np
    >>> d = txp.distributions.WishartTriL(df=4.0, scale_tril=tx.eye(2))
    >>> d.mean().numpy()
    array([[4., 0.],
           [0., 4.]], dtype=float32)
    """

    _params_event_ndims = {"df": 0, "scale_tril": 2}
    _validators = {"scale_tril": assertions.positive_definite_tril}

    def __init__(self, df, scale_tril, input_output_cholesky=False, validate_args=False, allow_nan_stats=True,
                 name="WishartTriL"):
        parameters = dict(locals())
        dtype = _tensors.common_dtype([df, scale_tril])
        super().__init__(dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, df=df, scale_tril=scale_tril)
        st = self._scale_tril.shape.as_list()
        if len(st) < 2 or st[-1] is None or st[-1] != st[-2]:
            raise ValueError("scale_tril must be a [..., p, p] matrix with static p, got shape %s" % (st,))
        self._dim = st[-1]
        self._chol_io = bool(input_output_cholesky)
        if validate_args:
            df_v = _tensors.static_value(self._df)
            if df_v is not None and np.any(df_v <= self._dim - 1):
                raise tx.errors.InvalidArgumentError(None, None, "df must be greater than dimension - 1 = %d"
                                                     % (self._dim - 1))

    df = property(lambda self: self._df)
    scale_tril = property(lambda self: self._scale_tril)
    input_output_cholesky = property(lambda self: self._chol_io)

    def _event_shape(self):
        return [self._dim, self._dim]

    def _scale(self):
        tril = self._p("scale_tril")
        return tx.matmul(tril, tril, transpose_b=True)

    def _log_normalizer(self):
        df, p = self._p("df"), self._dim
        return 0.5 * df * p * math.log(2.0) + df * _log_diag_sum(self._p("scale_tril")) + _lmvgamma(0.5 * df, p)

    def _log_prob(self, x):
        chol = x if self._chol_io else tx.linalg.cholesky(x)
        tril = self._p("scale_tril")
        lb = tx.broadcast_to(tril, tx.shape(chol + tx.zeros_like(tril)))
        m = tx.linalg.triangular_solve(lb, chol + tx.zeros_like(tril), lower=True)
        trace = tx.reduce_sum(tx.square(m), axis=[-2, -1])
        log_det = 2.0 * _log_diag_sum(chol)
        df, p = self._p("df"), self._dim
        return 0.5 * (df - p - 1.0) * log_det - 0.5 * trace - self._log_normalizer()

    def _mean(self):
        return self._broadcast_to_batch(self._p("df")[..., None, None] * self._scale(), [self._dim] * 2)

    def _mode(self):
        df = self._p("df")
        return self._broadcast_to_batch((df - self._dim - 1.0)[..., None, None] * self._scale(), [self._dim] * 2)

    def _variance(self):
        s = self._scale()
        d = tx.linalg.diag_part(s)
        v = self._p("df")[..., None, None] * (tx.square(s) + d[..., :, None] * d[..., None, :])
        return self._broadcast_to_batch(v, [self._dim] * 2)

    def _entropy(self):
        df, p = self._p("df"), self._dim
        log_det_sigma = 2.0 * _log_diag_sum(self._p("scale_tril"))
        h = (0.5 * (p + 1.0) * log_det_sigma + 0.5 * p * (p + 1.0) * math.log(2.0) + _lmvgamma(0.5 * df, p)
             - 0.5 * (df - p - 1.0) * _mvdigamma(0.5 * df, p) + 0.5 * df * p)
        return self._broadcast_to_batch(h)

    def _sample_n(self, n, seed):
        p, dtype = self._dim, self.dtype
        s_chi, s_norm = samplers.split_seed(seed, 2, salt="wishart")
        batch = self.batch_shape_tensor()
        shape = [n] + list(batch) if isinstance(batch, list) else tx.concat([[n], batch], 0)
        df = self._broadcast_to_batch(self._p("df"))
        # Bartlett: A_ii^2 ~ chi2(df - i) = 2 Gamma((df - i) / 2), A_ij ~ N(0, 1) below the diagonal.
        half = 0.5 * (tx.expand_dims(df, -1) - tx.constant(np.arange(p, dtype=np.float64), dtype))
        gam = samplers.gamma(_concat(shape, [p]), half, s_chi, dtype)
        noise = samplers.normal(_concat(shape, [p, p]), s_norm, dtype)
        a = tx.linalg.set_diag(tx.linalg.band_part(noise, -1, 0) - tx.linalg.band_part(noise, 0, 0),
                               tx.sqrt(2.0 * gam))
        chol = tx.matmul(tx.broadcast_to(self._p("scale_tril"), tx.shape(a)), a)
        return chol if self._chol_io else tx.matmul(chol, chol, transpose_b=True)


def _concat(a, b):
    if isinstance(a, list):
        return a + b
    return tx.concat([a, b], 0)


class CholeskyLKJ(Distribution):
    """LKJ(concentration) on the Cholesky factors of ``dimension``-by-``dimension`` correlation
    matrices (Note [LKJ on Cholesky factors]); ``LKJCholesky`` is the same class (NumPyro's name).

    >>> d = txp.distributions.CholeskyLKJ(dimension=2, concentration=1.0)
    >>> round(float(d.log_prob([[1.0, 0.0], [0.0, 1.0]])), 5)  # uniform on (-1, 1): log(1/2)
    -0.69315
    """

    _params_event_ndims = {"concentration": 0}
    _validators = {"concentration": assertions.positive}

    def __init__(self, dimension, concentration, validate_args=False, allow_nan_stats=True, name="CholeskyLKJ"):
        parameters = dict(locals())
        dtype = _tensors.common_dtype([concentration])
        super().__init__(dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._init_params(dtype, concentration=concentration)
        self._dim = int(dimension)
        if self._dim < 1:
            raise ValueError("dimension must be >= 1, got %d" % self._dim)

    dimension = property(lambda self: self._dim)
    concentration = property(lambda self: self._concentration)

    def _event_shape(self):
        return [self._dim, self._dim]

    def _log_normalizer(self):
        eta, n = self._p("concentration"), self._dim
        total = tx.zeros_like(eta)
        for k in range(1, n):
            b = eta + 0.5 * (n - k - 1)
            total = total + (2.0 * eta - 2.0 + n - k) * (n - k) * math.log(2.0) + (n - k) * (
                2.0 * tx.math.lgamma(b) - tx.math.lgamma(2.0 * b))
        return total

    def _log_prob(self, x):
        n = self._dim
        eta = self._p("concentration")
        if n == 1:
            return tx.zeros_like(eta + x[..., 0, 0])
        log_diag = tx.math.log(tx.linalg.diag_part(x)[..., 1:])
        powers = tx.constant(n - np.arange(1, n, dtype=np.float64) - 3.0, x.dtype)
        lp = tx.reduce_sum((powers + 2.0 * tx.expand_dims(eta, -1)) * log_diag, axis=-1) - self._log_normalizer()
        # Outside the support (rows not unit vectors, or a non-positive diagonal): -inf.
        rows = tx.reduce_sum(tx.square(x), axis=-1)
        ok = tx.logical_and(tx.reduce_all(tx.abs(rows - 1.0) < 1e-6 if x.dtype == tx.float64 else
                                          tx.abs(rows - 1.0) < 1e-3, axis=-1),
                            tx.reduce_all(tx.linalg.diag_part(x) > 0, axis=-1))
        return self._in_support(lp, ok)

    def _sample_n(self, n, seed):
        d, dtype = self._dim, self.dtype
        batch = self.batch_shape_tensor()
        shape = [n] + list(batch) if isinstance(batch, list) else tx.concat([[n], batch], 0)
        eta = self._broadcast_to_batch(self._p("concentration"))
        if d == 1:
            return tx.ones(_concat(shape, [1, 1]), dtype)
        s_a, s_b, s_u = samplers.split_seed(seed, 3, salt="lkj")
        i = tx.constant(np.arange(1, d, dtype=np.float64), dtype)
        conc1 = 0.5 * i + tx.zeros_like(tx.expand_dims(eta, -1))
        conc0 = tx.expand_dims(eta, -1) + 0.5 * (d - 1.0 - i)
        g1 = samplers.gamma(_concat(shape, [d - 1]), conc1, s_a, dtype)
        g0 = samplers.gamma(_concat(shape, [d - 1]), conc0, s_b, dtype)
        y = g1 / (g1 + g0)  # [n, batch, d - 1]: row i's squared off-diagonal norm
        u = samplers.normal(_concat(shape, [d, d]), s_u, dtype)
        strict = tx.linalg.band_part(u, -1, 0) - tx.linalg.band_part(u, 0, 0)  # row i: i free normals
        norm = tx.sqrt(tx.maximum(tx.reduce_sum(tx.square(strict), axis=-1, keepdims=True),
                                  tx.constant(np.finfo(dtype.as_numpy_dtype).tiny, dtype)))
        y_full = tx.concat([tx.zeros_like(y[..., :1]), y], axis=-1)
        off = strict / norm * tx.sqrt(tx.expand_dims(y_full, -1))
        return tx.linalg.set_diag(off, tx.sqrt(1.0 - y_full))


LKJCholesky = CholeskyLKJ

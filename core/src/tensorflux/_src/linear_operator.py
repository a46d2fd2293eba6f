"""``tx.linalg.LinearOperator``: the base class of matrix-free linear operators (TensorFlow's).

A subclass describes an operator ``A`` of shape ``batch_shape + [M, N]`` by its static shape
(``_shape``) and its product (``_matmul``); everything else has a dense default here, which a
subclass replaces where its structure gives a cheaper or more accurate answer. Public methods check
the hints and the argument shapes and dtypes, then call the ``_``-prefixed implementation.
"""

from __future__ import annotations

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import linalg_ops
from tensorflux._src.array_ops import broadcast_to, expand_dims, squeeze
from tensorflux._src.check_ops import assert_equal, assert_less, assert_positive
from tensorflux._src.constant_op import constant, convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.math_ops import add, exp, matmul, reduce_sum
from tensorflux._src.module import Module

__all__ = ["LinearOperator"]

FLOAT_DTYPES = (_dtypes.float16, _dtypes.float32, _dtypes.float64, _dtypes.complex64, _dtypes.complex128)


def to_tensor(x, dtype=None, name=None):
    """``x`` as a tensor (``dtype`` when given); used for every operator argument."""
    return convert_to_tensor(x, dtype=dtype, name=name)


def check_float_dtype(tensor, arg_name):
    """Raises TensorFlow's TypeError unless ``tensor`` is floating or complex."""
    if tensor.dtype not in FLOAT_DTYPES:
        raise TypeError("Argument `%s` must have dtype in [%s]. Received: %s." % (
            arg_name, ", ".join("tf.%s" % d.name for d in FLOAT_DTYPES), tensor.dtype))


def broadcast_batch(*tensors):
    """``tensors`` (each at least a matrix) with their batch dimensions broadcast to a common shape."""
    shapes = [t.shape for t in tensors]
    if any(s.rank is None for s in shapes) or all(s[:-2] == shapes[0][:-2] for s in shapes):
        return list(tensors)
    batch = np.broadcast_shapes(*[tuple(s.as_list()[:-2]) for s in shapes])
    return [broadcast_to(t, list(batch) + t.shape.as_list()[-2:]) for t in tensors]


def assert_compatible(dim_a, dim_b):
    """Raises TensorFlow's ValueError when two known dimensions differ."""
    if dim_a is not None and dim_b is not None and dim_a != dim_b:
        raise ValueError("Dimensions %d and %d are not compatible" % (dim_a, dim_b))


def matrix_adjoint(x):
    """The conjugate transpose of the last two dimensions of ``x``."""
    return linalg_ops.adjoint(x)


def as_hint(value):
    """A hint as given (``None``, or a Python bool); tensors are refused as TensorFlow refuses them."""
    return None if value is None else bool(value)


class LinearOperator(Module):
    """Base class of a (batch of) linear operator(s) ``A`` with shape ``batch_shape + [M, N]``.

    Subclasses implement ``_shape`` and ``_matmul``; the hints ``is_non_singular``,
    ``is_self_adjoint``, ``is_positive_definite`` and ``is_square`` are promises checked for
    consistency here (never against the data, except by the ``assert_*`` methods).

    >>> op = tx.linalg.LinearOperatorFullMatrix([[2., 0.], [1., 1.]])
    >>> (op @ tx.ones([2, 1])).numpy().ravel().tolist(), float(op.determinant())
    ([2.0, 2.0], 2.0)
    """

    def __init__(self, dtype, graph_parents=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None, parameters=None):
        del graph_parents  # deprecated in TensorFlow too
        is_non_singular, is_self_adjoint = as_hint(is_non_singular), as_hint(is_self_adjoint)
        is_positive_definite, is_square = as_hint(is_positive_definite), as_hint(is_square)
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        self._is_square_set_or_implied_by_hints = is_square
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._dtype = _dtypes.as_dtype(dtype) if dtype is not None else None
        self._parameters = dict(parameters or {})
        super().__init__(name=name or type(self).__name__)

    # ---- description -------------------------------------------------------------------------
    @property
    def dtype(self):
        """The dtype of the operator's entries (and of the tensors it accepts)."""
        return self._dtype

    @property
    def parameters(self):
        """The constructor's arguments, as a dict."""
        return dict(self._parameters)

    @property
    def graph_parents(self):
        """Always empty (deprecated in TensorFlow)."""
        return []

    @property
    def is_non_singular(self):
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        return self._is_positive_definite

    @property
    def is_square(self):
        """True when M == N: the hint, else the static shape (None when it is unknown)."""
        auto = self._static_square()
        hint = self._is_square_set_or_implied_by_hints
        if hint is False and auto:
            raise ValueError("User set is_square hint to False, but the operator was square.")
        return auto if hint is None else hint

    def _static_square(self):
        m, n = self.range_dimension, self.domain_dimension
        return None if m is None or n is None else m == n

    @property
    def shape(self):
        """The static ``TensorShape`` ``batch_shape + [M, N]``."""
        return self._shape()

    def shape_tensor(self, name="shape_tensor"):
        """The shape as an int32 tensor."""
        return self._shape_tensor()

    def _shape_tensor(self):
        if not self.shape.is_fully_defined():
            raise ValueError("The shape of %s is not fully known: %s" % (self.name, self.shape))
        return constant(self.shape.as_list(), dtype=_dtypes.int32)

    @property
    def batch_shape(self):
        """The static ``TensorShape`` of the batch dimensions (``shape[:-2]``)."""
        return self.shape[:-2]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        return self.shape_tensor()[:-2]

    @property
    def tensor_rank(self):
        """The rank of the dense matrix this operator represents (``len(shape)``)."""
        return self.shape.rank

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        return constant(self.tensor_rank, dtype=_dtypes.int32)

    @property
    def domain_dimension(self):
        """N, the number of columns (None when unknown)."""
        return None if self.shape.rank is None else self.shape[-1]

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        return self.shape_tensor()[-1]

    @property
    def range_dimension(self):
        """M, the number of rows (None when unknown)."""
        return None if self.shape.rank is None else self.shape[-2]

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        return self.shape_tensor()[-2]

    # ---- checks --------------------------------------------------------------------------------
    def _check_input_dtype(self, arg):
        if arg.dtype.base_dtype != self.dtype:
            raise TypeError("Expected argument to have dtype %s. Found: %s in tensor %s" % (
                self.dtype, arg.dtype, getattr(arg, "name", "x")))

    def _require_square(self, what):
        if self.is_square is False:
            raise NotImplementedError(
                "%s not implemented for an operator that is expected to not be square." % what)

    def _max_condition_number_to_be_non_singular(self):
        eps = np.finfo(self.dtype.real_dtype.as_numpy_dtype).eps
        return 1.0 / (100.0 * eps)

    def assert_non_singular(self, name="assert_non_singular"):
        """An op (eagerly: a check) that fails with InvalidArgumentError when the operator is singular."""
        return self._assert_non_singular()

    def _assert_non_singular(self):
        cond = self.cond()
        return assert_less(cond, constant(self._max_condition_number_to_be_non_singular(), cond.dtype),
                           message="Singular matrix up to precision epsilon.")

    def assert_positive_definite(self, name="assert_positive_definite"):
        """Fails with InvalidArgumentError unless ``x^H A x > 0`` for every nonzero ``x``."""
        return self._assert_positive_definite()

    def _assert_positive_definite(self):
        if not self.is_self_adjoint:
            raise NotImplementedError("assert_positive_definite is not implemented.")
        diag = linalg_ops.diag_part(linalg_ops.cholesky(self.to_dense()))
        if diag.dtype.is_complex:
            diag = gen_ops.real(diag, Tout=diag.dtype.real_dtype)
        return assert_positive(diag, message="Matrix was not positive definite.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        """Fails with InvalidArgumentError unless the operator equals its adjoint."""
        return self._assert_self_adjoint()

    def _assert_self_adjoint(self):
        dense = self.to_dense()
        return assert_equal(dense, matrix_adjoint(dense), message="Matrix was not equal to its adjoint.")

    # ---- products and solves -------------------------------------------------------------------
    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``A @ x`` (``A^H`` when ``adjoint``, ``x^H`` when ``adjoint_arg``); batch dims broadcast.

        ``x`` may be a LinearOperator, giving their composition.
        """
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            assert_compatible(left.domain_dimension, right.range_dimension)
            # Imported here: linear_operator_composite imports this module.
            from tensorflux._src.linear_operator_composite import compose
            return compose(left, right)
        x = to_tensor(x, name="x")
        self._check_input_dtype(x)
        self_dim, arg_dim = (-2 if adjoint else -1), (-1 if adjoint_arg else -2)
        if x.shape.rank is not None and x.shape.rank < 2:
            raise ValueError("Argument x must be at least rank 2 (a batch of matrices); got shape %s" % x.shape)
        assert_compatible(self.shape[self_dim] if self.shape.rank else None,
                          x.shape[arg_dim] if x.shape.rank else None)
        return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def __matmul__(self, other):
        return self.matmul(other)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        raise NotImplementedError("%s does not implement _matmul" % type(self).__name__)

    def matvec(self, x, adjoint=False, name="matvec"):
        """``A @ x`` for a (batch of) vector(s) ``x`` (``A^H @ x`` when ``adjoint``)."""
        x = to_tensor(x, name="x")
        self._check_input_dtype(x)
        assert_compatible(self.shape[-2 if adjoint else -1] if self.shape.rank else None,
                          x.shape[-1] if x.shape.rank else None)
        return self._matvec(x, adjoint=adjoint)

    def _matvec(self, x, adjoint=False):
        return squeeze(self._matmul(expand_dims(x, -1), adjoint=adjoint), axis=[-1])

    def _check_solvable(self):
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to be singular.")
        if self.is_square is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to not be square.")

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """X with ``A @ X = rhs`` (``A^H`` when ``adjoint``, ``rhs^H`` when ``adjoint_arg``).

        ``rhs`` may be a LinearOperator, giving ``A^{-1} @ rhs`` as an operator.
        """
        self._check_solvable()
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            assert_compatible(left.range_dimension, right.range_dimension)
            # Imported here: linear_operator_composite imports this module.
            from tensorflux._src.linear_operator_composite import compose
            return compose(left.inverse(), right)
        rhs = to_tensor(rhs, name="rhs")
        self._check_input_dtype(rhs)
        if rhs.shape.rank is not None and rhs.shape.rank < 2:
            raise ValueError("Argument rhs must be at least rank 2 (a batch of matrices); got shape %s" % rhs.shape)
        self_dim, arg_dim = (-1 if adjoint else -2), (-1 if adjoint_arg else -2)
        assert_compatible(self.shape[self_dim] if self.shape.rank else None,
                          rhs.shape[arg_dim] if rhs.shape.rank else None)
        return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = matrix_adjoint(rhs) if adjoint_arg else rhs
        dense, rhs = broadcast_batch(self.to_dense(), rhs)
        return linalg_ops.solve(dense, rhs, adjoint=adjoint)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """x with ``A @ x = rhs`` for a (batch of) vector(s) ``rhs``."""
        self._check_solvable()
        rhs = to_tensor(rhs, name="rhs")
        self._check_input_dtype(rhs)
        assert_compatible(self.shape[-1 if adjoint else -2] if self.shape.rank else None,
                          rhs.shape[-1] if rhs.shape.rank else None)
        return self._solvevec(rhs, adjoint=adjoint)

    def _solvevec(self, rhs, adjoint=False):
        return squeeze(self._solve(expand_dims(rhs, -1), adjoint=adjoint), axis=[-1])

    # ---- scalars and parts ---------------------------------------------------------------------
    def determinant(self, name="det"):
        """The determinant of each operator in the batch (shape ``batch_shape``)."""
        self._require_square("Determinant")
        return self._determinant()

    def _determinant(self):
        if self.is_positive_definite:
            return exp(self._log_abs_determinant())
        return linalg_ops.det(self.to_dense())

    def log_abs_determinant(self, name="log_abs_det"):
        """``log(|det(A)|)`` of each operator in the batch."""
        self._require_square("Log abs determinant")
        return self._log_abs_determinant()

    def _log_abs_determinant(self):
        return linalg_ops.slogdet(self.to_dense())[1]

    def cond(self, name="cond"):
        """The 2-norm condition number ``max(sigma) / min(sigma)`` of each operator."""
        return self._cond()

    def _cond(self):
        dense = self.to_dense()
        if self.is_self_adjoint:
            vals = gen_ops.abs(linalg_ops.eigvalsh(dense))
        else:
            vals = linalg_ops.svd(dense, compute_uv=False)
        return gen_ops.max(vals, -1) / gen_ops.min(vals, -1)

    def diag_part(self, name="diag_part"):
        """The main diagonal of each operator (shape ``batch_shape + [min(M, N)]``)."""
        return self._diag_part()

    def _diag_part(self):
        return linalg_ops.diag_part(self.to_dense())

    def trace(self, name="trace"):
        """The sum of the main diagonal of each operator."""
        return self._trace()

    def _trace(self):
        return reduce_sum(self.diag_part(), axis=-1)

    def to_dense(self, name="to_dense"):
        """The dense (batch) matrix this operator represents."""
        return self._to_dense()

    def _to_dense(self):
        if not self.shape.is_fully_defined():
            raise ValueError("to_dense needs a fully known shape; got %s" % self.shape)
        n = self.domain_dimension
        eye = linalg_ops.eye(n, batch_shape=self.batch_shape.as_list(), dtype=self.dtype)
        return self._matmul(eye)

    def add_to_tensor(self, x, name="add_to_tensor"):
        """``A + x`` for a tensor ``x`` of the operator's shape."""
        x = to_tensor(x, name="x")
        self._check_input_dtype(x)
        return self._add_to_tensor(x)

    def _add_to_tensor(self, x):
        return add(self.to_dense(), x)

    def eigvals(self, name="eigvals"):
        """The eigenvalues of a self-adjoint operator, in ascending order."""
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        return self._eigvals()

    def _eigvals(self):
        return linalg_ops.eigvalsh(self.to_dense())

    # ---- derived operators ---------------------------------------------------------------------
    def adjoint(self, name="adjoint"):
        """The adjoint ``A^H`` as a LinearOperator (``self`` when self-adjoint)."""
        if self.is_self_adjoint is True:
            return self
        return self._linop_adjoint()

    H = property(adjoint, None, None, "The adjoint, ``self.adjoint()``.")

    def _linop_adjoint(self):
        # Imported here: linear_operator_composite imports this module.
        from tensorflux._src.linear_operator_composite import LinearOperatorAdjoint
        return LinearOperatorAdjoint(self, is_non_singular=self.is_non_singular,
                                     is_self_adjoint=self.is_self_adjoint,
                                     is_positive_definite=self.is_positive_definite, is_square=self.is_square)

    def inverse(self, name="inverse"):
        """``A^{-1}`` as a LinearOperator (the operator must not be hinted singular or non-square)."""
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non square matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular matrix.")
        return self._linop_inverse()

    def _linop_inverse(self):
        # Imported here: linear_operator_composite imports this module.
        from tensorflux._src.linear_operator_composite import LinearOperatorInversion
        return LinearOperatorInversion(self, is_non_singular=self.is_non_singular,
                                       is_self_adjoint=self.is_self_adjoint,
                                       is_positive_definite=self.is_positive_definite, is_square=self.is_square)

    def _can_use_cholesky(self):
        return bool(self.is_self_adjoint and self.is_positive_definite)

    def cholesky(self, name="cholesky"):
        """The lower-triangular Cholesky factor ``L`` (``L @ L^H = A``) as a LinearOperator."""
        if not self._can_use_cholesky():
            raise ValueError("Cannot take the Cholesky decomposition: Not a positive definite self adjoint matrix.")
        return self._linop_cholesky()

    def _linop_cholesky(self):
        # Imported here: linear_operator_basic imports this module.
        from tensorflux._src.linear_operator_basic import LinearOperatorLowerTriangular
        return LinearOperatorLowerTriangular(linalg_ops.cholesky(self.to_dense()), is_non_singular=True,
                                             is_self_adjoint=False, is_square=True)

    def __repr__(self):
        return "<%s '%s' shape=%s dtype=%s>" % (type(self).__name__, self.name, self.shape, self.dtype)


def dense_matmul(matrix, x, adjoint=False, adjoint_arg=False):
    """``matrix @ x`` with TensorFlow's adjoint flags (batch dims broadcast by BatchMatMulV2)."""
    return matmul(matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

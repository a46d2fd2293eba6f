"""The elementary LinearOperators (TensorFlow's): full, diagonal, identity, scaled identity, lower
triangular and zero matrices."""

from __future__ import annotations

import numbers

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import errors as _errors
from tensorflux._src import linalg_ops
from tensorflux._src.array_ops import broadcast_to, expand_dims
from tensorflux._src.check_ops import assert_equal, assert_positive
from tensorflux._src.generated import gen_ops
from tensorflux._src.linear_operator import (LinearOperator, check_float_dtype, dense_matmul, matrix_adjoint, to_tensor,
                                             broadcast_batch)
from tensorflux._src.math_ops import multiply, reduce_sum
from tensorflux._src.reduce_ops import reduce_prod
from tensorflux._src.shape_ops import ones, zeros
from tensorflux._src.tensor_shape import TensorShape

__all__ = ["LinearOperatorDiag", "LinearOperatorFullMatrix", "LinearOperatorIdentity", "LinearOperatorLowerTriangular",
           "LinearOperatorScaledIdentity", "LinearOperatorZeros"]


def conj(x):
    """The complex conjugate of ``x`` (``x`` itself when real)."""
    return gen_ops.conj(x) if x.dtype.is_complex else x


def real(x):
    """The real part of ``x`` (``x`` itself when real)."""
    return gen_ops.real(x, Tout=x.dtype.real_dtype) if x.dtype.is_complex else x


def imag(x):
    """The imaginary part of ``x`` (zeros when real)."""
    return gen_ops.imag(x, Tout=x.dtype.real_dtype) if x.dtype.is_complex else gen_ops.zeros_like(x)


def log_abs(x):
    """``log(|x|)`` with a real result."""
    return gen_ops.log(gen_ops.abs(x) if not x.dtype.is_complex else gen_ops.complex_abs(x, Tout=x.dtype.real_dtype))


def assert_nonzero_diag(diag, message):
    """Fails with InvalidArgumentError (``message``) when an entry of ``diag`` is zero."""
    mod = gen_ops.complex_abs(diag, Tout=diag.dtype.real_dtype) if diag.dtype.is_complex else gen_ops.abs(diag)
    return assert_positive(mod, message=message)


def broadcast_arg(x, batch_shape):
    """``x`` broadcast against an operator's static batch shape (TensorFlow broadcasts the batch)."""
    xb = x.shape.as_list()[:-2]
    batch = list(np.broadcast_shapes(tuple(xb), tuple(batch_shape.as_list())))
    if batch == xb:
        return x
    return broadcast_to(x, batch + x.shape.as_list()[-2:])


class LinearOperatorFullMatrix(LinearOperator):
    """A LinearOperator holding a dense (batch) matrix ``A`` of shape ``[..., M, N]``.

    >>> op = tx.linalg.LinearOperatorFullMatrix([[1., 2.], [3., 4.]])
    >>> op.matvec([1., 1.]).numpy().tolist(), float(op.trace())
    ([3.0, 7.0], 5.0)
    """

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorFullMatrix"):
        self._matrix = to_tensor(matrix, name="matrix")
        check_float_dtype(self._matrix, "matrix")
        if self._matrix.shape.rank is not None and self._matrix.shape.rank < 2:
            raise ValueError("Argument `matrix` must have at least 2 dimensions. Received: %s." % self._matrix)
        super().__init__(self._matrix.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square, name=name,
                         parameters=dict(matrix=matrix, name=name))

    def _shape(self):
        return self._matrix.shape

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return dense_matmul(self._matrix, x, adjoint, adjoint_arg)

    def _to_dense(self):
        return self._matrix

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        if self._can_use_cholesky():
            rhs = matrix_adjoint(rhs) if adjoint_arg else rhs
            chol, rhs = broadcast_batch(linalg_ops.cholesky(self._matrix), rhs)
            return linalg_ops.cholesky_solve(chol, rhs)
        return super()._solve(rhs, adjoint, adjoint_arg)


class LinearOperatorDiag(LinearOperator):
    """A (batch of) square diagonal operator(s) ``A = diag(d)`` for ``d`` of shape ``batch_shape + [N]``.

    >>> op = tx.linalg.LinearOperatorDiag([1., 2., 4.])
    >>> op.solvevec([1., 1., 1.]).numpy().tolist(), float(op.determinant())
    ([1.0, 0.5, 0.25], 8.0)
    """

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorDiag"):
        self._diag = to_tensor(diag, name="diag")
        check_float_dtype(self._diag, "diag")
        if self._diag.shape.rank is not None and self._diag.shape.rank < 1:
            raise ValueError("Argument `diag` must have at least 1 dimension. Received: %s" % self._diag)
        if not self._diag.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            is_self_adjoint = True
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        super().__init__(self._diag.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=dict(diag=diag, name=name))

    @property
    def diag(self):
        """The diagonal ``d``."""
        return self._diag

    def _shape(self):
        return self._diag.shape.concatenate(self._diag.shape[-1:])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        d = conj(self._diag) if adjoint else self._diag
        x = matrix_adjoint(x) if adjoint_arg else x
        return multiply(expand_dims(d, -1), x)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        d = conj(self._diag) if adjoint else self._diag
        rhs = matrix_adjoint(rhs) if adjoint_arg else rhs
        return gen_ops.real_div(rhs, expand_dims(d, -1))

    def _determinant(self):
        return reduce_prod(self._diag, axis=[-1])

    def _log_abs_determinant(self):
        return reduce_sum(log_abs(self._diag), axis=-1)

    def _diag_part(self):
        return self._diag

    def _to_dense(self):
        return linalg_ops.diag(self._diag)

    def _add_to_tensor(self, x):
        return linalg_ops.set_diag(x, linalg_ops.diag_part(x) + self._diag)

    def _eigvals(self):
        return self._diag

    def _cond(self):
        mod = gen_ops.abs(self._diag) if not self._diag.dtype.is_complex else gen_ops.complex_abs(
            self._diag, Tout=self._diag.dtype.real_dtype)
        return gen_ops.max(mod, -1) / gen_ops.min(mod, -1)

    def _assert_non_singular(self):
        return assert_nonzero_diag(self._diag, "Singular operator:  Diagonal contained zero values.")

    def _assert_positive_definite(self):
        if self._diag.dtype.is_complex:
            message = ("Diagonal operator had diagonal entries with non-positive real part, thus was not "
                       "positive definite.")
        else:
            message = "Real diagonal operator had non-positive diagonal entries, thus was not positive definite."
        return assert_positive(real(self._diag), message=message)

    def _assert_self_adjoint(self):
        return assert_equal(imag(self._diag), gen_ops.zeros_like(real(self._diag)), message=(
            "This diagonal operator contained non-zero imaginary values.  Thus it was not self-adjoint."))

    def _linop_inverse(self):
        return LinearOperatorDiag(gen_ops.reciprocal(self._diag), is_non_singular=self.is_non_singular,
                                  is_self_adjoint=self.is_self_adjoint,
                                  is_positive_definite=self.is_positive_definite, is_square=True)

    def _linop_adjoint(self):
        return LinearOperatorDiag(conj(self._diag), is_non_singular=self.is_non_singular,
                                  is_self_adjoint=self.is_self_adjoint,
                                  is_positive_definite=self.is_positive_definite, is_square=True)

    def _linop_cholesky(self):
        return LinearOperatorDiag(gen_ops.sqrt(self._diag), is_non_singular=True, is_self_adjoint=True,
                                  is_positive_definite=True, is_square=True)


def _num_rows(num_rows, arg_name="num_rows"):
    if isinstance(num_rows, (bool, np.bool_)) or not isinstance(num_rows, (numbers.Integral, np.integer)):
        value = to_tensor(num_rows)
        if not value.dtype.is_integer:
            raise TypeError("Argument %s must be integer type.  Found: %s" % (arg_name, value))
        if value.shape.rank != 0:
            raise ValueError("Argument %s must be a 0-D Tensor.  Found: %s" % (arg_name, value))
        num_rows = int(value.numpy())
    if num_rows < 0:
        raise ValueError("Argument %s must be non-negative.  Found: %d" % (arg_name, num_rows))
    return int(num_rows)


def _batch_shape(batch_shape):
    if batch_shape is None:
        return TensorShape([])
    dims = [int(d) for d in (batch_shape.numpy() if hasattr(batch_shape, "numpy") else batch_shape)]
    if any(d < 0 for d in dims):
        raise ValueError("Argument batch_shape must be non-negative.  Found: %s" % dims)
    return TensorShape(dims)


class _IdentityBase(LinearOperator):
    """Shared parts of the identity-like operators of ``num_rows`` rows."""

    def _ones_diag(self):
        return ones(self.batch_shape.as_list() + [self._n], dtype=self.dtype)

    def _shape(self):
        return self._batch.concatenate([self._n, self._n])


class LinearOperatorIdentity(_IdentityBase):
    """The ``num_rows x num_rows`` identity (a batch of them when ``batch_shape`` is given).

    >>> op = tx.linalg.LinearOperatorIdentity(2, batch_shape=[3])
    >>> op.shape.as_list(), op.matmul(tx.ones([2, 1])).shape.as_list()
    ([3, 2, 2], [3, 2, 1])
    """

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True, is_self_adjoint=True,
                 is_positive_definite=True, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorIdentity"):
        for hint, text in ((is_non_singular, "non-singular"), (is_self_adjoint, "self adjoint"),
                           (is_positive_definite, "positive-definite"), (is_square, "square")):
            if not hint:
                raise ValueError("An identity operator is always %s." % text)
        self._n = _num_rows(num_rows)
        self._batch = _batch_shape(batch_shape)
        super().__init__(_dtypes.as_dtype(dtype or _dtypes.float32), is_non_singular=True, is_self_adjoint=True,
                         is_positive_definite=True, is_square=True, name=name,
                         parameters=dict(num_rows=num_rows, batch_shape=batch_shape, dtype=dtype, name=name))

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = matrix_adjoint(x) if adjoint_arg else x
        return broadcast_arg(x, self._batch)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return ones(self._batch.as_list(), dtype=self.dtype)

    def _log_abs_determinant(self):
        return zeros(self._batch.as_list(), dtype=self.dtype.real_dtype)

    def _diag_part(self):
        return self._ones_diag()

    def _trace(self):
        return multiply(ones(self._batch.as_list(), dtype=self.dtype), to_tensor(self._n, dtype=self.dtype))

    def _to_dense(self):
        return linalg_ops.eye(self._n, batch_shape=self._batch.as_list(), dtype=self.dtype)

    def _add_to_tensor(self, x):
        return linalg_ops.set_diag(x, linalg_ops.diag_part(x) + 1)

    def _eigvals(self):
        return self._ones_diag()

    def _cond(self):
        return ones(self._batch.as_list(), dtype=self.dtype.real_dtype)

    def _assert_non_singular(self):
        return None

    def _assert_positive_definite(self):
        return None

    def _assert_self_adjoint(self):
        return None

    def _linop_inverse(self):
        return self

    def _linop_cholesky(self):
        return self


class LinearOperatorScaledIdentity(_IdentityBase):
    """``multiplier * I`` of ``num_rows`` rows; ``multiplier``'s shape is the batch shape.

    >>> op = tx.linalg.LinearOperatorScaledIdentity(3, 2.)
    >>> float(op.determinant()), round(float(op.log_abs_determinant()), 4)
    (8.0, 2.0794)
    """

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorScaledIdentity"):
        self._multiplier = to_tensor(multiplier, name="multiplier")
        check_float_dtype(self._multiplier, "multiplier")
        if not is_square:
            raise ValueError("A ScaledIdentity operator is always square.")
        if not self._multiplier.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            is_self_adjoint = True
        self._n = _num_rows(num_rows)
        self._batch = self._multiplier.shape
        super().__init__(self._multiplier.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=dict(num_rows=num_rows, multiplier=multiplier, name=name))

    @property
    def multiplier(self):
        """The scalar (batch) multiplier."""
        return self._multiplier

    def _m(self, adjoint=False):
        m = conj(self._multiplier) if adjoint else self._multiplier
        return expand_dims(expand_dims(m, -1), -1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = matrix_adjoint(x) if adjoint_arg else x
        return multiply(x, self._m(adjoint))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = matrix_adjoint(rhs) if adjoint_arg else rhs
        return gen_ops.real_div(rhs, self._m(adjoint))

    def _determinant(self):
        return gen_ops.pow(self._multiplier, to_tensor(self._n, dtype=self.dtype))

    def _log_abs_determinant(self):
        return multiply(log_abs(self._multiplier), to_tensor(self._n, dtype=self.dtype.real_dtype))

    def _diag_part(self):
        return multiply(self._ones_diag(), expand_dims(self._multiplier, -1))

    def _trace(self):
        return multiply(self._multiplier, to_tensor(self._n, dtype=self.dtype))

    def _to_dense(self):
        return multiply(linalg_ops.eye(self._n, dtype=self.dtype), self._m())

    def _add_to_tensor(self, x):
        return linalg_ops.set_diag(x, linalg_ops.diag_part(x) + expand_dims(self._multiplier, -1))

    def _eigvals(self):
        return self._diag_part()

    def _cond(self):
        return ones(self._batch.as_list(), dtype=self.dtype.real_dtype)

    def _assert_non_singular(self):
        return assert_nonzero_diag(self._multiplier, "LinearOperator was singular.")

    def _assert_positive_definite(self):
        return assert_positive(real(self._multiplier), message="LinearOperator was not positive definite.")

    def _assert_self_adjoint(self):
        return assert_equal(imag(self._multiplier), gen_ops.zeros_like(real(self._multiplier)),
                            message="LinearOperator was not self-adjoint")

    def _linop_inverse(self):
        return LinearOperatorScaledIdentity(self._n, gen_ops.reciprocal(self._multiplier),
                                            is_non_singular=self.is_non_singular,
                                            is_self_adjoint=self.is_self_adjoint,
                                            is_positive_definite=self.is_positive_definite)

    def _linop_adjoint(self):
        return LinearOperatorScaledIdentity(self._n, conj(self._multiplier), is_non_singular=self.is_non_singular,
                                            is_self_adjoint=self.is_self_adjoint,
                                            is_positive_definite=self.is_positive_definite)

    def _linop_cholesky(self):
        return LinearOperatorScaledIdentity(self._n, gen_ops.sqrt(self._multiplier), is_non_singular=True,
                                            is_self_adjoint=True, is_positive_definite=True)


class LinearOperatorLowerTriangular(LinearOperator):
    """A square lower-triangular operator; only the lower triangle of ``tril`` is read.

    >>> op = tx.linalg.LinearOperatorLowerTriangular([[2., 9.], [1., 4.]])
    >>> op.to_dense().numpy().tolist(), op.solvevec([2., 5.]).numpy().tolist()
    ([[2.0, 0.0], [1.0, 4.0]], [1.0, 1.0])
    """

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorLowerTriangular"):
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        tril = to_tensor(tril, name="tril")
        check_float_dtype(tril, "tril")
        if tril.shape.rank is not None and tril.shape.rank < 2:
            raise ValueError("Argument `tril` must have at least 2 dimensions. Received: %s." % tril)
        self._tril = linalg_ops.band_part(tril, -1, 0)
        super().__init__(tril.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=dict(tril=tril, name=name))

    def _shape(self):
        return self._tril.shape

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return dense_matmul(self._tril, x, adjoint, adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = matrix_adjoint(rhs) if adjoint_arg else rhs
        return linalg_ops.triangular_solve(self._tril, rhs, lower=True, adjoint=adjoint)

    def _diag_part(self):
        return linalg_ops.diag_part(self._tril)

    def _determinant(self):
        return reduce_prod(self._diag_part(), axis=[-1])

    def _log_abs_determinant(self):
        return reduce_sum(log_abs(self._diag_part()), axis=-1)

    def _to_dense(self):
        return self._tril

    def _eigvals(self):
        return self._diag_part()

    def _assert_non_singular(self):
        return assert_nonzero_diag(self._diag_part(), "Singular operator:  Diagonal contained zero values.")


class LinearOperatorZeros(LinearOperator):
    """The all-zeros ``num_rows x num_columns`` matrix (a batch of them when ``batch_shape`` is given).

    >>> op = tx.linalg.LinearOperatorZeros(2, 3, is_square=False, is_self_adjoint=False)
    >>> float(tx.reduce_sum(op.matmul(tx.ones([3, 4])))), op.shape.as_list()
    (0.0, [2, 3])
    """

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None, is_non_singular=False,
                 is_self_adjoint=True, is_positive_definite=False, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorZeros"):
        if is_non_singular:
            raise ValueError("A zero operator is always singular.")
        if is_positive_definite:
            raise ValueError("A zero operator is always not positive-definite.")
        self._rows = _num_rows(num_rows)
        self._cols = self._rows if num_columns is None else _num_rows(num_columns, "num_columns")
        if is_square and self._rows != self._cols:
            raise ValueError("LinearOperatorZeros initialized as is_square=True, but got num_rows(%d) != "
                             "num_columns(%d)" % (self._rows, self._cols))
        self._batch = _batch_shape(batch_shape)
        super().__init__(_dtypes.as_dtype(dtype or _dtypes.float32), is_non_singular=False,
                         is_self_adjoint=is_self_adjoint, is_positive_definite=False, is_square=is_square,
                         name=name, parameters=dict(num_rows=num_rows, num_columns=num_columns,
                                                    batch_shape=batch_shape, dtype=dtype, name=name))

    def _shape(self):
        return self._batch.concatenate([self._rows, self._cols])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = matrix_adjoint(x) if adjoint_arg else x
        rows = self._cols if adjoint else self._rows
        batch = list(np.broadcast_shapes(tuple(x.shape.as_list()[:-2]), tuple(self._batch.as_list())))
        return zeros(batch + [rows, x.shape[-1]], dtype=self.dtype)

    def _determinant(self):
        return zeros(self._batch.as_list(), dtype=self.dtype)

    def _log_abs_determinant(self):
        return gen_ops.log(zeros(self._batch.as_list(), dtype=self.dtype.real_dtype))

    def _diag_part(self):
        return zeros(self._batch.as_list() + [min(self._rows, self._cols)], dtype=self.dtype)

    def _trace(self):
        return zeros(self._batch.as_list(), dtype=self.dtype)

    def _to_dense(self):
        return zeros(self.shape.as_list(), dtype=self.dtype)

    def _add_to_tensor(self, x):
        batch = list(np.broadcast_shapes(tuple(x.shape.as_list()[:-2]), tuple(self._batch.as_list())))
        return broadcast_to(x, batch + x.shape.as_list()[-2:])

    def _eigvals(self):
        return self._diag_part()

    def _assert_non_singular(self):
        raise _errors.InvalidArgumentError(None, None, "Zero operators are always non-invertible.")

    def _assert_positive_definite(self):
        raise _errors.InvalidArgumentError(None, None, "Zero operators are always non-positive definite.")

    def _assert_self_adjoint(self):
        return None

    def _linop_adjoint(self):
        return LinearOperatorZeros(self._cols, self._rows, batch_shape=self._batch.as_list(), dtype=self.dtype,
                                   is_self_adjoint=self.is_self_adjoint, is_square=self.is_square)


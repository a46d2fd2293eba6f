"""Structured LinearOperators (TensorFlow's): Householder reflection, permutation, Toeplitz,
circulant and tridiagonal."""

from __future__ import annotations

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import linalg_ops
from tensorflux._src.array_ops import cast, concat, expand_dims, reverse
from tensorflux._src.constant_op import constant
from tensorflux._src.gather_ops import gather, one_hot
from tensorflux._src.generated import gen_ops
from tensorflux._src.linalg_tridiagonal import tridiagonal_matmul, tridiagonal_solve, unpack_diagonals
from tensorflux._src.linear_operator import (LinearOperator, broadcast_batch, check_float_dtype, dense_matmul,
                                             matrix_adjoint, to_tensor)
from tensorflux._src.linear_operator_basic import conj, log_abs, real
from tensorflux._src.math_ops import matmul, multiply, reduce_mean, reduce_sum
from tensorflux._src.reduce_ops import reduce_prod
from tensorflux._src.shape_ops import ones, zeros_like

__all__ = ["LinearOperatorCirculant", "LinearOperatorHouseholder",
           "LinearOperatorPermutation", "LinearOperatorToeplitz", "LinearOperatorTridiag"]


class LinearOperatorHouseholder(LinearOperator):
    """The reflection ``I - 2 v v^H / (v^H v)`` through the hyperplane orthogonal to ``reflection_axis`` v.

    >>> op = tx.linalg.LinearOperatorHouseholder([0., 1.])
    >>> op.to_dense().numpy().tolist(), float(op.determinant())
    ([[1.0, 0.0], [0.0, -1.0]], -1.0)
    """

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorHouseholder"):
        self._axis = to_tensor(reflection_axis, name="reflection_axis")
        check_float_dtype(self._axis, "reflection_axis")
        if is_self_adjoint is False:
            raise ValueError("A Householder operator is always self adjoint.")
        if is_non_singular is False:
            raise ValueError("A Householder operator is always non-singular.")
        if is_positive_definite is True:
            raise ValueError("A Householder operator is always non-positive definite.")
        is_positive_definite = False
        if is_square is False:
            raise ValueError("A Householder operator is always square.")
        super().__init__(self._axis.dtype, is_non_singular=is_non_singular, is_self_adjoint=True,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=dict(reflection_axis=reflection_axis, name=name))

    @property
    def reflection_axis(self):
        return self._axis

    def _shape(self):
        return self._axis.shape.concatenate(self._axis.shape[-1:])

    def _unit(self):
        norm2 = reduce_sum(multiply(conj(self._axis), self._axis), axis=-1, keepdims=True)
        return self._axis / gen_ops.sqrt(norm2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = matrix_adjoint(x) if adjoint_arg else x
        u = expand_dims(self._unit(), -1)
        return x - 2 * multiply(u, matmul(u, x, adjoint_a=True))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _determinant(self):
        return -ones(self.batch_shape.as_list(), dtype=self.dtype)

    def _log_abs_determinant(self):
        return gen_ops.zeros_like(real(self._axis[..., 0]))

    def _diag_part(self):
        u = self._unit()
        return 1 - 2 * multiply(conj(u), u)

    def _trace(self):
        return to_tensor(self.domain_dimension - 2, dtype=self.dtype) + gen_ops.zeros_like(self._axis[..., 0])

    def _eigvals(self):
        n = self.domain_dimension
        return ones(self.batch_shape.as_list() + [n], dtype=self.dtype) - 2 * one_hot(0, n, dtype=self.dtype)

    def _assert_non_singular(self):
        return None

    def _linop_inverse(self):
        return self

    def _cond(self):
        return ones(self.batch_shape.as_list(), dtype=self.dtype.real_dtype)


class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix ``P`` with ``P[..., i, perm[i]] = 1``, so ``P @ x = x[perm]``.

    >>> op = tx.linalg.LinearOperatorPermutation([1, 2, 0])
    >>> op.matvec([10., 20., 30.]).numpy().tolist(), float(op.determinant())
    ([20.0, 30.0, 10.0], 1.0)
    """

    def __init__(self, perm, dtype=_dtypes.float32, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorPermutation"):
        self._perm = to_tensor(perm, name="perm")
        if not self._perm.dtype.is_integer:
            raise TypeError("Argument `perm` must be integer dtype. Received: %s." % self._perm)
        if is_non_singular is False:
            raise ValueError("A Permutation operator is always non-singular. Expected argument `is_non_singular` "
                             "to be True. Received: False.")
        if is_square is False:
            raise ValueError("A Permutation operator is always square. Expected argument `is_square` to be True. "
                             "Received: False.")
        super().__init__(dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=dict(perm=perm, dtype=dtype, name=name))

    @property
    def perm(self):
        return self._perm

    def _shape(self):
        return self._perm.shape.concatenate(self._perm.shape[-1:])

    def _to_dense(self):
        return one_hot(self._perm, self.domain_dimension, dtype=self.dtype)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return dense_matmul(self._to_dense(), x, adjoint, adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return dense_matmul(self._to_dense(), rhs, not adjoint, adjoint_arg)

    def _determinant(self):
        # The sign of the permutation: (-1)^(number of inversions) for each batch member.
        p = self._perm
        inversions = gen_ops.cast(gen_ops.greater(expand_dims(p, -1), expand_dims(p, -2)), DstT=_dtypes.int32)
        upper = linalg_ops.band_part(inversions, 0, -1)
        count = reduce_sum(upper, axis=[-2, -1])
        return cast(1 - 2 * gen_ops.floor_mod(count, 2), self.dtype)

    def _log_abs_determinant(self):
        return gen_ops.zeros_like(cast(self._perm[..., 0], self.dtype.real_dtype))

    def _linop_inverse(self):
        return LinearOperatorPermutation(gen_ops.invert_permutation(self._perm) if self._perm.shape.rank == 1
                                         else gen_ops.arg_max(self._to_dense(), -2, output_type=self._perm.dtype),
                                         dtype=self.dtype)

    def _assert_non_singular(self):
        return None

    def _cond(self):
        return ones(self.batch_shape.as_list(), dtype=self.dtype.real_dtype)


class LinearOperatorToeplitz(LinearOperator):
    """The square Toeplitz matrix with first column ``col`` and first row ``row`` (``row[0]`` is ignored).

    >>> op = tx.linalg.LinearOperatorToeplitz(col=[1., 2., 3.], row=[9., 4., 5.])
    >>> op.to_dense().numpy().tolist()
    [[1.0, 4.0, 5.0], [2.0, 1.0, 4.0], [3.0, 2.0, 1.0]]
    """

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorToeplitz"):
        self._col = to_tensor(col, name="col")
        self._row = to_tensor(row, name="row", dtype=self._col.dtype)
        check_float_dtype(self._col, "col")
        if self._col.shape[-1] != self._row.shape[-1]:
            raise ValueError("Expected square matrix, got row and col with mismatched dimensions.")
        super().__init__(self._col.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=dict(col=col, row=row, name=name))

    @property
    def col(self):
        return self._col

    @property
    def row(self):
        return self._row

    def _shape(self):
        batch = np.broadcast_shapes(tuple(self._col.shape.as_list()[:-1]), tuple(self._row.shape.as_list()[:-1]))
        n = self._col.shape[-1]
        return self._col.shape[:0].concatenate(list(batch) + [n, n])

    def _to_dense(self):
        col, row = broadcast_batch(expand_dims(self._col, -1), expand_dims(self._row, -1))
        col, row = col[..., 0], row[..., 0]
        n = self.domain_dimension
        values = concat([reverse(row[..., 1:], [-1]), col], axis=-1)  # values[n - 1 + i - j] = A[i, j]
        index = (n - 1) + np.arange(n)[:, None] - np.arange(n)[None, :]
        return gather(values, constant(index.astype(np.int32)), axis=-1, batch_dims=0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return dense_matmul(self._to_dense(), x, adjoint, adjoint_arg)

    def _diag_part(self):
        return multiply(ones(self.shape.as_list()[:-1], dtype=self.dtype), self._col[..., :1])

    def _trace(self):
        return multiply(to_tensor(self.domain_dimension, dtype=self.dtype), self._col[..., 0]) + \
            gen_ops.zeros_like(self._row[..., 0])


class LinearOperatorCirculant(LinearOperator):
    """The circulant operator ``A x = ifft(spectrum * fft(x))``; ``spectrum`` holds its eigenvalues.

    With a real ``input_output_dtype`` the results are the real parts (exact for a Hermitian spectrum).

    >>> op = tx.linalg.LinearOperatorCirculant(tx.constant([1., 2., 2.], tx.float64), input_output_dtype=tx.float64)
    >>> np.round(op.to_dense().numpy(), 3).tolist()[0], float(op.determinant())
    ([1.667, -0.333, -0.333], 4.0)
    """

    def __init__(self, spectrum, input_output_dtype=_dtypes.complex64, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name="LinearOperatorCirculant"):
        spectrum = to_tensor(spectrum, name="spectrum")
        check_float_dtype(spectrum, "spectrum")
        if not spectrum.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real spectrum always corresponds to a self-adjoint operator.")
            is_self_adjoint = True
        self._spectrum = spectrum
        self._complex_dtype = _dtypes.complex128 if spectrum.dtype in (_dtypes.float64, _dtypes.complex128) \
            else _dtypes.complex64
        if is_square is False:
            raise ValueError("A circulant operator is always square.")
        super().__init__(input_output_dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=dict(spectrum=spectrum, input_output_dtype=input_output_dtype, name=name))

    @property
    def spectrum(self):
        return self._spectrum

    def _shape(self):
        return self._spectrum.shape.concatenate(self._spectrum.shape[-1:])

    def _cspec(self, adjoint=False):
        spec = gen_ops.cast(self._spectrum, DstT=self._complex_dtype) if not self._spectrum.dtype.is_complex \
            else self._spectrum
        return conj(spec) if adjoint else spec

    def _out(self, x):
        if self.dtype.is_complex:
            return gen_ops.cast(x, DstT=self.dtype)
        return gen_ops.cast(real(x), DstT=self.dtype)

    def _apply(self, x, spectrum_fn, adjoint_arg):
        x = matrix_adjoint(x) if adjoint_arg else x
        xc = gen_ops.cast(x, DstT=self._complex_dtype)
        rows = linalg_ops.matrix_transpose(xc)  # [..., R, N]: FFT along the last axis
        y = gen_ops.ifft(spectrum_fn(expand_dims(self._cspec(), -2)) * gen_ops.fft(rows))
        return self._out(linalg_ops.matrix_transpose(y))

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._apply(x, lambda s: conj(s) if adjoint else s, adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._apply(rhs, lambda s: gen_ops.reciprocal(conj(s) if adjoint else s), adjoint_arg)

    def _to_dense(self):
        n = self.domain_dimension
        return self._matmul(linalg_ops.eye(n, batch_shape=self.batch_shape.as_list(), dtype=self.dtype))

    def _determinant(self):
        return self._out(reduce_prod(self._cspec(), axis=[-1]))

    def _log_abs_determinant(self):
        return reduce_sum(log_abs(self._cspec()), axis=-1)

    def _diag_part(self):
        mean = reduce_mean(self._cspec(), axis=-1, keepdims=True)
        return self._out(multiply(mean, ones(self.shape.as_list()[:-1], dtype=self._complex_dtype)))

    def _trace(self):
        return self._out(reduce_sum(self._cspec(), axis=-1))

    def _eigvals(self):
        return self._out(self._cspec())

    def _linop_inverse(self):
        return LinearOperatorCirculant(gen_ops.reciprocal(self._cspec()), input_output_dtype=self.dtype,
                                       is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
                                       is_positive_definite=self.is_positive_definite)

    def _linop_adjoint(self):
        return LinearOperatorCirculant(conj(self._cspec()), input_output_dtype=self.dtype,
                                       is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
                                       is_positive_definite=self.is_positive_definite)


class LinearOperatorTridiag(LinearOperator):
    """A square tridiagonal operator given by its diagonals (formats as ``tx.linalg.tridiagonal_solve``).

    >>> op = tx.linalg.LinearOperatorTridiag([[1., 1., 0.], [2., 2., 2.], [0., 1., 1.]])
    >>> op.matvec([1., 1., 1.]).numpy().tolist(), op.solvevec([3., 4., 3.]).numpy().tolist()
    ([3.0, 4.0, 3.0], [1.0, 1.0, 1.0])
    """

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorTridiag"):
        if is_square is False:
            raise ValueError("Only square tridiagonal operators supported at this time.")
        sup, main, sub = unpack_diagonals(diagonals, diagonals_format)
        check_float_dtype(main, "diagonals")
        zero = zeros_like(main[..., :1])
        self._sup = concat([sup[..., :-1], zero], axis=-1)
        self._main = main
        self._sub = concat([zero, sub[..., 1:]], axis=-1)
        self._diagonals, self._format = diagonals, diagonals_format
        super().__init__(main.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=dict(diagonals=diagonals, diagonals_format=diagonals_format, name=name))

    @property
    def diagonals(self):
        return self._diagonals

    @property
    def diagonals_format(self):
        return self._format

    def _shape(self):
        return self._main.shape.concatenate(self._main.shape[-1:])

    def _compact(self, adjoint):
        if not adjoint:
            return (self._sup, self._main, self._sub)
        # A^H: the new superdiagonal is the conjugated subdiagonal moved up by one, and vice versa.
        zero = zeros_like(self._main[..., :1])
        sup = concat([conj(self._sub[..., 1:]), zero], axis=-1)
        sub = concat([zero, conj(self._sup[..., :-1])], axis=-1)
        return (sup, conj(self._main), sub)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = matrix_adjoint(x) if adjoint_arg else x
        diags = self._compact(adjoint)
        x, *_ = broadcast_batch(x, expand_dims(diags[1], -1))
        batch = x.shape.as_list()[:-2]
        diags = [multiply(d, ones(batch + [d.shape[-1]], dtype=self.dtype)) for d in diags]
        return tridiagonal_matmul(tuple(diags), x, diagonals_format="sequence")

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = matrix_adjoint(rhs) if adjoint_arg else rhs
        diags = self._compact(adjoint)
        rhs, *_ = broadcast_batch(rhs, expand_dims(diags[1], -1))
        batch = rhs.shape.as_list()[:-2]
        diags = [multiply(d, ones(batch + [d.shape[-1]], dtype=self.dtype)) for d in diags]
        return tridiagonal_solve(tuple(diags), rhs, diagonals_format="sequence")

    def _to_dense(self):
        return linalg_ops.diag(self._main) + linalg_ops.diag(self._sup[..., :-1], k=1) + \
            linalg_ops.diag(self._sub[..., 1:], k=-1)

    def _diag_part(self):
        return self._main

    def _trace(self):
        return reduce_sum(self._main, axis=-1)


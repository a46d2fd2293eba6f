"""Linear algebra over (batches of) matrices, like ``tf.linalg``: thin compositions of the generated ops."""

from __future__ import annotations

import collections

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ops import expand_dims, reshape, squeeze, transpose
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.math_ops import matmul, reduce_sum

QrResult = collections.namedtuple("Qr", ["q", "r"])
EighResult = collections.namedtuple("SelfAdjointEig", ["e", "v"])
SlogdetResult = collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])


def _t(x, dtype=None):
    return convert_to_tensor(x, dtype=dtype)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """``a`` with its last two dimensions swapped (conjugated too when ``conjugate``, a no-op for reals)."""
    a = _t(a)
    rank = a.shape.rank
    if rank is None:
        if conjugate and a.dtype.is_complex:
            a = gen_ops.conj(a)
        return gen_ops.einsum([a], equation="...ij->...ji", name=name)
    if rank < 2:
        raise ValueError("Argument 'a' should be a (batch) matrix with rank >= 2, got rank %d" % rank)
    if conjugate and a.dtype.is_complex:
        a = gen_ops.conj(a)
    return transpose(a, list(range(rank - 2)) + [rank - 1, rank - 2], name=name)


def adjoint(matrix, name=None):
    """The conjugate transpose of the last two dimensions of ``matrix``."""
    return matrix_transpose(matrix, name=name or "adjoint", conjugate=True)


def solve(matrix, rhs, adjoint=False, name=None):  # noqa: A002 - TensorFlow's argument name
    """X with ``matrix @ X = rhs`` (``adjoint(matrix) @ X = rhs`` when ``adjoint``), per batch item."""
    return gen_ops.matrix_solve(matrix, rhs, adjoint=adjoint, name=name)


def inv(input, adjoint=False, name=None):  # noqa: A002
    """The inverse (of the adjoint, when ``adjoint``) of each square matrix."""
    return gen_ops.matrix_inverse(input, adjoint=adjoint, name=name)


def det(input, name=None):  # noqa: A002
    """The determinant of each square matrix."""
    return gen_ops.matrix_determinant(input, name=name)


def slogdet(input, name=None):  # noqa: A002
    """``(sign, log(|det|))`` of each square matrix."""
    sign, logabs = gen_ops.log_matrix_determinant(input, name=name)
    return SlogdetResult(sign, logabs)


def cholesky(input, name=None):  # noqa: A002
    """The lower-triangular Cholesky factor L (``L @ L^H = input``) of each matrix."""
    return gen_ops.cholesky(input, name=name)


def logdet(matrix, name=None):
    """log(det(matrix)) of Hermitian positive-definite matrices, via Cholesky (as TensorFlow does)."""
    chol = cholesky(matrix)
    return gen_ops.mul(_t(2.0, chol.dtype), reduce_sum(gen_ops.log(diag_part(chol)), axis=-1), name=name)


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """X with ``tri(matrix) @ X = rhs`` (batch dims broadcast); only one triangle of matrix is read."""
    return gen_ops.matrix_triangular_solve(matrix, rhs, lower=lower, adjoint=adjoint, name=name)


def cholesky_solve(chol, rhs, name=None):
    """X with ``chol @ chol^H @ X = rhs`` given the Cholesky factor ``chol``."""
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True, name=name)


def qr(input, full_matrices=False, name=None):  # noqa: A002
    """``(q, r)`` with ``input = q @ r``, q with orthonormal columns and r upper triangular."""
    q, r = gen_ops.qr(input, full_matrices=full_matrices, name=name)
    return QrResult(q, r)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular values ``s`` (descending), and when ``compute_uv`` also ``u, v`` with
    ``tensor = u @ diag(s) @ adjoint(v)``; returns ``s`` or ``(s, u, v)`` as TensorFlow does."""
    s, u, v = gen_ops.svd(tensor, compute_uv=compute_uv, full_matrices=full_matrices, name=name)
    return (s, u, v) if compute_uv else s


def eigh(tensor, name=None):
    """``(e, v)``: ascending eigenvalues and eigenvectors (columns) of self-adjoint matrices."""
    e, v = gen_ops.self_adjoint_eig_v2(tensor, compute_v=True, name=name)
    return EighResult(e, v)


def eigvalsh(tensor, name=None):
    """The ascending eigenvalues of self-adjoint matrices."""
    return gen_ops.self_adjoint_eig_v2(tensor, compute_v=False, name=name)[0]


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """Least-squares solutions of ``matrix @ X = rhs`` with an optional L2 regularizer (TensorFlow's
    MatrixSolveLs: Cholesky on the normal equations when ``fast``, minimum norm otherwise)."""
    l2 = _t(l2_regularizer, _dtypes.float64)
    return gen_ops.matrix_solve_ls(matrix, rhs, l2, fast=fast, name=name)


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """Keeps ``num_lower`` subdiagonals and ``num_upper`` superdiagonals (negative: all), zeroing the rest."""
    return gen_ops.matrix_band_part(input, _t(num_lower, _dtypes.int64), _t(num_upper, _dtypes.int64), name=name)


def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Matrices with ``diagonal`` on diagonals ``k`` (an int or a (low, high) pair), padding elsewhere."""
    diagonal = _t(diagonal)
    return gen_ops.matrix_diag_v3(diagonal, _t(k, _dtypes.int32), _t(num_rows, _dtypes.int32),
                                  _t(num_cols, _dtypes.int32), _t(padding_value, diagonal.dtype), align=align,
                                  name=name)


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    """The diagonals ``k`` of each matrix (packed as TensorFlow's ``matrix_diag_part``)."""
    input = _t(input)
    return gen_ops.matrix_diag_part_v3(input, _t(k, _dtypes.int32), _t(padding_value, input.dtype), align=align,
                                       name=name)


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """``input`` with diagonals ``k`` replaced by ``diagonal``."""
    return gen_ops.matrix_set_diag_v3(input, diagonal, _t(k, _dtypes.int32), align=align, name=name)


def trace(x, name=None):
    """The sum of the main diagonal of each matrix."""
    return reduce_sum(diag_part(x), axis=-1, name=name)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """``a @ b`` for matrices ``a`` [..., M, N] and vectors ``b`` [..., N] (the sparsity hints are
    accepted for TensorFlow compatibility and ignored)."""
    out = matmul(a, expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)
    return squeeze(out, axis=[-1], name=name)


def cross(a, b, name=None):
    """Cross products of the 3-vectors in the last dimension."""
    return gen_ops.cross(a, b, name=name)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=_dtypes.float32, name=None):
    """Identity matrices [*batch_shape, num_rows, num_columns]."""
    dtype = _dtypes.as_dtype(dtype)
    num_columns = num_rows if num_columns is None else num_columns
    n = min(int(num_rows), int(num_columns))
    shape = list(batch_shape or []) + [n]
    ones = convert_to_tensor(np.ones(shape, dtype.as_numpy_dtype))
    return diag(ones, k=0, num_rows=int(num_rows), num_cols=int(num_columns), name=name or "eye")


def tensor_diag(diagonal, name=None):
    """The tensor of shape S + S with ``diagonal`` (shape S) on its diagonal (TensorFlow's ``Diag``)."""
    diagonal = _t(diagonal)
    dims = diagonal.shape.as_list()
    if None in dims:
        raise ValueError("tensor_diag needs a static shape, got %s" % diagonal.shape)
    return reshape(diag(reshape(diagonal, [-1])), dims + dims, name=name)


def tensor_diag_part(input, name=None):  # noqa: A002
    """The diagonal (shape S) of a tensor of shape S + S (TensorFlow's ``DiagPart``)."""
    input = _t(input)
    dims = input.shape.as_list()
    if None in dims or len(dims) % 2 or dims[:len(dims) // 2] != dims[len(dims) // 2:]:
        raise ValueError("tensor_diag_part needs a static shape S + S, got %s" % input.shape)
    half = dims[:len(dims) // 2]
    n = int(np.prod(half, dtype=np.int64))
    return reshape(diag_part(reshape(input, [n, n])), half, name=name)


LuResult = collections.namedtuple("Lu", ["lu", "p"])


def lu(input, output_idx_type=_dtypes.int32, name=None):  # noqa: A002
    """``(lu, p)``: LU with partial pivoting, ``input[..., p, :] = L @ U`` with L (unit lower) and U
    packed in ``lu``."""
    packed, perm = gen_ops.lu(input, output_idx_type=_dtypes.as_dtype(output_idx_type), name=name)
    return LuResult(packed, perm)


def _lu_factors(lower_upper):
    lower_upper = _t(lower_upper)
    lower = set_diag(band_part(lower_upper, -1, 0), gen_ops.ones_like(diag_part(lower_upper)))
    return lower, band_part(lower_upper, 0, -1)


def _permutation_matrix(perm, lower_upper):
    n = _t(lower_upper).shape.as_list()[-1]
    if n is None:
        raise ValueError("the LU helpers need the static matrix size")
    dt = _t(lower_upper).dtype
    return gen_ops.one_hot(perm, _t(n, _dtypes.int32), _t(1, dt), _t(0, dt))


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrix whose ``lu`` factorization is (lower_upper, perm)."""
    lower, upper = _lu_factors(lower_upper)
    return matmul(_permutation_matrix(perm, lower_upper), matmul(lower, upper), adjoint_a=True, name=name)


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """X with ``A @ X = rhs`` from A's LU factorization (lower_upper, perm)."""
    lower, upper = _lu_factors(lower_upper)
    y = matmul(_permutation_matrix(perm, lower_upper), rhs)
    z = triangular_solve(lower, y, lower=True)
    return triangular_solve(upper, z, lower=False, name=name)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """A's inverse from its LU factorization (lower_upper, perm)."""
    lower_upper = _t(lower_upper)
    n = lower_upper.shape.as_list()[-1]
    return lu_solve(lower_upper, perm, eye(n, dtype=lower_upper.dtype), name=name)

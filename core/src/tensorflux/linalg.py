"""Linear algebra (``tx.linalg.*``, like ``tf.linalg``).

TensorFlow's ``LinearOperator`` classes, ``eig``/``eigvals`` (complex results), ``logm``/``sqrtm``,
``experimental`` and the banded and tridiagonal solvers are not provided.
"""

from tensorflux._src.einsum_ops import einsum, tensordot
from tensorflux._src.linalg_norm import expm, global_norm, l2_normalize, matrix_rank, norm, normalize, pinv
from tensorflux._src.linalg_ops import (adjoint, band_part, cholesky, cholesky_solve, cross, det, diag, diag_part,
                                        eigh, eigvalsh, eye, inv, logdet, lstsq, lu,
                                        lu_matrix_inverse, lu_reconstruct, lu_solve, matrix_transpose, matvec, qr,
                                        set_diag, slogdet, solve, svd, tensor_diag, tensor_diag_part, trace,
                                        triangular_solve)
from tensorflux._src.math_ops import matmul

__all__ = [
    "adjoint", "band_part", "cholesky", "cholesky_solve", "cross", "det", "diag", "diag_part", "eigh", "eigvalsh",
    "einsum", "expm", "eye", "global_norm", "inv", "l2_normalize", "logdet", "lstsq", "lu",
    "lu_matrix_inverse", "lu_reconstruct", "lu_solve", "matmul", "matrix_rank",
    "matrix_transpose", "matvec", "norm", "normalize", "pinv", "qr", "set_diag", "slogdet", "solve", "svd",
    "tensor_diag", "tensor_diag_part", "tensordot", "trace", "triangular_solve",
]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)

"""Linear algebra (``tx.linalg.*``, like ``tf.linalg``).

``eig``/``eigvals`` (complex results), ``logm``/``sqrtm``, ``experimental``, the banded solver,
``eigh_tridiagonal``, ``LinearOperatorBlockLowerTriangular``, ``LinearOperatorLowRankUpdate`` and
``LinearOperatorCirculant2D``/``3D`` are not provided.
"""

from tensorflux._src.einsum_ops import einsum, tensordot
from tensorflux._src.linalg_norm import expm, global_norm, l2_normalize, matrix_rank, norm, normalize, pinv
from tensorflux._src.linalg_ops import (adjoint, band_part, cholesky, cholesky_solve, cross, det, diag, diag_part,
                                        eigh, eigvalsh, eye, inv, logdet, lstsq, lu,
                                        lu_matrix_inverse, lu_reconstruct, lu_solve, matrix_transpose, matvec, qr,
                                        set_diag, slogdet, solve, svd, tensor_diag, tensor_diag_part, trace,
                                        triangular_solve)
from tensorflux._src.linalg_tridiagonal import tridiagonal_matmul, tridiagonal_solve
from tensorflux._src.linear_operator import LinearOperator
from tensorflux._src.linear_operator_basic import (LinearOperatorDiag, LinearOperatorFullMatrix, LinearOperatorIdentity,
                                                   LinearOperatorLowerTriangular, LinearOperatorScaledIdentity,
                                                   LinearOperatorZeros)
from tensorflux._src.linear_operator_composite import (LinearOperatorAdjoint, LinearOperatorBlockDiag,
                                                       LinearOperatorComposition, LinearOperatorInversion,
                                                       LinearOperatorKronecker)
from tensorflux._src.linear_operator_structured import (LinearOperatorCirculant, LinearOperatorHouseholder,
                                                        LinearOperatorPermutation, LinearOperatorToeplitz,
                                                        LinearOperatorTridiag)
from tensorflux._src.math_ops import matmul

__all__ = [
    "LinearOperator", "LinearOperatorAdjoint", "LinearOperatorBlockDiag", "LinearOperatorCirculant",
    "LinearOperatorComposition", "LinearOperatorDiag", "LinearOperatorFullMatrix", "LinearOperatorHouseholder",
    "LinearOperatorIdentity", "LinearOperatorInversion", "LinearOperatorKronecker", "LinearOperatorLowerTriangular",
    "LinearOperatorPermutation", "LinearOperatorScaledIdentity", "LinearOperatorToeplitz", "LinearOperatorTridiag",
    "LinearOperatorZeros",
    "adjoint", "band_part", "cholesky", "cholesky_solve", "cross", "det", "diag", "diag_part", "eigh", "eigvalsh",
    "einsum", "expm", "eye", "global_norm", "inv", "l2_normalize", "logdet", "lstsq", "lu",
    "lu_matrix_inverse", "lu_reconstruct", "lu_solve", "matmul", "matrix_rank",
    "matrix_transpose", "matvec", "norm", "normalize", "pinv", "qr", "set_diag", "slogdet", "solve", "svd",
    "tensor_diag", "tensor_diag_part", "tensordot", "trace", "triangular_solve", "tridiagonal_matmul",
    "tridiagonal_solve",
]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)

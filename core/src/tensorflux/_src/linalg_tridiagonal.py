"""``tx.linalg.tridiagonal_matmul`` and ``tridiagonal_solve`` (TensorFlow's), as compositions of
elementwise ops: a product with shifted right-hand sides, and a row-by-row elimination.

Note [Tridiagonal elimination]: the solve walks the M rows once in Python (M is static), on
batch-vectorised tensors, so it is differentiable by the tape like any composition. With
``partial_pivoting`` it follows LAPACK's gtsv: at row i, rows i and i+1 are swapped when the
subdiagonal entry is larger in magnitude than the pivot, which fills in a second superdiagonal;
without pivoting it is the Thomas algorithm. A zero pivot gives inf/NaN results, as in TensorFlow.
"""

from __future__ import annotations

from tensorflux._src import linalg_ops
from tensorflux._src.array_ops import concat, expand_dims, squeeze, stack, unstack
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.gather_ops import where
from tensorflux._src.generated import gen_ops
from tensorflux._src.math_ops import greater_equal, multiply, subtract, truediv
from tensorflux._src.shape_ops import zeros_like

__all__ = ["tridiagonal_matmul", "tridiagonal_solve"]

FORMATS = ("compact", "sequence", "matrix")


def _modulus(x):
    return gen_ops.complex_abs(x, Tout=x.dtype.real_dtype) if x.dtype.is_complex else gen_ops.abs(x)


def unpack_diagonals(diagonals, diagonals_format):
    """(superdiag, maindiag, subdiag), each ``[..., M]``, from any of TensorFlow's three formats."""
    if diagonals_format not in FORMATS:
        raise ValueError("Unrecognized diagonals_format: %s" % diagonals_format)
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (list, tuple)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3.")
        sup, main, sub = (convert_to_tensor(d) for d in diagonals)
        return sup, convert_to_tensor(main, dtype=sup.dtype), convert_to_tensor(sub, dtype=sup.dtype)
    diagonals = convert_to_tensor(diagonals, name="diagonals")
    shape = diagonals.shape
    if diagonals_format == "matrix":
        if shape.rank is not None and shape.rank < 2:
            raise ValueError("Expected diagonals to have rank at least 2, got %d" % shape.rank)
        if shape[-1] is not None and shape[-2] is not None and shape[-1] != shape[-2]:
            raise ValueError("Expected last two dimensions of diagonals to be same, got %d and %d" % (
                shape[-1], shape[-2]))
        main = linalg_ops.diag_part(diagonals)
        zero = zeros_like(main[..., :1])
        if shape[-1] == 1:
            return zero, main, zero
        sup = concat([linalg_ops.diag_part(diagonals, k=1), zero], axis=-1)
        sub = concat([zero, linalg_ops.diag_part(diagonals, k=-1)], axis=-1)
        return sup, main, sub
    if shape.rank is not None and shape.rank < 2:
        raise ValueError("Expected diagonals to have rank at least 2, got %d" % shape.rank)
    if shape[-2] is not None and shape[-2] != 3:
        raise ValueError("Expected 3 diagonals got %d" % shape[-2])
    sup, main, sub = unstack(diagonals, num=3, axis=-2)
    return sup, main, sub


def _masked(sup, sub):
    """The super- and subdiagonal with their unused entries (last, first) set to zero."""
    return (concat([sup[..., :-1], zeros_like(sup[..., -1:])], axis=-1),
            concat([zeros_like(sub[..., :1]), sub[..., 1:]], axis=-1))


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """``A @ rhs`` for the tridiagonal (batch) matrix ``A`` given by its diagonals (``rhs`` is ``[..., M, N]``).

    >>> diags = tx.constant([[1., 1., 0.], [2., 2., 2.], [0., 1., 1.]])
    >>> tx.linalg.tridiagonal_matmul(diags, tx.ones([3, 1])).numpy().ravel().tolist()
    [3.0, 4.0, 3.0]
    """
    sup, main, sub = unpack_diagonals(diagonals, diagonals_format)
    rhs = convert_to_tensor(rhs, name="rhs")
    if rhs.dtype != main.dtype:
        raise TypeError("Expected rhs to have dtype %s, got %s" % (main.dtype, rhs.dtype))
    if rhs.shape.rank is not None and rhs.shape.rank != main.shape.rank + 1:
        raise ValueError("Expected rhs to have rank %d (diagonals' batch shape + [M, N]), got shape %s" % (
            main.shape.rank + 1, rhs.shape))
    m = main.shape[-1]
    if m is not None and rhs.shape[-2] is not None and rhs.shape[-2] != m:
        raise ValueError("Expected rhs to have %d rows (the diagonals' length), got %d" % (m, rhs.shape[-2]))
    sup, sub = _masked(sup, sub)
    zero_row = zeros_like(rhs[..., :1, :])
    below = concat([rhs[..., 1:, :], zero_row], axis=-2)  # row i holds rhs[i + 1]
    above = concat([zero_row, rhs[..., :-1, :]], axis=-2)  # row i holds rhs[i - 1]
    out = multiply(expand_dims(main, -1), rhs)
    out = out + multiply(expand_dims(sup, -1), below)
    return out + multiply(expand_dims(sub, -1), above)


def _thomas(sup, main, sub, rows):
    """Rows of x solving the tridiagonal system without pivoting (Note [Tridiagonal elimination])."""
    n = len(rows)
    c, d = [], []
    for i in range(n):
        denom = main[i] if i == 0 else subtract(main[i], multiply(sub[i], c[i - 1]))
        if i < n - 1:
            c.append(truediv(sup[i], denom))
        num = rows[i] if i == 0 else subtract(rows[i], multiply(expand_dims(sub[i], -1), d[i - 1]))
        d.append(truediv(num, expand_dims(denom, -1)))
    x = [None] * n
    x[-1] = d[-1]
    for i in range(n - 2, -1, -1):
        x[i] = subtract(d[i], multiply(expand_dims(c[i], -1), x[i + 1]))
    return x


def _gtsv(sup, main, sub, rows):
    """Rows of x by elimination with partial pivoting, as LAPACK's gtsv (Note [Tridiagonal elimination])."""
    n = len(rows)
    d, du, b = list(main), list(sup[:n - 1]), list(rows)
    dl = list(sub[1:])  # dl[i] is the entry (i + 1, i)
    du2 = [zeros_like(main[0])] * max(n - 2, 0)
    for i in range(n - 1):
        keep = greater_equal(_modulus(d[i]), _modulus(dl[i]))
        keep_b = expand_dims(keep, -1)
        # No interchange: eliminate row i + 1 with row i.
        fact_k = truediv(dl[i], d[i])
        d_next_k = subtract(d[i + 1], multiply(fact_k, du[i]))
        b_next_k = subtract(b[i + 1], multiply(expand_dims(fact_k, -1), b[i]))
        # Interchange rows i and i + 1, then eliminate.
        fact_s = truediv(d[i], dl[i])
        d_next_s = subtract(du[i], multiply(fact_s, d[i + 1]))
        b_next_s = subtract(b[i], multiply(expand_dims(fact_s, -1), b[i + 1]))
        new_d_i = where(keep, d[i], dl[i])
        new_du_i = where(keep, du[i], d[i + 1])
        new_b_i = where(keep_b, b[i], b[i + 1])
        if i < n - 2:
            du2[i] = where(keep, zeros_like(du[i + 1]), du[i + 1])
            du[i + 1] = where(keep, du[i + 1], multiply(gen_ops.neg(fact_s), du[i + 1]))
        d[i], du[i], b[i] = new_d_i, new_du_i, new_b_i
        d[i + 1] = where(keep, d_next_k, d_next_s)
        b[i + 1] = where(keep_b, b_next_k, b_next_s)
    x = [None] * n
    x[-1] = truediv(b[-1], expand_dims(d[-1], -1))
    if n > 1:
        x[-2] = truediv(subtract(b[-2], multiply(expand_dims(du[-1], -1), x[-1])), expand_dims(d[-2], -1))
    for i in range(n - 3, -1, -1):
        num = subtract(b[i], multiply(expand_dims(du[i], -1), x[i + 1]))
        num = subtract(num, multiply(expand_dims(du2[i], -1), x[i + 2]))
        x[i] = truediv(num, expand_dims(d[i], -1))
    return x


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False, conjugate_rhs=False,
                      name=None, partial_pivoting=True, perturb_singular=False):
    """X with ``A @ X = rhs`` for the tridiagonal (batch) matrix ``A``; ``rhs`` is ``[..., M]`` or ``[..., M, K]``.

    Partial pivoting (the default) or, with ``partial_pivoting=False``, the Thomas algorithm
    (Note [Tridiagonal elimination]); a singular system gives inf/NaN entries, as in TensorFlow.

    >>> diags = tx.constant([[1., 1., 0.], [2., 2., 2.], [0., 1., 1.]])
    >>> tx.linalg.tridiagonal_solve(diags, tx.constant([3., 4., 3.])).numpy().tolist()
    [1.0, 1.0, 1.0]
    """
    if perturb_singular:
        raise NotImplementedError("tridiagonal_solve(perturb_singular=True) is not supported by Tensorflux.")
    sup, main, sub = unpack_diagonals(diagonals, diagonals_format)
    rhs = convert_to_tensor(rhs, name="rhs")
    if rhs.dtype != main.dtype:
        raise TypeError("Expected rhs to have dtype %s, got %s" % (main.dtype, rhs.dtype))
    batch_rank = main.shape.rank - 1
    if rhs.shape.rank not in (batch_rank + 1, batch_rank + 2):
        raise ValueError("Expected the rank of rhs to be %d or %d, got %d" % (
            batch_rank + 1, batch_rank + 2, rhs.shape.rank))
    is_vector = rhs.shape.rank == batch_rank + 1
    if is_vector:
        rhs = expand_dims(rhs, -1)
    elif transpose_rhs:
        rhs = linalg_ops.matrix_transpose(rhs)
    if conjugate_rhs and rhs.dtype.is_complex:
        rhs = gen_ops.conj(rhs)
    rhs_batch, diag_batch = rhs.shape[:-2], main.shape[:-1]
    if not rhs_batch.is_compatible_with(diag_batch):
        raise ValueError("Batch shapes %s and %s are incompatible" % (diag_batch, rhs_batch))
    m = main.shape[-1]
    if m is not None and rhs.shape[-2] is not None and rhs.shape[-2] != m:
        raise ValueError("Expected number of left-hand sided and right-hand sides to be equal, got %d and %d" % (
            m, rhs.shape[-2]))
    if m == 0:
        out = rhs
    else:
        split = [unstack(t, num=m, axis=-1) for t in (sup, main, sub)]
        rows = unstack(rhs, num=m, axis=-2)
        x = (_gtsv if partial_pivoting else _thomas)(*split, rows)
        out = stack(x, axis=-2)
    return squeeze(out, axis=[-1]) if is_vector else out

"""Packing vectors into triangular matrices and back (TFP's ``fill_triangular`` layout)."""

import math

import numpy as np

import tensorflux as tx


def lower_triangular_size(n):
    """The number of entries n * (n + 1) / 2 of an n-by-n triangular matrix."""
    return n * (n + 1) // 2


def _matrix_size(m):
    n = int((math.sqrt(8 * m + 1) - 1) / 2)
    if n * (n + 1) // 2 != m:
        raise ValueError("a vector of %d entries does not fill a triangular matrix (n*(n+1)/2 entries)" % m)
    return n


def _fill_indices(n, upper):
    """For each entry of an n-by-n matrix, its index in the packed vector (m = n*(n+1)/2 marks a
    zero), in TFP's order: lower fills reshape(concat(x[n:], reverse(x))) below the diagonal, upper
    reshape(concat(x, reverse(x[n:]))) above it."""
    m = n * (n + 1) // 2
    if upper:
        idx = np.concatenate([np.arange(m), np.arange(n, m)[::-1]]).reshape(n, n)
        return np.where(np.triu(np.ones((n, n), bool)), idx, m)
    idx = np.concatenate([np.arange(n, m), np.arange(m)[::-1]]).reshape(n, n)
    return np.where(np.tril(np.ones((n, n), bool)), idx, m)


def fill_triangular(x, upper=False):
    """The [..., n, n] triangular matrix whose non-zero entries are the last axis of ``x`` (length
    n*(n+1)/2), in TFP's ``fill_triangular`` order.

    >>> txp.math.fill_triangular(tx.constant([1.0, 2.0, 3.0])).numpy()
    array([[3., 0.],
           [2., 1.]], dtype=float32)
    """
    x = tx.convert_to_tensor(x)
    m = x.shape.as_list()[-1]
    if m is None:
        raise ValueError("fill_triangular needs a static last dimension")
    n = _matrix_size(m)
    padded = tx.concat([x, tx.zeros(tx.concat([tx.shape(x)[:-1], [1]], 0), x.dtype)], axis=-1)
    idx = _fill_indices(n, upper)
    out = tx.gather(padded, tx.constant(idx.reshape(-1).astype(np.int32)), axis=x.shape.rank - 1)
    return tx.reshape(out, tx.concat([tx.shape(x)[:-1], [n, n]], 0))


def fill_triangular_inverse(matrix, upper=False):
    """The packed vector of a [..., n, n] triangular matrix: fill_triangular's inverse."""
    matrix = tx.convert_to_tensor(matrix)
    n = matrix.shape.as_list()[-1]
    if n is None:
        raise ValueError("fill_triangular_inverse needs static matrix dimensions")
    m = n * (n + 1) // 2
    idx = _fill_indices(n, upper).reshape(-1)
    where = np.zeros(m, np.int64)
    for flat, k in enumerate(idx):
        if k < m:
            where[k] = flat
    flat = tx.reshape(matrix, tx.concat([tx.shape(matrix)[:-2], [n * n]], 0))
    return tx.gather(flat, tx.constant(where.astype(np.int32)), axis=matrix.shape.rank - 2)

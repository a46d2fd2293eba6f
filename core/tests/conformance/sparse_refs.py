"""NumPy references for the sparse ops' conformance entries (entries_sparse*.py): each works on
the three components of a SparseTensor (int64 indices [nnz, rank], values [nnz], shape [rank])."""

from __future__ import annotations

import numpy as np


def canonical_order(indices):
    """The stable permutation sorting index rows into row-major order."""
    indices = np.asarray(indices)
    if indices.shape[0] == 0:
        return np.zeros(0, np.int64)
    indices = indices.reshape(len(indices), -1)
    return np.lexsort(indices.T[::-1], axis=0).astype(np.int64)


def to_dense(indices, values, shape, default=0):
    """The dense array (later duplicates win)."""
    out = np.full(tuple(int(d) for d in shape), default, dtype=np.asarray(values).dtype)
    for i, idx in enumerate(np.asarray(indices).reshape(len(values), len(shape))):
        out[tuple(idx)] = values[i]
    return out


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value, validate_indices=True):
    idx = np.asarray(sparse_indices).reshape(-1, 1) if np.ndim(sparse_indices) < 2 else np.asarray(sparse_indices)
    vals = np.broadcast_to(sparse_values, (idx.shape[0],))
    return to_dense(idx, np.asarray(vals), output_shape, np.asarray(default_value).item())


def sparse_reorder(input_indices, input_values, input_shape):
    p = canonical_order(input_indices)
    return input_indices[p], input_values[p]


def sparse_reshape(input_indices, input_shape, new_shape):
    new = [int(d) for d in new_shape]
    size = int(np.prod(input_shape))
    if -1 in new:
        known = int(np.prod([d for d in new if d != -1]))
        new[new.index(-1)] = size // known
    if input_indices.shape[0] == 0:
        return np.zeros((0, len(new)), np.int64), np.array(new, np.int64)
    flat = np.ravel_multi_index(tuple(input_indices.T), tuple(int(d) for d in input_shape))
    return np.stack(np.unravel_index(flat, new), axis=1).astype(np.int64), np.array(new, np.int64)


def sparse_slice(indices, values, shape, start, size):
    out_shape = np.maximum(0, np.minimum(shape - start, size)).astype(np.int64)
    rel = indices - start
    keep = np.all((rel >= 0) & (rel < out_shape), axis=1) if len(indices) else np.zeros(0, bool)
    return rel[keep].astype(np.int64), values[keep], out_shape


def sparse_slice_grad(backprop_val_grad, input_indices, input_start, output_indices):
    out = np.zeros(input_indices.shape[0], backprop_val_grad.dtype)
    j = 0
    for i, idx in enumerate(input_indices):
        if j < len(output_indices) and np.array_equal(idx, output_indices[j] + input_start):
            out[i] = backprop_val_grad[j]
            j += 1
    return out


def sparse_concat(indices, values, shapes, concat_dim):
    rank = len(shapes[0])
    dim = concat_dim % rank
    offset, all_idx = 0, []
    for ind, shp in zip(indices, shapes):
        shifted = ind.copy()
        shifted[:, dim] += offset
        offset += shp[dim]
        all_idx.append(shifted)
    idx = np.concatenate(all_idx).astype(np.int64)
    vals = np.concatenate(values)
    shape = shapes[0].copy()
    shape[dim] = offset
    p = canonical_order(idx)
    return idx[p], vals[p], shape


def sparse_split(split_dim, indices, values, shape, num_split):
    dim = int(split_dim) % len(shape)
    size = int(shape[dim])
    base, residual = divmod(size, num_split)
    bounds = np.cumsum([0] + [base + (1 if p < residual else 0) for p in range(num_split)])
    outs_i, outs_v, outs_s = [], [], []
    for p in range(num_split):
        keep = (indices[:, dim] >= bounds[p]) & (indices[:, dim] < bounds[p + 1])
        idx = indices[keep].copy()
        idx[:, dim] -= bounds[p]
        s = shape.copy()
        s[dim] = bounds[p + 1] - bounds[p]
        outs_i.append(idx.astype(np.int64))
        outs_v.append(values[keep])
        outs_s.append(s.astype(np.int64))
    return tuple(outs_i + outs_v + outs_s)


def sparse_fill_empty_rows(indices, values, dense_shape, default_value):
    rows = int(dense_shape[0])
    out_i, out_v, reverse = [], [], np.zeros(len(values), np.int64)
    by_row = {r: [i for i in range(len(values)) if indices[i, 0] == r] for r in range(rows)}
    for r in range(rows):
        if not by_row[r]:
            out_i.append([r] + [0] * (len(dense_shape) - 1))
            out_v.append(default_value)
        for i in by_row[r]:
            reverse[i] = len(out_i)
            out_i.append(list(indices[i]))
            out_v.append(values[i])
    empty = np.array([not by_row[r] for r in range(rows)], bool)
    return (np.array(out_i, np.int64).reshape(-1, len(dense_shape)), np.array(out_v, values.dtype), empty, reverse)


def sparse_fill_empty_rows_grad(reverse_index_map, grad_values):
    used = np.zeros(len(grad_values), bool)
    used[reverse_index_map] = True
    return grad_values[reverse_index_map], np.asarray(grad_values[~used].sum(), grad_values.dtype)


def sparse_tensor_dense_add(a_indices, a_values, a_shape, b):
    out = b.copy()
    for i, idx in enumerate(a_indices):
        out[tuple(idx)] += a_values[i]
    return out


def sparse_tensor_dense_mat_mul(a_indices, a_values, a_shape, b, adjoint_a=False, adjoint_b=False):
    a = np.zeros(tuple(int(d) for d in a_shape), a_values.dtype)
    for i, idx in enumerate(a_indices):
        a[tuple(idx)] += a_values[i]
    a = a.T if adjoint_a else a
    b = b.T if adjoint_b else b
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(a_values.dtype)


def _merge(a_indices, b_indices):
    """(index tuple, row in a or -1, row in b or -1) in row-major order."""
    keys = {}
    for i, idx in enumerate(a_indices):
        keys.setdefault(tuple(idx), [-1, -1])[0] = i
    for j, idx in enumerate(b_indices):
        keys.setdefault(tuple(idx), [-1, -1])[1] = j
    return [(k, v[0], v[1]) for k, v in sorted(keys.items())]


def sparse_add(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    out_i, out_v = [], []
    for key, i, j in _merge(a_indices, b_indices):
        if i >= 0 and j >= 0:
            s = a_values[i] + b_values[j]
            if not thresh <= abs(s):
                continue
        else:
            s = a_values[i] if i >= 0 else b_values[j]
        out_i.append(key)
        out_v.append(s)
    return np.array(out_i, np.int64).reshape(-1, len(a_shape)), np.array(out_v, a_values.dtype), a_shape


def sparse_add_grad(backprop_val_grad, a_indices, b_indices, sum_indices):
    pos = {tuple(k): n for n, k in enumerate(sum_indices)}
    da = np.array([backprop_val_grad[pos[tuple(k)]] if tuple(k) in pos else 0 for k in a_indices],
                  backprop_val_grad.dtype)
    db = np.array([backprop_val_grad[pos[tuple(k)]] if tuple(k) in pos else 0 for k in b_indices],
                  backprop_val_grad.dtype)
    return da, db


def sparse_minmax(pick):
    def ref(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
        merged = _merge(a_indices, b_indices)
        vals = [pick(a_values[i] if i >= 0 else 0, b_values[j] if j >= 0 else 0) for _, i, j in merged]
        return (np.array([k for k, _, _ in merged], np.int64).reshape(-1, len(a_shape)),
                np.array(vals, a_values.dtype))
    return ref


def _groups(indices, shape, axes, keep_dims):
    rank = len(shape)
    reduced = sorted({int(a) % rank for a in np.atleast_1d(axes)})
    kept = [d for d in range(rank) if d not in reduced]
    out_shape = [int(shape[d]) if d in kept else 1 for d in range(rank) if keep_dims or d in kept]
    groups = {}
    for i, idx in enumerate(indices):
        key = tuple(int(idx[d]) if d in kept else 0 for d in range(rank) if keep_dims or d in kept)
        groups.setdefault(key, []).append(i)
    return out_shape, dict(sorted(groups.items()))


def sparse_reduce(kind, sparse_output):
    def ref(input_indices, input_values, input_shape, reduction_axes, keep_dims=False):
        out_shape, groups = _groups(input_indices, input_shape, reduction_axes, keep_dims)
        fn = np.sum if kind == "sum" else np.max
        vals = {k: fn(input_values[v]) for k, v in groups.items()}
        if sparse_output:
            return (np.array(list(vals), np.int64).reshape(len(vals), len(out_shape)),
                    np.array(list(vals.values()), input_values.dtype), np.array(out_shape, np.int64))
        out = np.zeros(out_shape, input_values.dtype)
        for k, v in vals.items():
            out[k] = v
        return out
    return ref


def sparse_softmax(sp_indices, sp_values, sp_shape):
    out = np.zeros_like(sp_values)
    rows = {}
    for i, idx in enumerate(sp_indices):
        rows.setdefault(tuple(idx[:-1]), []).append(i)
    for members in rows.values():
        v = sp_values[members].astype(np.float64)
        e = np.exp(v - v.max())
        out[members] = e / e.sum()
    return out


def sparse_dense_cwise(fn):
    def ref(sp_indices, sp_values, sp_shape, dense):
        full = np.broadcast_to(dense, tuple(int(d) for d in sp_shape))
        return np.array([fn(sp_values[i], full[tuple(idx)]) for i, idx in enumerate(sp_indices)], sp_values.dtype)
    return ref

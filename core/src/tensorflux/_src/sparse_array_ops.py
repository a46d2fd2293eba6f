"""``tx.sparse`` structural functions: reshape, slice, concat, split, transpose, expand_dims,
retain, fill_empty_rows, reset_shape, eye, to_indicator, map_values, sampled_addmm and bincount,
with TensorFlow's signatures (over SparseReshape, SparseSlice, SparseConcat, SparseSplit,
SparseFillEmptyRows and compositions of dense ops)."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ops import cast, concat, reshape, stack
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.gather_ops import gather, where
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope, control_dependencies
from tensorflux._src.nest import flatten, map_structure
from tensorflux._src.shape_ops import fill, ones
from tensorflux._src.shape_ops import range as _range
from tensorflux._src.shape_ops import shape as _shape
from tensorflux._src.sparse_ops import _tensor, as_sparse, reorder, to_dense, from_dense
from tensorflux._src.sparse_tensor import SparseTensor, _static_vector
from tensorflux._src.check_ops import assert_equal, assert_greater_equal

_I64 = _dtypes.int64


def reshape_sparse(sp_input, shape, name=None):
    """The SparseTensor reshaped to ``shape`` (one entry may be -1), its values in the same order.

    >>> st = tx.SparseTensor([[0, 1], [1, 2]], [1, 2], [2, 3])
    >>> tx.sparse.reshape(st, [3, -1]).indices.numpy().tolist()
    [[0, 1], [2, 1]]
    """
    sp = as_sparse(sp_input)
    out = gen_ops.sparse_reshape(sp.indices, sp.dense_shape, _tensor(shape, _I64), name=name or "SparseReshape")
    return SparseTensor(out.output_indices, sp.values, out.output_shape)


def slice_sparse(sp_input, start, size, name=None):
    """The entries inside the box ``[start, start + size)`` (clipped to the dense shape), shifted
    by ``-start``; the result's dense shape is the clipped box.

    >>> st = tx.SparseTensor([[0, 0], [1, 2], [2, 3]], [1, 2, 3], [3, 4])
    >>> tx.sparse.to_dense(tx.sparse.slice(st, [1, 1], [5, 5])).numpy().tolist()
    [[0, 2, 0], [0, 0, 3]]
    """
    sp = as_sparse(sp_input)
    out = gen_ops.sparse_slice(sp.indices, sp.values, sp.dense_shape, _tensor(start, _I64), _tensor(size, _I64),
                               name=name or "SparseSlice")
    return SparseTensor(out.output_indices, out.output_values, out.output_shape)


def concat_sparse(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """The SparseTensors (dense tensors are converted) concatenated along ``axis``, in row-major
    order. With ``expand_nonconcat_dims`` the other dimensions become the largest among the
    inputs instead of having to match.

    >>> a = tx.SparseTensor([[0, 0]], [1], [2, 2])
    >>> b = tx.SparseTensor([[1, 0]], [2], [2, 1])
    >>> tx.sparse.to_dense(tx.sparse.concat(1, [a, b])).numpy().tolist()
    [[1, 0, 0], [0, 0, 2]]
    """
    inputs = [x if isinstance(x, SparseTensor) else from_dense(x) for x in sp_inputs]
    if len(inputs) == 1:
        return inputs[0]
    axis = int(axis)
    shapes = [x.dense_shape for x in inputs]
    with name_scope(name or "SparseConcat"):
        if expand_nonconcat_dims:
            biggest = gen_ops.max(stack(shapes), convert_to_tensor(0))
            rank = inputs[0].shape.rank
            if rank is None:
                raise ValueError("expand_nonconcat_dims needs inputs of known rank")
            a = axis % rank
            shapes = [concat([biggest[:a], s[a:a + 1], biggest[a + 1:]], 0) for s in shapes]
        out = gen_ops.sparse_concat([x.indices for x in inputs], [x.values for x in inputs], shapes, concat_dim=axis)
    return SparseTensor(out.output_indices, out.output_values, out.output_shape)


def split_sparse(sp_input=None, num_split=None, axis=None, name=None):
    """``num_split`` SparseTensors along ``axis`` (the first ``size % num_split`` one slice
    larger), each entry in the part its coordinate falls in.

    >>> st = tx.SparseTensor([[0, 0], [0, 3], [1, 2]], [1, 2, 3], [2, 4])
    >>> [tx.sparse.to_dense(p).numpy().tolist() for p in tx.sparse.split(st, 2, axis=1)]
    [[[1, 0], [0, 0]], [[0, 2], [3, 0]]]
    """
    if sp_input is None or num_split is None or axis is None:
        raise ValueError("tx.sparse.split needs sp_input, num_split and axis")
    sp = as_sparse(sp_input)
    out = gen_ops.sparse_split(_tensor(axis, _I64), sp.indices, sp.values, sp.dense_shape, num_split=int(num_split),
                               name=name or "SparseSplit")
    return [SparseTensor(i, v, s) for i, v, s in zip(out.output_indices, out.output_values, out.output_shape)]


def retain(sp_input, to_retain):
    """The entries of ``sp_input`` where the bool vector ``to_retain`` is True; same dense shape.

    >>> st = tx.SparseTensor([[0, 0], [0, 1], [1, 0]], [1, 2, 3], [2, 2])
    >>> tx.sparse.retain(st, [True, False, True]).values.numpy().tolist()
    [1, 3]
    """
    sp = as_sparse(sp_input)
    keep = _tensor(to_retain, _dtypes.bool)
    if keep.shape.rank is not None and keep.shape.rank != 1:
        raise ValueError("to_retain must be a vector, got shape %s" % keep.shape)
    rows = reshape(where(keep), [-1])
    out = SparseTensor(gather(sp.indices, rows), gather(sp.values, rows), gen_ops.identity(sp.dense_shape))
    out._shape = sp.shape
    return out


def fill_empty_rows(sp_input, default_value, name=None):
    """(the SparseTensor with an entry ``[r, 0, ...] = default_value`` added for every empty row
    r, in row order; a bool vector marking the rows that were empty).

    >>> st = tx.SparseTensor([[1, 1]], [5], [3, 2])
    >>> out, empty = tx.sparse.fill_empty_rows(st, -1)
    >>> tx.sparse.to_dense(out).numpy().tolist(), empty.numpy().tolist()
    ([[-1, 0], [0, 5], [-1, 0]], [True, False, True])
    """
    sp = as_sparse(sp_input)
    out = gen_ops.sparse_fill_empty_rows(sp.indices, sp.values, sp.dense_shape, _tensor(default_value, sp.dtype),
                                         name=name or "SparseFillEmptyRows")
    result = SparseTensor(out.output_indices, out.output_values, sp.dense_shape)
    result._shape = sp.shape
    return result, out.empty_row_indicator


def _static_int(x, what):
    v = _static_vector(_tensor(x)) if not isinstance(x, (int, np.integer)) else [int(x)]
    if v is None or len(v) != 1:
        raise ValueError("%s must be a Python integer or a constant scalar" % what)
    return v[0]


def expand_dims(sp_input, axis=None, name=None):
    """The SparseTensor with a dimension of size 1 inserted at ``axis`` (default -1, the end).

    >>> st = tx.SparseTensor([[0, 1]], [7], [2, 3])
    >>> tx.sparse.expand_dims(st, 0).dense_shape.numpy().tolist()
    [1, 2, 3]
    """
    sp = as_sparse(sp_input)
    rank = sp.shape.rank
    if rank is None:
        raise ValueError("tx.sparse.expand_dims needs a SparseTensor of known rank")
    a = -1 if axis is None else _static_int(axis, "axis")
    if not -rank - 1 <= a <= rank:
        raise ValueError("axis %d is out of range [%d, %d] for a SparseTensor of rank %d" % (a, -rank - 1, rank, rank))
    a = a + rank + 1 if a < 0 else a
    with name_scope(name or "ExpandDims"):
        zeros = gen_ops.zeros_like(sp.indices[:, :1])
        indices = concat([sp.indices[:, :a], zeros, sp.indices[:, a:]], 1)
        dense_shape = concat([sp.dense_shape[:a], convert_to_tensor([1], _I64), sp.dense_shape[a:]], 0)
    out = SparseTensor(indices, sp.values, dense_shape)
    dims = sp.shape.as_list()
    out._shape = type(sp.shape)(dims[:a] + [1] + dims[a:])
    return out


def transpose(sp_input, perm=None, name=None):
    """The SparseTensor with its dimensions permuted by ``perm`` (default: reversed), reordered
    into row-major order.

    >>> st = tx.SparseTensor([[0, 2], [1, 0]], [1, 2], [2, 3])
    >>> tx.sparse.to_dense(tx.sparse.transpose(st)).numpy().tolist()
    [[0, 2], [0, 0], [1, 0]]
    """
    sp = as_sparse(sp_input)
    with name_scope(name or "SparseTranspose"):
        if perm is None:
            rank = sp.shape.rank
            if rank is None:
                raise ValueError("tx.sparse.transpose needs perm for a SparseTensor of unknown rank")
            perm = list(range(rank))[::-1]
        perm = _tensor(perm, _dtypes.int32)
        out = SparseTensor(gather(sp.indices, perm, axis=1), sp.values, gather(sp.dense_shape, perm))
        p = _static_vector(perm)
        if p is not None and sp.shape.rank is not None:
            dims = sp.shape.as_list()
            out._shape = type(sp.shape)([dims[i] for i in p])
        result = reorder(out)
        result._shape = out.shape
        return result


def reset_shape(sp_input, new_shape=None):
    """The SparseTensor with dense shape ``new_shape`` (which must be at least the old one in every
    dimension), or, when None, the tightest shape holding its indices.

    >>> st = tx.SparseTensor([[0, 1], [2, 0]], [1, 2], [5, 6])
    >>> tx.sparse.reset_shape(st).dense_shape.numpy().tolist()
    [3, 2]
    """
    sp = as_sparse(sp_input)
    if new_shape is None:
        low = gen_ops.max(sp.indices, convert_to_tensor(0)) + convert_to_tensor(1, _I64)
        empty = gen_ops.equal(_shape(sp.indices, out_type=_I64)[0], convert_to_tensor(0, _I64))
        low = gen_ops.select_v2(empty, gen_ops.zeros_like(sp.dense_shape), low)
        return SparseTensor(sp.indices, sp.values, low)
    new = _tensor(new_shape, _I64)
    old_v, new_v = _static_vector(sp.dense_shape), _static_vector(new)
    if old_v is not None and new_v is not None:
        if len(old_v) != len(new_v):
            raise ValueError("new_shape has rank %d but the SparseTensor has rank %d" % (len(new_v), len(old_v)))
        if any(n < o for n, o in zip(new_v, old_v)):
            raise ValueError("new_shape %s is smaller than the SparseTensor's dense shape %s in some dimension"
                             % (new_v, old_v))
        return SparseTensor(sp.indices, sp.values, new)

    with name_scope("reset_shape"):
        check = assert_greater_equal(new, sp.dense_shape, message="new_shape must be at least the dense shape")
        with control_dependencies([check] if check is not None else []):
            new = gen_ops.identity(new)
    return SparseTensor(sp.indices, sp.values, new)


def eye(num_rows, num_columns=None, dtype=_dtypes.float32, name=None):
    """The ``[num_rows, num_columns]`` identity matrix as a SparseTensor.

    >>> tx.sparse.eye(2, 3).indices.numpy().tolist()
    [[0, 0], [1, 1]]
    """
    with name_scope(name or "eye"):
        rows = _tensor(num_rows, _I64)
        cols = rows if num_columns is None else _tensor(num_columns, _I64)
        diag = _range(gen_ops.minimum(rows, cols), dtype=_I64)
        return SparseTensor(stack([diag, diag], axis=1), ones(gen_ops.expand_dims(gen_ops.minimum(rows, cols), 0),
                                                              dtype=dtype), stack([rows, cols]))


def to_indicator(sp_input, vocab_size, name=None):
    """A dense bool tensor of shape ``dense_shape[:-1] + [vocab_size]``, True at ``[..., id]`` for
    each id among the values of the last dimension's entries (values are int32/int64 ids).

    >>> st = tx.SparseTensor([[0, 0], [0, 1], [1, 0]], tx.constant([1, 3, 2], tx.int64), [2, 2])
    >>> tx.sparse.to_indicator(st, 4).numpy().tolist()
    [[False, True, False, True], [False, False, True, False]]
    """
    sp = as_sparse(sp_input)
    if sp.dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError("to_indicator needs int32 or int64 values (ids), got %s" % sp.dtype.name)
    with name_scope(name or "SparseToIndicator"):
        ids = reshape(cast(sp.values, _I64), [-1, 1])
        indices = concat([sp.indices[:, :-1], ids], 1)
        shape = concat([sp.dense_shape[:-1], reshape(_tensor(vocab_size, _I64), [1])], 0)
        true = fill(gen_ops.expand_dims(_shape(ids)[0], 0), True)
        return to_dense(SparseTensor(indices, true, shape), default_value=False, validate_indices=False)


def map_values(op, *args, **kwargs):
    """``op`` applied to the values of the SparseTensor arguments (which must share indices and
    dense shape), as a SparseTensor with those indices.

    >>> st = tx.SparseTensor([[0, 0], [1, 1]], [1.0, 4.0], [2, 2])
    >>> tx.sparse.map_values(tx.sqrt, st).values.numpy().tolist()
    [1.0, 2.0]
    """
    sparse = [x for x in flatten([args, kwargs]) if isinstance(x, SparseTensor)]
    if not sparse:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = sparse[0]
    deps = []
    for other in sparse[1:]:
        if other.indices is first.indices and other.dense_shape is first.dense_shape:
            continue

        deps.append(assert_equal(other.indices, first.indices, message="SparseTensors to map_values must have "
                                 "the same indices"))
        deps.append(assert_equal(other.dense_shape, first.dense_shape, message="SparseTensors to map_values must "
                                 "have the same dense_shape"))

    def unwrap(x):
        return x.values if isinstance(x, SparseTensor) else x


    with control_dependencies([d for d in deps if d is not None]):
        values = op(*map_structure(unwrap, list(args)), **map_structure(unwrap, dict(kwargs)))
    return first.with_values(values)


def sampled_addmm(indices, values, dense_shape, mat1, mat2, beta=1.0, alpha=1.0, output_type=_dtypes.float32):
    """``alpha * (mat1 @ mat2)`` read at ``indices`` (``[..., nnz, 2]`` row and column pairs, batched
    over mat1's and mat2's leading dimensions) plus ``beta * values``; returns the result's
    (indices, values, dense_shape). ``dense_shape`` must be ``[rows of mat1, columns of mat2]``.

    >>> i, v, s = tx.sparse.sampled_addmm([[0, 0], [1, 1]], [1.0, 1.0], [2, 2],
    ...                                   [[1.0, 2.0], [3.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]])
    >>> v.numpy().tolist()
    [2.0, 5.0]
    """
    indices = _tensor(indices)
    values = _tensor(values, output_type)
    dense_shape = _tensor(dense_shape, _dtypes.int32)
    mat1, mat2 = _tensor(mat1, output_type), _tensor(mat2, output_type)
    if mat1.shape.rank is None or mat2.shape.rank is None:
        raise ValueError("sampled_addmm needs mat1 and mat2 of known rank")
    want = [mat1.shape[-2], mat2.shape[-1]]
    have = _static_vector(dense_shape)
    if have is not None and None not in want and have != want:
        raise ValueError("Dense shape: %s does not match output shape: %s" % (have, want))
    batch = mat1.shape.rank - 2
    perm = list(range(batch)) + [batch + 1, batch]
    rows = gather(mat1, indices[..., 0], axis=batch, batch_dims=batch)
    cols = gather(gen_ops.transpose(mat2, convert_to_tensor(perm)), indices[..., 1], axis=batch, batch_dims=batch)
    dot = gen_ops.sum(rows * cols, convert_to_tensor(-1))
    return indices, dot * convert_to_tensor(alpha, output_type) + values * convert_to_tensor(beta, output_type), \
        dense_shape


def bincount(values, weights=None, axis=0, minlength=None, maxlength=None, binary_output=False, name=None):
    """Counts (or sums ``weights`` of) each non-negative integer in ``values`` (a dense tensor or
    SparseTensor of rank <= 2), as a SparseTensor: over everything with ``axis=0``, per row with
    ``axis=-1``. Values at or above ``maxlength`` are dropped; ``minlength`` widens the shape.

    >>> c = tx.sparse.bincount(tx.constant([1, 1, 4]))
    >>> c.indices.numpy().tolist(), c.values.numpy().tolist(), c.dense_shape.numpy().tolist()
    ([[1], [4]], [2, 1], [5])
    """
    from tensorflux._src.sparse_bincount import bincount as _bincount

    return _bincount(values, weights, axis, minlength, maxlength, binary_output, name)

"""``tx.sparse.bincount``: TensorFlow's sparse-output counts (DenseCountSparseOutput and
SparseCountSparseOutput) as a composition: each value gets the key ``row * size + value``, equal
keys are summed by UnsortedSegmentSum over ``unique``'s ids, and the sorted keys become the
indices of the result."""

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ext import unique
from tensorflux._src.array_ops import cast, reshape, stack
from tensorflux._src.check_ops import assert_non_negative
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.gather_ops import gather, where
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import control_dependencies, name_scope
from tensorflux._src.shape_ops import ones_like, zeros_like
from tensorflux._src.shape_ops import shape as _shape
from tensorflux._src.sort_ops import argsort
from tensorflux._src.sparse_ops import _tensor
from tensorflux._src.sparse_tensor import SparseTensor

_I64 = _dtypes.int64


def _flat_rows(values, per_row):
    """(flat values, their row ids as int64, the row count) of a dense tensor or SparseTensor."""
    if isinstance(values, SparseTensor):
        rank = values.shape.rank
        if rank is not None and rank > 2:
            raise ValueError("tx.sparse.bincount supports SparseTensors of rank <= 2, got rank %d" % rank)
        rows = values.indices[:, 0] if per_row else zeros_like(values.indices[:, 0])
        return values.values, rows, values.dense_shape[0]
    values = _tensor(values)
    rank = values.shape.rank
    if rank is None or rank > 2:
        raise ValueError("tx.sparse.bincount supports values of known rank <= 2, got shape %s" % values.shape)
    if rank < 2 or not per_row:
        flat = reshape(values, [-1])
        return flat, zeros_like(cast(flat, _I64)), convert_to_tensor(1, _I64)
    n = _shape(values, out_type=_I64)
    rows = gen_ops.broadcast_to(reshape(gen_ops.range(convert_to_tensor(0, _I64), n[0], convert_to_tensor(1, _I64)),
                                        [-1, 1]), n)
    return reshape(values, [-1]), reshape(rows, [-1]), n[0]


def bincount(values, weights, axis, minlength, maxlength, binary_output, name):
    """See tensorflux._src.sparse_array_ops.bincount."""
    if axis is None:
        axis = 0
    if axis not in (0, -1):
        raise ValueError("Unsupported axis value %s. Only 0 and -1 are currently supported." % axis)
    with name_scope(name or "count"):
        per_row = axis == -1
        flat, rows, num_rows = _flat_rows(values, per_row)
        if flat.dtype not in (_dtypes.int32, _dtypes.int64):
            raise TypeError("tx.sparse.bincount counts int32 or int64 values, got %s" % flat.dtype.name)
        w = None
        if weights is not None:
            w = reshape(weights.values if isinstance(weights, SparseTensor) else _tensor(weights), [-1])
        v = cast(flat, _I64)
        check = assert_non_negative(v, message="Input values must all be non-negative")
        with control_dependencies([check] if check is not None else []):
            v = gen_ops.identity(v)
        if maxlength is not None:
            keep = reshape(where(gen_ops.less(v, convert_to_tensor(maxlength, _I64))), [-1])
            v, rows = gather(v, keep), gather(rows, keep)
            w = None if w is None else gather(w, keep)
        top = gen_ops.max(gen_ops.concat_v2([v, convert_to_tensor([0], _I64)], 0), convert_to_tensor(0))
        size = top + convert_to_tensor(1, _I64)
        if minlength is not None:
            size = gen_ops.maximum(size, convert_to_tensor(minlength, _I64))
        keys, ids = unique(rows * size + v, out_idx=_dtypes.int64)
        counts = ones_like(v, dtype=flat.dtype) if w is None else w
        counts = gen_ops.unsorted_segment_sum(counts, ids, _shape(keys, out_type=_I64)[0])
        if binary_output:
            counts = ones_like(counts)
        order = argsort(keys)
        keys, counts = gather(keys, order), gather(counts, order)
        if per_row:
            indices = stack([gen_ops.floor_div(keys, size), gen_ops.floor_mod(keys, size)], axis=1)
            dense_shape = stack([cast(num_rows, _I64), size])
        else:
            indices = reshape(keys, [-1, 1])
            dense_shape = reshape(size, [1])
        return SparseTensor(indices, counts, dense_shape)

"""Array constructors and rearrangements: repeat, linspace, meshgrid and sequence_mask are
compositions (as in TensorFlow); roll (Roll), searchsorted (LowerBound / UpperBound), unique /
unique_with_counts, invert_permutation and the tensor_scatter_nd_* family are ops."""

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ops import broadcast_to, cast, concat, expand_dims, reshape
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.gather_ops import gather
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.math_ops import reduce_sum
from tensorflux._src.shape_ops import range as _range
from tensorflux._src.shape_ops import shape as _shape

_INTS = (_dtypes.int8, _dtypes.int16, _dtypes.int32, _dtypes.int64, _dtypes.uint8, _dtypes.uint16, _dtypes.uint32,
         _dtypes.uint64)


def _tensor(x, dtype=None):
    return x if isinstance(x, _TENSORS) else convert_to_tensor(x, dtype=dtype)


def _static_rank(x, fn):
    rank = x.shape.rank
    if rank is None:
        raise ValueError("%s needs the rank of its input, which is unknown" % fn)
    return rank


def _normalize_axis(axis, rank, fn):
    if not -rank <= axis < max(rank, 1):
        raise ValueError("%s: axis %d is out of range for a tensor of rank %d" % (fn, axis, rank))
    return axis % max(rank, 1)


def roll(input, shift, axis, name=None):  # noqa: A002 (TensorFlow's name)
    """Elements shifted by ``shift`` along ``axis`` (ints or equal-length lists/tensors; shifts may
    be negative or larger than the dimension; a repeated axis adds its shifts), wrapping around:
    out[(i + shift) % n] = x[i] (the Roll op)."""
    return gen_ops.roll(input, shift, axis, name=name or "Roll")


def repeat(input, repeats, axis=None, name=None):  # noqa: A002 (TensorFlow's name)
    """Each element (slice along ``axis``; None: of the flattened input) repeated ``repeats``
    times: an int, or a 1-D list/tensor with one count per element along ``axis``."""
    with name_scope(name or "Repeat"):
        x = _tensor(input)
        if axis is None:
            x, axis = reshape(x, [-1]), 0
        rank = _static_rank(x, "repeat")
        axis = _normalize_axis(axis, rank, "repeat")
        reps = _tensor(repeats, _dtypes.int32)
        reps = cast(reps, _dtypes.int32)
        n = gen_ops.strided_slice(_shape(x), [axis], [axis + 1], [1], shrink_axis_mask=1)
        if reps.shape.rank == 0:
            reps = gen_ops.fill(reshape(n, [1]), reps)
        elif reps.shape.rank not in (None, 1):
            raise ValueError("repeat: repeats must be a scalar or a 1-D tensor, got shape %s" % (reps.shape,))
        # Output position j takes element idx[j] = #{k : cumsum(reps)[k] <= j}.
        ends = gen_ops.cumsum(reps, 0)
        total = reduce_sum(reps)
        positions = _range(total)
        index = reduce_sum(cast(gen_ops.greater_equal(expand_dims(positions, 1), expand_dims(ends, 0)),
                                _dtypes.int32), axis=1)
        return gather(x, index, axis=axis)


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive. ``start`` and ``stop``
    may be tensors of broadcastable shapes: the values run along the new dimension ``axis``.
    Integer endpoints give float64, as in TensorFlow."""
    with name_scope(name or "linspace"):
        start, stop = _tensor(start), _tensor(stop)
        if start.dtype in _INTS:
            start = cast(start, _dtypes.float64)
        if stop.dtype in _INTS:
            stop = cast(stop, _dtypes.float64)
        dtype = start.dtype
        start, stop = cast(start, dtype), cast(stop, dtype)
        num = cast(_tensor(num, _dtypes.int32), _dtypes.int32)
        zero = gen_ops.zeros_like(gen_ops.add_v2(start, stop))
        start, stop = gen_ops.add_v2(start, zero), gen_ops.add_v2(stop, zero)
        rank = _static_rank(start, "linspace")
        axis = _normalize_axis(axis, rank + 1, "linspace")
        one = convert_to_tensor(1, dtype=_dtypes.int32)
        steps = cast(gen_ops.maximum(gen_ops.sub(num, one), one), dtype)
        index = cast(_range(num), dtype)
        index_shape = [1] * axis + [-1] + [1] * (rank - axis)
        index = reshape(index, index_shape)
        s, e = expand_dims(start, axis), expand_dims(stop, axis)
        values = gen_ops.add_v2(s, gen_ops.mul(index, gen_ops.real_div(gen_ops.sub(e, s), steps)))
        # The last value is exactly `stop` (when num > 1).
        last = gen_ops.equal(index, steps)  # never true for num == 1 (steps is then 1)
        return gen_ops.select_v2(last, e, values)


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D tensors: with N inputs of sizes s1..sN every output has shape
    (s2, s1, s3, ..., sN) for ``indexing="xy"`` (the default) or (s1, ..., sN) for "ij"."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError("meshgrid got unexpected keyword arguments: %s" % ", ".join(sorted(kwargs)))
    if indexing not in ("xy", "ij"):
        raise ValueError("meshgrid: indexing must be 'xy' or 'ij', got %r" % (indexing,))
    if not args:
        return []
    with name_scope(name):
        xs = [reshape(_tensor(a), [-1]) for a in args]
        n = len(xs)
        shapes = [[1] * n for _ in range(n)]
        for i in range(n):
            shapes[i][i] = -1
        if indexing == "xy" and n > 1:
            for s in shapes:
                s[0], s[1] = s[1], s[0]
        grids = [reshape(x, s) for x, s in zip(xs, shapes)]
        sizes = [_shape(x) for x in xs]
        if indexing == "xy" and n > 1:
            sizes[0], sizes[1] = sizes[1], sizes[0]
        out_shape = concat(sizes, 0)
        return [broadcast_to(g, out_shape) for g in grids]


def sequence_mask(lengths, maxlen=None, dtype=_dtypes.bool, name=None):
    """mask[..., j] = j < lengths[...], of shape lengths.shape + [maxlen] (``maxlen`` defaults to
    max(lengths))."""
    with name_scope(name or "SequenceMask"):
        lengths = _tensor(lengths)
        if lengths.dtype not in _INTS:
            raise TypeError("sequence_mask: lengths must be integers, got %s" % lengths.dtype.name)
        if maxlen is None:
            maxlen = gen_ops.max(lengths, _range(gen_ops.rank(lengths)), keep_dims=False)
            maxlen = gen_ops.maximum(maxlen, gen_ops.zeros_like(maxlen))
        maxlen = cast(_tensor(maxlen, lengths.dtype), lengths.dtype)
        row = _range(convert_to_tensor(0, dtype=lengths.dtype), maxlen, convert_to_tensor(1, dtype=lengths.dtype))
        mask = gen_ops.less(row, expand_dims(lengths, -1))
        return mask if _dtypes.as_dtype(dtype) == _dtypes.bool else cast(mask, dtype)


def searchsorted(sorted_sequence, values, side="left", out_type=_dtypes.int32, name=None):
    """For each value, the index in the last axis of ``sorted_sequence`` at which it would be
    inserted to keep it sorted: before equal elements for ``side="left"`` (the LowerBound op),
    after them for "right" (UpperBound). Leading dimensions of both inputs must match."""
    if side not in ("left", "right"):
        raise ValueError("searchsorted: side must be 'left' or 'right', got %r" % (side,))
    with name_scope(name or "searchsorted"):
        seq, vals = _tensor(sorted_sequence), _tensor(values)
        if seq.dtype != vals.dtype:
            vals = cast(vals, seq.dtype)
        if seq.shape.rank is not None and vals.shape.rank is not None and seq.shape.rank != vals.shape.rank:
            raise ValueError("searchsorted: sorted_sequence and values must have the same rank, got %d and %d"
                             % (seq.shape.rank, vals.shape.rank))
        last = convert_to_tensor([-1], dtype=_dtypes.int32)
        n = gen_ops.strided_slice(_shape(seq), [-1], [0], [1], end_mask=1)
        m = gen_ops.strided_slice(_shape(vals), [-1], [0], [1], end_mask=1)
        seq2 = reshape(seq, concat([last, n], 0))
        vals2 = reshape(vals, concat([last, m], 0))
        bound = gen_ops.lower_bound if side == "left" else gen_ops.upper_bound
        return reshape(bound(seq2, vals2, out_type=_dtypes.as_dtype(out_type)), _shape(vals))


def unique(x, out_idx=_dtypes.int32, name=None):
    """(y, idx): the distinct values of the 1-D ``x`` in order of first appearance, and for each
    element of ``x`` its index in y (so x == gather(y, idx))."""
    return gen_ops.unique(x, out_idx=_dtypes.as_dtype(out_idx), name=name or "Unique")


def unique_with_counts(x, out_idx=_dtypes.int32, name=None):
    """(y, idx, count): ``unique`` plus how many times each value of y occurs in ``x``."""
    return gen_ops.unique_with_counts(x, out_idx=_dtypes.as_dtype(out_idx), name=name or "UniqueWithCounts")


def invert_permutation(x, name=None):
    """y with y[x[i]] = i for a permutation x of 0..n-1 (an error otherwise)."""
    return gen_ops.invert_permutation(x, name=name or "InvertPermutation")


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """``tensor`` with ``updates`` added at ``indices`` (duplicates accumulate)."""
    tensor = _tensor(tensor)
    return gen_ops.tensor_scatter_add(tensor, indices, _tensor(updates, tensor.dtype), name=name or "TensorScatterAdd")


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """``tensor`` with ``updates`` subtracted at ``indices`` (duplicates accumulate)."""
    tensor = _tensor(tensor)
    return gen_ops.tensor_scatter_sub(tensor, indices, _tensor(updates, tensor.dtype), name=name or "TensorScatterSub")


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """``tensor`` with the slices at ``indices`` replaced by ``updates`` (for duplicate indices the
    last update wins; TensorFlow leaves that choice unspecified)."""
    tensor = _tensor(tensor)
    return gen_ops.tensor_scatter_update(tensor, indices, _tensor(updates, tensor.dtype),
                                         name=name or "TensorScatterUpdate")


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """``tensor`` with each slice at ``indices`` replaced by its element-wise minimum with the update."""
    tensor = _tensor(tensor)
    return gen_ops.tensor_scatter_min(tensor, indices, _tensor(updates, tensor.dtype), name=name or "TensorScatterMin")


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """``tensor`` with each slice at ``indices`` replaced by its element-wise maximum with the update."""
    tensor = _tensor(tensor)
    return gen_ops.tensor_scatter_max(tensor, indices, _tensor(updates, tensor.dtype), name=name or "TensorScatterMax")

"""Partitioning and index arithmetic built from other ops (TensorFlow's names and semantics):
dynamic_partition (over boolean_mask), dynamic_stitch, unravel_index, reverse_sequence,
histogram_fixed_width(_bins), and truncating division (truncatediv, truncatemod, realdiv)."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ops import cast, concat, expand_dims, reshape
from tensorflux._src.boolean_mask import boolean_mask
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.shape_ops import range as _range
from tensorflux._src.shape_ops import shape as _shape


def _tensor(x, dtype=None):
    return x if isinstance(x, _TENSORS) else convert_to_tensor(x, dtype=dtype)


def _i32(v):
    return convert_to_tensor(np.asarray(v, np.int32))


def dynamic_partition(data, partitions, num_partitions, name=None):
    """[data[partitions == 0], ..., data[partitions == num_partitions - 1]]: the slices of data
    (its leading dimensions matching ``partitions``' shape) split by partition number, in order."""
    with name_scope(name or "DynamicPartition"):
        data, partitions = _tensor(data), _tensor(partitions)
        return [boolean_mask(data, gen_ops.equal(partitions, convert_to_tensor(i, dtype=partitions.dtype)))
                for i in range(int(num_partitions))]


def dynamic_stitch(indices, data, name=None):
    """merged[indices[m][i]] = data[m][i] for every m and i (later pieces win on equal indices);
    merged has max(indices) + 1 rows. The gradient of an overwritten piece also receives its row's
    gradient (TensorFlow gives it zero)."""
    if len(indices) != len(data) or not indices:
        raise ValueError("dynamic_stitch: indices and data must be non-empty lists of equal length")
    with name_scope(name or "DynamicStitch"):
        idx = [reshape(cast(_tensor(i), _dtypes.int64), [-1]) for i in indices]
        vals = []
        for i, d in zip(indices, data):
            d = _tensor(d)
            lead = _tensor(i).shape.rank
            if lead is None:
                raise ValueError("dynamic_stitch: the ranks of indices must be known")
            rest = gen_ops.strided_slice(_shape(d), [lead], [0], [1], end_mask=1)
            vals.append(reshape(d, concat([_i32([-1]), rest], 0)))
        all_idx = concat(idx, 0) if len(idx) > 1 else idx[0]
        all_vals = concat(vals, 0) if len(vals) > 1 else vals[0]
        top = gen_ops.max(all_idx, _i32([0]), keep_dims=False)
        rows = gen_ops.add_v2(top, convert_to_tensor(1, dtype=_dtypes.int64))
        rest = cast(gen_ops.strided_slice(_shape(all_vals), [1], [0], [1], end_mask=1), _dtypes.int64)
        base = gen_ops.fill(concat([reshape(rows, [1]), rest], 0), convert_to_tensor(0, dtype=all_vals.dtype))
        return gen_ops.tensor_scatter_update(base, expand_dims(all_idx, 1), all_vals)


def unravel_index(indices, dims, name=None):
    """The coordinates in an array of shape ``dims`` of each flat index: shape [len(dims)] + indices.shape."""
    with name_scope(name or "UnravelIndex"):
        indices = _tensor(indices)
        dims = cast(_tensor(dims), indices.dtype)
        # strides[j] = prod(dims[j+1:]); coordinate j = (index // strides[j]) % dims[j].
        strides = gen_ops.cumprod(dims, 0, exclusive=True, reverse=True)
        shape = concat([_shape(dims), gen_ops.ones_like(_shape(indices))], 0)
        strides, dims_b = reshape(strides, shape), reshape(dims, shape)
        return gen_ops.floor_mod(gen_ops.floor_div(expand_dims(indices, 0), strides), dims_b)


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):  # noqa: A002
    """For each batch entry b, the first seq_lengths[b] elements along ``seq_axis`` reversed (the
    rest unchanged)."""
    with name_scope(name or "ReverseSequence"):
        x = _tensor(input)
        rank = x.shape.rank
        if rank is None or seq_axis is None:
            raise ValueError("reverse_sequence needs seq_axis and the rank of input")
        batch_axis = 0 if batch_axis is None else batch_axis
        seq_axis, batch_axis = seq_axis % rank, batch_axis % rank
        if seq_axis == batch_axis:
            raise ValueError("reverse_sequence: seq_axis and batch_axis must differ")
        lengths = cast(_tensor(seq_lengths), _dtypes.int32)
        n = gen_ops.strided_slice(_shape(x), [seq_axis], [seq_axis + 1], [1], shrink_axis_mask=1)
        pos = expand_dims(_range(n), 0)  # [1, n]
        lens = expand_dims(lengths, 1)  # [b, 1]
        src = gen_ops.select_v2(gen_ops.less(pos, lens), gen_ops.sub(gen_ops.sub(lens, 1), pos), pos)  # [b, n]
        # Gather along seq_axis per batch entry: move batch then seq axes to the front.
        perm = [batch_axis, seq_axis] + [d for d in range(rank) if d not in (batch_axis, seq_axis)]
        inv = list(np.argsort(perm))
        moved = gen_ops.transpose(x, _i32(perm))
        out = gen_ops.gather_v2(moved, src, convert_to_tensor(1, dtype=_dtypes.int32), batch_dims=1)
        return gen_ops.transpose(out, _i32(inv))


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=_dtypes.int32, name=None):
    """The bin (0..nbins-1) of each value among nbins equal bins over value_range = [lo, hi];
    values below lo go to bin 0 and values at or above hi to the last bin."""
    with name_scope(name or "histogram_fixed_width_bins"):
        values = _tensor(values)
        value_range = _tensor(value_range, values.dtype)
        lo = gen_ops.strided_slice(value_range, [0], [1], [1], shrink_axis_mask=1)
        hi = gen_ops.strided_slice(value_range, [1], [2], [1], shrink_axis_mask=1)
        nb = convert_to_tensor(nbins, dtype=values.dtype)
        scaled = gen_ops.floor(gen_ops.mul(gen_ops.real_div(gen_ops.sub(values, lo), gen_ops.sub(hi, lo)), nb))
        bins = cast(scaled, dtype)
        top = convert_to_tensor(int(nbins) - 1, dtype=dtype)
        return gen_ops.minimum(gen_ops.maximum(bins, gen_ops.zeros_like(bins)), top)


def histogram_fixed_width(values, value_range, nbins=100, dtype=_dtypes.int32, name=None):
    """Counts of values in nbins equal bins over value_range (out-of-range values count in the end bins)."""
    with name_scope(name or "histogram_fixed_width"):
        bins = histogram_fixed_width_bins(values, value_range, nbins, _dtypes.int32)
        return cast(gen_ops.bincount(reshape(bins, [-1]), convert_to_tensor(int(nbins), dtype=_dtypes.int32),
                                     convert_to_tensor(np.zeros((0,), np.int32))), dtype)


def realdiv(x, y, name=None):
    """x / y element-wise for real types without any casting (integers truncate toward zero)."""
    return gen_ops.real_div(x, y, name=name or "RealDiv")


def truncatediv(x, y, name=None):
    """x / y rounded toward zero, element-wise (C's integer division; the TruncateDiv op).

    >>> tx.truncatediv(tx.constant([-7, 7]), tx.constant([2, 2])).numpy()
    array([-3,  3], dtype=int32)
    """
    x = _tensor(x)
    return gen_ops.truncate_div(x, _tensor(y, x.dtype), name=name or "truncatediv")


def truncatemod(x, y, name=None):
    """x - truncatediv(x, y) * y element-wise: the remainder has x's sign (C's fmod; TruncateMod).

    >>> tx.truncatemod(tx.constant([-7, 7]), tx.constant([2, 2])).numpy()
    array([-1,  1], dtype=int32)
    """
    x = _tensor(x)
    return gen_ops.truncate_mod(x, _tensor(y, x.dtype), name=name or "truncatemod")

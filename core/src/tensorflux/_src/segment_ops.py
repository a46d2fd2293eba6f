"""Segment reductions: ``tx.math.segment_*`` over sorted ids are the Segment* ops,
``tx.sparse.segment_*`` the SparseSegment* ops, and ``tx.math.unsorted_segment_{sum,max,min,prod}``
the UnsortedSegment* ops (negative ids are dropped, ids >= num_segments are errors naming the op);
unsorted_segment_mean and unsorted_segment_sqrt_n divide UnsortedSegmentSum by the counts, as
TensorFlow does."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ops import cast, concat, reshape
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.shape_ops import shape as _shape


def _tensor(x, dtype=None):
    return x if isinstance(x, _TENSORS) else convert_to_tensor(x, dtype=dtype)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """out[s] = sum of data[i] over the i with segment_ids[i] == s (ids index the leading
    dimensions of data; negative ids are dropped; ids >= num_segments are an error)."""
    return gen_ops.unsorted_segment_sum(data, segment_ids, num_segments, name=name or "UnsortedSegmentSum")


def _counts(data, segment_ids, num_segments):
    """How many elements each segment gets, shaped [num_segments, 1, ...] to broadcast against the sums."""
    data, ids = _tensor(data), _tensor(segment_ids)
    ones = gen_ops.fill(_shape(ids), convert_to_tensor(1, dtype=data.dtype))
    counts = gen_ops.unsorted_segment_sum(ones, ids, num_segments)
    if data.shape.rank is None or ids.shape.rank is None:
        raise ValueError("unsorted segment reductions need the ranks of data and segment_ids")
    extra = data.shape.rank - ids.shape.rank
    return reshape(counts, concat([_shape(counts), convert_to_tensor(np.ones(extra, np.int32))], 0)) \
        if extra else counts


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of each segment (sum / max(count, 1): empty segments give 0)."""
    with name_scope(name or "UnsortedSegmentMean"):
        data = _tensor(data)
        n = _counts(data, segment_ids, num_segments)
        n = gen_ops.maximum(n, gen_ops.ones_like(n))
        return gen_ops.real_div(gen_ops.unsorted_segment_sum(data, segment_ids, num_segments), n)


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Each segment's sum divided by sqrt(its element count) (empty segments give 0)."""
    with name_scope(name or "UnsortedSegmentSqrtN"):
        data = _tensor(data)
        n = _counts(data, segment_ids, num_segments)
        n = gen_ops.maximum(n, gen_ops.ones_like(n))
        return gen_ops.real_div(gen_ops.unsorted_segment_sum(data, segment_ids, num_segments), gen_ops.sqrt(n))


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """The maximum of each segment (empty segments give the dtype's lowest value)."""
    return gen_ops.unsorted_segment_max(data, segment_ids, num_segments, name=name or "UnsortedSegmentMax")


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """The minimum of each segment (empty segments give the dtype's highest value)."""
    return gen_ops.unsorted_segment_min(data, segment_ids, num_segments, name=name or "UnsortedSegmentMin")


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """The product of each segment (empty segments give 1)."""
    return gen_ops.unsorted_segment_prod(data, segment_ids, num_segments, name=name or "UnsortedSegmentProd")


def segment_sum(data, segment_ids, name=None):
    """out[s] = sum of the data rows with segment id s; ids are a 1-D, non-negative,
    non-decreasing tensor with one id per row (anything else is an error naming the op);
    segments no row names give 0."""
    return gen_ops.segment_sum(data, segment_ids, name=name or "SegmentSum")


def segment_mean(data, segment_ids, name=None):
    """The mean of each segment's rows (sorted ids as in segment_sum; empty segments give 0)."""
    return gen_ops.segment_mean(data, segment_ids, name=name or "SegmentMean")


def segment_max(data, segment_ids, name=None):
    """The maximum of each segment's rows (sorted ids as in segment_sum; empty segments give 0)."""
    return gen_ops.segment_max(data, segment_ids, name=name or "SegmentMax")


def segment_min(data, segment_ids, name=None):
    """The minimum of each segment's rows (sorted ids as in segment_sum; empty segments give 0)."""
    return gen_ops.segment_min(data, segment_ids, name=name or "SegmentMin")


def segment_prod(data, segment_ids, name=None):
    """The product of each segment's rows (sorted ids as in segment_sum; empty segments give 1)."""
    return gen_ops.segment_prod(data, segment_ids, name=name or "SegmentProd")


def _sparse_segment(gen_fn, op_name, data, indices, segment_ids, num_segments, name):
    with name_scope(name or op_name):
        out = gen_fn(data, indices, segment_ids)
        if num_segments is None:
            return out
        # Rows past the last segment id are empty segments: zeros up to num_segments.
        if out.shape.rank is None:
            raise ValueError("%s with num_segments needs the rank of data" % op_name)
        rows = gen_ops.strided_slice(_shape(out), [0], [1], [1], shrink_axis_mask=1)
        extra = gen_ops.sub(cast(_tensor(num_segments), _dtypes.int32), rows)
        first = gen_ops.pack([convert_to_tensor(0, dtype=_dtypes.int32), extra], axis=0)
        paddings = gen_ops.pack([first] + [convert_to_tensor([0, 0], dtype=_dtypes.int32)] * (out.shape.rank - 1),
                                axis=0)
        return gen_ops.pad(out, paddings)


def sparse_segment_sum(data, indices, segment_ids, name=None, num_segments=None):
    """out[s] = sum of data[indices[k]] over the k with segment_ids[k] == s (segment ids sorted,
    one per index); ``num_segments`` pads the result with empty (zero) segments."""
    return _sparse_segment(gen_ops.sparse_segment_sum, "SparseSegmentSum", data, indices, segment_ids, num_segments,
                           name)


def sparse_segment_mean(data, indices, segment_ids, name=None, num_segments=None):
    """The mean of data[indices[k]] over each segment (as sparse_segment_sum; empty segments give 0)."""
    return _sparse_segment(gen_ops.sparse_segment_mean, "SparseSegmentMean", data, indices, segment_ids,
                           num_segments, name)


def sparse_segment_sqrt_n(data, indices, segment_ids, name=None, num_segments=None):
    """Each segment's sum of data[indices[k]] divided by sqrt(its count) (empty segments give 0)."""
    return _sparse_segment(gen_ops.sparse_segment_sqrt_n, "SparseSegmentSqrtN", data, indices, segment_ids,
                           num_segments, name)

"""More ``tx.nn`` composites TensorFlow has: ``with_space_to_batch`` and
``atrous_conv2d_transpose`` (dilation by space-to-batch), ``batch_norm_with_global_normalization``
and the sparse embedding lookups (``embedding_lookup_sparse``, ``safe_embedding_lookup_sparse``)."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ops import concat, reshape
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.misc_api import required_space_to_batch_paddings
from tensorflux._src.nn_conv_ops import conv2d_transpose
from tensorflux._src.nn_ext_ops import embedding_lookup
from tensorflux._src.nn_ops import batch_normalization
from tensorflux._src.segment_ops import segment_sum, sparse_segment_mean, sparse_segment_sqrt_n, sparse_segment_sum
from tensorflux._src.tensor_utils import get_static_value
from tensorflux._src.sparse_ops import as_sparse
from tensorflux._src.sparse_array_ops import fill_empty_rows, reshape_sparse, retain
from tensorflux._src.sparse_tensor import SparseTensor


def _t(x, dtype=None, name=None):
    return x if isinstance(x, _TENSORS) else convert_to_tensor(x, dtype=dtype, name=name)


def _c(value, dtype=None):
    return convert_to_tensor(value, dtype=dtype)


def batch_norm_with_global_normalization(input, mean, variance, beta, gamma, variance_epsilon,  # noqa: A002
                                         scale_after_normalization, name=None):
    """batch_normalization(input, mean, variance, beta, gamma or None, variance_epsilon): the
    older spelling, where ``gamma`` applies only when ``scale_after_normalization``.

    >>> tx.nn.batch_norm_with_global_normalization(tx.constant([3.0]), 1.0, 4.0, 0.5, 3.0, 0.0, True).numpy()
    array([3.5], dtype=float32)
    """
    return batch_normalization(input, mean, variance, beta, gamma if scale_after_normalization else None,
                               variance_epsilon, name=name or "batchnorm")


def _static_ints(value, what):
    v = get_static_value(_t(value)) if isinstance(value, _TENSORS) else np.asarray(value)
    if v is None:
        raise ValueError("%s must be known when the graph is built" % what)
    return [int(x) for x in np.reshape(v, [-1])]


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None,  # noqa: A002
                        data_format=None):
    """``op(input, num_spatial_dims, padding)`` run at ``dilation_rate``: the input is
    space-to-batch'ed by the rate (padded as ``padding`` "SAME" with ``filter_shape``, or
    "VALID"), ``op`` runs with "VALID" padding, and batch-to-space undoes it (a rate of all
    ones calls ``op`` directly); ``spatial_dims`` default to those of ``data_format``.

    >>> x = tx.reshape(tx.range(16.0), [1, 4, 4, 1])
    >>> pool = lambda t, n, p: tx.nn.max_pool2d(t, 2, 1, p)
    >>> tx.nn.with_space_to_batch(x, [2, 2], "VALID", pool)[0, :, :, 0].numpy().tolist()
    [[10.0, 11.0], [14.0, 15.0]]
    """
    input = _t(input, name="input")  # noqa: A001
    rate = _static_ints(dilation_rate, "with_space_to_batch: dilation_rate")
    n = len(rate)
    if n < 1:
        raise ValueError("with_space_to_batch: dilation_rate must have at least one entry")
    if any(r < 1 for r in rate):
        raise ValueError("with_space_to_batch: dilation_rate must be positive, got %s" % rate)
    if spatial_dims is None:
        start = 2 if data_format is not None and data_format.startswith("NC") else 1
        spatial_dims = list(range(start, start + n))
    spatial_dims = [int(d) for d in spatial_dims]
    if len(spatial_dims) != n or spatial_dims != sorted(set(spatial_dims)) or spatial_dims[0] < 1:
        raise ValueError("with_space_to_batch: spatial_dims must be %d increasing dimensions >= 1, got %s"
                         % (n, spatial_dims))
    if padding not in ("SAME", "VALID"):
        raise ValueError("with_space_to_batch: padding must be 'SAME' or 'VALID', got %r" % (padding,))
    if all(r == 1 for r in rate):
        return op(input, n, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("filter_shape must be specified for SAME padding")
        fs = _static_ints(filter_shape, "with_space_to_batch: filter_shape")[:n]
        extra = [(f - 1) * r for f, r in zip(fs, rate)]
        base = [[e // 2, e - e // 2] for e in extra]
    else:
        base = [[0, 0]] * n
    dims = gen_ops.gather_v2(gen_ops.shape(input), _c(np.array(spatial_dims, np.int32)), _c(np.int32(0)))
    paddings, crops = required_space_to_batch_paddings(dims, rate, _c(np.array(base, np.int32)))
    # Dimensions 1 .. spatial_dims[-1] that are not spatial get block 1 and no padding.
    last = spatial_dims[-1]
    block = [1] * last
    where = {d: i for i, d in enumerate(spatial_dims)}
    for d, i in where.items():
        block[d - 1] = rate[i]
    if len(where) != last:
        rows = [gen_ops.gather_v2(paddings, _c(np.int32(where[d])), _c(np.int32(0))) if d in where else
                _c(np.array([0, 0], np.int32)) for d in range(1, last + 1)]
        crow = [gen_ops.gather_v2(crops, _c(np.int32(where[d])), _c(np.int32(0))) if d in where else
                _c(np.array([0, 0], np.int32)) for d in range(1, last + 1)]
        paddings, crops = gen_ops.pack(rows), gen_ops.pack(crow)
    block_t = _c(np.array(block, np.int32))
    converted = gen_ops.space_to_batch_nd(input, block_t, paddings)
    result = op(converted, n, "VALID")
    return gen_ops.batch_to_space_nd(_t(result), block_t, crops)


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of ``atrous_conv2d`` (NHWC; ``filters`` [height, width, out_channels,
    in_channels]; ``output_shape`` a known 4-vector): a transposed convolution with holes,
    computed on space-to-batch'ed input as TensorFlow does.

    >>> y = tx.nn.atrous_conv2d_transpose(tx.ones([1, 2, 2, 1]), tx.ones([2, 2, 1, 1]), [1, 4, 4, 1], 2, "VALID")
    >>> y[0, :, :, 0].numpy().tolist()
    [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    """
    with name_scope(name or "atrous_conv2d_transpose"):
        value = _t(value, name="value")
        filters = _t(filters, dtype=value.dtype, name="filters")
        rate = int(rate)
        if rate < 1:
            raise ValueError("atrous_conv2d_transpose: rate must be >= 1, got %d" % rate)
        out = _static_ints(output_shape, "atrous_conv2d_transpose: output_shape")
        if len(out) != 4:
            raise ValueError("atrous_conv2d_transpose: output_shape must have 4 elements, got %s" % out)
        if value.shape.rank == 4 and filters.shape.rank == 4:
            if value.shape[3] is not None and filters.shape[3] is not None and value.shape[3] != filters.shape[3]:
                raise ValueError("value's input channels (%d) do not match filters' input channels (%d)"
                                 % (value.shape[3], filters.shape[3]))
            if filters.shape[2] is not None and out[3] != filters.shape[2]:
                raise ValueError("output_shape's channels (%d) do not match filters' output channels (%d)"
                                 % (out[3], filters.shape[2]))
        if rate == 1:
            return conv2d_transpose(value, filters, out, strides=[1, 1, 1, 1], padding=padding)
        if padding == "SAME":
            if filters.shape.rank is None or filters.shape[0] is None or filters.shape[1] is None:
                raise ValueError("atrous_conv2d_transpose: SAME padding needs the filter's spatial size")
            pads = []
            for k in (filters.shape[0], filters.shape[1]):
                total = (k - 1) * rate  # the dilated filter's size minus one
                pads.append((total // 2, total - total // 2))
        elif padding == "VALID":
            pads = [(0, 0), (0, 0)]
        else:
            raise ValueError("atrous_conv2d_transpose: padding must be 'SAME' or 'VALID', got %r" % (padding,))
        sizes = [out[1] + sum(pads[0]), out[2] + sum(pads[1])]
        extra = [(rate - s % rate) % rate for s in sizes]
        block = _c(np.array([rate, rate], np.int32))
        value = gen_ops.space_to_batch_nd(value, block, _c(np.array([[0, extra[0]], [0, extra[1]]], np.int32)))
        inner = [rate * rate * out[0], (sizes[0] + extra[0]) // rate, (sizes[1] + extra[1]) // rate, out[3]]
        value = conv2d_transpose(value, filters, inner, strides=[1, 1, 1, 1], padding="VALID")
        crops = np.array([[pads[0][0], pads[0][1] + extra[0]], [pads[1][0], pads[1][1] + extra[1]]], np.int32)
        return gen_ops.batch_to_space_nd(value, block, _c(crops))


def _combiner(combiner):
    if combiner is None:
        return "mean"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum', got %r" % (combiner,))
    return combiner


def embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=None, max_norm=None, name=None,
                            allow_fast_lookup=False):
    """For each row of the SparseTensor ``sp_ids`` [batch, ...], its ids' embeddings (rows of
    ``params``, or of its "div"-sharded parts) combined by ``combiner``: "mean" (default), "sum" or
    "sqrtn", weighted by ``sp_weights`` (a SparseTensor with the same indices, or None for weight
    1); the result has one row per id up to the last non-empty row.

    >>> ids = tx.SparseTensor([[0, 0], [0, 1], [1, 0]], tx.constant([0, 2, 1], tx.int64), [2, 2])
    >>> tx.nn.embedding_lookup_sparse(tx.constant([[1.0], [2.0], [4.0]]), ids, None, "sum").numpy().tolist()
    [[5.0], [2.0]]
    """
    del allow_fast_lookup  # a TensorFlow performance hint; the result is the same

    combiner = _combiner(combiner)
    with name_scope(name or "embedding_lookup_sparse"):
        sp_ids = as_sparse(sp_ids, "sp_ids")
        if sp_weights is not None:
            sp_weights = as_sparse(sp_weights, "sp_weights")
        segment_ids = gen_ops.strided_slice(sp_ids.indices, _c([0, 0]), _c([0, 1]), _c([1, 1]), begin_mask=1,
                                            end_mask=1, shrink_axis_mask=2)
        segment_ids = gen_ops.cast(segment_ids, DstT=_dtypes.int32)
        ids, idx = gen_ops.unique(sp_ids.values)
        embeddings = embedding_lookup(params, ids, max_norm=max_norm)
        if sp_weights is None:
            reduce = {"sum": sparse_segment_sum, "mean": sparse_segment_mean, "sqrtn": sparse_segment_sqrt_n}[combiner]
            return reduce(embeddings, idx, segment_ids)
        embeddings = gen_ops.gather_v2(embeddings, idx, _c(np.int32(0)))
        original = embeddings.dtype
        if original in (_dtypes.float16, _dtypes.bfloat16):
            embeddings = gen_ops.cast(embeddings, DstT=_dtypes.float32)
        weights = sp_weights.values
        if weights.dtype != embeddings.dtype:
            weights = gen_ops.cast(weights, DstT=embeddings.dtype)
        ones = gen_ops.fill(gen_ops.expand_dims(gen_ops.sub(gen_ops.rank(embeddings), _c(np.int32(1))), _c(0)),
                            _c(np.int32(1)))
        weights = reshape(weights, concat([gen_ops.shape(weights), ones], 0))
        embeddings = gen_ops.mul(embeddings, weights)
        total = segment_sum(embeddings, segment_ids)
        if combiner == "mean":
            total = gen_ops.div_no_nan(total, segment_sum(weights, segment_ids))
        elif combiner == "sqrtn":
            total = gen_ops.div_no_nan(total, gen_ops.sqrt(segment_sum(gen_ops.mul(weights, weights), segment_ids)))
        return total if total.dtype == original else gen_ops.cast(total, DstT=original)


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean",
                                 default_id=None, max_norm=None, name=None, allow_fast_lookup=False):
    """embedding_lookup_sparse made total: ``sparse_ids`` of any rank >= 2 (the last dimension
    holds the ids), invalid ids (< 0) and non-positive weights (unless "sum") are dropped, and
    rows left empty get the embedding of ``default_id``, or zeros when it is None; the result has
    shape sparse_ids.dense_shape[:-1] + [dim].

    >>> ids = tx.SparseTensor([[0, 0], [2, 0]], tx.constant([1, -1], tx.int64), [3, 1])
    >>> tx.nn.safe_embedding_lookup_sparse(tx.constant([[1.0], [2.0]]), ids).numpy().tolist()
    [[2.0], [0.0], [0.0]]
    """
    if embedding_weights is None:
        raise ValueError("Missing embedding_weights %s." % (embedding_weights,))
    parts = list(embedding_weights) if isinstance(embedding_weights, (list, tuple)) else [embedding_weights]
    if not parts:
        raise ValueError("Missing embedding_weights %s." % (embedding_weights,))
    combiner = _combiner(combiner)
    with name_scope(name or "embedding_lookup"):
        sparse_ids = as_sparse(sparse_ids, "sparse_ids")
        original_shape = sparse_ids.dense_shape
        rank = sparse_ids.dense_shape.shape[0]
        rank = gen_ops.size(original_shape) if rank is None else rank
        leading = gen_ops.slice(original_shape, _c([0]), gen_ops.expand_dims(gen_ops.sub(rank, 1), _c(0)))
        last = gen_ops.gather_v2(original_shape, gen_ops.sub(rank, 1), _c(np.int32(0)))
        sparse_ids = reshape_sparse(sparse_ids, gen_ops.pack([gen_ops.prod(leading, _c(0)), last]))
        if sparse_weights is not None:
            sparse_weights = SparseTensor(sparse_ids.indices, as_sparse(sparse_weights, "sparse_weights").values,
                                          sparse_ids.dense_shape)
        keep = gen_ops.greater_equal(sparse_ids.values, gen_ops.zeros_like(sparse_ids.values))
        if sparse_weights is not None and combiner != "sum":
            keep = gen_ops.logical_and(keep, gen_ops.greater(sparse_weights.values,
                                                             gen_ops.zeros_like(sparse_weights.values)))
        sparse_ids = retain(sparse_ids, keep)
        if sparse_weights is not None:
            sparse_weights = retain(sparse_weights, keep)
        sparse_ids, empty = fill_empty_rows(sparse_ids, default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(parts if len(parts) > 1 else parts[0], sparse_ids, sparse_weights,
                                         combiner=combiner, max_norm=max_norm)
        if default_id is None:
            mask = reshape(empty, concat([gen_ops.shape(empty), gen_ops.ones_like(
                gen_ops.slice(gen_ops.shape(result), _c([1]), _c([-1])))], 0))
            result = gen_ops.select_v2(mask, gen_ops.zeros_like(result), result)
        out_shape = concat([gen_ops.cast(leading, DstT=_dtypes.int32),
                            gen_ops.slice(gen_ops.shape(result), _c([1]), _c([-1]))], 0)
        return reshape(result, out_shape)

"""Reductions, scans and histograms for ``tx.math`` (built from other ops unless noted):
log-sum-exp, variance, standard deviation, Euclidean norm, non-zero counts, cumulative products
and log-sum-exps, polynomial evaluation, bincount (the DenseBincount op), confusion_matrix, and
the norm clipping functions of ``tx.clip_by_norm`` / ``tx.clip_by_global_norm``."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ops import cast, reshape, transpose
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.math_ops import _reduction, reduce_mean, reduce_sum
from tensorflux._src.reduce_ops import reduce_max
from tensorflux._src.shape_ops import stop_gradient

_FLOATS = (_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64)


def _tensor(x, dtype=None):
    return x if isinstance(x, _TENSORS) else convert_to_tensor(x, dtype=dtype)


def _require_float(x, fn):
    if x.dtype not in _FLOATS:
        raise TypeError("%s: input must be a floating-point tensor, got %s" % (fn, x.dtype.name))


def _zero(x):
    return convert_to_tensor(0, dtype=x.dtype)


def _finite_or_zero(m):
    """m where it is finite, else 0 (a shift that keeps exp(x - shift) meaningful), without gradient."""
    return stop_gradient(gen_ops.select_v2(gen_ops.is_finite(m), m, gen_ops.zeros_like(m)))


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(input_tensor))) over ``axis`` (None: all axes), computed with the maximum
    subtracted first so that it neither overflows nor underflows."""
    with name_scope(name or "ReduceLogSumExp"):
        x = _tensor(input_tensor)
        _require_float(x, "reduce_logsumexp")
        shift = _finite_or_zero(reduce_max(x, axis=axis, keepdims=True))
        total = reduce_sum(gen_ops.exp(gen_ops.sub(x, shift)), axis=axis, keepdims=keepdims)
        if not keepdims:
            shift = reshape(shift, gen_ops.shape(total))
        return gen_ops.add_v2(gen_ops.log(total), shift)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The population variance (mean squared deviation from the mean) over ``axis``."""
    with name_scope(name or "reduce_variance"):
        x = _tensor(input_tensor)
        _require_float(x, "reduce_variance")
        mean = reduce_mean(x, axis=axis, keepdims=True)
        return reduce_mean(gen_ops.squared_difference(x, mean), axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The population standard deviation over ``axis``: sqrt(reduce_variance)."""
    with name_scope(name or "reduce_std"):
        return gen_ops.sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x ** 2)) over ``axis``; integer inputs give the integer part, as in TensorFlow."""
    with name_scope(name or "reduce_euclidean_norm"):
        x = _tensor(input_tensor)
        if x.dtype in _FLOATS:
            return gen_ops.sqrt(reduce_sum(gen_ops.square(x), axis=axis, keepdims=keepdims))
        wide = cast(x, _dtypes.float64)
        norm = gen_ops.sqrt(reduce_sum(gen_ops.square(wide), axis=axis, keepdims=keepdims))
        return cast(gen_ops.floor(norm), x.dtype)


def count_nonzero(input, axis=None, keepdims=None, dtype=_dtypes.int64, name=None):  # noqa: A002 (TF's name)
    """The number of non-zero (for bool: true) elements over ``axis``, as ``dtype``."""
    with name_scope(name or "count_nonzero"):
        x = _tensor(input)
        nonzero = x if x.dtype == _dtypes.bool else gen_ops.not_equal(x, _zero(x))
        return reduce_sum(cast(nonzero, dtype), axis=axis, keepdims=bool(keepdims))


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running products of ``x`` along ``axis``; ``exclusive`` shifts by one, ``reverse`` multiplies from the end."""
    return gen_ops.cumprod(x, axis, exclusive=bool(exclusive), reverse=bool(reverse), name=name)


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running log-sum-exps of ``x`` along ``axis`` (``exclusive`` and ``reverse`` as in cumsum;
    an exclusive first element is -inf). Computed as log(cumsum(exp(x - m))) + m with m the
    maximum along ``axis``, so values far below that maximum lose precision."""
    with name_scope(name or "CumulativeLogsumexp"):
        x = _tensor(x)
        _require_float(x, "cumulative_logsumexp")
        shift = _finite_or_zero(reduce_max(x, axis=axis, keepdims=True))
        total = gen_ops.cumsum(gen_ops.exp(gen_ops.sub(x, shift)), axis, exclusive=bool(exclusive),
                               reverse=bool(reverse))
        return gen_ops.add_v2(gen_ops.log(total), shift)


def polyval(coeffs, x, name=None):
    """coeffs[0] * x**(n-1) + ... + coeffs[n-1], by Horner's rule (``coeffs`` a list; an empty list gives 0)."""
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError("polyval: coeffs must be a list of tensors or numbers, got %s" % type(coeffs).__name__)
    with name_scope(name or "polyval"):
        x = _tensor(x)
        if not coeffs:
            return gen_ops.zeros_like(x)
        result = gen_ops.add_v2(gen_ops.zeros_like(x), _tensor(coeffs[0], x.dtype))
        for c in coeffs[1:]:
            result = gen_ops.add_v2(gen_ops.mul(result, x), _tensor(c, x.dtype))
        return result


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The element-wise sum of a list of same-shape tensors (as ``add_n``; ``shape`` and
    ``tensor_dtype``, when given, are checked)."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("accumulate_n: inputs must be a non-empty list of tensors")
    tensors = [_tensor(t) for t in inputs]
    if tensor_dtype is not None and any(t.dtype != _dtypes.as_dtype(tensor_dtype) for t in tensors):
        raise TypeError("accumulate_n: every input must have dtype %s" % _dtypes.as_dtype(tensor_dtype).name)
    if shape is not None:
        for t in tensors:
            if not t.shape.is_compatible_with(shape):
                raise ValueError("accumulate_n: input shape %s is not compatible with %s" % (t.shape, shape))
    return gen_ops.add_n(tensors, name=name or "AccumulateN")


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x ** 2, axis), epsilon)) along ``axis`` (None: all axes)."""
    axis = dim if axis is None else axis
    with name_scope(name or "l2_normalize"):
        x = _tensor(x)
        sq = reduce_sum(gen_ops.square(x), axis=axis, keepdims=True)
        eps = convert_to_tensor(np.asarray(epsilon), dtype=x.dtype)
        return gen_ops.mul(x, gen_ops.rsqrt(gen_ops.maximum(sq, eps)))


def global_norm(t_list, name=None):
    """sqrt(sum of squares of every element of every tensor in ``t_list``); None entries are skipped."""
    if not isinstance(t_list, (list, tuple)):
        raise TypeError("global_norm: t_list must be a sequence of tensors")
    with name_scope(name or "global_norm"):
        tensors = [_tensor(t) for t in t_list if t is not None]
        if not tensors:
            raise ValueError("global_norm: t_list has no tensors")
        squares = [reduce_sum(gen_ops.square(t)) for t in tensors]
        return gen_ops.sqrt(gen_ops.add_n(squares) if len(squares) > 1 else squares[0])


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """t scaled so that its L2 norm over ``axes`` (None: all) is at most ``clip_norm``:
    t * clip_norm / max(norm, clip_norm); a zero norm leaves t unchanged."""
    with name_scope(name or "clip_by_norm"):
        t = _tensor(t)
        clip = _tensor(clip_norm, t.dtype)
        l2sum = reduce_sum(gen_ops.square(t), axis=axes, keepdims=True)
        positive = gen_ops.greater(l2sum, _zero(l2sum))
        safe = gen_ops.select_v2(positive, l2sum, gen_ops.ones_like(l2sum))
        norm = gen_ops.select_v2(positive, gen_ops.sqrt(safe), l2sum)
        return gen_ops.real_div(gen_ops.mul(t, clip), gen_ops.maximum(norm, clip))


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """(tensors scaled by clip_norm / max(global_norm, clip_norm), global_norm); None entries stay
    None. An infinite or NaN global norm makes every result NaN, as in TensorFlow."""
    if not isinstance(t_list, (list, tuple)):
        raise TypeError("clip_by_global_norm: t_list must be a sequence of tensors")
    with name_scope(name or "clip_by_global_norm"):
        norm = global_norm(t_list) if use_norm is None else _tensor(use_norm)
        clip = _tensor(clip_norm, norm.dtype)
        one = convert_to_tensor(1, dtype=norm.dtype)
        scale = gen_ops.mul(clip, gen_ops.minimum(gen_ops.real_div(one, norm), gen_ops.real_div(one, clip)))
        # inf / NaN norms: scale * NaN makes every clipped value NaN.
        nan = convert_to_tensor(np.nan, dtype=norm.dtype)
        scale = gen_ops.select_v2(gen_ops.is_finite(norm), scale, nan)
        out = [None if t is None else gen_ops.mul(_tensor(t), cast(scale, _tensor(t).dtype)) for t in t_list]
        return out, norm


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=_dtypes.int32, name=None, axis=None,
             binary_output=False):
    """Counts of each value 0, 1, ... in the non-negative integer tensor ``arr`` (summed
    ``weights`` instead of ones when given; 1 for present values with ``binary_output``). The
    length is max(arr) + 1, at least ``minlength`` and at most ``maxlength`` (larger values are
    dropped). ``axis=None`` counts the flattened input; ``axis=-1`` counts each row of a 2-D one."""
    with name_scope(name or "bincount"):
        arr = _tensor(arr)
        if arr.dtype not in (_dtypes.int32, _dtypes.int64):
            raise TypeError("bincount: arr must be int32 or int64, got %s" % arr.dtype.name)
        if axis is not None and axis not in (-1, 0):
            raise ValueError("bincount: axis must be None, 0 or -1, got %r" % (axis,))
        if weights is not None:
            weights = _tensor(weights)
            if weights.dtype not in (_dtypes.int32, _dtypes.int64, _dtypes.float32, _dtypes.float64):
                raise TypeError("bincount: weights must be int32, int64, float32 or float64, got %s"
                                % weights.dtype.name)
        if axis is None or axis == 0:
            arr = reshape(arr, [-1])
            if weights is not None:
                weights = reshape(weights, [-1])
        nonempty = gen_ops.greater(gen_ops.size(arr), convert_to_tensor(0, dtype=_dtypes.int32))
        top = _reduction(gen_ops.max, arr, None, False, None)
        size = gen_ops.mul(cast(nonempty, arr.dtype), gen_ops.add_v2(top, convert_to_tensor(1, dtype=arr.dtype)))
        if minlength is not None:
            size = gen_ops.maximum(cast(_tensor(minlength), arr.dtype), size)
        if maxlength is not None:
            size = gen_ops.minimum(cast(_tensor(maxlength), arr.dtype), size)
        if weights is None:  # empty weights: counts
            weights = convert_to_tensor(np.zeros((0,), _dtypes.as_dtype(dtype).as_numpy_dtype))
        return gen_ops.dense_bincount(arr, size, weights, binary_output=bool(binary_output))


def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=_dtypes.int32, name=None):
    """The [num_classes, num_classes] matrix whose (i, j) entry counts (or sums ``weights`` over)
    the examples with label i and prediction j; ``num_classes`` defaults to the largest label or
    prediction plus one. Labels and predictions out of range fail in ScatterNd."""
    with name_scope(name or "confusion_matrix"):
        labels = cast(reshape(_tensor(labels), [-1]), _dtypes.int64)
        predictions = cast(reshape(_tensor(predictions), [-1]), _dtypes.int64)
        if num_classes is None:
            both = gen_ops.concat_v2([labels, predictions], convert_to_tensor(0, dtype=_dtypes.int32))
            top = _reduction(gen_ops.max, both, None, False, None)
            n = gen_ops.add_v2(top, convert_to_tensor(1, dtype=_dtypes.int64))
        else:
            n = cast(_tensor(num_classes), _dtypes.int64)
        indices = gen_ops.pack([labels, predictions], axis=1)
        values = gen_ops.ones_like(cast(labels, dtype)) if weights is None else cast(reshape(_tensor(weights), [-1]),
                                                                                   dtype)
        return gen_ops.scatter_nd(indices, values, gen_ops.pack([n, n], axis=0))


def lbeta(x, name=None):
    """log |Beta(x)| over the last axis: sum(lgamma(x)) - lgamma(sum(x))."""
    with name_scope(name or "lbeta"):
        x = _tensor(x)
        return gen_ops.sub(reduce_sum(gen_ops.lgamma(x), axis=-1), gen_ops.lgamma(reduce_sum(x, axis=-1)))


def _monotone(x, strict, name):
    with name_scope(name):
        flat = reshape(_tensor(x), [-1])
        head = gen_ops.strided_slice(flat, [0], [-1], [1])
        tail = gen_ops.strided_slice(flat, [1], [0], [1], end_mask=1)
        cmp = gen_ops.greater(tail, head) if strict else gen_ops.greater_equal(tail, head)
        return _reduction(gen_ops.all, cmp, None, False, None)


def is_non_decreasing(x, name=None):
    """Whether the elements of x (flattened) never decrease; true for fewer than two elements."""
    return _monotone(x, False, name or "is_non_decreasing")


def is_strictly_increasing(x, name=None):
    """Whether the elements of x (flattened) strictly increase; true for fewer than two elements."""
    return _monotone(x, True, name or "is_strictly_increasing")


def zero_fraction(value, name=None):
    """The fraction of elements of ``value`` equal to zero, as float32."""
    with name_scope(name or "zero_fraction"):
        value = _tensor(value)
        return reduce_mean(cast(gen_ops.equal(value, _zero(value)), _dtypes.float32))


def _approx_k(operand, k, reduction_dimension, largest, name):
    with name_scope(name):
        x = _tensor(operand)
        rank = x.shape.rank
        if rank is None:
            raise ValueError("%s needs the rank of operand" % name)
        dim = reduction_dimension % rank
        perm = None
        if dim != rank - 1:
            perm = list(range(rank))
            perm[dim], perm[rank - 1] = rank - 1, dim
            x = transpose(x, perm)
        key = x if largest else gen_ops.neg(x)
        values, indices = gen_ops.top_kv2(key, convert_to_tensor(int(k), dtype=_dtypes.int32), sorted=True)
        if not largest:
            values = gen_ops.neg(values)
        if perm is not None:
            values, indices = transpose(values, perm), transpose(indices, perm)
        return values, indices


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """(values, indices) of the k largest entries along ``reduction_dimension``. Computed exactly
    (top_k), which meets every ``recall_target``."""
    return _approx_k(operand, k, reduction_dimension, True, name or "ApproxMaxK")


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """(values, indices) of the k smallest entries along ``reduction_dimension``, computed exactly."""
    return _approx_k(operand, k, reduction_dimension, False, name or "ApproxMinK")

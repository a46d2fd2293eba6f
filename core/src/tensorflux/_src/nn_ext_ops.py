"""More of ``tx.nn`` with TensorFlow 2 signatures: GELU/SiLU/log-sigmoid, softmax on any axis,
L2 normalization, (weighted) moments, weighted cross-entropy, local response normalization and
embedding lookup. Compositions over the generated op wrappers."""

import math

import numpy as np

from tensorflux._src import array_ops, check_ops, constant_op, math_ops, shape_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import control_dependencies
from tensorflux._src.reduce_ops import reduce_all


def _t(x, dtype=None):
    return constant_op.convert_to_tensor(x, dtype=dtype)


def _scalar(v, like):
    """A constant scalar of ``like``'s dtype."""
    return constant_op.constant(np.asarray(v, like.dtype.as_numpy_dtype))


def erfc(x, name=None):
    """1 - erf(x) element-wise, accurate where erf(x) is close to 1."""
    return gen_ops.erfc(_t(x), name=name)


def erfinv(x, name=None):
    """The inverse of erf element-wise: NaN outside [-1, 1], +-inf at +-1."""
    return gen_ops.erfinv(_t(x), name=name)


def log_sigmoid(x, name=None):
    """log(1 / (1 + exp(-x))) element-wise, computed as -softplus(-x) so it does not overflow."""
    x = _t(x)
    return gen_ops.neg(gen_ops.softplus(gen_ops.neg(x)), name=name)


def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit: x * Phi(x) with Phi the standard normal CDF (via erf), or with
    ``approximate=True`` TensorFlow's tanh form 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    x = _t(features)
    half = _scalar(0.5, x)
    if approximate:
        cube = math_ops.multiply(_scalar(0.044715, x), gen_ops.pow(x, _scalar(3, x)))
        inner = math_ops.multiply(_scalar(math.sqrt(2.0 / math.pi), x), math_ops.add(x, cube))
        return math_ops.multiply(math_ops.multiply(half, x), math_ops.add(_scalar(1, x), gen_ops.tanh(inner)),
                                 name=name)
    cdf = math_ops.add(_scalar(1, x), gen_ops.erf(math_ops.multiply(x, _scalar(1 / math.sqrt(2.0), x))))
    return math_ops.multiply(math_ops.multiply(half, x), cdf, name=name)


def silu(features, beta=1.0, name=None):
    """Sigmoid-weighted linear unit (swish): features * sigmoid(beta * features)."""
    x = _t(features)
    beta = _t(beta, dtype=x.dtype)
    return math_ops.multiply(x, gen_ops.sigmoid(math_ops.multiply(beta, x)), name=name)


swish = silu


def _rank(x):
    rank = x.shape.rank
    if rank is None:
        raise ValueError("this operation needs a tensor of known rank, got shape %s" % (x.shape,))
    return rank


def _swap_to_last(fn, logits, axis, name, what):
    """fn over ``axis``: the last axis directly, others by swapping them with the last (as TF)."""
    logits = _t(logits)
    if axis is None or axis == -1:
        return fn(logits, name=name)
    rank = _rank(logits)
    if not -rank <= axis < rank:
        raise ValueError("%s: axis %d is out of range for a tensor of rank %d" % (what, axis, rank))
    axis %= rank
    if axis == rank - 1:
        return fn(logits, name=name)
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    out = fn(array_ops.transpose(logits, perm))
    return array_ops.transpose(out, perm, name=name or "transpose")


def softmax(logits, axis=None, name=None):
    """exp(logits) / sum(exp(logits)) along ``axis`` (default: the last)."""
    return _swap_to_last(gen_ops.softmax, logits, axis, name, "softmax")


def log_softmax(logits, axis=None, name=None):
    """logits - log(sum(exp(logits))) along ``axis`` (default: the last)."""
    return _swap_to_last(gen_ops.log_softmax, logits, axis, name, "log_softmax")


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x ** 2, axis), epsilon)); ``axis`` None normalizes over all elements."""
    if dim is not None:
        if axis is not None:
            raise ValueError("l2_normalize: give axis or dim, not both")
        axis = dim
    x = _t(x)
    square_sum = math_ops.reduce_sum(gen_ops.square(x), axis=axis, keepdims=True)
    inv = gen_ops.rsqrt(math_ops.maximum(square_sum, _scalar(epsilon, x)))
    return math_ops.multiply(x, inv, name=name)


def _div_no_nan(a, b):
    zero = gen_ops.zeros_like(b)
    nonzero = gen_ops.not_equal(b, zero)
    safe = gen_ops.select_v2(nonzero, b, gen_ops.ones_like(b))
    return gen_ops.select_v2(nonzero, math_ops.divide(a, safe), gen_ops.zeros_like(math_ops.divide(a, safe)))


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """(mean, variance) of ``x`` over ``axes`` with each element counted ``frequency_weights``
    times (broadcast against x); 0 where the weights sum to 0."""
    x = _t(x)
    w = _t(frequency_weights, dtype=x.dtype)
    axes = list(axes) if not isinstance(axes, int) else [axes]
    wsum = math_ops.reduce_sum(math_ops.multiply(w, x), axes, keepdims=True)
    total = math_ops.reduce_sum(math_ops.add(w, gen_ops.zeros_like(x)), axes, keepdims=True)
    mean = _div_no_nan(wsum, total)
    dist = math_ops.reduce_sum(math_ops.multiply(w, gen_ops.squared_difference(x, shape_ops.stop_gradient(mean))),
                               axes, keepdims=True)
    variance = _div_no_nan(dist, total)
    if not keepdims:
        mean = array_ops.squeeze(mean, axes)
        variance = array_ops.squeeze(variance, axes)
    return mean, variance


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics: the count, the (shifted) sum and the
    (shifted) sum of squares, as returned by TensorFlow's sufficient_statistics."""
    mean_ss = _t(mean_ss)
    divisor = gen_ops.reciprocal(_t(counts, dtype=mean_ss.dtype))
    shifted_mean = math_ops.multiply(mean_ss, divisor)
    mean = shifted_mean if shift is None else math_ops.add(shifted_mean, _t(shift, dtype=mean_ss.dtype))
    variance = math_ops.subtract(math_ops.multiply(_t(variance_ss, dtype=mean_ss.dtype), divisor),
                                 gen_ops.square(shifted_mean))
    return mean, variance


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Sigmoid cross-entropy with the positive term weighted by ``pos_weight``:
    (1 - z) x + (1 + (q - 1) z) (log(1 + exp(-|x|)) + max(-x, 0)), without overflow."""
    logits = _t(logits)
    labels = _t(labels, dtype=logits.dtype)
    if not logits.shape.is_compatible_with(labels.shape):
        raise ValueError("weighted_cross_entropy_with_logits: logits and labels must have the same shape (%s vs %s)"
                         % (logits.shape, labels.shape))
    q = _t(pos_weight, dtype=logits.dtype)
    one = _scalar(1, logits)
    log_weight = math_ops.add(one, math_ops.multiply(math_ops.subtract(q, one), labels))
    soft = math_ops.add(gen_ops.log1p(gen_ops.exp(gen_ops.neg(gen_ops.abs(logits)))),
                        gen_ops.relu(gen_ops.neg(logits)))
    return math_ops.add(math_ops.multiply(math_ops.subtract(one, labels), logits),
                        math_ops.multiply(log_weight, soft), name=name)


def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, name=None):  # noqa: A002
    """input / (bias + alpha * sum of squares over depth_radius neighbours on the last axis)^beta
    for a 4-D input (the LRN op)."""
    return gen_ops.lrn(_t(input), depth_radius=int(depth_radius), bias=float(bias), alpha=float(alpha),
                       beta=float(beta), name=name)


lrn = local_response_normalization


def _clip_rows(x, max_norm, ids_rank):
    """Rescales each embedding (the axes after the ids' axes) to L2 norm at most ``max_norm``."""
    rank = _rank(x)
    axes = list(range(ids_rank, rank))
    if not axes:
        return x
    l2sum = math_ops.reduce_sum(gen_ops.square(x), axes, keepdims=True)
    positive = gen_ops.greater(l2sum, gen_ops.zeros_like(l2sum))
    l2norm = gen_ops.select_v2(positive, gen_ops.sqrt(gen_ops.select_v2(positive, l2sum, gen_ops.ones_like(l2sum))),
                               l2sum)
    clip = _scalar(max_norm, x)
    return math_ops.divide(math_ops.multiply(x, clip), math_ops.maximum(l2norm, clip))


def _static_rows(p, i):
    rows = p.shape[0] if p.shape.rank else None
    if rows is None:
        raise ValueError("embedding_lookup: partition %d of params needs a static first dimension, got shape %s"
                         % (i, p.shape))
    return int(rows)


def _graph_deps(ops):
    """Control dependencies on ``ops`` in a graph (eager asserts have run already: None)."""
    return control_dependencies([o for o in ops if o is not None])


def embedding_lookup(params, ids, max_norm=None, name=None, partition_strategy="div"):
    """Rows of ``params`` at ``ids`` (any shape): the result has shape ids.shape + params.shape[1:].
    ``params`` may be a list of partitions of one table, sharded by ``partition_strategy``
    ("div": contiguous ranges, TensorFlow 2's rule; "mod": id % len(params)). With ``max_norm``,
    rows with a larger L2 norm are scaled down to it."""
    if partition_strategy not in ("div", "mod"):
        raise ValueError("embedding_lookup: partition_strategy must be 'div' or 'mod', got %r" % (partition_strategy,))
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError("embedding_lookup: params must not be an empty list")
        parts = [_t(p) for p in params]
    else:
        parts = [_t(params)]
    ids = _t(ids)
    if ids.dtype.name not in ("int32", "int64"):
        raise TypeError("embedding_lookup: ids must be int32 or int64, got %s" % ids.dtype.name)
    if len(parts) == 1:
        out = gen_ops.gather_v2(parts[0], ids, _t(0, dtype=ids.dtype), name=None if max_norm else name)
    else:
        n = len(parts)
        rows = [_static_rows(p, i) for i, p in enumerate(parts)]
        offsets = np.concatenate([[0], np.cumsum(rows)[:-1]]).astype(np.int64)
        if partition_strategy == "mod":
            part = gen_ops.floor_mod(ids, _t(n, dtype=ids.dtype))
            local = gen_ops.floor_div(ids, _t(n, dtype=ids.dtype))
        else:
            total = sum(rows)
            per, extras = total // n, total % n
            # ids below extras * (per + 1) live in the first `extras` partitions of per + 1 rows.
            big = _t(extras * (per + 1), dtype=ids.dtype)
            in_big = gen_ops.less(ids, big)
            big_part = gen_ops.floor_div(ids, _t(per + 1, dtype=ids.dtype))
            rest = math_ops.subtract(ids, big)
            per_t = _t(max(per, 1), dtype=ids.dtype)
            part = gen_ops.select_v2(in_big, big_part, math_ops.add(gen_ops.floor_div(rest, per_t),
                                                                    _t(extras, dtype=ids.dtype)))
            local = gen_ops.select_v2(in_big, gen_ops.floor_mod(ids, _t(per + 1, dtype=ids.dtype)),
                                      gen_ops.floor_mod(rest, per_t))
        table = array_ops.concat(parts, 0)
        axis0 = _t(0, dtype=ids.dtype)
        np_dt = ids.dtype.as_numpy_dtype
        # Ids past either end of the table map to partitions that do not exist: clamp for the
        # lookups of offset and size, and mark them invalid.
        in_range = gen_ops.logical_and(gen_ops.greater_equal(part, gen_ops.zeros_like(part)),
                                       gen_ops.less(part, _t(n, dtype=ids.dtype)))
        clamped = gen_ops.select_v2(in_range, part, gen_ops.zeros_like(part))
        offset = gen_ops.gather_v2(_t(offsets.astype(np_dt)), clamped, axis0)
        size = gen_ops.gather_v2(_t(np.asarray(rows, np_dt)), clamped, axis0)
        # An id outside its partition becomes index -1, so Gather reports it instead of reading
        # a neighbouring partition's row.
        valid = gen_ops.logical_and(
            in_range, gen_ops.logical_and(gen_ops.greater_equal(local, gen_ops.zeros_like(local)),
                                          gen_ops.less(local, size)))
        # An id outside its partition (a negative id, one past the table, or partitions whose sizes
        # do not follow the strategy's layout) fails here with the ids and the sizes, before Gather.
        layout = ("'div' puts ids [0, %d) in partitions of %d rows, then %d rows each" % (
            extras * (per + 1), per + 1, per) if partition_strategy == "div" else "'mod' puts id i in partition i %% %d"
                  % n)
        check = check_ops.Assert(
            reduce_all(valid),
            ["embedding_lookup: ids outside their partition (partition_strategy=%r, partition sizes %s; %s). ids:"
             % (partition_strategy, rows, layout), ids], summarize=20)
        with _graph_deps([check]):
            minus_one = gen_ops.fill(gen_ops.shape(ids, out_type=ids.dtype), _t(-1, dtype=ids.dtype))
            index = gen_ops.select_v2(valid, math_ops.add(offset, local), minus_one)
        out = gen_ops.gather_v2(table, index, axis0, name=None if max_norm else name)
    if max_norm is not None:
        out = _clip_rows(out, max_norm, _rank(ids))
        out = array_ops.identity(out, name=name)
    return out


def ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None,
             name=None):
    """Connectionist temporal classification loss per batch entry, -log p(labels | logits), for
    dense ``labels`` [batch, max_label_length] (the first label_length[b] entries count) and
    ``logits`` [max_time, batch, classes] (or batch-major with ``logits_time_major=False``) of
    which the first logit_length[b] steps count. ``blank_index`` (default 0, negative counts
    from the end) is the blank class. Computed by the CTCLoss op, with repeated labels kept
    apart by a blank (ctc_merge_repeated) as TensorFlow 2. SparseTensor labels and ``unique``
    are not supported (tensorflux has no SparseTensor)."""
    if unique is not None:
        raise NotImplementedError("ctc_loss: the 'unique' argument is not supported")
    logits = _t(logits)
    labels = _t(labels)
    if labels.dtype.name not in ("int32", "int64"):
        raise TypeError("ctc_loss: labels must be int32 or int64, got %s" % labels.dtype.name)
    if _rank(logits) != 3 or _rank(labels) != 2:
        raise ValueError("ctc_loss: logits must be 3-D and labels 2-D, got shapes %s and %s"
                         % (logits.shape, labels.shape))
    if not logits_time_major:
        logits = array_ops.transpose(logits, [1, 0, 2])
    classes = logits.shape[2]
    blank = 0 if blank_index is None else int(blank_index)
    if classes is not None:
        if blank < 0:
            blank += classes
        if not 0 <= blank < classes:
            raise ValueError("ctc_loss: blank_index %r is out of range for %d classes" % (blank_index, classes))
    elif blank < 0:
        raise ValueError("ctc_loss: a negative blank_index needs a static number of classes")
    labels = array_ops.cast(labels, "int32")
    if classes is None or blank != classes - 1:
        # The op's blank is the last class: move the blank there and renumber the labels above it.
        logits = array_ops.concat([logits[:, :, :blank], logits[:, :, blank + 1:], logits[:, :, blank:blank + 1]],
                                  2)
        labels = gen_ops.select_v2(gen_ops.less(labels, _t(blank, dtype=labels.dtype)), labels,
                                   math_ops.subtract(labels, _t(1, dtype=labels.dtype)))
    label_length = array_ops.cast(_t(label_length), "int32")
    positions = gen_ops.range(_t(0, dtype=labels.dtype), gen_ops.shape(labels)[1], _t(1, dtype=labels.dtype))
    mask = gen_ops.less(array_ops.expand_dims(positions, 0), array_ops.expand_dims(label_length, 1))
    indices = gen_ops.where(mask)
    values = gen_ops.gather_nd(labels, indices)
    loss, _ = gen_ops.ctc_loss(logits, indices, values, array_ops.cast(_t(logit_length), "int32"),
                               preprocess_collapse_repeated=False, ctc_merge_repeated=True,
                               ignore_longer_outputs_than_inputs=False, name=name)
    return loss

"""``tx.nn.isotonic_regression``: the least-squares monotone fit of each row, by the
pool-adjacent-violators algorithm run on all rows at once in a while loop (Note [Batched PAVA])."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import context as _context
from tensorflux._src.array_ops import reshape, transpose
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.while_loop import while_loop
from tensorflux._src.function import function

# Note [Batched PAVA]
# The fit y_1 >= y_2 >= ... (TensorFlow's IsotonicRegression solves the decreasing problem; the
# increasing one is the negated fit of the negated input) is block-wise constant: scanning the
# columns left to right, each column becomes a block on a stack, and while the top block's mean
# is strictly greater than the one below it, the two merge (the lower block's sum grows by the
# top's). Every row keeps its own stack ([batch, n] sums, counts and start columns plus a stack
# height per row); a merge step updates only the rows that still violate the order, and the next
# column is pushed when none does. The sums accumulate in the order TensorFlow's kernel adds them,
# so values agree to the last bit. ``segments`` numbers each element's final block from 0. The
# loop is not differentiated: the fit's gradient is that of the block means of the input (the
# mean of the output gradients over each block, as TensorFlow's), added as block_mean -
# stop_gradient(block_mean), which is exactly zero.

# TensorFlow's output dtypes: floats keep theirs, small integers become float32, others float64.
_OUTPUT_DTYPE = {"int8": _dtypes.float32, "int16": _dtypes.float32, "int32": _dtypes.float64,
                 "int64": _dtypes.float64}


def _c(value, dtype=None):
    return convert_to_tensor(value, dtype=dtype)


def _at(stack, top):
    """stack[b, top[b]] for each row b."""
    return gen_ops.gather_v2(stack, gen_ops.expand_dims(top, _c(1)), _c(1), batch_dims=1)[:, 0]


def _set(stack, top, values, rows):
    """``stack`` with stack[b, top[b]] = values[b] for the rows b where ``rows`` holds."""
    coords = gen_ops.pack([gen_ops.range(_c(0), gen_ops.size(top), _c(1)), top], axis=1)
    return gen_ops.tensor_scatter_update(stack, coords, gen_ops.select_v2(rows, values, _at(stack, top)))


def _pava(x):
    """(fit, segments) of the decreasing problem for each row of the 2-D ``x`` (float)."""
    batch, n = gen_ops.shape(x)[0], gen_ops.shape(x)[1]
    zeros_i = gen_ops.zeros_like(gen_ops.cast(x, DstT=_dtypes.int32))
    one = _c(np.int32(1))

    def mean(sums, counts, k):
        return gen_ops.div(_at(sums, k), gen_ops.cast(_at(counts, k), DstT=x.dtype))

    def violating(sums, counts, top):
        # Rows whose top block's mean exceeds the mean of the block below it (two blocks or more).
        deep = gen_ops.greater(top, one)
        safe_top = gen_ops.maximum(top, gen_ops.add_v2(one, one))
        upper = mean(sums, counts, gen_ops.sub(safe_top, one))
        lower = mean(sums, counts, gen_ops.sub(safe_top, gen_ops.add_v2(one, one)))
        return gen_ops.logical_and(deep, gen_ops.greater(upper, lower))

    def outer_cond(i, sums, counts, starts, top):
        return gen_ops.less(i, n)

    def outer_body(i, sums, counts, starts, top):
        everyone = gen_ops.fill(gen_ops.expand_dims(batch, _c(0)), _c(True))
        column = gen_ops.gather_v2(x, i, _c(1))
        sums = _set(sums, top, column, everyone)
        counts = _set(counts, top, gen_ops.fill(gen_ops.expand_dims(batch, _c(0)), one), everyone)
        starts = _set(starts, top, gen_ops.fill(gen_ops.expand_dims(batch, _c(0)), i), everyone)
        top = gen_ops.add_v2(top, one)

        def inner_cond(sums, counts, top):
            return gen_ops.any(violating(sums, counts, top), _c(0))

        def inner_body(sums, counts, top):
            rows = violating(sums, counts, top)
            upper = gen_ops.maximum(gen_ops.sub(top, one), one)
            lower = gen_ops.sub(upper, one)
            sums = _set(sums, lower, gen_ops.add_v2(_at(sums, lower), _at(sums, upper)), rows)
            counts = _set(counts, lower, gen_ops.add_v2(_at(counts, lower), _at(counts, upper)), rows)
            return sums, counts, gen_ops.sub(top, gen_ops.cast(rows, DstT=_dtypes.int32))

        sums, counts, top = while_loop(inner_cond, inner_body, [sums, counts, top])
        return gen_ops.add_v2(i, one), sums, counts, starts, top

    _, sums, counts, starts, top = while_loop(
        outer_cond, outer_body, [_c(np.int32(0)), gen_ops.zeros_like(x), zeros_i, zeros_i,
                                 gen_ops.zeros_like(gen_ops.gather_v2(zeros_i, _c(0), _c(1)))])
    # segments: the running count of block starts, minus one.
    live = gen_ops.less(gen_ops.range(_c(0), n, one), gen_ops.expand_dims(top, _c(1)))
    rows = gen_ops.tile(gen_ops.expand_dims(gen_ops.range(_c(0), batch, one), _c(1)), gen_ops.pack([one, n]))
    coords = gen_ops.pack([rows, starts], axis=2)
    marks = gen_ops.scatter_nd(coords, gen_ops.cast(live, DstT=_dtypes.int32), gen_ops.shape(x))
    segments = gen_ops.sub(gen_ops.cumsum(marks, _c(1)), one)
    means = gen_ops.div(sums, gen_ops.cast(gen_ops.maximum(counts, one), DstT=x.dtype))
    return gen_ops.gather_v2(means, segments, _c(1), batch_dims=1), segments


_PAVA_FUNCTION = []


def _pava_function():
    """``_pava`` as a tx.function (made on first use): eagerly its loops then run as one While op
    in the engine instead of step by step from Python; while building a graph its ops go straight
    into that graph."""
    if not _context.executing_eagerly():
        return _pava
    if not _PAVA_FUNCTION:
        _PAVA_FUNCTION.append(function(_pava))
    return _PAVA_FUNCTION[0]


def _with_block_mean_gradient(x, fit, segments):
    """``fit`` (exactly) whose gradient with respect to ``x`` is the mean of the output gradients
    over each block, TensorFlow's IsotonicRegression gradient: the block means of ``x`` have that
    gradient, and their value is cancelled (Note [Batched PAVA])."""
    batch, n = gen_ops.shape(x)[0], gen_ops.shape(x)[1]
    ids = gen_ops.add_v2(segments, gen_ops.mul(gen_ops.expand_dims(gen_ops.range(_c(0), batch, _c(1)), _c(1)), n))
    count = gen_ops.unsorted_segment_sum(gen_ops.ones_like(x), ids, gen_ops.mul(batch, n))
    total = gen_ops.unsorted_segment_sum(x, ids, gen_ops.mul(batch, n))
    block_mean = gen_ops.gather_v2(gen_ops.div_no_nan(total, count), ids, _c(0))
    zero = gen_ops.sub(block_mean, gen_ops.stop_gradient(block_mean))
    zero = gen_ops.select_v2(gen_ops.is_finite(block_mean), zero, gen_ops.zeros_like(zero))
    return gen_ops.add_v2(gen_ops.stop_gradient(fit), zero)


def isotonic_regression(inputs, decreasing=True, axis=-1):
    """(output, segments): the non-increasing (or, with ``decreasing=False``, non-decreasing)
    sequence closest in squared error to each slice of ``inputs`` along ``axis``, and the int32
    index of the constant block each element falls in; integer inputs give float32 (8 and 16 bit)
    or float64 outputs, as in TensorFlow.

    >>> out, seg = tx.nn.isotonic_regression([[3.0, 1.0, 2.0, 1.0]])
    >>> out.numpy().tolist(), seg.numpy().tolist()
    ([[3.0, 1.5, 1.5, 1.0]], [[0, 1, 1, 2]])
    """
    with name_scope("IsotonicRegression"):
        x = inputs if isinstance(inputs, _TENSORS) else convert_to_tensor(inputs, name="inputs")
        out_dtype = _OUTPUT_DTYPE.get(x.dtype.name, x.dtype)
        if not out_dtype.is_floating:
            raise TypeError("isotonic_regression: inputs must be floating point or int8/16/32/64, got %s"
                            % x.dtype.name)
        rank = x.shape.rank
        if rank is None:
            raise ValueError("isotonic_regression: inputs need a known rank")
        if rank == 0:
            raise ValueError("isotonic_regression: inputs must have at least one dimension")
        axis = int(axis)
        if not -rank <= axis < rank:
            raise ValueError("isotonic_regression: axis %d is out of range for rank %d" % (axis, rank))
        axis %= rank
        if not decreasing:
            x = gen_ops.neg(x)
        x = gen_ops.cast(x, DstT=out_dtype) if x.dtype != out_dtype else x
        perm = [d for d in range(rank) if d != axis] + [axis]
        moved = transpose(x, perm) if axis != rank - 1 else x
        moved_shape = gen_ops.shape(moved)
        matrix = reshape(moved, gen_ops.pack([_c(-1), moved_shape[rank - 1]]))
        fit, segments = _pava_function()(gen_ops.stop_gradient(matrix))
        fit = _with_block_mean_gradient(matrix, fit, segments)
        fit, segments = reshape(fit, moved_shape), reshape(segments, moved_shape)
        if axis != rank - 1:
            back = list(np.argsort(perm))
            fit, segments = transpose(fit, back), transpose(segments, back)
        if not decreasing:
            fit = gen_ops.neg(fit)
        return fit, segments

"""CTC helpers in ``tx.nn``: ``collapse_repeated``, ``ctc_unique_labels`` and
``ctc_greedy_decoder`` (best-path decoding into a SparseTensor), vectorized over existing ops."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import context as _context
from tensorflux._src import errors as _errors
from tensorflux._src.array_ext import sequence_mask
from tensorflux._src.array_ops import concat, stack
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.gather_ops import where
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope, control_dependencies
from tensorflux._src.sparse_tensor import SparseTensor
from tensorflux._src.check_ops import Assert


def _tensor(x, dtype=None, name=None):
    return x if isinstance(x, _TENSORS) else convert_to_tensor(x, dtype=dtype, name=name)


def _c(value, dtype=None):
    return convert_to_tensor(value, dtype=dtype)


def _dim(x, i):
    return gen_ops.gather_v2(gen_ops.shape(x), _c(np.int32(i)), _c(np.int32(0)))


def _positions(mask):
    """For a bool [batch, n] mask: the coordinates of its true entries (int64 [k, 2], row-major)
    and each one's rank among the true entries of its row (int64 [k])."""
    coords = where(mask)
    rank = gen_ops.sub(gen_ops.cumsum(gen_ops.cast(mask, DstT=_dtypes.int64), _c(np.int32(1))), _c(np.int64(1)))
    return coords, gen_ops.gather_nd(rank, coords)


def _rows(coords):
    return gen_ops.strided_slice(coords, _c([0, 0]), _c([0, 1]), _c([1, 1]), begin_mask=1, end_mask=1,
                                 shrink_axis_mask=2)


def collapse_repeated(labels, seq_length, name=None):
    """(collapsed_labels, new_seq_length): each row of ``labels`` [batch, max_len] (its first
    ``seq_length`` entries) with runs of a repeated label merged into one, left-aligned and
    zero-padded to the longest result; the new lengths are int32.

    >>> c, n = tx.nn.collapse_repeated([[1, 1, 2, 2, 2, 1], [3, 3, 3, 0, 0, 0]], [6, 2])
    >>> c.numpy().tolist(), n.numpy().tolist()
    ([[1, 2, 1], [3, 0, 0]], [3, 1])
    """
    with name_scope(name or "collapse_repeated_labels"):
        labels = _tensor(labels, name="labels")
        seq_length = _tensor(seq_length, name="seq_length")
        if labels.shape.rank is not None and labels.shape.rank != 2:
            raise ValueError("collapse_repeated: labels must be [batch, max_len], got shape %s" % labels.shape)
        maxlen = _dim(labels, 1)
        later = gen_ops.not_equal(labels[:, 1:], labels[:, :-1])
        first = gen_ops.fill(gen_ops.pack([_dim(labels, 0), _c(np.int32(1))]), _c(True))
        keep = gen_ops.logical_and(concat([first, later], 1), sequence_mask(seq_length, maxlen))
        new_len = gen_ops.sum(gen_ops.cast(keep, DstT=_dtypes.int32), _c(np.int32(1)))
        new_max = gen_ops.maximum(gen_ops.max(new_len, _c(np.int32(0))), _c(np.int32(0)))  # 0 for no rows
        coords, rank = _positions(keep)
        out_coords = stack([_rows(coords), rank], axis=1)
        out_shape = gen_ops.cast(gen_ops.pack([_dim(labels, 0), new_max]), DstT=_dtypes.int64)
        collapsed = gen_ops.scatter_nd(out_coords, gen_ops.gather_nd(labels, coords), out_shape)
        return collapsed, new_len


def ctc_unique_labels(labels, name=None):
    """(unique_labels int64, unique_idx int32), both [batch, max_len]: each row's distinct labels
    in order of first appearance, zero-padded, and each label's index among them (tx.unique per
    row).

    >>> u, i = tx.nn.ctc_unique_labels([[3, 4, 4, 3]])
    >>> u.numpy().tolist(), i.numpy().tolist()
    ([[3, 4, 0, 0]], [[0, 1, 1, 0]])
    """
    with name_scope(name or "ctc_unique_labels"):
        labels = _tensor(labels, name="labels")
        if labels.shape.rank is not None and labels.shape.rank != 2:
            raise ValueError("ctc_unique_labels: labels must be [batch, max_len], got shape %s" % labels.shape)
        same = gen_ops.equal(gen_ops.expand_dims(labels, _c(np.int32(2))), gen_ops.expand_dims(labels, _c(np.int32(1))))
        first = gen_ops.arg_max(gen_ops.cast(same, DstT=_dtypes.int32), _c(np.int32(2)), output_type=_dtypes.int64)
        n = _dim(labels, 1)
        here = gen_ops.range(_c(np.int64(0)), gen_ops.cast(n, DstT=_dtypes.int64), _c(np.int64(1)))
        is_first = gen_ops.equal(first, gen_ops.expand_dims(here, _c(np.int32(0))))
        coords, rank = _positions(is_first)
        rank_of = gen_ops.sub(gen_ops.cumsum(gen_ops.cast(is_first, DstT=_dtypes.int32), _c(np.int32(1))),
                              _c(np.int32(1)))
        idx = gen_ops.gather_v2(rank_of, first, _c(np.int32(1)), batch_dims=1)
        shape = gen_ops.cast(gen_ops.shape(labels), DstT=_dtypes.int64)
        unique = gen_ops.scatter_nd(stack([_rows(coords), rank], axis=1),
                                    gen_ops.cast(gen_ops.gather_nd(labels, coords), DstT=_dtypes.int64), shape)
        return unique, idx


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """([decoded], neg_sum_logits): best-path CTC decoding of ``inputs`` [max_time, batch,
    num_classes] (logits): per step the most likely class (the first on ties), repeats merged when
    ``merge_repeated``, blanks (``blank_index``, default num_classes - 1, negative counts from the
    end) dropped; ``decoded`` is an int64 SparseTensor [batch, longest], ``neg_sum_logits``
    [batch, 1] the negated sum of the chosen logits.

    >>> logits = np.log([[[0.1, 0.6, 0.3]], [[0.2, 0.7, 0.1]], [[0.1, 0.1, 0.8]], [[0.9, 0.05, 0.05]]])
    >>> (d,), s = tx.nn.ctc_greedy_decoder(logits.astype(np.float32), [4])
    >>> tx.sparse.to_dense(d).numpy().tolist()
    [[1, 0]]
    """
    with name_scope("CTCGreedyDecoder"):
        inputs = _tensor(inputs, name="inputs")
        seq = _tensor(sequence_length, dtype=_dtypes.int32, name="sequence_length")
        if inputs.shape.rank is not None and inputs.shape.rank != 3:
            raise ValueError("ctc_greedy_decoder: inputs must be [max_time, batch, num_classes], got shape %s"
                             % inputs.shape)
        num_classes = inputs.shape[2]
        if blank_index is None or (num_classes is not None and blank_index in (-1, num_classes - 1)):
            moved = None
        else:
            if num_classes is None:
                raise ValueError("ctc_greedy_decoder: a blank_index other than -1 needs a known num_classes")
            moved = blank_index + num_classes if blank_index < 0 else blank_index
            if not 0 <= moved < num_classes:
                raise ValueError("ctc_greedy_decoder: blank_index %d is out of range for %d classes"
                                 % (blank_index, num_classes))
            # Move the blank class last, as TensorFlow's wrapper does; classes after it shift down.
            inputs = concat([inputs[:, :, :moved], inputs[:, :, moved + 1:], inputs[:, :, moved:moved + 1]], 2)
        max_time = _dim(inputs, 0)
        blank = gen_ops.cast(gen_ops.sub(_dim(inputs, 2), _c(np.int32(1))), DstT=_dtypes.int64)
        cls = gen_ops.transpose(gen_ops.arg_max(inputs, _c(np.int32(2)), output_type=_dtypes.int64), _c([1, 0]))
        best = gen_ops.transpose(gen_ops.max(inputs, _c(np.int32(2))), _c([1, 0]))  # [batch, max_time]
        seq = _checked_lengths(seq, max_time)
        valid = sequence_mask(seq, max_time)
        neg_sum = gen_ops.neg(gen_ops.sum(gen_ops.select_v2(valid, best, gen_ops.zeros_like(best)), _c(np.int32(1)),
                                          keep_dims=True))
        prev = concat([gen_ops.fill(gen_ops.pack([_dim(cls, 0), _c(np.int32(1))]), _c(np.int64(-1))), cls[:, :-1]], 1)
        keep = gen_ops.logical_and(valid, gen_ops.not_equal(cls, blank))
        if merge_repeated:
            keep = gen_ops.logical_and(keep, gen_ops.not_equal(cls, prev))
        coords, rank = _positions(keep)
        values = gen_ops.gather_nd(cls, coords)
        if moved is not None:
            values = gen_ops.select_v2(gen_ops.greater_equal(values, _c(np.int64(moved))),
                                       gen_ops.add_v2(values, _c(np.int64(1))), values)
        longest = gen_ops.max(gen_ops.sum(gen_ops.cast(keep, DstT=_dtypes.int64), _c(np.int32(1))), _c(np.int32(0)))
        dense_shape = gen_ops.pack([gen_ops.cast(_dim(cls, 0), DstT=_dtypes.int64), longest])
        decoded = SparseTensor(stack([_rows(coords), rank], axis=1), values, dense_shape)
        return [decoded], neg_sum


def _checked_lengths(seq, max_time):
    """``seq``, checked to be at most max_time (InvalidArgumentError as TensorFlow's
    CTCGreedyDecoder: eagerly at once, in a graph when it runs)."""
    too_long = gen_ops.any(gen_ops.greater(seq, max_time), _c(np.int32(0)))
    message = "sequence_length(b) <= max_time"
    if _context.executing_eagerly():
        if bool(too_long.numpy()):
            raise _errors.InvalidArgumentError(None, None, "%s: sequence_length %s, max_time %d"
                                               % (message, seq.numpy().tolist(), int(max_time.numpy())))
        return seq
    with control_dependencies([Assert(gen_ops.logical_not(too_long), [message, seq, max_time])]):
        return gen_ops.identity(seq)

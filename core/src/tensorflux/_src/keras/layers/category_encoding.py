"""CategoryEncoding, and what the categorical layers share: encoding integer ids as one_hot /
multi_hot / count rows (`encode_ids`) and reading `adapt` data (`raw_batches`, `document_rows`)."""

import numpy as np

from tensorflux._src import math_ops
from tensorflux._src.check_ops import assert_less
from tensorflux._src.constant_op import constant
from tensorflux._src.gather_ops import one_hot
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import serialization
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.core import base_config
from tensorflux._src.graph import control_dependencies


def encode_ids(ids, depth, output_mode, dtype, rows=None, nrows=None, count_weights=None):
    """The "one_hot", "multi_hot" or "count" encoding of int ``ids`` over ``depth`` indices, as
    Keras's TensorFlow backend gives it: one_hot adds an axis (replacing a last axis of 1);
    multi_hot/count reduce the last axis (a 1-D input is one sample), or, for split text, the
    flat ``ids`` of ``rows`` in [0, ``nrows``). Ids outside [0, depth) count nowhere (a dropped
    mask token). ``count_weights`` (same shape as ids) are summed in place of ones."""
    ids = math_ops.cast(ids, "int64")
    if output_mode == "one_hot":
        if ids.shape.rank is not None and ids.shape.rank > 1 and ids.shape.as_list()[-1] == 1:
            ids = gen_ops.squeeze(ids, [-1])
        return one_hot(ids, depth, dtype=dtype)
    if rows is None:
        if ids.shape.rank == 0:
            ids = gen_ops.reshape(ids, [1])
        flat = gen_ops.reshape(ids, [-1])
        if ids.shape.rank == 1:
            rows, nrows, out_shape = gen_ops.zeros_like(flat), constant(1, dtype="int64"), [depth]
        else:
            lead = math_ops.cast(gen_ops.shape(ids), "int64")[:-1]
            width = gen_ops.maximum(math_ops.cast(gen_ops.shape(ids), "int64")[-1], constant(1, dtype="int64"))
            rows = gen_ops.floor_div(gen_ops.range(constant(0, dtype="int64"), gen_ops.size(flat, out_type="int64"),
                                                   constant(1, dtype="int64")), width)
            nrows = gen_ops.prod(lead, [0])
            out_shape = constant([-1, depth], dtype="int64") if ids.shape.rank == 2 else \
                gen_ops.concat_v2([lead, constant([depth], dtype="int64")], 0)
    else:
        flat, out_shape = ids, constant([-1, depth], dtype="int64")
        rows = math_ops.cast(rows, "int64")
    depth_t = constant(depth, dtype="int64")
    valid = gen_ops.logical_and(gen_ops.greater_equal(flat, constant(0, dtype="int64")), gen_ops.less(flat, depth_t))
    segment = gen_ops.select_v2(valid, rows * depth_t + flat, gen_ops.zeros_like(flat))
    if count_weights is not None:
        weights = gen_ops.reshape(count_weights, [-1])
        dtype = weights.dtype
    else:
        weights = gen_ops.ones_like(flat)
    weights = gen_ops.select_v2(valid, math_ops.cast(weights, dtype), gen_ops.zeros_like(math_ops.cast(weights,
                                                                                                     dtype)))
    counts = gen_ops.unsorted_segment_sum(weights, segment, math_ops.cast(nrows, "int64") * depth_t)
    counts = gen_ops.reshape(counts, out_shape)
    if output_mode == "multi_hot":
        counts = gen_ops.minimum(counts, gen_ops.ones_like(counts))
    return counts


@serialization.register("layers")
class CategoryEncoding(Layer):
    """Integer ids in [0, num_tokens) as "one_hot", "multi_hot" or "count" vectors (the last axis
    is a sample's ids; a 1-D input is one sample for multi_hot and count, as in Keras).

    >>> tx.keras.layers.CategoryEncoding(4, output_mode="multi_hot")(tx.constant([[0, 2], [3, 3]])).numpy()
    array([[1., 0., 1., 0.],
           [0., 0., 0., 1.]], dtype=float32)
    """

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode not in ("one_hot", "multi_hot", "count"):
            raise ValueError("Unknown arg for output_mode: %r (one_hot, multi_hot or count)" % (output_mode,))
        if num_tokens is None or num_tokens < 1:
            raise ValueError("num_tokens must be a positive integer, got %r" % (num_tokens,))
        if sparse:
            raise NotImplementedError("CategoryEncoding(sparse=True) is not supported by tx.keras")
        self.num_tokens, self.output_mode, self.sparse = int(num_tokens), output_mode, sparse
        self.autocast = False

    def call(self, inputs, count_weights=None):
        ids = math_ops.cast(inputs, "int64")
        check = assert_less(ids, constant(self.num_tokens, dtype="int64"),
                            message="CategoryEncoding: input values must be in the range 0 <= values < num_tokens "
                                    "(%d)" % self.num_tokens)
        with control_dependencies([check] if check is not None else []):
            ids = gen_ops.identity(ids)
        return encode_ids(ids, self.num_tokens, self.output_mode, self.compute_dtype, count_weights=count_weights)

    def get_config(self):
        return base_config(self, {"num_tokens": self.num_tokens, "output_mode": self.output_mode, "sparse": False})


def _array(batch):
    return np.asarray(batch.numpy() if hasattr(batch, "numpy") else batch)


def raw_batches(data, steps=None):
    """(array, whole) pairs of `adapt` data: ``data`` itself when it is an array, list or tensor
    (``whole``), else each batch of an iterable (a ``(x, ...)`` tuple gives x), up to ``steps``."""
    if isinstance(data, (np.ndarray, list, tuple)) or hasattr(data, "numpy") or hasattr(data, "__array__"):
        yield _array(data), True
        return
    for i, batch in enumerate(data):
        if steps is not None and i >= steps:
            break
        if isinstance(batch, tuple):
            batch = batch[0]
        yield _array(batch), False


def document_rows(array, whole):
    """The documents (lists of values) of one `adapt` batch, as Keras counts them: the rows of a
    2-D (or higher) array; each element of a whole 1-D array; a batch's 1-D array is one."""
    if array.ndim == 0:
        return [[array.item()]]
    if array.ndim == 1:
        return [[v] for v in array.tolist()] if whole else [array.tolist()]
    return [list(r) for r in array.reshape(array.shape[0], -1).tolist()]


def preprocessing_batches(data, steps=None):
    """The documents of each batch of `adapt` data (`raw_batches` then `document_rows`)."""
    for array, whole in raw_batches(data, steps):
        yield document_rows(array, whole)

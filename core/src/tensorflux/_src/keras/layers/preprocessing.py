"""Preprocessing layers: Rescaling, Normalization (with `adapt`), CategoryEncoding and
IntegerLookup (with `adapt`).

Note [Lookup without the string dtype]
IntegerLookup looks values up with the engine's ops: the vocabulary is kept sorted with each
entry's index, a value is found by binary search (LowerBound) and compared, and a miss maps to
the out-of-vocabulary index. StringLookup, TextVectorization and Hashing need the string dtype
(and Hashing TensorFlow's FarmHash fingerprint of a value's string form), which is not here yet:
the vocabulary handling below is written over plain Python values so StringLookup can reuse it
once strings have a lookup op.
"""

import collections

import numpy as np

from tensorflux._src import math_ops, reduce_ops
from tensorflux._src.array_ext import searchsorted
from tensorflux._src.check_ops import assert_less
from tensorflux._src.constant_op import constant
from tensorflux._src.gather_ops import one_hot
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import serialization
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.core import base_config

_EPSILON = 1e-7


def _batches(data):
    """The arrays of ``data`` for `adapt`: an array, or an iterable of batches (``(x, ...)`` tuples
    keep their first entry)."""
    if isinstance(data, (np.ndarray, list)) or hasattr(data, "numpy") or hasattr(data, "__array__"):
        yield np.asarray(data.numpy() if hasattr(data, "numpy") else data)
        return
    for batch in data:
        if isinstance(batch, tuple):
            batch = batch[0]
        yield np.asarray(batch.numpy() if hasattr(batch, "numpy") else batch)


@serialization.register("layers")
class Rescaling(Layer):
    """``inputs * scale + offset`` (e.g. ``Rescaling(1 / 255)`` for pixel values).

    >>> tx.keras.layers.Rescaling(0.5, offset=1.0)(tx.constant([2.0])).numpy()
    array([2.], dtype=float32)
    """

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset
        self.supports_masking = True

    def call(self, inputs):
        dt = inputs.dtype if inputs.dtype.is_floating else self.compute_dtype
        x = math_ops.cast(inputs, dt)
        return x * math_ops.cast(self.scale, dt) + math_ops.cast(self.offset, dt)

    def get_config(self):
        return base_config(self, {"scale": self.scale, "offset": self.offset})


@serialization.register("layers")
class Normalization(Layer):
    """(x - mean) / sqrt(variance) per feature along ``axis``, with the statistics given or learned
    from data by `adapt` (``invert=True`` maps back).

    >>> norm = tx.keras.layers.Normalization()
    >>> norm.adapt(np.array([[0.0], [2.0]], np.float32))
    >>> norm(tx.constant([[2.0]])).numpy()
    array([[1.]], dtype=float32)
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis) if axis is not None else ()
        if (mean is None) != (variance is None):
            raise ValueError("When setting values directly, both `mean` and `variance` must be set. Received: "
                             "mean=%r and variance=%r" % (mean, variance))
        self.input_mean, self.input_variance, self.invert = mean, variance, invert
        self.supports_masking = True

    def build(self, input_shape):
        ndim = len(input_shape)
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError("All `axis` values must be in the range [-ndim, ndim). Received inputs with ndim=%d, "
                             "while axis=%s" % (ndim, self.axis))
        self._keep = tuple(sorted(a % ndim for a in self.axis))
        for d in self._keep:
            if input_shape[d] is None:
                raise ValueError("All `axis` values to be kept must have a known shape. Received axis=%s, "
                                 "inputs.shape=%s" % (self.axis, tuple(input_shape)))
        self._reduce = tuple(d for d in range(ndim) if d not in self._keep)
        self._broadcast = [input_shape[d] if d in self._keep else 1 for d in range(ndim)]
        shape = tuple(input_shape[d] for d in self._keep)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(name="mean", shape=shape, initializer="zeros", trainable=False)
            self.adapt_variance = self.add_weight(name="variance", shape=shape, initializer="ones", trainable=False)
            self.count = self.add_weight(name="count", shape=(), dtype="int64", initializer="zeros", trainable=False)
        self.built = True

    def adapt(self, data, batch_size=None, steps=None):
        """Sets the mean and variance to those of ``data`` (an array, or an iterable of batches)
        over every axis but ``axis``."""
        total, total_sq, n = None, None, 0
        for i, batch in enumerate(_batches(data)):
            if steps is not None and i >= steps:
                break
            batch = batch.astype(np.float64)
            if not self.built:
                self.build((None,) + batch.shape[1:])
            axes = self._reduce
            s, sq = batch.sum(axis=axes), (batch * batch).sum(axis=axes)
            count = int(np.prod([batch.shape[a] for a in axes])) if axes else 1
            total = s if total is None else total + s
            total_sq = sq if total_sq is None else total_sq + sq
            n += count
        if n == 0:
            raise ValueError("Normalization.adapt: the data is empty")
        mean = total / n
        variance = np.maximum(total_sq / n - mean * mean, 0.0)
        self.adapt_mean.assign(mean.reshape(self.adapt_mean.shape.as_list()).astype(np.float32), read_value=False)
        self.adapt_variance.assign(variance.reshape(self.adapt_variance.shape.as_list()).astype(np.float32),
                                   read_value=False)
        self.count.assign(np.int64(n), read_value=False)

    def _stats(self, dtype):
        if self.input_mean is not None:
            mean = gen_ops.broadcast_to(constant(np.asarray(self.input_mean, np.float64)), self._broadcast)
            var = gen_ops.broadcast_to(constant(np.asarray(self.input_variance, np.float64)), self._broadcast)
            return math_ops.cast(mean, dtype), math_ops.cast(var, dtype)
        return (math_ops.cast(gen_ops.reshape(self.adapt_mean.value(), self._broadcast), dtype),
                math_ops.cast(gen_ops.reshape(self.adapt_variance.value(), self._broadcast), dtype))

    def call(self, inputs):
        x = math_ops.cast(inputs, self.compute_dtype)
        mean, variance = self._stats(x.dtype)
        std = gen_ops.maximum(gen_ops.sqrt(variance), math_ops.cast(_EPSILON, x.dtype))
        return mean + x * std if self.invert else (x - mean) / std

    def get_config(self):
        axis = self.axis[0] if len(self.axis) == 1 else list(self.axis)
        return base_config(self, {"axis": axis, "invert": self.invert,
                                  "mean": np.array(self.input_mean).tolist() if self.input_mean is not None else None,
                                  "variance": np.array(self.input_variance).tolist()
                                  if self.input_variance is not None else None})


def _encode(ids, num_tokens, output_mode, count_weights=None):
    """One-hot / multi-hot / count rows of integer ``ids`` over ``num_tokens`` (ids must be in
    [0, num_tokens): an InvalidArgumentError otherwise)."""
    ids = math_ops.cast(ids, "int64")
    check = assert_less(ids, constant(num_tokens, dtype="int64"),
                        message="CategoryEncoding: input values must be in the range 0 <= values < num_tokens "
                                "(%d)" % num_tokens)
    from tensorflux._src.graph import control_dependencies
    with control_dependencies([check] if check is not None else []):
        ids = gen_ops.identity(ids)
    if output_mode == "one_hot":
        if ids.shape.rank is not None and ids.shape.rank > 1 and ids.shape.as_list()[-1] == 1:
            ids = gen_ops.squeeze(ids, [-1])
        return one_hot(ids, num_tokens, dtype="float32")
    if ids.shape.rank == 1:
        ids = gen_ops.expand_dims(ids, -1)
    hot = one_hot(ids, num_tokens, dtype="float32")
    if output_mode == "multi_hot":
        return reduce_ops.reduce_max(hot, axis=-2)
    if count_weights is not None:
        hot = hot * gen_ops.expand_dims(math_ops.cast(count_weights, "float32"), -1)
    return math_ops.reduce_sum(hot, axis=-2)


@serialization.register("layers")
class CategoryEncoding(Layer):
    """Integer ids in [0, num_tokens) as "one_hot", "multi_hot" or "count" vectors.

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
        return _encode(inputs, self.num_tokens, self.output_mode, count_weights)

    def get_config(self):
        return base_config(self, {"num_tokens": self.num_tokens, "output_mode": self.output_mode, "sparse": False})


def vocabulary_from_counts(counter, max_size):
    """The most frequent values first (ties: the larger value first, as Keras orders them), at most
    ``max_size`` of them."""
    items = sorted(counter.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    if max_size is not None and max_size > 0:
        items = items[:max_size]
    return [v for v, _ in items]


@serialization.register("layers")
class IntegerLookup(Layer):
    """Maps integer values to contiguous indices: the ``mask_token`` (when set) to 0, values outside
    the vocabulary to the OOV index, vocabulary entries after those (``invert=True`` maps back);
    the vocabulary is given or learned by `adapt` (most frequent first). Note [Lookup without
    the string dtype].

    >>> lookup = tx.keras.layers.IntegerLookup(vocabulary=[12, 36, 1138, 42])
    >>> lookup(tx.constant([[12, 1138, 42], [42, 1000, 36]])).numpy()
    array([[1, 3, 4],
           [4, 0, 2]])
    """

    _KERAS_DEFAULTS = {"sparse": False, "pad_to_max_tokens": False, "idf_weights": None}

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1, vocabulary=None,
                 vocabulary_dtype="int64", idf_weights=None, invert=False, output_mode="int", sparse=False,
                 pad_to_max_tokens=False, **kwargs):
        super().__init__(**kwargs)
        if num_oov_indices != 1:
            raise NotImplementedError("IntegerLookup(num_oov_indices=%r): tx.keras supports one OOV index"
                                      % (num_oov_indices,))
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise NotImplementedError("IntegerLookup(output_mode=%r) is not supported by tx.keras (int, one_hot, "
                                      "multi_hot, count)" % (output_mode,))
        if sparse or pad_to_max_tokens or idf_weights is not None:
            raise NotImplementedError("IntegerLookup(sparse/pad_to_max_tokens/idf_weights) is not supported")
        self.max_tokens, self.num_oov_indices = max_tokens, num_oov_indices
        self.mask_token, self.oov_token = mask_token, oov_token
        self.vocabulary_dtype, self.invert, self.output_mode = vocabulary_dtype, invert, output_mode
        self.autocast = False
        self._vocabulary = None
        if vocabulary is not None:
            self.set_vocabulary(vocabulary)

    @property
    def _offset(self):
        return (1 if self.mask_token is not None else 0) + self.num_oov_indices

    def set_vocabulary(self, vocabulary):
        """Sets the vocabulary (a list of distinct integers, without the mask and OOV tokens)."""
        vocab = [int(v) for v in np.asarray(vocabulary).reshape(-1)]
        if len(set(vocab)) != len(vocab):
            dupes = sorted(v for v, c in collections.Counter(vocab).items() if c > 1)
            raise ValueError("The passed vocabulary has at least one repeated term: %s" % dupes)
        specials = [t for t in (self.mask_token, self.oov_token) if t is not None]
        if any(v in specials for v in vocab):
            raise ValueError("The vocabulary must not contain the mask or OOV tokens %s" % specials)
        if self.max_tokens is not None and len(vocab) + self._offset > self.max_tokens:
            raise ValueError("Attempted to set a vocabulary larger than the maximum vocab size. Received "
                             "vocabulary size is %d; `max_tokens` is %d." % (len(vocab) + self._offset,
                                                                            self.max_tokens))
        self._vocabulary = vocab

    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary in index order (with the mask and OOV tokens first by default)."""
        vocab = list(self._vocabulary or [])
        if not include_special_tokens:
            return vocab
        return ([self.mask_token] if self.mask_token is not None else []) + [self.oov_token] + vocab

    def vocabulary_size(self):
        return len(self.get_vocabulary())

    def adapt(self, data, batch_size=None, steps=None):
        """Learns the vocabulary from ``data`` (most frequent values first, up to max_tokens)."""
        counter = collections.Counter()
        for i, batch in enumerate(_batches(data)):
            if steps is not None and i >= steps:
                break
            values = [int(v) for v in batch.reshape(-1)]
            counter.update(v for v in values if v != self.mask_token and v != self.oov_token)
        limit = None if self.max_tokens is None else self.max_tokens - self._offset
        self.set_vocabulary(vocabulary_from_counts(counter, limit))

    def call(self, inputs):
        if self._vocabulary is None:
            raise ValueError("IntegerLookup %s has no vocabulary: pass vocabulary= or call adapt() first" % self.name)
        x = math_ops.cast(inputs, "int64")
        if self.invert:
            table = constant(np.asarray(self.get_vocabulary(), np.int64))
            return gen_ops.gather_v2(table, x, 0)
        vocab = np.asarray(self._vocabulary, np.int64)
        order = np.argsort(vocab, kind="stable")
        keys = constant(vocab[order] if len(vocab) else np.zeros([1], np.int64))
        values = constant((order + self._offset).astype(np.int64) if len(vocab) else np.zeros([1], np.int64))
        flat = gen_ops.reshape(x, [-1])
        pos = math_ops.cast(searchsorted(keys, flat, side="left"), "int64")
        pos = gen_ops.minimum(pos, constant(max(len(vocab) - 1, 0), dtype="int64"))
        found = gen_ops.equal(gen_ops.gather_v2(keys, pos, 0), flat)
        if not len(vocab):
            found = gen_ops.logical_and(found, constant(False))
        oov = constant(self._offset - 1, dtype="int64")
        idx = gen_ops.select_v2(found, gen_ops.gather_v2(values, pos, 0), gen_ops.fill(gen_ops.shape(flat), oov))
        if self.mask_token is not None:
            idx = gen_ops.select_v2(gen_ops.equal(flat, constant(self.mask_token, dtype="int64")),
                                    gen_ops.zeros_like(idx), idx)
        idx = gen_ops.reshape(idx, gen_ops.shape(x))
        if self.output_mode == "int":
            return idx
        return _encode(idx, self.vocabulary_size(), self.output_mode)

    def compute_mask(self, inputs, previous_mask=None):
        if self.mask_token is None or self.output_mode != "int":
            return None
        return gen_ops.not_equal(inputs, math_ops.cast(self.mask_token, inputs.dtype))

    def get_config(self):
        return base_config(self, {
            "max_tokens": self.max_tokens, "num_oov_indices": self.num_oov_indices, "mask_token": self.mask_token,
            "oov_token": self.oov_token, "vocabulary": list(self._vocabulary) if self._vocabulary is not None
            else None, "vocabulary_dtype": self.vocabulary_dtype, "invert": self.invert,
            "output_mode": self.output_mode})


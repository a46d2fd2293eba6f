"""Preprocessing layers: Rescaling and Normalization (with `adapt`); the categorical ones are in
category_encoding.py, index_lookup.py, lookup.py, hashing.py and text_vectorization.py.
"""

import numpy as np

from tensorflux._src import math_ops
from tensorflux._src.constant_op import constant
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import serialization
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.category_encoding import raw_batches
from tensorflux._src.keras.layers.core import base_config

_EPSILON = 1e-7


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
        for batch, _ in raw_batches(data, steps):
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

"""Reshaping layers: Flatten, Reshape, Permute, RepeatVector, UpSampling1D/2D/3D (nearest),
ZeroPadding1D/2D/3D, Cropping1D/2D/3D."""

import numpy as np

from tensorflux._src.array_ext import repeat
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import serialization
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.core import base_config
from tensorflux._src import context as _context
from tensorflux._src.image_resize import resize

# The interpolations of Keras's Resizing and UpSampling2D layers.
INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


def normalize_data_format(value):
    value = (value or "channels_last").lower()
    if value not in ("channels_last", "channels_first"):
        raise ValueError("data_format must be 'channels_last' or 'channels_first', got %r" % (value,))
    return value


def normalize_tuple(value, n, name):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) != n or not all(isinstance(v, (int, np.integer)) for v in value):
        raise ValueError("The `%s` argument must be a tuple of %d integers. Received: %r" % (name, n, value))
    return tuple(int(v) for v in value)


def _to_last(x, data_format):
    """channels_first input as channels_last (and the inverse permutation), or x unchanged."""
    if data_format == "channels_last":
        return x, None
    rank = x.shape.rank
    perm = [0] + list(range(2, rank)) + [1]
    inverse = [0, rank - 1] + list(range(1, rank - 1))
    return gen_ops.transpose(x, perm), inverse


def _back(x, inverse):
    return x if inverse is None else gen_ops.transpose(x, inverse)


@serialization.register("layers")
class Flatten(Layer):
    """Flattens every axis but the batch one.

    >>> tx.keras.layers.Flatten()(tx.ones([2, 3, 4])).shape
    TensorShape([2, 12])
    """

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs):
        if self.data_format == "channels_first" and inputs.shape.rank and inputs.shape.rank > 2:
            inputs = gen_ops.transpose(inputs, [0] + list(range(2, inputs.shape.rank)) + [1])
        rest = inputs.shape.as_list()[1:] if inputs.shape.rank is not None else None
        if rest is not None and all(d is not None for d in rest):
            return gen_ops.reshape(inputs, [-1, int(np.prod(rest))])
        return gen_ops.reshape(inputs, gen_ops.pack([gen_ops.shape(inputs)[0], -1], axis=0))

    def get_config(self):
        return base_config(self, {"data_format": self.data_format})


@serialization.register("layers")
class Reshape(Layer):
    """Reshapes the non-batch axes to ``target_shape`` (one entry may be -1)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)
        if sum(1 for d in self.target_shape if d == -1) > 1:
            raise ValueError("Reshape: only one dimension of target_shape may be -1, got %s" % (self.target_shape,))

    def call(self, inputs):
        if -1 in self.target_shape:
            return gen_ops.reshape(inputs, gen_ops.concat_v2([gen_ops.shape(inputs)[:1],
                                                              list(self.target_shape)], 0))
        return gen_ops.reshape(inputs, [-1] + list(self.target_shape))

    def get_config(self):
        return base_config(self, {"target_shape": list(self.target_shape)})


@serialization.register("layers")
class Permute(Layer):
    """Permutes the non-batch axes: ``dims`` are 1-based, as in Keras."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError("Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` "
                             "must be consecutive and start from 1. Received dims=%s" % (self.dims,))

    def call(self, inputs):
        return gen_ops.transpose(inputs, [0] + list(self.dims))

    def get_config(self):
        return base_config(self, {"dims": list(self.dims)})


@serialization.register("layers")
class RepeatVector(Layer):
    """[batch, features] -> [batch, n, features]."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = int(n)

    def call(self, inputs):
        return gen_ops.tile(gen_ops.expand_dims(inputs, 1), [1, self.n, 1])

    def get_config(self):
        return base_config(self, {"n": self.n})


class _UpSampling(Layer):
    _RANK = None

    def __init__(self, size=2, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.size = normalize_tuple(size, self._RANK, "size")
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs):
        x, inverse = _to_last(inputs, self.data_format)
        for axis, s in enumerate(self.size, start=1):
            if s != 1:
                x = repeat(x, s, axis=axis)
        return _back(x, inverse)

    def get_config(self):
        return base_config(self, {"size": list(self.size), "data_format": self.data_format})


@serialization.register("layers")
class UpSampling1D(_UpSampling):
    """Repeats each timestep ``size`` times."""
    _RANK = 1

    def __init__(self, size=2, **kwargs):
        super().__init__(size=size, **kwargs)

    def get_config(self):
        return base_config(self, {"size": self.size[0]})


@serialization.register("layers")
class UpSampling2D(_UpSampling):
    """Repeats rows and columns ``size`` times (``interpolation="nearest"``), or resizes the
    images by ``size`` with another of Resizing's interpolations ("bilinear", ...), as Keras does.

    >>> tx.keras.layers.UpSampling2D(2)(tx.ones([1, 2, 3, 1])).shape
    TensorShape([1, 4, 6, 1])
    """
    _RANK = 2

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(size=size, data_format=data_format, **kwargs)
        if interpolation not in INTERPOLATIONS:
            raise ValueError("Invalid value for argument `interpolation`. Expected of one %s. Received: "
                             "interpolation=%s" % (INTERPOLATIONS, interpolation))
        self.interpolation = interpolation

    def call(self, inputs):
        if self.interpolation == "nearest":
            return super().call(inputs)
        x, inverse = _to_last(inputs, self.data_format)
        shape = gen_ops.shape(x)
        size = gen_ops.pack([shape[1] * self.size[0], shape[2] * self.size[1]])
        out = resize(x, size, method=self.interpolation)
        if not _context.executing_eagerly():  # a graph tensor: h * f, w * f when known
            b, h, w, c = x.shape.as_list()
            out.set_shape([b, None if h is None else h * self.size[0], None if w is None else w * self.size[1], c])
        return _back(out, inverse)

    def get_config(self):
        return dict(super().get_config(), interpolation=self.interpolation)


@serialization.register("layers")
class UpSampling3D(_UpSampling):
    """Repeats each spatial axis ``size`` times."""
    _RANK = 3


def _pairs(padding, n, name):
    """((before, after),) * n from an int, n ints, or n pairs."""
    if isinstance(padding, int):
        return ((padding, padding),) * n
    padding = tuple(padding)
    if len(padding) != n:
        raise ValueError("`%s` should have %d entries, got %r" % (name, n, padding))
    out = []
    for p in padding:
        if isinstance(p, int):
            out.append((p, p))
        else:
            p = tuple(p)
            if len(p) != 2:
                raise ValueError("`%s` entries are ints or (before, after) pairs, got %r" % (name, p))
            out.append((int(p[0]), int(p[1])))
    return tuple(out)


class _ZeroPadding(Layer):
    _RANK = None

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, self._RANK, "padding")
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs):
        spatial = [list(p) for p in self.padding]
        pads = [[0, 0]] + spatial + [[0, 0]] if self.data_format == "channels_last" else [[0, 0], [0, 0]] + spatial
        return gen_ops.pad(inputs, pads)

    def get_config(self):
        return base_config(self, {"padding": [list(p) for p in self.padding], "data_format": self.data_format})


@serialization.register("layers")
class ZeroPadding1D(_ZeroPadding):
    """Pads the time axis with zeros."""
    _RANK = 1

    def __init__(self, padding=1, data_format=None, **kwargs):
        if not isinstance(padding, int) and len(tuple(padding)) == 2 and all(isinstance(p, int) for p in padding):
            padding = (tuple(padding),)
        super().__init__(padding=padding, data_format=data_format, **kwargs)

    def get_config(self):
        return base_config(self, {"padding": list(self.padding[0]), "data_format": self.data_format})


@serialization.register("layers")
class ZeroPadding2D(_ZeroPadding):
    """Pads rows and columns with zeros: ``padding`` an int, (rows, cols) or ((top, bottom), (left, right))."""
    _RANK = 2

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(padding=padding, data_format=data_format, **kwargs)


@serialization.register("layers")
class ZeroPadding3D(_ZeroPadding):
    """Pads the three spatial axes with zeros."""
    _RANK = 3

    def __init__(self, padding=(1, 1, 1), data_format=None, **kwargs):
        super().__init__(padding=padding, data_format=data_format, **kwargs)


class _Cropping(Layer):
    _RANK = None

    def __init__(self, cropping, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, self._RANK, "cropping")
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs):
        x, inverse = _to_last(inputs, self.data_format)
        shape = x.shape.as_list()
        for i, (a, b) in enumerate(self.cropping, start=1):
            if shape[i] is not None and a + b >= shape[i]:
                raise ValueError("Layer %s: cropping %s leaves nothing of axis %d of size %d"
                                 % (self.name, (a, b), i, shape[i]))
        index = tuple([slice(None)] + [slice(a, -b if b else None) for a, b in self.cropping] + [slice(None)])
        return _back(x[index], inverse)

    def get_config(self):
        return base_config(self, {"cropping": [list(p) for p in self.cropping], "data_format": self.data_format})


@serialization.register("layers")
class Cropping1D(_Cropping):
    """Crops the time axis: ``cropping`` = (start, end)."""
    _RANK = 1

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(cropping=(tuple(cropping),) if not isinstance(cropping, int) else cropping, **kwargs)

    def get_config(self):
        return base_config(self, {"cropping": list(self.cropping[0])})


@serialization.register("layers")
class Cropping2D(_Cropping):
    """Crops rows and columns: ``cropping`` an int, (rows, cols) or ((top, bottom), (left, right))."""
    _RANK = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(cropping=cropping, data_format=data_format, **kwargs)


@serialization.register("layers")
class Cropping3D(_Cropping):
    """Crops the three spatial axes."""
    _RANK = 3

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(cropping=cropping, data_format=data_format, **kwargs)

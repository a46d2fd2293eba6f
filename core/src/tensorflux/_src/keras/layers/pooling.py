"""Pooling layers: Max/AveragePooling1D/2D/3D and GlobalMax/GlobalAveragePooling1D/2D/3D."""

from tensorflux._src import math_ops, nn_conv_ops, reduce_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import serialization
from tensorflux._src.keras.input_spec import InputSpec
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.core import base_config
from tensorflux._src.keras.layers.reshaping import _back, _to_last, normalize_data_format, normalize_tuple


class _Pooling(Layer):
    _RANK = None
    _KIND = None

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.pool_size = normalize_tuple(pool_size, self._RANK, "pool_size")
        self.strides = normalize_tuple(strides if strides is not None else self.pool_size, self._RANK, "strides")
        self.padding = padding.lower()
        if self.padding not in ("valid", "same"):
            raise ValueError("Invalid padding %r for %s (valid or same)" % (padding, type(self).__name__))
        self.data_format = normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=self._RANK + 2)

    def call(self, inputs):
        x, inverse = _to_last(inputs, self.data_format)
        fn = {("max", 1): nn_conv_ops.max_pool1d, ("max", 2): nn_conv_ops.max_pool2d,
              ("max", 3): nn_conv_ops.max_pool3d, ("avg", 1): nn_conv_ops.avg_pool1d,
              ("avg", 2): nn_conv_ops.avg_pool2d, ("avg", 3): nn_conv_ops.avg_pool3d}[(self._KIND, self._RANK)]
        y = fn(x, list(self.pool_size), list(self.strides), self.padding.upper())
        return _back(y, inverse)

    def get_config(self):
        return base_config(self, {"pool_size": list(self.pool_size), "padding": self.padding,
                                  "strides": list(self.strides), "data_format": self.data_format})


def _pool_class(name, kind, rank, doc):
    cls = type(name, (_Pooling,), {"_RANK": rank, "_KIND": kind, "__doc__": doc, "__module__": __name__})
    return serialization.register("layers")(cls)


MaxPooling1D = _pool_class("MaxPooling1D", "max", 1, "Maximum over windows of ``pool_size`` steps.")
MaxPooling2D = _pool_class("MaxPooling2D", "max", 2, """Maximum over ``pool_size`` windows of rows and columns.

    >>> tx.keras.layers.MaxPooling2D()(tx.ones([1, 4, 4, 3])).shape
    TensorShape([1, 2, 2, 3])
    """)
MaxPooling3D = _pool_class("MaxPooling3D", "max", 3, "Maximum over 3-D windows.")
AveragePooling1D = _pool_class("AveragePooling1D", "avg", 1, "Mean over windows of ``pool_size`` steps.")
AveragePooling2D = _pool_class("AveragePooling2D", "avg", 2, "Mean over ``pool_size`` windows of rows and columns.")
AveragePooling3D = _pool_class("AveragePooling3D", "avg", 3, "Mean over 3-D windows.")


class _GlobalPooling(Layer):
    _RANK = None
    _KIND = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=self._RANK + 2)
        self.supports_masking = self._RANK == 1

    def call(self, inputs, mask=None):
        axes = list(range(1, self._RANK + 1)) if self.data_format == "channels_last" else \
            list(range(2, self._RANK + 2))
        if self._KIND == "max":
            return reduce_ops.reduce_max(inputs, axis=axes, keepdims=self.keepdims)
        if mask is not None and self._RANK == 1:
            m = math_ops.cast(mask, inputs.dtype)
            m = gen_ops.expand_dims(m, -1 if self.data_format == "channels_last" else 1)
            total = math_ops.reduce_sum(inputs * m, axis=axes, keepdims=self.keepdims)
            return total / math_ops.reduce_sum(m, axis=axes, keepdims=self.keepdims)
        return math_ops.reduce_mean(inputs, axis=axes, keepdims=self.keepdims)

    def compute_mask(self, inputs, previous_mask=None):
        return None

    def get_config(self):
        return base_config(self, {"data_format": self.data_format, "keepdims": self.keepdims})


def _global_class(name, kind, rank, doc):
    cls = type(name, (_GlobalPooling,), {"_RANK": rank, "_KIND": kind, "__doc__": doc, "__module__": __name__})
    return serialization.register("layers")(cls)


GlobalAveragePooling1D = _global_class("GlobalAveragePooling1D", "avg", 1,
                                       "Mean over the time axis (masked steps left out).")
GlobalAveragePooling2D = _global_class("GlobalAveragePooling2D", "avg", 2, """Mean over rows and columns.

    >>> tx.keras.layers.GlobalAveragePooling2D()(tx.ones([2, 4, 4, 3])).shape
    TensorShape([2, 3])
    """)
GlobalAveragePooling3D = _global_class("GlobalAveragePooling3D", "avg", 3, "Mean over the three spatial axes.")
GlobalMaxPooling1D = _global_class("GlobalMaxPooling1D", "max", 1, "Maximum over the time axis.")
GlobalMaxPooling2D = _global_class("GlobalMaxPooling2D", "max", 2, "Maximum over rows and columns.")
GlobalMaxPooling3D = _global_class("GlobalMaxPooling3D", "max", 3, "Maximum over the three spatial axes.")

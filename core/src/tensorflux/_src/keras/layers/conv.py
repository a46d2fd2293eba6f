"""Convolution layers: Conv1D/2D/3D, Conv1D/2D/3DTranspose, DepthwiseConv2D, SeparableConv2D
(channels_last; channels_first runs between transposes)."""

from tensorflux._src import math_ops, nn_conv_ops, nn_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import activations, serialization
from tensorflux._src.keras.input_spec import InputSpec
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.core import (KERAS_WEIGHT_DEFAULTS, base_config, ser, set_weight_options,
                                               weight_options)
from tensorflux._src.keras.layers.reshaping import _back, _to_last, normalize_data_format, normalize_tuple

_WEIGHT_KEYS = ("kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer",
                "kernel_constraint", "bias_constraint")


def conv_output_length(length, kernel, padding, stride, dilation=1):
    """Keras's output length of a convolution along one axis (None stays None)."""
    if length is None:
        return None
    k = kernel + (kernel - 1) * (dilation - 1)
    if padding in ("same", "causal"):
        out = length
    else:
        out = length - k + 1
    return (out + stride - 1) // stride


def deconv_output_length(length, kernel, padding, stride, dilation=1, output_padding=None):
    """Keras's output length of a transposed convolution along one axis."""
    if length is None:
        return None
    k = kernel + (kernel - 1) * (dilation - 1)
    if output_padding is None:
        return length * stride + max(k - stride, 0) if padding == "valid" else length * stride
    pad = k // 2 if padding == "same" else 0
    return (length - 1) * stride + k - 2 * pad + output_padding


class BaseConv(Layer):
    """A convolution over ``rank`` spatial axes with ``filters`` output channels."""

    _KERAS_DEFAULTS = KERAS_WEIGHT_DEFAULTS
    _RANK = None

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 groups=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        rank = self._RANK
        self.filters = filters
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = normalize_tuple(strides, rank, "strides")
        self.padding = padding.lower()
        if self.padding not in ("valid", "same", "causal") or (self.padding == "causal" and rank != 1):
            raise ValueError("Invalid padding %r for %s (valid, same%s)" % (padding, type(self).__name__,
                                                                         ", causal" if rank == 1 else ""))
        self.data_format = normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate")
        if groups != 1:
            raise NotImplementedError("%s(groups=%d): grouped convolutions are not supported by tx.keras"
                                      % (type(self).__name__, groups))
        self.groups = groups
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        set_weight_options(self, kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                           kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                           kernel_constraint=kernel_constraint, bias_constraint=bias_constraint)
        self.input_spec = InputSpec(min_ndim=rank + 2)

    def _channels(self, input_shape):
        channels = input_shape[-1] if self.data_format == "channels_last" else input_shape[1]
        if channels is None:
            raise ValueError("Layer %s: the channel dimension of the inputs must be known, got shape %s"
                             % (self.name, tuple(input_shape)))
        return channels

    def _kernel_shape(self, channels):
        return self.kernel_size + (channels, self.filters)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self.kernel = self.add_weight(name="kernel", shape=self._kernel_shape(channels),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self.add_weight(name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint) \
            if self.use_bias else None
        axis = -1 if self.data_format == "channels_last" else 1
        self.input_spec = InputSpec(ndim=self._RANK + 2, axes={axis: channels})
        self.built = True

    def _convolve(self, x):
        padding = self.padding
        if padding == "causal":
            left = (self.kernel_size[0] - 1) * self.dilation_rate[0]
            x = gen_ops.pad(x, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
        return nn_conv_ops.convolution(x, self._cast(self.kernel), strides=list(self.strides),
                                       padding=padding.upper(), dilations=list(self.dilation_rate))

    def call(self, inputs):
        x, inverse = _to_last(inputs, self.data_format)
        y = self._convolve(x)
        if self.use_bias:
            y = nn_ops.bias_add(y, self._cast(self.bias))
        return _back(self.activation(y), inverse)

    def get_config(self):
        return base_config(self, dict(
            filters=self.filters, kernel_size=list(self.kernel_size), strides=list(self.strides),
            padding=self.padding, data_format=self.data_format, dilation_rate=list(self.dilation_rate),
            groups=self.groups, activation=ser("activations", self.activation), use_bias=self.use_bias,
            **weight_options(self, _WEIGHT_KEYS)))


@serialization.register("layers")
class Conv1D(BaseConv):
    """1-D convolution over [batch, steps, channels] (``padding`` "valid", "same" or "causal")."""
    _RANK = 1


@serialization.register("layers")
class Conv2D(BaseConv):
    """2-D convolution over [batch, rows, cols, channels].

    >>> layer = tx.keras.layers.Conv2D(4, 3, padding="same")
    >>> layer(tx.ones([1, 8, 8, 2])).shape
    TensorShape([1, 8, 8, 4])
    """
    _RANK = 2


@serialization.register("layers")
class Conv3D(BaseConv):
    """3-D convolution over [batch, depth, rows, cols, channels]."""
    _RANK = 3


class BaseConvTranspose(BaseConv):
    """A transposed convolution (the gradient of a convolution with respect to its input)."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None, data_format=None,
                 dilation_rate=1, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
                         dilation_rate=dilation_rate, **kwargs)
        self.output_padding = None if output_padding is None else \
            normalize_tuple(output_padding, self._RANK, "output_padding")

    def _kernel_shape(self, channels):
        return self.kernel_size + (self.filters, channels)

    def _convolve(self, x):
        rank = self._RANK
        dyn = gen_ops.shape(x)
        static = x.shape.as_list()
        sizes = []
        for i in range(rank):
            op = self.output_padding[i] if self.output_padding else None
            n = deconv_output_length(static[i + 1], self.kernel_size[i], self.padding, self.strides[i],
                                     self.dilation_rate[i], op)
            if n is None:
                k = self.kernel_size[i] + (self.kernel_size[i] - 1) * (self.dilation_rate[i] - 1)
                length = dyn[i + 1] * self.strides[i]
                n = length + max(k - self.strides[i], 0) if self.padding == "valid" else length
            sizes.append(n)
        kernel = self._cast(self.kernel)
        if rank == 1:  # as a 2-D transposed convolution over a height-1 image
            out_shape = gen_ops.pack([dyn[0], 1, math_ops.cast(sizes[0], "int32"), self.filters], axis=0)
            y = nn_conv_ops.conv2d_transpose(gen_ops.expand_dims(x, 1), gen_ops.expand_dims(kernel, 0), out_shape,
                                             strides=[1, 1, self.strides[0], 1], padding=self.padding.upper(),
                                             dilations=[1, 1, self.dilation_rate[0], 1])
            return gen_ops.squeeze(y, [1])
        out_shape = gen_ops.pack([dyn[0]] + [math_ops.cast(s, "int32") for s in sizes] + [self.filters], axis=0)
        fn = nn_conv_ops.conv2d_transpose if rank == 2 else nn_conv_ops.conv3d_transpose
        kwargs = {"dilations": list(self.dilation_rate)} if rank == 2 else {}
        if rank == 3 and any(d != 1 for d in self.dilation_rate):
            raise NotImplementedError("Conv3DTranspose with dilation_rate > 1 is not supported by tx.keras")
        return fn(x, kernel, out_shape, strides=list(self.strides), padding=self.padding.upper(), **kwargs)

    def get_config(self):
        config = super().get_config()
        config["output_padding"] = list(self.output_padding) if self.output_padding else None
        config.pop("groups", None)
        return config


@serialization.register("layers")
class Conv1DTranspose(BaseConvTranspose):
    """1-D transposed convolution."""
    _RANK = 1


@serialization.register("layers")
class Conv2DTranspose(BaseConvTranspose):
    """2-D transposed convolution ("deconvolution").

    >>> tx.keras.layers.Conv2DTranspose(3, 2, strides=2)(tx.ones([1, 4, 4, 1])).shape
    TensorShape([1, 8, 8, 3])
    """
    _RANK = 2


@serialization.register("layers")
class Conv3DTranspose(BaseConvTranspose):
    """3-D transposed convolution."""
    _RANK = 3


_DW_KEYS = ("depthwise_initializer", "bias_initializer", "depthwise_regularizer", "bias_regularizer",
            "depthwise_constraint", "bias_constraint")


@serialization.register("layers")
class DepthwiseConv2D(Layer):
    """Convolves each input channel with its own ``depth_multiplier`` filters."""

    _KERAS_DEFAULTS = KERAS_WEIGHT_DEFAULTS

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1, data_format=None,
                 dilation_rate=(1, 1), activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.kernel_size = normalize_tuple(kernel_size, 2, "kernel_size")
        self.strides = normalize_tuple(strides, 2, "strides")
        self.padding = padding.lower()
        self.depth_multiplier = depth_multiplier
        self.data_format = normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, 2, "dilation_rate")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        set_weight_options(self, depthwise_initializer=depthwise_initializer, bias_initializer=bias_initializer,
                           depthwise_regularizer=depthwise_regularizer, bias_regularizer=bias_regularizer,
                           depthwise_constraint=depthwise_constraint, bias_constraint=bias_constraint)
        self.input_spec = InputSpec(ndim=4)

    def build(self, input_shape):
        channels = input_shape[-1] if self.data_format == "channels_last" else input_shape[1]
        self.kernel = self.add_weight(name="kernel", shape=self.kernel_size + (channels, self.depth_multiplier),
                                      initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
                                      constraint=self.depthwise_constraint)
        self.bias = self.add_weight(name="bias", shape=(channels * self.depth_multiplier,),
                                    initializer=self.bias_initializer, regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def call(self, inputs):
        x, inverse = _to_last(inputs, self.data_format)
        y = nn_conv_ops.depthwise_conv2d(x, self._cast(self.kernel), strides=list(self.strides),
                                         padding=self.padding.upper(), dilations=list(self.dilation_rate))
        if self.use_bias:
            y = nn_ops.bias_add(y, self._cast(self.bias))
        return _back(self.activation(y), inverse)

    def get_config(self):
        return base_config(self, dict(
            kernel_size=list(self.kernel_size), strides=list(self.strides), padding=self.padding,
            depth_multiplier=self.depth_multiplier, data_format=self.data_format,
            dilation_rate=list(self.dilation_rate), activation=ser("activations", self.activation),
            use_bias=self.use_bias, **weight_options(self, _DW_KEYS)))


@serialization.register("layers")
class SeparableConv2D(Layer):
    """A depthwise convolution followed by a 1x1 ("pointwise") convolution to ``filters``."""

    _KERAS_DEFAULTS = KERAS_WEIGHT_DEFAULTS
    _KEYS = ("depthwise_initializer", "pointwise_initializer", "bias_initializer", "depthwise_regularizer",
             "pointwise_regularizer", "bias_regularizer", "depthwise_constraint", "pointwise_constraint",
             "bias_constraint")

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1),
                 depth_multiplier=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters = filters
        self.kernel_size = normalize_tuple(kernel_size, 2, "kernel_size")
        self.strides = normalize_tuple(strides, 2, "strides")
        self.padding = padding.lower()
        self.data_format = normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, 2, "dilation_rate")
        self.depth_multiplier = depth_multiplier
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        set_weight_options(self, **dict(zip(self._KEYS, (
            depthwise_initializer, pointwise_initializer, bias_initializer, depthwise_regularizer,
            pointwise_regularizer, bias_regularizer, depthwise_constraint, pointwise_constraint, bias_constraint))))
        self.input_spec = InputSpec(ndim=4)

    def build(self, input_shape):
        channels = input_shape[-1] if self.data_format == "channels_last" else input_shape[1]
        self.depthwise_kernel = self.add_weight(
            name="depthwise_kernel", shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self.pointwise_kernel = self.add_weight(
            name="pointwise_kernel", shape=(1, 1, channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)
        self.bias = self.add_weight(name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint) \
            if self.use_bias else None
        self.built = True

    def call(self, inputs):
        x, inverse = _to_last(inputs, self.data_format)
        y = nn_conv_ops.separable_conv2d(x, self._cast(self.depthwise_kernel), self._cast(self.pointwise_kernel),
                                         strides=[1] + list(self.strides) + [1], padding=self.padding.upper(),
                                         dilations=list(self.dilation_rate))
        if self.use_bias:
            y = nn_ops.bias_add(y, self._cast(self.bias))
        return _back(self.activation(y), inverse)

    def get_config(self):
        return base_config(self, dict(
            filters=self.filters, kernel_size=list(self.kernel_size), strides=list(self.strides),
            padding=self.padding, data_format=self.data_format, dilation_rate=list(self.dilation_rate),
            depth_multiplier=self.depth_multiplier, activation=ser("activations", self.activation),
            use_bias=self.use_bias, **weight_options(self, self._KEYS)))

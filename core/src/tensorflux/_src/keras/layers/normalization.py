"""Normalization layers: BatchNormalization, LayerNormalization, GroupNormalization,
UnitNormalization."""

from tensorflux._src import math_ops, nn_ext_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import initializers, serialization
from tensorflux._src.keras.input_spec import InputSpec
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.core import base_config, set_weight_options, weight_options

_GB_KEYS = ("beta_initializer", "gamma_initializer", "beta_regularizer", "gamma_regularizer", "beta_constraint",
            "gamma_constraint")


def _add_gamma_beta(layer, shape, center=None):
    """The layer's scale (gamma, when ``layer.scale``) and offset (beta, when centering) weights,
    gamma first as Keras creates them."""
    center = layer.center if center is None else center
    layer.gamma = layer.add_weight(name="gamma", shape=shape, initializer=layer.gamma_initializer,
                                   regularizer=layer.gamma_regularizer, constraint=layer.gamma_constraint) \
        if layer.scale else None
    layer.beta = layer.add_weight(name="beta", shape=shape, initializer=layer.beta_initializer,
                                  regularizer=layer.beta_regularizer, constraint=layer.beta_constraint) \
        if center else None


def _broadcast_shape(rank, axes, shape):
    """The shape [1, ..., d, ..., 1] that broadcasts a per-``axes`` parameter over rank dims."""
    return [shape[i] if i in axes else 1 for i in range(rank)]


@serialization.register("layers")
class BatchNormalization(Layer):
    """Normalizes each feature (``axis``) by the batch's mean and variance while training, and by
    moving averages (updated with ``momentum``) at inference; then scales by gamma and shifts by
    beta.

    >>> bn = tx.keras.layers.BatchNormalization()
    >>> y = bn(tx.constant([[1.0], [3.0]]), training=True)
    >>> np.round(y.numpy().ravel(), 4)
    array([-0.9995,  0.9995], dtype=float32)
    >>> np.round(bn.moving_mean.numpy(), 3)
    array([0.02], dtype=float32)
    """

    _KERAS_DEFAULTS = {"synchronized": False, "renorm": False, "renorm_clipping": None, "renorm_momentum": (0.99,)}

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.momentum, self.epsilon = float(momentum), float(epsilon)
        self.center, self.scale = center, scale
        set_weight_options(self, **dict(beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                                       beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
                                       beta_constraint=beta_constraint, gamma_constraint=gamma_constraint))
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.supports_masking = True

    def build(self, input_shape):
        rank = len(input_shape)
        axis = self.axis % rank
        dim = input_shape[axis]
        if dim is None:
            raise ValueError("Layer %s: axis %d of the input shape %s must be known" % (self.name, self.axis,
                                                                                      tuple(input_shape)))
        self._axis, self._rank = axis, rank
        _add_gamma_beta(self, (dim,))
        self.moving_mean = self.add_weight(name="moving_mean", shape=(dim,), initializer=self.moving_mean_initializer,
                                           trainable=False)
        self.moving_variance = self.add_weight(name="moving_variance", shape=(dim,),
                                               initializer=self.moving_variance_initializer, trainable=False)
        self.input_spec = InputSpec(ndim=rank, axes={axis: dim})
        self.built = True

    def _param(self, v, shape):
        return gen_ops.reshape(self._cast(v), shape)

    def call(self, inputs, training=None, mask=None):
        rank, axis = self._rank, self._axis
        reduce_axes = [i for i in range(rank) if i != axis]
        shape = _broadcast_shape(rank, [axis], [-1 if i == axis else 1 for i in range(rank)])
        x = inputs
        if training and self.trainable:
            if mask is not None:
                w = math_ops.cast(mask, x.dtype)
                while w.shape.rank < rank:
                    w = gen_ops.expand_dims(w, -1)
                mean, variance = nn_ext_ops.weighted_moments(x, reduce_axes, w, keepdims=True)
            else:
                mean = math_ops.reduce_mean(x, axis=reduce_axes, keepdims=True)
                variance = math_ops.reduce_mean(gen_ops.squared_difference(x, gen_ops.stop_gradient(mean)),
                                                axis=reduce_axes, keepdims=True)
            m = math_ops.cast(self.momentum, self.moving_mean.dtype)
            flat_mean = math_ops.cast(gen_ops.reshape(mean, [-1]), self.moving_mean.dtype)
            flat_var = math_ops.cast(gen_ops.reshape(variance, [-1]), self.moving_variance.dtype)
            self.moving_mean.assign(self.moving_mean.value() * m + flat_mean * (1.0 - m), read_value=False)
            self.moving_variance.assign(self.moving_variance.value() * m + flat_var * (1.0 - m), read_value=False)
        else:
            mean = self._param(self.moving_mean, shape)
            variance = self._param(self.moving_variance, shape)
        inv = gen_ops.rsqrt(variance + math_ops.cast(self.epsilon, x.dtype))
        if self.scale:
            inv = inv * self._param(self.gamma, shape)
        y = (x - mean) * inv
        if self.center:
            y = y + self._param(self.beta, shape)
        return y

    def get_config(self):
        return base_config(self, dict(axis=self.axis, momentum=self.momentum, epsilon=self.epsilon,
                                      center=self.center, scale=self.scale,
                                      moving_mean_initializer=initializers.serialize(self.moving_mean_initializer),
                                      moving_variance_initializer=initializers.serialize(
                                          self.moving_variance_initializer),
                                      **weight_options(self, _GB_KEYS)))


@serialization.register("layers")
class LayerNormalization(Layer):
    """Normalizes each example over ``axis`` (the last by default) to mean 0 and variance 1, then
    scales by gamma and shifts by beta (``rms_scaling``: as Keras 3, x / sqrt(variance) * gamma,
    neither centered nor shifted).

    >>> ln = tx.keras.layers.LayerNormalization()
    >>> np.round(ln(tx.constant([[1.0, 3.0]])).numpy(), 4)
    array([[-0.9995,  0.9995]], dtype=float32)
    """

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, rms_scaling=False, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = float(epsilon)
        self.center, self.scale, self.rms_scaling = center, scale, rms_scaling
        set_weight_options(self, **dict(beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                                       beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
                                       beta_constraint=beta_constraint, gamma_constraint=gamma_constraint))
        self.supports_masking = True

    def build(self, input_shape):
        rank = len(input_shape)
        axes = [a % rank for a in (self.axis if isinstance(self.axis, (list, tuple)) else [self.axis])]
        self._axes, self._rank = sorted(axes), rank
        shape = tuple(input_shape[a] for a in self._axes)
        _add_gamma_beta(self, shape, center=self.center and not self.rms_scaling)
        self.built = True

    def call(self, inputs):
        rank, axes = self._rank, self._axes
        bshape = [inputs.shape.as_list()[i] if i in axes else 1 for i in range(rank)]
        x = inputs
        eps = math_ops.cast(self.epsilon, x.dtype)
        if self.rms_scaling:  # Keras 3's (deprecated) definition: scaled by the variance, not centered
            mean = math_ops.reduce_mean(x, axis=axes, keepdims=True)
            variance = math_ops.reduce_mean(gen_ops.squared_difference(x, gen_ops.stop_gradient(mean)), axis=axes,
                                            keepdims=True)
            y = x * gen_ops.rsqrt(variance + eps)
            return y * gen_ops.reshape(self._cast(self.gamma), bshape) if self.scale else y
        mean = math_ops.reduce_mean(x, axis=axes, keepdims=True)
        variance = math_ops.reduce_mean(gen_ops.squared_difference(x, gen_ops.stop_gradient(mean)), axis=axes,
                                        keepdims=True)
        inv = gen_ops.rsqrt(variance + eps)
        if self.scale:
            inv = inv * gen_ops.reshape(self._cast(self.gamma), bshape)
        y = (x - mean) * inv
        if self.center:
            y = y + gen_ops.reshape(self._cast(self.beta), bshape)
        return y

    def get_config(self):
        return base_config(self, dict(axis=self.axis, epsilon=self.epsilon, center=self.center, scale=self.scale,
                                      rms_scaling=self.rms_scaling, **weight_options(self, _GB_KEYS)))


@serialization.register("layers")
class GroupNormalization(Layer):
    """Splits the channels (``axis``) into ``groups`` and normalizes each group of each example over
    its channels and spatial positions, then scales and shifts per channel."""

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.groups, self.axis, self.epsilon = groups, axis, float(epsilon)
        self.center, self.scale = center, scale
        set_weight_options(self, **dict(beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                                       beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
                                       beta_constraint=beta_constraint, gamma_constraint=gamma_constraint))
        self.supports_masking = True

    def build(self, input_shape):
        rank = len(input_shape)
        axis = self.axis % rank
        dim = input_shape[axis]
        if dim is None or dim % self.groups:
            raise ValueError("Layer %s: the number of channels (%s) must be known and a multiple of groups=%d"
                             % (self.name, dim, self.groups))
        self._axis, self._rank = axis, rank
        _add_gamma_beta(self, (dim,))
        self.built = True

    def call(self, inputs):
        rank, axis = self._rank, self._axis
        x = inputs
        if axis != rank - 1:
            perm = [i for i in range(rank) if i != axis] + [axis]
            x = gen_ops.transpose(x, perm)
        dim = x.shape.as_list()[-1]
        dyn = gen_ops.shape(x)
        grouped = gen_ops.reshape(x, gen_ops.concat_v2([dyn[:-1], [self.groups, dim // self.groups]], 0))
        axes = list(range(1, rank - 1)) + [rank]
        mean = math_ops.reduce_mean(grouped, axis=axes, keepdims=True)
        variance = math_ops.reduce_mean(gen_ops.squared_difference(grouped, gen_ops.stop_gradient(mean)), axis=axes,
                                        keepdims=True)
        y = (grouped - mean) * gen_ops.rsqrt(variance + math_ops.cast(self.epsilon, x.dtype))
        y = gen_ops.reshape(y, dyn)
        if self.scale:
            y = y * self._cast(self.gamma)
        if self.center:
            y = y + self._cast(self.beta)
        if axis != rank - 1:
            inverse = [0] * rank
            for i, p in enumerate(perm):
                inverse[p] = i
            y = gen_ops.transpose(y, inverse)
        return y

    def get_config(self):
        return base_config(self, dict(groups=self.groups, axis=self.axis, epsilon=self.epsilon, center=self.center,
                                      scale=self.scale, **weight_options(self, _GB_KEYS)))


@serialization.register("layers")
class UnitNormalization(Layer):
    """Scales each example to unit L2 norm over ``axis``."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.supports_masking = True

    def call(self, inputs):
        return nn_ext_ops.l2_normalize(inputs, axis=self.axis, epsilon=1e-12)

    def get_config(self):
        return base_config(self, {"axis": self.axis})


@serialization.register("layers")
class RMSNormalization(Layer):
    """x / sqrt(mean(x^2) + epsilon) * scale over ``axis`` (root-mean-square normalization)."""

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis, self.epsilon = axis, float(epsilon)
        self.supports_masking = True

    def build(self, input_shape):
        rank = len(input_shape)
        axes = [a % rank for a in (self.axis if isinstance(self.axis, (list, tuple)) else [self.axis])]
        self._axes, self._rank = sorted(axes), rank
        self.scale = self.add_weight(name="scale", shape=tuple(input_shape[a] for a in self._axes),
                                     initializer="ones")
        self.built = True

    def call(self, x):
        bshape = [x.shape.as_list()[i] if i in self._axes else 1 for i in range(self._rank)]
        ms = math_ops.reduce_mean(gen_ops.square(x), axis=self._axes, keepdims=True)
        y = x * gen_ops.rsqrt(ms + math_ops.cast(self.epsilon, x.dtype))
        return y * gen_ops.reshape(self._cast(self.scale), bshape)

    def get_config(self):
        return base_config(self, {"axis": self.axis, "epsilon": self.epsilon})

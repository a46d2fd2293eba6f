"""Activation layers: Softmax (with masks), ReLU, LeakyReLU, PReLU, ELU."""

from tensorflux._src import nn_ops
from tensorflux._src.keras import activations, serialization
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.attention import _masked_softmax
from tensorflux._src.keras.layers.core import base_config, set_weight_options, weight_options


@serialization.register("layers")
class Softmax(Layer):
    """softmax along ``axis``; positions where the mask is False get (almost) zero weight.

    >>> tx.keras.layers.Softmax()(tx.constant([[0.0, 0.0]])).numpy()
    array([[0.5, 0.5]], dtype=float32)
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.supports_masking = True

    def call(self, inputs, mask=None):
        return _masked_softmax(inputs, mask, axis=self.axis)

    def get_config(self):
        return base_config(self, {"axis": self.axis})


@serialization.register("layers")
class ReLU(Layer):
    """relu with Keras's ``max_value``, ``negative_slope`` and ``threshold``."""

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0:
            raise ValueError("max_value of a ReLU layer cannot be a negative value. Received: %r" % (max_value,))
        for name, value in (("negative_slope", negative_slope), ("threshold", threshold)):
            if value is None or value < 0:
                raise ValueError("%s of a ReLU layer cannot be None or a negative value. Received: %s=%r"
                                 % (name, name, value))
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold
        self.supports_masking = True

    def call(self, inputs):
        return activations.relu(inputs, negative_slope=self.negative_slope, max_value=self.max_value,
                                threshold=self.threshold)

    def get_config(self):
        return base_config(self, {"max_value": self.max_value, "negative_slope": self.negative_slope,
                                  "threshold": self.threshold})


@serialization.register("layers")
class LeakyReLU(Layer):
    """x for x >= 0, negative_slope * x otherwise."""

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:  # Keras 2's name
            negative_slope = kwargs.pop("alpha")
        super().__init__(**kwargs)
        self.negative_slope = negative_slope
        self.supports_masking = True

    def call(self, inputs):
        return nn_ops.leaky_relu(inputs, alpha=self.negative_slope)

    def get_config(self):
        return base_config(self, {"negative_slope": self.negative_slope})


@serialization.register("layers")
class ELU(Layer):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha
        self.supports_masking = True

    def call(self, inputs):
        return activations.elu(inputs, alpha=self.alpha)

    def get_config(self):
        return base_config(self, {"alpha": self.alpha})


@serialization.register("layers")
class PReLU(Layer):
    """x for x >= 0, alpha * x otherwise, with a learned ``alpha`` per feature (shared along
    ``shared_axes``)."""

    _KEYS = ("alpha_initializer", "alpha_regularizer", "alpha_constraint")

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None, alpha_constraint=None, shared_axes=None,
                 **kwargs):
        super().__init__(**kwargs)
        set_weight_options(self, alpha_initializer=alpha_initializer, alpha_regularizer=alpha_regularizer,
                           alpha_constraint=alpha_constraint)
        self.shared_axes = None if shared_axes is None else (
            [shared_axes] if isinstance(shared_axes, int) else list(shared_axes))
        self.supports_masking = True

    def build(self, input_shape):
        shape = list(input_shape[1:])
        for axis in self.shared_axes or []:
            shape[axis - 1] = 1
        self.alpha = self.add_weight(shape=tuple(shape), name="alpha", initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer, constraint=self.alpha_constraint)
        self.built = True

    def call(self, inputs):
        pos = nn_ops.relu(inputs)
        neg = -self._cast(self.alpha) * nn_ops.relu(-inputs)
        return pos + neg

    def get_config(self):
        return base_config(self, dict(shared_axes=self.shared_axes, **weight_options(self, self._KEYS)))


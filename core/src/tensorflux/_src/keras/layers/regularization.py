"""Noise and dropout variants: SpatialDropout1D/2D/3D, GaussianNoise, GaussianDropout, AlphaDropout
(active only while training)."""

import math

from tensorflux._src import math_ops, nn_ops, random_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import serialization
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.core import base_config
from tensorflux._src.keras.layers.reshaping import normalize_data_format


class _SpatialDropout(Layer):
    _RANK = None

    def __init__(self, rate, data_format=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError("Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                             "Received: rate=%r" % (rate,))
        self.rate, self.seed = rate, seed
        self.data_format = normalize_data_format(data_format) if self._RANK > 1 else "channels_last"
        self.supports_masking = True

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        shape = gen_ops.shape(inputs)
        ones = [1] * self._RANK
        if self.data_format == "channels_last":
            noise = gen_ops.concat_v2([shape[:1], ones, shape[-1:]], 0)
        else:
            noise = gen_ops.concat_v2([shape[:2], ones], 0)
        return nn_ops.dropout(inputs, rate=self.rate, noise_shape=noise, seed=self.seed)

    def get_config(self):
        config = {"rate": self.rate, "seed": self.seed}
        if self._RANK > 1:
            config["data_format"] = self.data_format
        return base_config(self, config)


@serialization.register("layers")
class SpatialDropout1D(_SpatialDropout):
    """Drops whole feature channels of [batch, steps, channels] inputs while training."""
    _RANK = 1


@serialization.register("layers")
class SpatialDropout2D(_SpatialDropout):
    """Drops whole feature maps of images while training."""
    _RANK = 2


@serialization.register("layers")
class SpatialDropout3D(_SpatialDropout):
    """Drops whole feature volumes while training."""
    _RANK = 3


@serialization.register("layers")
class GaussianNoise(Layer):
    """Adds N(0, stddev^2) noise while training."""

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.stddev, self.seed = stddev, seed
        self.supports_masking = True

    def call(self, inputs, training=False):
        if not training or self.stddev == 0:
            return inputs
        return inputs + random_ops.normal(gen_ops.shape(inputs), stddev=self.stddev, dtype=inputs.dtype,
                                          seed=self.seed)

    def get_config(self):
        return base_config(self, {"stddev": self.stddev, "seed": self.seed})


@serialization.register("layers")
class GaussianDropout(Layer):
    """Multiplies by N(1, rate / (1 - rate)) noise while training."""

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.seed = rate, seed
        self.supports_masking = True

    def call(self, inputs, training=False):
        if not training or not 0 < self.rate < 1:
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        return inputs * random_ops.normal(gen_ops.shape(inputs), mean=1.0, stddev=stddev, dtype=inputs.dtype,
                                          seed=self.seed)

    def get_config(self):
        return base_config(self, {"rate": self.rate, "seed": self.seed})


@serialization.register("layers")
class AlphaDropout(Layer):
    """Dropout that keeps SELU activations' mean and variance (Klambauer et al.) while training."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed
        self.supports_masking = True

    def call(self, inputs, training=False):
        if not training or not 0 < self.rate < 1:
            return inputs
        alpha_p = -1.7580993408473766  # -scale * alpha of SELU
        keep = 1.0 - self.rate
        a = ((keep * (1.0 + self.rate * alpha_p ** 2)) ** -0.5)
        b = -a * alpha_p * self.rate
        shape = gen_ops.shape(inputs) if self.noise_shape is None else self.noise_shape
        kept = gen_ops.greater_equal(random_ops.uniform(shape, dtype=inputs.dtype, seed=self.seed),
                                     math_ops.cast(self.rate, inputs.dtype))
        x = gen_ops.select_v2(kept, inputs, gen_ops.zeros_like(inputs) + math_ops.cast(alpha_p, inputs.dtype))
        return x * math_ops.cast(a, inputs.dtype) + math_ops.cast(b, inputs.dtype)

    def get_config(self):
        return base_config(self, {"rate": self.rate, "noise_shape": self.noise_shape, "seed": self.seed})

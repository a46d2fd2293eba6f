"""``tx.keras.activations``: activation functions by Keras's names."""

from tensorflux._src.keras.activations import (deserialize, elu, exponential, gelu, get, hard_sigmoid, hard_silu,
                                               hard_swish, leaky_relu, linear, log_softmax, mish, relu, relu6, selu,
                                               serialize, sigmoid, silu, softmax, softplus, softsign, swish, tanh)

__all__ = ["deserialize", "elu", "exponential", "gelu", "get", "hard_sigmoid", "hard_silu", "hard_swish",
           "leaky_relu", "linear", "log_softmax", "mish", "relu", "relu6", "selu", "serialize", "sigmoid", "silu",
           "softmax", "softplus", "softsign", "swish", "tanh"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)

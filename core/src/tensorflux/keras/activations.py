"""``tx.keras.activations``: activation functions by Keras's names."""

from tensorflux._src.keras.activations import (celu, deserialize, elu, exponential, gelu, get, glu, hard_shrink,
                                               hard_sigmoid, hard_silu, hard_swish, hard_tanh, leaky_relu, linear,
                                               log_sigmoid, log_softmax, mish, relu, relu6, selu, serialize, sigmoid,
                                               silu, soft_shrink, softmax, softplus, softsign, squareplus, swish, tanh,
                                               tanh_shrink, threshold)

__all__ = ["celu", "deserialize", "elu", "exponential", "gelu", "get", "glu", "hard_shrink", "hard_sigmoid",
           "hard_silu", "hard_swish", "hard_tanh", "leaky_relu", "linear", "log_sigmoid", "log_softmax", "mish",
           "relu", "relu6", "selu", "serialize", "sigmoid", "silu", "soft_shrink", "softmax", "softplus", "softsign",
           "squareplus", "swish", "tanh", "tanh_shrink", "threshold"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)

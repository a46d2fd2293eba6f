"""Neural-network ops (``tx.nn.*``)."""

from tensorflux._src.nn_ops import bias_add, relu, softmax

__all__ = ["bias_add", "relu", "softmax"]

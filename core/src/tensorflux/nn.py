"""Neural-network ops (``tx.nn.*``)."""

from tensorflux._src.nn_ops import (avg_pool2d, batch_normalization, bias_add, conv2d, depthwise_conv2d, dropout,
                                    elu, fused_batch_norm, in_top_k, l2_loss, leaky_relu, log_softmax, max_pool2d,
                                    moments, relu, relu6, selu, softmax, softmax_cross_entropy_with_logits, softplus,
                                    sigmoid_cross_entropy_with_logits, softsign,
                                    sparse_softmax_cross_entropy_with_logits)
from tensorflux._src.gather_ops import top_k

__all__ = ["avg_pool2d", "batch_normalization", "bias_add", "conv2d", "depthwise_conv2d", "dropout", "elu",
           "fused_batch_norm", "in_top_k", "l2_loss", "leaky_relu", "log_softmax", "max_pool2d", "moments", "relu",
           "relu6", "selu", "sigmoid_cross_entropy_with_logits", "softmax", "softmax_cross_entropy_with_logits",
           "softplus", "softsign",
           "sparse_softmax_cross_entropy_with_logits", "top_k"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)

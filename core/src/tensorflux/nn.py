"""Neural-network ops (``tx.nn.*``)."""

from tensorflux._src.nn_ops import (batch_normalization, bias_add, conv2d, dropout, elu, fused_batch_norm, in_top_k,
                                    l2_loss, leaky_relu, moments, relu, relu6, selu,
                                    softmax_cross_entropy_with_logits, softplus, sigmoid_cross_entropy_with_logits,
                                    softsign, sparse_softmax_cross_entropy_with_logits)
from tensorflux._src.nn_conv_ops import (atrous_conv2d, avg_pool, avg_pool1d, avg_pool2d, avg_pool3d, batch_to_space,
                                         conv1d, conv1d_transpose, conv2d_transpose, conv3d, conv3d_transpose,
                                         convolution, depth_to_space, depthwise_conv2d, max_pool, max_pool1d,
                                         max_pool2d, max_pool3d, pool, separable_conv2d, space_to_batch,
                                         space_to_depth)
from tensorflux._src.nn_ext_ops import (ctc_loss, embedding_lookup, gelu, l2_normalize, local_response_normalization,
                                        log_sigmoid, log_softmax, lrn, normalize_moments, silu, softmax, swish,
                                        weighted_cross_entropy_with_logits, weighted_moments)
from tensorflux._src.gather_ops import top_k
from tensorflux._src.math_ops import sigmoid, tanh
from tensorflux._src.nn_extras import (compute_average_loss, conv_transpose, crelu, depthwise_conv2d_backprop_filter,
                                       depthwise_conv2d_backprop_input, log_poisson_loss, scale_regularization_loss,
                                       sufficient_statistics)
from tensorflux._src.stat_ops import approx_max_k, approx_min_k, zero_fraction
from tensorflux._src.nn_ctc_decode import collapse_repeated, ctc_greedy_decoder, ctc_unique_labels
from tensorflux._src.nn_sampled import nce_loss, sampled_softmax_loss
from tensorflux._src.nn_breadth import (atrous_conv2d_transpose, batch_norm_with_global_normalization,
                                       embedding_lookup_sparse, safe_embedding_lookup_sparse, with_space_to_batch)
from tensorflux._src.isotonic import isotonic_regression
from tensorflux._src.candidate_sampling import (all_candidate_sampler, compute_accidental_hits,
                                                fixed_unigram_candidate_sampler, log_uniform_candidate_sampler,
                                                uniform_candidate_sampler)

__all__ = ["atrous_conv2d", "avg_pool", "avg_pool1d", "avg_pool2d", "avg_pool3d", "batch_normalization",
           "batch_to_space", "bias_add", "conv1d", "conv1d_transpose", "conv2d", "conv2d_transpose", "conv3d",
           "conv3d_transpose", "convolution", "ctc_loss", "depth_to_space", "depthwise_conv2d", "dropout", "elu",
           "embedding_lookup", "fused_batch_norm", "gelu", "in_top_k", "l2_loss", "l2_normalize", "leaky_relu",
           "local_response_normalization", "log_sigmoid", "log_softmax", "lrn", "max_pool", "max_pool1d",
           "max_pool2d", "max_pool3d", "moments", "normalize_moments", "pool", "relu", "relu6", "selu",
           "separable_conv2d", "sigmoid_cross_entropy_with_logits", "silu", "softmax",
           "softmax_cross_entropy_with_logits", "softplus", "softsign", "space_to_batch", "space_to_depth",
           "sparse_softmax_cross_entropy_with_logits", "swish", "top_k", "weighted_cross_entropy_with_logits",
           "weighted_moments", "approx_max_k", "approx_min_k", "compute_average_loss", "crelu", "log_poisson_loss",
           "scale_regularization_loss", "sigmoid", "sufficient_statistics", "tanh", "zero_fraction", "conv_transpose",
           "depthwise_conv2d_backprop_filter", "depthwise_conv2d_backprop_input",
           "all_candidate_sampler", "compute_accidental_hits", "fixed_unigram_candidate_sampler",
           "log_uniform_candidate_sampler", "uniform_candidate_sampler",
           "collapse_repeated", "ctc_greedy_decoder", "ctc_unique_labels", "nce_loss", "sampled_softmax_loss",
           "atrous_conv2d_transpose", "batch_norm_with_global_normalization", "embedding_lookup_sparse",
           "safe_embedding_lookup_sparse", "with_space_to_batch", "isotonic_regression"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)

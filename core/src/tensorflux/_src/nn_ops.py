"""Neural-network ops (``tx.nn``): activations, softmax family, losses, convolution, pooling,
normalization. Thin compositions over the generated wrappers, with TensorFlow 2 signatures."""

import numpy as np

from tensorflux._src import math_ops
from tensorflux._src import array_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.constant_op import constant, convert_to_tensor


def relu(features, name=None):
    """max(features, 0) element-wise.

    >>> tx.nn.relu(tx.constant([-1.0, 0.0, 2.0])).numpy()
    array([0., 0., 2.], dtype=float32)
    """
    return gen_ops.relu(features, name=name)


def relu6(features, name=None):
    """min(max(features, 0), 6) element-wise.

    >>> tx.nn.relu6(tx.constant([-1.0, 3.0, 8.0])).numpy()
    array([0., 3., 6.], dtype=float32)
    """
    return gen_ops.relu6(features, name=name)


def elu(features, name=None):
    """features where positive, exp(features) - 1 elsewhere.

    >>> tx.nn.elu(tx.constant([0.0, 2.0])).numpy()
    array([0., 2.], dtype=float32)
    """
    return gen_ops.elu(features, name=name)


def selu(features, name=None):
    """Scaled ELU with TensorFlow's constants (scale 1.0507..., alpha 1.6732...).

    >>> tx.nn.selu(tx.constant([0.0, 1.0])).numpy()
    array([0.      , 1.050701], dtype=float32)
    """
    return gen_ops.selu(features, name=name)


def leaky_relu(features, alpha=0.2, name=None):
    """features where positive, alpha * features elsewhere.

    >>> tx.nn.leaky_relu(tx.constant([-10.0, 5.0]), alpha=0.1).numpy()
    array([-1.,  5.], dtype=float32)
    """
    return gen_ops.leaky_relu(features, alpha=float(alpha), name=name)


def softplus(features, name=None):
    """log(exp(features) + 1) element-wise, without overflow.

    >>> tx.nn.softplus(tx.constant([0.0])).numpy()
    array([0.6931472], dtype=float32)
    """
    return gen_ops.softplus(features, name=name)


def softsign(features, name=None):
    """features / (abs(features) + 1) element-wise.

    >>> tx.nn.softsign(tx.constant([-1.0, 3.0])).numpy()
    array([-0.5 ,  0.75], dtype=float32)
    """
    return gen_ops.softsign(features, name=name)


def bias_add(value, bias, data_format=None, name=None):
    """``value`` plus the 1-D ``bias`` along its channel dimension (last for "N...C" formats,
    the second for "NC..." formats).

    >>> tx.nn.bias_add(tx.zeros([2, 3]), tx.constant([1.0, 2.0, 3.0])).numpy()
    array([[1., 2., 3.],
           [1., 2., 3.]], dtype=float32)
    """
    if data_format is None or (data_format.startswith("N") and data_format.endswith("C")):
        data_format = "NHWC"
    elif data_format.startswith("NC"):
        data_format = "NCHW"
    else:
        raise ValueError("data_format must be of the form N...C or NC..., not %r" % data_format)
    return gen_ops.bias_add(value, bias, data_format=data_format, name=name)


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """Cross-entropy of the label distributions against softmax(logits) along ``axis`` (classes;
    default the last); the result has the logits' shape without that axis. Like TensorFlow 2,
    the class axis is moved last and the outer dimensions flattened around the 2-D op; returns
    the loss only."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype=logits.dtype)
    rank = logits.shape.rank
    if rank is None:
        raise ValueError("softmax_cross_entropy_with_logits needs logits of known rank, got shape %s" % logits.shape)
    if rank == 0:
        raise ValueError("softmax_cross_entropy_with_logits: logits must have at least one dimension (the classes)")
    axis = -1 if axis is None else axis
    if not -rank <= axis < rank:
        raise ValueError("softmax_cross_entropy_with_logits: axis %d is out of range for rank %d" % (axis, rank))
    axis %= rank
    if axis != rank - 1:
        perm = [d for d in range(rank) if d != axis] + [axis]
        logits, labels = array_ops.transpose(logits, perm), array_ops.transpose(labels, perm)
    if rank == 2:
        loss, _ = gen_ops.softmax_cross_entropy_with_logits(logits, labels, name=name)
        return loss
    outer = gen_ops.slice(gen_ops.shape(logits), constant(np.array([0], np.int32)),
                          constant(np.array([rank - 1], np.int32)))
    flat = constant(np.array([-1], np.int32))
    classes = gen_ops.slice(gen_ops.shape(logits), constant(np.array([rank - 1], np.int32)),
                            constant(np.array([1], np.int32)))
    to_2d = gen_ops.concat_v2([flat, classes], constant(np.array(0, np.int32)))
    loss, _ = gen_ops.softmax_cross_entropy_with_logits(gen_ops.reshape(logits, to_2d), gen_ops.reshape(labels, to_2d))
    return gen_ops.reshape(loss, outer, name=name)


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """Per-row cross-entropy of integer class labels [batch] against softmax(logits [batch, classes]);
    a label outside [0, classes) is an InvalidArgumentError.

    >>> logits = tx.constant([[0.0, 0.0], [0.0, 0.0]])
    >>> tx.nn.sparse_softmax_cross_entropy_with_logits(labels=tx.constant([0, 1]), logits=logits).numpy()
    array([0.6931472, 0.6931472], dtype=float32)
    """
    loss, _ = gen_ops.sparse_softmax_cross_entropy_with_logits(logits, labels, name=name)
    return loss


def _expand(v, n, what):
    """An int or a list of 1, 2 or 4 ints -> the 4-element NHWC attr list."""
    if isinstance(v, int):
        return [1, v, v, 1]
    v = list(v)
    if len(v) == 1:
        return [1, v[0], v[0], 1]
    if len(v) == 2:
        return [1, v[0], v[1], 1]
    if len(v) == 4:
        return v
    raise ValueError("%s must be an int or a list of 1, 2 or 4 ints, got %r" % (what, v))


def _padding(padding):
    """'SAME'/'VALID', or a list of 4 [before, after] pairs -> (padding, explicit_paddings)."""
    if isinstance(padding, str):
        return padding.upper(), []
    pairs = [list(p) for p in padding]
    if len(pairs) != 4 or any(len(p) != 2 for p in pairs):
        raise ValueError("explicit padding must be 4 [before, after] pairs, got %r" % (padding,))
    return "EXPLICIT", [int(x) for p in pairs for x in p]


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """2-D convolution of ``input`` [N, H, W, C] with ``filters`` [KH, KW, C, O]; ``padding`` is
    "SAME", "VALID" or 4 explicit [before, after] pairs.

    >>> image = tx.ones([1, 4, 4, 1])
    >>> kernel = tx.ones([3, 3, 1, 2])
    >>> tx.nn.conv2d(image, kernel, strides=1, padding="VALID").shape
    TensorShape([1, 2, 2, 2])
    >>> tx.nn.conv2d(image, kernel, strides=1, padding="SAME")[0, :, :, 0].numpy()
    array([[4., 6., 6., 4.],
           [6., 9., 9., 6.],
           [6., 9., 9., 6.],
           [4., 6., 6., 4.]], dtype=float32)
    """
    pad, explicit = _padding(padding)
    return gen_ops.conv2d(input, filters, strides=_expand(strides, 0, "strides"), padding=pad,
                          explicit_paddings=explicit, data_format=data_format,
                          dilations=_expand(dilations if dilations is not None else 1, 0, "dilations"), name=name)


def l2_loss(t, name=None):
    """sum(t ** 2) / 2 as a scalar.

    >>> float(tx.nn.l2_loss(tx.constant([3.0, 4.0])))
    12.5
    """
    return gen_ops.l2_loss(t, name=name)


def in_top_k(targets, predictions, k, name=None):
    """Whether targets[i] is among the k largest predictions[i] (ties count as in).

    >>> tx.nn.in_top_k(targets=tx.constant([1, 0]), predictions=tx.constant([[0.1, 0.9], [0.6, 0.4]]), k=1).numpy()
    array([ True,  True])
    """
    return gen_ops.in_top_kv2(predictions, targets, k, name=name)


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None, exponential_avg_factor=1.0):
    """FusedBatchNormV3 as tf.compat.v1.nn.fused_batch_norm: returns (y, batch_mean, batch_variance)."""
    if mean is None:
        mean = constant(np.zeros((0,), np.float32))
    if variance is None:
        variance = constant(np.zeros((0,), np.float32))
    out = gen_ops.fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=float(epsilon),
                                      exponential_avg_factor=float(exponential_avg_factor),
                                      data_format=data_format, is_training=is_training, name=name)
    return out[0], out[1], out[2]


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + variance_epsilon) + offset, with broadcasting;
    offset and scale may be None.

    >>> x = tx.constant([[1.0], [3.0]])
    >>> tx.nn.batch_normalization(x, mean=2.0, variance=1.0, offset=0.0, scale=1.0, variance_epsilon=0.0).numpy()
    array([[-1.],
           [ 1.]], dtype=float32)
    """
    inv = gen_ops.rsqrt(math_ops.add(variance, variance_epsilon))
    if scale is not None:
        inv = math_ops.multiply(inv, scale)
    shift = math_ops.negative(math_ops.multiply(mean, inv))
    if offset is not None:
        shift = math_ops.add(shift, offset)
    return math_ops.add(math_ops.multiply(x, inv), shift, name=name)


def moments(x, axes, shift=None, keepdims=False, name=None):
    """(mean, variance) of ``x`` over ``axes`` (variance is the biased mean of squared deviations).

    >>> mean, variance = tx.nn.moments(tx.constant([1.0, 2.0, 3.0, 6.0]), axes=[0])
    >>> float(mean), float(variance)
    (3.0, 3.5)
    """
    del shift  # accepted for TensorFlow compatibility; unused, as in TF 2
    axes = list(axes)
    mean = math_ops.reduce_mean(x, axis=axes, keepdims=True)
    centered = math_ops.subtract(x, mean)
    sq = math_ops.multiply(centered, centered)
    variance = math_ops.reduce_mean(sq, axis=axes, keepdims=keepdims)
    if not keepdims:
        mean = math_ops.reduce_mean(x, axis=axes, keepdims=False)
    return mean, variance


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zeroes each element with probability ``rate`` and scales the rest by 1 / (1 - rate);
    ``noise_shape`` (broadcastable to x's shape) shares one draw across broadcast dimensions.

    >>> x = tx.ones([1000])
    >>> y = tx.nn.dropout(x, rate=0.5, seed=1)
    >>> sorted(set(y.numpy().tolist()))
    [0.0, 2.0]
    """
    if isinstance(rate, (int, float)) and not 0 <= rate < 1:
        raise ValueError("rate must be a scalar in [0, 1), got %r" % (rate,))
    x = x if isinstance(x, _TENSORS) else constant(x)
    if isinstance(rate, (int, float)) and rate == 0:
        return array_ops.identity(x, name=name)
    shape = gen_ops.shape(x) if noise_shape is None else constant(np.asarray(noise_shape, np.int32))
    seed1, seed2 = (0, 0) if seed is None else (87654321, int(seed))
    noise = gen_ops.random_uniform(shape, dtype=x.dtype, seed=seed1, seed2=seed2)
    keep = gen_ops.cast(gen_ops.greater_equal(noise, constant(np.asarray(rate, x.dtype.as_numpy_dtype))),
                        DstT=x.dtype)
    scale = constant(np.asarray(1.0 / (1.0 - rate), x.dtype.as_numpy_dtype))
    return math_ops.multiply(math_ops.multiply(x, scale), keep, name=name)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Element-wise logistic loss of `labels` (probabilities) against sigmoid(logits), computed as
    max(x, 0) - x * z + log(1 + exp(-|x|)) so it neither overflows nor loses precision.

    >>> tx.nn.sigmoid_cross_entropy_with_logits(labels=tx.constant([1.0, 0.0]), logits=tx.constant([0.0, 0.0])).numpy()
    array([0.6931472, 0.6931472], dtype=float32)
    """
    if labels is None or logits is None:
        raise ValueError("sigmoid_cross_entropy_with_logits needs both labels and logits")
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype=logits.dtype)
    if not logits.shape.is_compatible_with(labels.shape):
        raise ValueError("logits and labels must have the same shape (%s vs %s)" % (logits.shape, labels.shape))
    zeros = gen_ops.zeros_like(logits)
    # Both branches select on the same condition, so the gradient at 0 is exact (sigmoid(0) - z).
    cond = gen_ops.greater_equal(logits, zeros)
    relu_logits = gen_ops.select_v2(cond, logits, zeros)
    neg_abs = gen_ops.select_v2(cond, gen_ops.neg(logits), logits)
    return gen_ops.add_v2(gen_ops.sub(relu_logits, gen_ops.mul(logits, labels)), gen_ops.log1p(gen_ops.exp(neg_abs)),
                          name=name)


# Defined in the newer modules; re-exported here for callers of this module.
from tensorflux._src.nn_ext_ops import log_softmax, softmax  # noqa: E402,F401

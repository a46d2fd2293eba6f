"""`tx.losses`: Keras-style loss functions over tensors (per-example losses: the mean over the
last axis where Keras takes it; reduce with tx.reduce_mean for a scalar)."""

from tensorflux._src import math_ops, nn_ops
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.gather_ops import one_hot
from tensorflux._src.generated import gen_ops

# Keras's fuzz factor: probabilities are clipped to [EPSILON, 1 - EPSILON] before taking logs.
EPSILON = 1e-7


def _pair(y_true, y_pred):
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    if y_true.dtype != y_pred.dtype:
        y_true = math_ops.cast(y_true, y_pred.dtype)
    return y_true, y_pred


def mean_squared_error(y_true, y_pred):
    """mean((y_pred - y_true)^2) over the last axis.

    >>> tx.losses.mean_squared_error(tx.constant([[1.0, 2.0]]), tx.constant([[1.0, 4.0]])).numpy()
    array([2.], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    return math_ops.reduce_mean(gen_ops.squared_difference(y_pred, y_true), axis=-1)


def _clip_probs(p):
    return math_ops.clip_by_value(p, EPSILON, 1.0 - EPSILON)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Cross-entropy of one-hot/probability targets against logits or probabilities (the latter
    normalized to sum to 1 along `axis` and clipped, as Keras does).

    >>> np.round(tx.losses.categorical_crossentropy(tx.constant([[0.0, 1.0]]), tx.constant([[0.5, 0.5]])).numpy(), 4)
    array([0.6931], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        n = math_ops.cast(gen_ops.shape(y_true)[axis], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / n
    if from_logits:
        return -math_ops.reduce_sum(y_true * nn_ops.log_softmax(y_pred, axis=axis), axis=axis)
    p = y_pred / math_ops.reduce_sum(y_pred, axis=axis, keepdims=True)
    return -math_ops.reduce_sum(y_true * gen_ops.log(_clip_probs(p)), axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    """Cross-entropy of integer class targets against logits or probabilities over `axis`.

    >>> y_pred = tx.constant([[0.5, 0.5], [0.9, 0.1]])
    >>> tx.losses.sparse_categorical_crossentropy(tx.constant([0, 0]), y_pred).numpy()
    array([0.6931472 , 0.10536055], dtype=float32)
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    if y_true.dtype.is_floating:
        y_true = math_ops.cast(y_true, "int64")
    depth = gen_ops.shape(y_pred)[axis]
    return categorical_crossentropy(one_hot(y_true, depth, dtype=y_pred.dtype), y_pred, from_logits=from_logits,
                                    axis=axis)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0):
    """Mean over the last axis of the logistic loss of targets in [0, 1] against logits or
    probabilities (clipped to [1e-7, 1 - 1e-7]).

    >>> np.round(tx.losses.binary_crossentropy(tx.constant([[1.0, 0.0]]), tx.constant([[0.9, 0.1]])).numpy(), 4)
    array([0.1054], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        return math_ops.reduce_mean(nn_ops.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred), axis=-1)
    p = _clip_probs(y_pred)
    ll = y_true * gen_ops.log(p) + (1.0 - y_true) * gen_ops.log(1.0 - p)
    return -math_ops.reduce_mean(ll, axis=-1)


def huber(y_true, y_pred, delta=1.0):
    """Mean over the last axis of 0.5 e^2 where |e| <= delta and delta (|e| - 0.5 delta) elsewhere.

    >>> tx.losses.huber(tx.constant([[0.0, 0.0]]), tx.constant([[0.5, 3.0]]), delta=1.0).numpy()
    array([1.3125], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    err = gen_ops.abs(y_pred - y_true)
    quadratic = gen_ops.minimum(err, math_ops.cast(delta, y_pred.dtype))
    linear = err - quadratic
    return math_ops.reduce_mean(0.5 * quadratic * quadratic + delta * linear, axis=-1)


mse = mean_squared_error

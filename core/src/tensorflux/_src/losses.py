"""`tx.losses`: Keras-style loss functions over tensors (per-example losses: the mean over the
last axis where Keras takes it; reduce with tx.reduce_mean for a scalar)."""

from tensorflux._src import math_ops, nn_ops, reduce_ops
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.gather_ops import one_hot
from tensorflux._src.generated import gen_ops
from tensorflux._src.nn_ext_ops import l2_normalize

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
    if y_true.dtype.is_floating or y_true.dtype.name not in ("int32", "int64"):
        y_true = math_ops.cast(y_true, "int64")
    y_true = _squeeze_last_if_same_rank(y_true, y_pred)
    if from_logits and axis in (-1, y_pred.shape.rank - 1 if y_pred.shape.rank is not None else -1):
        # The fused kernel, on [N, classes] rows (labels [N]).
        classes = gen_ops.shape(y_pred)[-1:]
        logits = gen_ops.reshape(y_pred, gen_ops.concat_v2([[-1], classes], 0))
        labels = gen_ops.reshape(y_true, [-1])
        loss = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        return gen_ops.reshape(loss, gen_ops.shape(y_true))
    depth = gen_ops.shape(y_pred)[axis]
    return categorical_crossentropy(one_hot(y_true, depth, dtype=y_pred.dtype), y_pred, from_logits=from_logits,
                                    axis=axis)


def _squeeze_last_if_same_rank(y_true, y_pred):
    """Integer targets of shape [..., 1] against predictions [..., classes] lose the last axis."""
    rt, rp = y_true.shape.rank, y_pred.shape.rank
    if rt is not None and rp is not None and rt == rp and rt > 0:
        return gen_ops.squeeze(y_true, [-1])
    return y_true


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


def mean_absolute_error(y_true, y_pred):
    """mean(|y_pred - y_true|) over the last axis.

    >>> tx.losses.mean_absolute_error(tx.constant([[1.0, 2.0]]), tx.constant([[2.0, 4.0]])).numpy()
    array([1.5], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    return math_ops.reduce_mean(gen_ops.abs(y_pred - y_true), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    """100 * mean(|(y_true - y_pred) / max(|y_true|, 1e-7)|) over the last axis.

    >>> tx.losses.mean_absolute_percentage_error(tx.constant([[2.0]]), tx.constant([[1.0]])).numpy()
    array([50.], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    diff = gen_ops.abs((y_true - y_pred) / gen_ops.maximum(gen_ops.abs(y_true), math_ops.cast(EPSILON, y_pred.dtype)))
    return 100.0 * math_ops.reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    """mean((log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1))^2) over the last axis."""
    y_true, y_pred = _pair(y_true, y_pred)
    eps = math_ops.cast(EPSILON, y_pred.dtype)
    a = gen_ops.log1p(gen_ops.maximum(y_pred, eps))
    b = gen_ops.log1p(gen_ops.maximum(y_true, eps))
    return math_ops.reduce_mean(gen_ops.squared_difference(a, b), axis=-1)


def kl_divergence(y_true, y_pred):
    """sum(y_true * log(y_true / y_pred)) over the last axis, both clipped to [1e-7, 1].

    >>> np.round(tx.losses.kl_divergence(tx.constant([[0.5, 0.5]]), tx.constant([[0.25, 0.75]])).numpy(), 4)
    array([0.1438], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    t = math_ops.clip_by_value(y_true, EPSILON, 1.0)
    p = math_ops.clip_by_value(y_pred, EPSILON, 1.0)
    return math_ops.reduce_sum(t * gen_ops.log(t / p), axis=-1)


def poisson(y_true, y_pred):
    """mean(y_pred - y_true * log(y_pred + 1e-7)) over the last axis."""
    y_true, y_pred = _pair(y_true, y_pred)
    return math_ops.reduce_mean(y_pred - y_true * gen_ops.log(y_pred + EPSILON), axis=-1)


def _signed_targets(y_true):
    """Targets in {0, 1} become {-1, 1} (others are kept), as Keras's hinge losses do."""
    one = math_ops.cast(1.0, y_true.dtype)
    is_binary = reduce_ops.reduce_all(gen_ops.logical_or(gen_ops.equal(y_true, 0.0 * one), gen_ops.equal(y_true, one)))
    return gen_ops.select_v2(is_binary, 2.0 * y_true - one, y_true)


def hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0)) over the last axis (targets in {-1, 1} or {0, 1}).

    >>> tx.losses.hinge(tx.constant([[1.0, 0.0]]), tx.constant([[0.5, 0.5]])).numpy()
    array([1.], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    return math_ops.reduce_mean(gen_ops.maximum(1.0 - _signed_targets(y_true) * y_pred, 0.0 * y_pred), axis=-1)


def squared_hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0)^2) over the last axis."""
    y_true, y_pred = _pair(y_true, y_pred)
    m = gen_ops.maximum(1.0 - _signed_targets(y_true) * y_pred, 0.0 * y_pred)
    return math_ops.reduce_mean(m * m, axis=-1)


def categorical_hinge(y_true, y_pred):
    """max(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0) over the last axis."""
    y_true, y_pred = _pair(y_true, y_pred)
    pos = math_ops.reduce_sum(y_true * y_pred, axis=-1)
    neg = reduce_ops.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return gen_ops.maximum(neg - pos + 1.0, 0.0 * pos)


def log_cosh(y_true, y_pred):
    """mean(log(cosh(y_pred - y_true))) over the last axis (computed stably).

    >>> np.round(tx.losses.log_cosh(tx.constant([[0.0]]), tx.constant([[1.0]])).numpy(), 4)
    array([0.4338], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    return math_ops.reduce_mean(x + nn_ops.softplus(-2.0 * x) - math_ops.cast(0.6931471805599453, x.dtype), axis=-1)


def cosine_similarity(y_true, y_pred, axis=-1):
    """-sum(l2_normalize(y_true) * l2_normalize(y_pred)) along ``axis`` (Keras's loss: -1 is best).

    >>> tx.losses.cosine_similarity(tx.constant([[1.0, 0.0]]), tx.constant([[2.0, 0.0]])).numpy()
    array([-1.], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    return -math_ops.reduce_sum(l2_normalize(y_true, axis=axis) * l2_normalize(y_pred, axis=axis), axis=axis)


mse = mean_squared_error
mae = mean_absolute_error
mape = mean_absolute_percentage_error
msle = mean_squared_logarithmic_error
kld = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh

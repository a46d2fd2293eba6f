"""Keras activations (``tx.keras.activations``): functions of a tensor over the engine's ops, and
`get`/`serialize`/`deserialize` by Keras's names."""

from tensorflux._src import math_ops, nn_ext_ops, nn_ops
from tensorflux._src.keras import serialization
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.array_ops import split


def _t(x):
    return convert_to_tensor(x)


def linear(x):
    """x unchanged."""
    return x


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """max(x, 0), with Keras's options: a slope below ``threshold``, a ceiling ``max_value``.

    >>> tx.keras.activations.relu(tx.constant([-1.0, 2.0, 9.0]), max_value=6.0).numpy()
    array([0., 2., 6.], dtype=float32)
    """
    x = _t(x)
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return nn_ops.relu(x)
    if negative_slope == 0.0 and max_value == 6.0 and threshold == 0.0:
        return nn_ops.relu6(x)
    dt = x.dtype
    thr = math_ops.cast(threshold, dt)
    neg = (x - thr) * math_ops.cast(negative_slope, dt) if negative_slope else None
    y = gen_ops.select_v2(gen_ops.greater(x, thr), x, gen_ops.zeros_like(x))
    if max_value is not None:
        y = gen_ops.minimum(y, math_ops.cast(max_value, dt))
    if neg is not None:
        y = gen_ops.select_v2(gen_ops.less(x, thr), neg, y)
    return y


def relu6(x):
    return nn_ops.relu6(_t(x))


def leaky_relu(x, negative_slope=0.2):
    return nn_ops.leaky_relu(_t(x), alpha=negative_slope)


def elu(x, alpha=1.0):
    x = _t(x)
    y = nn_ops.elu(x)
    if alpha == 1.0:
        return y
    return gen_ops.select_v2(gen_ops.greater(x, math_ops.cast(0, x.dtype)), y, y * math_ops.cast(alpha, x.dtype))


def selu(x):
    return nn_ops.selu(_t(x))


def gelu(x, approximate=False):
    return nn_ext_ops.gelu(_t(x), approximate=approximate)


def silu(x):
    return nn_ext_ops.silu(_t(x))


swish = silu


def sigmoid(x):
    return gen_ops.sigmoid(_t(x))


def hard_sigmoid(x):
    """relu6(x + 3) / 6 (Keras 3's definition)."""
    x = _t(x)
    return nn_ops.relu6(x + math_ops.cast(3.0, x.dtype)) / math_ops.cast(6.0, x.dtype)


def hard_silu(x):
    x = _t(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def tanh(x):
    return gen_ops.tanh(_t(x))


def softplus(x):
    return nn_ops.softplus(_t(x))


def softsign(x):
    return nn_ops.softsign(_t(x))


def exponential(x):
    return gen_ops.exp(_t(x))


def mish(x):
    x = _t(x)
    return x * gen_ops.tanh(nn_ops.softplus(x))


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along ``axis``.

    >>> np.round(tx.keras.activations.softmax(tx.constant([[0.0, 0.0]])).numpy(), 3)
    array([[0.5, 0.5]], dtype=float32)
    """
    return nn_ext_ops.softmax(_t(x), axis=axis)


def log_softmax(x, axis=-1):
    return nn_ext_ops.log_softmax(_t(x), axis=axis)


def log_sigmoid(x):
    return nn_ext_ops.log_sigmoid(_t(x))


def hard_tanh(x):
    """x clipped to [-1, 1]."""
    return math_ops.clip_by_value(_t(x), -1.0, 1.0)


def celu(x, alpha=1.0):
    """max(x, 0) + min(0, alpha * (exp(x / alpha) - 1))."""
    x = _t(x)
    a = math_ops.cast(alpha, x.dtype)
    return nn_ops.relu(x) + gen_ops.minimum(gen_ops.zeros_like(x), a * gen_ops.expm1(x / a))


def tanh_shrink(x):
    """x - tanh(x)."""
    x = _t(x)
    return x - gen_ops.tanh(x)


def soft_shrink(x, threshold=0.5):
    """x - threshold above it, x + threshold below -threshold, 0 between."""
    x = _t(x)
    t = math_ops.cast(threshold, x.dtype)
    return gen_ops.select_v2(gen_ops.greater(x, t), x - t, gen_ops.select_v2(gen_ops.less(x, -t), x + t,
                                                                               gen_ops.zeros_like(x)))


def hard_shrink(x, threshold=0.5):
    """x where |x| > threshold, else 0."""
    x = _t(x)
    return gen_ops.select_v2(gen_ops.greater(gen_ops.abs(x), math_ops.cast(threshold, x.dtype)), x,
                             gen_ops.zeros_like(x))


def squareplus(x, b=4):
    """(x + sqrt(x^2 + b)) / 2."""
    x = _t(x)
    return (x + gen_ops.sqrt(gen_ops.square(x) + math_ops.cast(b, x.dtype))) / 2.0


def glu(x, axis=-1):
    """a * sigmoid(b) for the two halves a, b of ``x`` along ``axis``."""
    a, b = split(_t(x), 2, axis=axis)
    return a * gen_ops.sigmoid(b)


def threshold(x, threshold, default_value):
    """x where x > threshold, else ``default_value``."""
    x = _t(x)
    return gen_ops.select_v2(gen_ops.greater(x, math_ops.cast(threshold, x.dtype)), x,
                             gen_ops.zeros_like(x) + math_ops.cast(default_value, x.dtype))


_ALL = {f.__name__: f for f in (log_sigmoid, hard_tanh, celu, tanh_shrink, soft_shrink, hard_shrink, squareplus,
                                glu, linear, relu, relu6, leaky_relu, elu, selu, gelu, silu, sigmoid, hard_sigmoid,
                                hard_silu, tanh, softplus, softsign, exponential, mish, softmax, log_softmax)}
_ALL.update(swish=silu, hard_swish=hard_silu)


def get(identifier):
    """The activation named ``identifier`` (a Keras name), a callable unchanged, None -> linear;
    ValueError for an unknown name.

    >>> tx.keras.activations.get("relu").__name__
    'relu'
    """
    if identifier is None:
        return linear
    if isinstance(identifier, dict):
        identifier = identifier.get("config", {}).get("name", identifier.get("class_name"))
    if isinstance(identifier, str):
        if identifier not in _ALL:
            raise ValueError("Unknown activation %r; tx.keras has: %s" % (identifier, ", ".join(sorted(_ALL))))
        return _ALL[identifier]
    if callable(identifier):
        return identifier
    raise TypeError("Could not interpret activation identifier: %r" % (identifier,))


def serialize(activation):
    """The Keras name of an activation (a string), for configs."""
    name = getattr(activation, "__name__", None)
    if name in _ALL and _ALL[name] is activation:
        return name
    registered = getattr(activation, "_registered_name", None)
    if registered:
        return registered
    if hasattr(activation, "get_config"):
        return serialization.serialize(activation, "activations")
    raise ValueError("activation %r is not a Keras activation: register it with "
                     "@tx.keras.saving.register_keras_serializable() to save it" % (activation,))


def deserialize(config, custom_objects=None):
    if isinstance(config, str) and custom_objects and config in custom_objects:
        return custom_objects[config]
    if isinstance(config, str) and ">" in config:
        return serialization.lookup("activations", config, config, custom_objects)
    return get(config)

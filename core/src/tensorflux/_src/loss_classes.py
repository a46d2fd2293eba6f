"""Keras's loss objects (``tx.losses.MeanSquaredError()``, ...): a per-example loss function plus
a reduction over the batch with optional sample weights, ``__call__(y_true, y_pred,
sample_weight=None)``, and `get` by Keras's names.

Note [Loss reduction]
As Keras 3: the per-example losses are multiplied by the sample weights (broadcast after squeezing
or expanding them to the losses' rank), then "sum_over_batch_size" (the default) divides their sum
by the number of loss values, "sum" sums them, "mean" divides by the sum of the weights, and
"none" returns them. A Keras mask on the predictions (sequence outputs) joins the weights, rescaled
so that "sum_over_batch_size" becomes the mean over the unmasked entries.
"""

import numbers

import numpy as np

from tensorflux._src import losses as fns
from tensorflux._src import math_ops
from tensorflux._src.keras import masking
from tensorflux._src.keras import serialization
from tensorflux._src import array_ops
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import EagerTensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.operation import Tensor, TensorLike
from tensorflux._src.keras.naming import to_snake_case

_REDUCTIONS = ("sum_over_batch_size", "sum", "mean", "none", None)


def _reduce(values, sample_weight, reduction, mask=None):
    if mask is not None:
        mask = math_ops.cast(mask, values.dtype)
        mask = _match_rank(mask, values)
        if reduction in ("sum_over_batch_size", "mean"):
            mask = mask * (math_ops.cast(gen_ops.size(mask), values.dtype) / gen_ops.maximum(
                math_ops.reduce_sum(mask), math_ops.cast(1.0, values.dtype)))
        sample_weight = mask if sample_weight is None else mask * math_ops.cast(
            _match_rank(convert_to_tensor(sample_weight), values), values.dtype)
    if sample_weight is not None:
        sw = math_ops.cast(convert_to_tensor(sample_weight), values.dtype)
        values = values * _match_rank(sw, values)
    if reduction in ("none", None):
        return values
    total = math_ops.reduce_sum(values)
    if reduction == "sum":
        return total
    if reduction == "mean" and sample_weight is not None:
        return total / gen_ops.maximum(math_ops.reduce_sum(gen_ops.broadcast_to(
            math_ops.cast(_match_rank(convert_to_tensor(sample_weight), values), values.dtype),
            gen_ops.shape(values))), math_ops.cast(1e-7, values.dtype))
    return total / math_ops.cast(gen_ops.size(values), values.dtype)


def _match_rank(w, values):
    """``w`` squeezed or expanded (on the last axis) to the rank of ``values``."""
    rw, rv = w.shape.rank, values.shape.rank
    if rw is None or rv is None:
        return w
    while rw > rv and rw > 0:
        w = gen_ops.squeeze(w, [-1])
        rw -= 1
    while rw < rv:
        w = gen_ops.expand_dims(w, -1)
        rw += 1
    return w


class Loss:
    """Base class: ``call(y_true, y_pred)`` returns per-example losses; ``__call__`` reduces them
    (Note [Loss reduction])."""

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        if reduction not in _REDUCTIONS:
            raise ValueError("Invalid value for argument `reduction`. Expected one of %s. Received: reduction=%r"
                             % (list(_REDUCTIONS[:-1]), reduction))
        self.name = name or _snake(type(self).__name__)
        self.reduction = reduction
        self.dtype = dtype

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def __call__(self, y_true, y_pred, sample_weight=None):
        mask = masking.get_mask(y_pred)
        if is_plain_prediction(y_pred):
            y_pred = convert_to_tensor(y_pred)
        values = self.call(y_true, y_pred)
        return _reduce(values, sample_weight, self.reduction, mask)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)


def is_plain_prediction(value) -> bool:
    """True for the predictions losses convert first: tensors, variables, arrays, numbers, lists.
    Other objects (a distribution layer's tensor-coercible output, converted on demand through
    tx.register_tensor_conversion_function) reach the loss function as they are, as in tf.keras,
    so that ``lambda y, d: -d.log_prob(y)`` is a loss."""
    return isinstance(value, (Tensor, EagerTensor, TensorLike, np.ndarray, np.generic, numbers.Number, list, tuple))


def _snake(name):
    return to_snake_case(name)


def match_ranks(a, b):
    """``a`` and ``b`` with ranks made equal as Keras's loss and metric wrappers do: where one has
    rank one more than the other and a last dimension of 1, a rank-1 other gains that axis, else the
    extra axis is squeezed; any other pair is returned as it is (labels [N] against predictions
    [N, 1] compare elementwise instead of broadcasting to [N, N])."""
    ra, rb = a.shape.rank, b.shape.rank
    if ra is None or rb is None or abs(ra - rb) != 1:
        return a, b
    swap = rb > ra
    hi, lo = (b, a) if swap else (a, b)
    if hi.shape[-1] == 1:
        if lo.shape.rank == 1:
            lo = array_ops.expand_dims(lo, -1)
        else:
            hi = array_ops.squeeze(hi, [-1])
    return (lo, hi) if swap else (hi, lo)


class LossFunctionWrapper(Loss):
    """A Loss from a per-example function ``fn(y_true, y_pred, **kwargs)``."""

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, **kwargs):
        super().__init__(name=name or getattr(fn, "__name__", "loss"), reduction=reduction)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        if not is_plain_prediction(y_pred):  # a tensor-coercible object reaches fn as it is
            return self.fn(convert_to_tensor(y_true), y_pred, **self._fn_kwargs)
        y_true, y_pred = match_ranks(convert_to_tensor(y_true), convert_to_tensor(y_pred))
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        return dict(super().get_config(), **self._fn_kwargs)


def _wrapper(class_name, fn, default_name, doc, **defaults):
    def __init__(self, reduction="sum_over_batch_size", name=default_name, dtype=None, **kwargs):
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise TypeError("%s got unexpected arguments %s" % (class_name, sorted(unknown)))
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, **dict(defaults, **kwargs))

    cls = type(class_name, (LossFunctionWrapper,), {"__init__": __init__, "__doc__": doc})
    cls.__module__ = __name__
    return cls


MeanSquaredError = _wrapper("MeanSquaredError", fns.mean_squared_error, "mean_squared_error", """Mean of
    squared errors, reduced over the batch.

    >>> float(tx.losses.MeanSquaredError()(tx.constant([[0.0, 1.0]]), tx.constant([[1.0, 1.0]])))
    0.5
    """)
MeanAbsoluteError = _wrapper("MeanAbsoluteError", fns.mean_absolute_error, "mean_absolute_error",
                             "Mean of absolute errors, reduced over the batch.")
MeanAbsolutePercentageError = _wrapper("MeanAbsolutePercentageError", fns.mean_absolute_percentage_error,
                                       "mean_absolute_percentage_error", "Mean absolute percentage error.")
MeanSquaredLogarithmicError = _wrapper("MeanSquaredLogarithmicError", fns.mean_squared_logarithmic_error,
                                       "mean_squared_logarithmic_error", "Mean squared logarithmic error.")
BinaryCrossentropy = _wrapper("BinaryCrossentropy", fns.binary_crossentropy, "binary_crossentropy", """Binary
    cross-entropy of targets in [0, 1] against probabilities (or logits with ``from_logits=True``).

    >>> round(float(tx.losses.BinaryCrossentropy()(tx.constant([[1.0]]), tx.constant([[0.9]]))), 4)
    0.1054
    """, from_logits=False, label_smoothing=0.0)
CategoricalCrossentropy = _wrapper("CategoricalCrossentropy", fns.categorical_crossentropy,
                                   "categorical_crossentropy", "Cross-entropy of one-hot targets.",
                                   from_logits=False, label_smoothing=0.0, axis=-1)
SparseCategoricalCrossentropy = _wrapper("SparseCategoricalCrossentropy", fns.sparse_categorical_crossentropy,
                                         "sparse_categorical_crossentropy", """Cross-entropy of integer
    class targets.

    >>> loss = tx.losses.SparseCategoricalCrossentropy(from_logits=True)
    >>> round(float(loss(tx.constant([0, 1]), tx.constant([[0.0, 0.0], [0.0, 0.0]]))), 4)
    0.6931
    """, from_logits=False, axis=-1)
Huber = _wrapper("Huber", fns.huber, "huber_loss", "Huber loss.", delta=1.0)
KLDivergence = _wrapper("KLDivergence", fns.kl_divergence, "kl_divergence", "Kullback-Leibler divergence.")
Poisson = _wrapper("Poisson", fns.poisson, "poisson", "Poisson loss.")
Hinge = _wrapper("Hinge", fns.hinge, "hinge", "Hinge loss.")
SquaredHinge = _wrapper("SquaredHinge", fns.squared_hinge, "squared_hinge", "Squared hinge loss.")
CategoricalHinge = _wrapper("CategoricalHinge", fns.categorical_hinge, "categorical_hinge", "Categorical hinge.")
LogCosh = _wrapper("LogCosh", fns.log_cosh, "log_cosh", "Logarithm of the hyperbolic cosine of the error.")
CosineSimilarity = _wrapper("CosineSimilarity", fns.cosine_similarity, "cosine_similarity",
                            "Negative cosine similarity.", axis=-1)

_CLASSES = [MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError, MeanSquaredLogarithmicError,
            BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy, Huber, KLDivergence, Poisson,
            Hinge, SquaredHinge, CategoricalHinge, LogCosh, CosineSimilarity]
_FUNCTIONS = {"mean_squared_error": fns.mean_squared_error, "mse": fns.mean_squared_error,
              "mean_absolute_error": fns.mean_absolute_error, "mae": fns.mean_absolute_error,
              "mean_absolute_percentage_error": fns.mean_absolute_percentage_error,
              "mape": fns.mean_absolute_percentage_error,
              "mean_squared_logarithmic_error": fns.mean_squared_logarithmic_error,
              "msle": fns.mean_squared_logarithmic_error, "binary_crossentropy": fns.binary_crossentropy,
              "categorical_crossentropy": fns.categorical_crossentropy,
              "sparse_categorical_crossentropy": fns.sparse_categorical_crossentropy, "huber": fns.huber,
              "huber_loss": fns.huber, "kl_divergence": fns.kl_divergence, "kld": fns.kl_divergence,
              "kullback_leibler_divergence": fns.kl_divergence, "poisson": fns.poisson, "hinge": fns.hinge,
              "squared_hinge": fns.squared_hinge, "categorical_hinge": fns.categorical_hinge,
              "log_cosh": fns.log_cosh, "logcosh": fns.log_cosh, "cosine_similarity": fns.cosine_similarity}


def get(identifier):
    """A loss from a Keras name (a function for snake_case names, an object for class names), a
    config dict, or a callable (returned as is); ValueError for an unknown name.

    >>> tx.losses.get("mse").__name__
    'mean_squared_error'
    """
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, dict):
        return serialization.deserialize(identifier, "losses")
    if isinstance(identifier, str):
        if identifier in _FUNCTIONS:
            return _FUNCTIONS[identifier]
        for cls in _CLASSES:
            if cls.__name__ == identifier:
                return cls()
        raise ValueError("Could not interpret loss identifier: %r; tx.losses has: %s"
                         % (identifier, ", ".join(sorted(_FUNCTIONS) + [c.__name__ for c in _CLASSES])))
    raise TypeError("Could not interpret loss identifier: %r" % (identifier,))


def serialize(loss):
    """Keras's config of a loss object, or the name of a loss function."""
    if isinstance(loss, Loss):
        return serialization.serialize(loss, "losses")
    name = getattr(loss, "__name__", None)
    if name in _FUNCTIONS and _FUNCTIONS[name] is loss:
        return name
    registered = getattr(loss, "_registered_name", None)
    if registered:
        return registered
    raise ValueError("loss %r cannot be saved: use a tx.losses function or object, or register it with "
                     "@tx.keras.saving.register_keras_serializable()" % (loss,))


def deserialize(config, custom_objects=None):
    if isinstance(config, str):
        if custom_objects and config in custom_objects:
            return custom_objects[config]
        if ">" in config:
            return serialization.lookup("losses", config, config, custom_objects)
        return get(config)
    return serialization.deserialize(config, "losses", custom_objects)


def _register():
    for cls in _CLASSES + [LossFunctionWrapper]:
        serialization._registry.setdefault("losses", {})[cls.__name__] = cls


_register()

"""Keras's accuracy and regression metrics, and `get` by name (the confusion-matrix metrics are in
metrics_confusion.py)."""

from tensorflux._src import losses as loss_fns
from tensorflux._src import math_ops
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import serialization
from tensorflux._src.keras.metrics_base import Mean, MeanMetricWrapper, Metric, Sum, _to_rank
from tensorflux._src.keras.metrics_confusion import (AUC, FalseNegatives, FalsePositives, Precision, Recall,
                                                     TrueNegatives, TruePositives)


def _float(x):
    return math_ops.cast(x, "float32")


def _match(y_true, y_pred):
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    if y_true.shape.rank is not None and y_pred.shape.rank is not None:
        y_true = _to_rank(y_true, y_pred.shape.rank)
    return y_true, y_pred


def accuracy(y_true, y_pred):
    """1.0 where y_true equals y_pred, else 0.0."""
    y_true, y_pred = _match(y_true, y_pred)
    return _float(gen_ops.equal(math_ops.cast(y_true, y_pred.dtype), y_pred))


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """Mean over the last axis of (y_pred > threshold) == y_true.

    >>> tx.keras.metrics.binary_accuracy(tx.constant([[1.0, 0.0]]), tx.constant([[0.7, 0.6]])).numpy()
    array([0.5], dtype=float32)
    """
    y_true, y_pred = _match(y_true, y_pred)
    hit = gen_ops.equal(_float(y_true), _float(gen_ops.greater(y_pred, math_ops.cast(threshold, y_pred.dtype))))
    return math_ops.reduce_mean(_float(hit), axis=-1)


def categorical_accuracy(y_true, y_pred):
    """argmax(y_true) == argmax(y_pred) over the last axis."""
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    return _float(gen_ops.equal(gen_ops.arg_max(y_true, -1), gen_ops.arg_max(y_pred, -1)))


def sparse_categorical_accuracy(y_true, y_pred):
    """y_true == argmax(y_pred) (integer targets; a trailing axis of size 1 is dropped).

    >>> tx.keras.metrics.sparse_categorical_accuracy(tx.constant([1, 0]), tx.constant([[0.2, 0.8], [0.1, 0.9]])).numpy()
    array([1., 0.], dtype=float32)
    """
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    rt, rp = y_true.shape.rank, y_pred.shape.rank
    if rt is not None and rp is not None and rt == rp:
        y_true = gen_ops.squeeze(y_true, [-1])
    pred = gen_ops.arg_max(y_pred, -1)
    return _float(gen_ops.equal(math_ops.cast(y_true, pred.dtype), pred))


def _in_top_k(targets, y_pred, k):
    classes = gen_ops.shape(y_pred)[-1:]
    flat = gen_ops.reshape(y_pred, gen_ops.concat_v2([[-1], classes], 0))
    hit = gen_ops.in_top_kv2(math_ops.cast(flat, "float32"), gen_ops.reshape(math_ops.cast(targets, "int32"), [-1]),
                             math_ops.cast(k, "int32"))
    return gen_ops.reshape(_float(hit), gen_ops.shape(targets))


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """Whether argmax(y_true) is among the k largest predictions."""
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    return _in_top_k(gen_ops.arg_max(y_true, -1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    """Whether the integer target is among the k largest predictions."""
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    if y_true.shape.rank is not None and y_true.shape.rank == y_pred.shape.rank:
        y_true = gen_ops.squeeze(y_true, [-1])
    return _in_top_k(y_true, y_pred, k)


def _wrapper_class(class_name, fn, default_name, doc, **defaults):
    def __init__(self, name=default_name, dtype=None, **kwargs):
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise TypeError("%s got unexpected arguments %s" % (class_name, sorted(unknown)))
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **dict(defaults, **kwargs))

    cls = type(class_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc})
    cls.__module__ = __name__
    serialization.register("metrics")(cls)
    return cls


Accuracy = _wrapper_class("Accuracy", accuracy, "accuracy", "How often predictions equal targets.")
BinaryAccuracy = _wrapper_class("BinaryAccuracy", binary_accuracy, "binary_accuracy",
                                "How often thresholded predictions equal binary targets.", threshold=0.5)
CategoricalAccuracy = _wrapper_class("CategoricalAccuracy", categorical_accuracy, "categorical_accuracy",
                                     "How often the predicted class equals the one-hot target's.")
SparseCategoricalAccuracy = _wrapper_class("SparseCategoricalAccuracy", sparse_categorical_accuracy,
                                           "sparse_categorical_accuracy", """How often the predicted class
    equals the integer target.

    >>> m = tx.keras.metrics.SparseCategoricalAccuracy()
    >>> m.update_state([1, 0], [[0.2, 0.8], [0.1, 0.9]])
    >>> float(m.result())
    0.5
    """)
TopKCategoricalAccuracy = _wrapper_class("TopKCategoricalAccuracy", top_k_categorical_accuracy,
                                         "top_k_categorical_accuracy", "Target class among the top k.", k=5)
SparseTopKCategoricalAccuracy = _wrapper_class("SparseTopKCategoricalAccuracy", sparse_top_k_categorical_accuracy,
                                               "sparse_top_k_categorical_accuracy",
                                               "Integer target among the top k.", k=5)
MeanSquaredError = _wrapper_class("MeanSquaredError", loss_fns.mean_squared_error, "mean_squared_error",
                                  "Mean of squared errors over the examples seen.")
MeanAbsoluteError = _wrapper_class("MeanAbsoluteError", loss_fns.mean_absolute_error, "mean_absolute_error",
                                   "Mean of absolute errors over the examples seen.")
MeanAbsolutePercentageError = _wrapper_class("MeanAbsolutePercentageError", loss_fns.mean_absolute_percentage_error,
                                             "mean_absolute_percentage_error", "Mean absolute percentage error.")
MeanSquaredLogarithmicError = _wrapper_class("MeanSquaredLogarithmicError",
                                             loss_fns.mean_squared_logarithmic_error,
                                             "mean_squared_logarithmic_error", "Mean squared logarithmic error.")
BinaryCrossentropy = _wrapper_class("BinaryCrossentropy", loss_fns.binary_crossentropy, "binary_crossentropy",
                                    "Mean binary cross-entropy.", from_logits=False, label_smoothing=0.0)
CategoricalCrossentropy = _wrapper_class("CategoricalCrossentropy", loss_fns.categorical_crossentropy,
                                         "categorical_crossentropy", "Mean categorical cross-entropy.",
                                         from_logits=False, label_smoothing=0.0, axis=-1)
SparseCategoricalCrossentropy = _wrapper_class("SparseCategoricalCrossentropy",
                                               loss_fns.sparse_categorical_crossentropy,
                                               "sparse_categorical_crossentropy",
                                               "Mean sparse categorical cross-entropy.", from_logits=False, axis=-1)
KLDivergence = _wrapper_class("KLDivergence", loss_fns.kl_divergence, "kl_divergence", "Mean KL divergence.")
Poisson = _wrapper_class("Poisson", loss_fns.poisson, "poisson", "Mean Poisson loss.")
Hinge = _wrapper_class("Hinge", loss_fns.hinge, "hinge", "Mean hinge loss.")
LogCoshError = _wrapper_class("LogCoshError", loss_fns.log_cosh, "logcosh", "Mean log-cosh error.")


def _cosine(y_true, y_pred, axis=-1):
    return -loss_fns.cosine_similarity(y_true, y_pred, axis=axis)


CosineSimilarity = _wrapper_class("CosineSimilarity", _cosine, "cosine_similarity",
                                  "Mean cosine similarity of targets and predictions.", axis=-1)


SquaredHinge = _wrapper_class("SquaredHinge", loss_fns.squared_hinge, "squared_hinge", "Mean squared hinge loss.")
CategoricalHinge = _wrapper_class("CategoricalHinge", loss_fns.categorical_hinge, "categorical_hinge",
                                  "Mean categorical hinge loss.")


@serialization.register("metrics")
class RootMeanSquaredError(Mean):
    """sqrt of the mean squared error over the examples seen."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = _match(y_true, y_pred)
        super().update_state(gen_ops.squared_difference(math_ops.cast(y_true, y_pred.dtype), y_pred), sample_weight)

    def result(self):
        return gen_ops.sqrt(super().result())


mse, mae, mape, msle = (loss_fns.mean_squared_error, loss_fns.mean_absolute_error,
                        loss_fns.mean_absolute_percentage_error, loss_fns.mean_squared_logarithmic_error)
MSE, MAE, MAPE, MSLE = mse, mae, mape, msle
KLD = kld = kullback_leibler_divergence = loss_fns.kl_divergence
binary_crossentropy, categorical_crossentropy = loss_fns.binary_crossentropy, loss_fns.categorical_crossentropy
sparse_categorical_crossentropy = loss_fns.sparse_categorical_crossentropy
hinge, squared_hinge, categorical_hinge = loss_fns.hinge, loss_fns.squared_hinge, loss_fns.categorical_hinge
huber, logcosh, poisson = loss_fns.huber, loss_fns.log_cosh, loss_fns.poisson

_BY_NAME = {
    "accuracy": Accuracy, "acc": Accuracy, "binary_accuracy": BinaryAccuracy,
    "categorical_accuracy": CategoricalAccuracy, "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "top_k_categorical_accuracy": TopKCategoricalAccuracy,
    "sparse_top_k_categorical_accuracy": SparseTopKCategoricalAccuracy, "mse": MeanSquaredError,
    "mean_squared_error": MeanSquaredError, "mae": MeanAbsoluteError, "mean_absolute_error": MeanAbsoluteError,
    "mape": MeanAbsolutePercentageError, "mean_absolute_percentage_error": MeanAbsolutePercentageError,
    "msle": MeanSquaredLogarithmicError, "mean_squared_logarithmic_error": MeanSquaredLogarithmicError,
    "binary_crossentropy": BinaryCrossentropy, "categorical_crossentropy": CategoricalCrossentropy,
    "sparse_categorical_crossentropy": SparseCategoricalCrossentropy, "kl_divergence": KLDivergence,
    "poisson": Poisson, "hinge": Hinge, "logcosh": LogCoshError, "cosine_similarity": CosineSimilarity,
    "root_mean_squared_error": RootMeanSquaredError, "auc": AUC, "precision": Precision, "recall": Recall,
    "squared_hinge": SquaredHinge, "categorical_hinge": CategoricalHinge,
}


def get(identifier):
    """A fresh metric object from a Keras name ("accuracy", "mae", "AUC", ...), a config dict, a
    Metric (returned as is) or a function (wrapped in MeanMetricWrapper); ValueError for an unknown
    name."""
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, dict):
        return serialization.deserialize(identifier, "metrics")
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier) or serialization._registry.get("metrics", {}).get(identifier)
        if cls is None:
            raise ValueError("Could not interpret metric identifier: %r; tx.keras has: %s"
                             % (identifier, ", ".join(sorted(_BY_NAME))))
        return cls(name=identifier) if identifier in _BY_NAME else cls()
    if callable(identifier):
        return MeanMetricWrapper(identifier, name=getattr(identifier, "__name__", None))
    raise TypeError("Could not interpret metric identifier: %r" % (identifier,))


def serialize(metric):
    return serialization.serialize(metric, "metrics")


def deserialize(config, custom_objects=None):
    if isinstance(config, str):
        return get(config)
    return serialization.deserialize(config, "metrics", custom_objects)


__all__ = ["AUC", "Accuracy", "BinaryAccuracy", "BinaryCrossentropy", "CategoricalAccuracy", "CategoricalCrossentropy",
           "CategoricalHinge", "CosineSimilarity", "FalseNegatives", "FalsePositives", "Hinge", "KLD", "KLDivergence",
           "LogCoshError", "MAE", "MAPE", "MSE", "MSLE", "Mean", "MeanAbsoluteError", "MeanAbsolutePercentageError",
           "MeanMetricWrapper", "MeanSquaredError", "MeanSquaredLogarithmicError", "Metric", "Poisson", "Precision",
           "Recall", "RootMeanSquaredError", "SparseCategoricalAccuracy", "SparseCategoricalCrossentropy",
           "SparseTopKCategoricalAccuracy", "SquaredHinge", "Sum", "TopKCategoricalAccuracy", "TrueNegatives",
           "TruePositives", "accuracy", "binary_accuracy", "binary_crossentropy", "categorical_accuracy",
           "categorical_crossentropy", "categorical_hinge", "deserialize", "get", "hinge", "huber", "kld",
           "kullback_leibler_divergence", "logcosh", "mae", "mape", "mse", "msle", "poisson", "serialize",
           "sparse_categorical_accuracy", "sparse_categorical_crossentropy", "sparse_top_k_categorical_accuracy",
           "squared_hinge", "top_k_categorical_accuracy"]

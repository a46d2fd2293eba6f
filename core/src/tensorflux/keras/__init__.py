"""``tx.keras``: Keras 3's high-level API on the Tensorflux engine — layers, Sequential and
functional models, subclassed models, compile/fit/evaluate/predict with callbacks and metrics,
and ``.keras`` saving (docs/keras.md). Code written for ``tf.keras`` runs with ``tx.keras`` in
its place."""

from tensorflux._src.graph import device, name_scope
from tensorflux._src.initializers import Initializer
from tensorflux._src.keras.dtype_policy import DTypePolicy
from tensorflux._src.keras.input_spec import InputSpec
from tensorflux._src.keras.keras_tensor import Input, KerasTensor
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.metrics_base import Metric
from tensorflux._src.keras.regularizers import Regularizer
from tensorflux._src.loss_classes import Loss
from tensorflux._src.optim.optimizer import Optimizer
from tensorflux._src.variables import Variable
from tensorflux._src.keras.model import Model
from tensorflux._src.keras.sequential import Sequential
from tensorflux._src.keras.functional import Functional as _Functional  # noqa: F401 (registers the class)
from tensorflux.keras import (activations, backend, callbacks, constraints, initializers, layers, losses, metrics,
                              mixed_precision, models, optimizers, regularizers, saving, utils)
from tensorflux._src.module_getattr import module_getattr as _module_getattr

FloatDTypePolicy = DTypePolicy


def version():
    """The Keras API version tx.keras follows."""
    return "3.15.1"


__all__ = ["DTypePolicy", "FloatDTypePolicy", "Initializer", "Input", "InputSpec", "KerasTensor", "Layer", "Loss",
           "Metric", "Model", "Optimizer", "Regularizer", "Sequential", "Variable", "device", "name_scope", "version",
           "activations", "backend", "callbacks", "constraints",
           "initializers", "layers", "losses", "metrics", "mixed_precision", "models", "optimizers", "regularizers",
           "saving", "utils"]

__getattr__ = _module_getattr(__name__)

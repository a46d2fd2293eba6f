"""``tx.keras``: Keras 3's high-level API on the Tensorflux engine — layers, Sequential and
functional models, subclassed models, compile/fit/evaluate/predict with callbacks and metrics,
and ``.keras`` saving (docs/keras.md). Code written for ``tf.keras`` runs with ``tx.keras`` in
its place."""

from tensorflux._src.keras.keras_tensor import Input, KerasTensor
from tensorflux._src.keras.model import Model
from tensorflux._src.keras.sequential import Sequential
from tensorflux._src.keras.functional import Functional as _Functional  # noqa: F401 (registers the class)
from tensorflux.keras import (activations, backend, callbacks, constraints, initializers, layers, losses, metrics,
                              mixed_precision, models, optimizers, regularizers, saving, utils)

__all__ = ["Input", "KerasTensor", "Model", "Sequential", "activations", "backend", "callbacks", "constraints",
           "initializers", "layers", "losses", "metrics", "mixed_precision", "models", "optimizers", "regularizers",
           "saving", "utils"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)

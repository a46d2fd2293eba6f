"""Loss functions (``tx.losses.*``), Keras-style: per-example losses."""

from tensorflux._src.losses import (binary_crossentropy, categorical_crossentropy, huber, mean_squared_error, mse,
                                    sparse_categorical_crossentropy)

__all__ = ["binary_crossentropy", "categorical_crossentropy", "huber", "mean_squared_error", "mse",
           "sparse_categorical_crossentropy"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)

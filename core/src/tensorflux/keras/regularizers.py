"""``tx.keras.regularizers``: weight penalties (L1, L2, L1L2, OrthogonalRegularizer)."""

from tensorflux._src.keras.regularizers import (L1, L2, L1L2, OrthogonalRegularizer, Regularizer, deserialize, get,
                                                l1, l1_l2, l2, serialize)
from tensorflux._src.module_getattr import module_getattr as _module_getattr

orthogonal_regularizer = OrthogonalRegularizer

__all__ = ["L1", "L1L2", "L2", "OrthogonalRegularizer", "Regularizer", "deserialize", "get", "l1", "l1_l2", "l2",
           "orthogonal_regularizer", "serialize"]

__getattr__ = _module_getattr(__name__)
